package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/msgkit/msgkit"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
)

// smsStore is what bulk SMS runs on: the gateway's, the transmitter's and
// the dispatcher's stores in one, as memstore's and pgstore's SMS stores
// are.
type smsStore interface {
	sms.Store
	sms.AccountStore
	sms.LedgerStore
	sms.TraceStore
	sms.TransmitterStore
	sms.OutboxStore
	sms.RetentionStore
	simnet.HeldParts
}

// bulkSMSOptions configure the bulk SMS family; the server fills them from
// its flags, the end-to-end tests with a manual clock and fast backoff.
type bulkSMSOptions struct {
	Logger      *slog.Logger
	Gateway     sms.GatewayOptions
	Network     simnet.Options
	Transmitter sms.TransmitterOptions
	Dispatcher  sms.DispatcherOptions
	Retention   sms.RetentionOptions
	Poster      egress.ReportPosterOptions
	// AcceptOnly leaves sending and reporting to other replicas sharing
	// the store: this one accepts, charges and queues, and runs none of
	// the jobs.
	AcceptOnly bool
	// SMPP, when set, is the network instead of the simulated one: an
	// SMSC connection, and the store of the parts it took.
	SMPP      *smpp.Config
	SMPPStore smpp.Store
	// Inbound keeps the messages from phones (the SMSC's deliver_sm that
	// are no receipts, the simulated network's Originate), which the
	// inbound routing records in Routes route; nil with Routes: none are
	// taken (an SMSC is refused them for now, so it keeps them).
	Inbound inbound.Store
	Routes  routing.Store
	// InboundOptions tune the router (tests: a clock, short waits).
	InboundOptions inbound.RouterOptions
	// Audit records the administration of accounts and their credit; nil
	// records none.
	Audit sms.Auditor
	// Metrics is where the family's parts register their metrics; nil:
	// none.
	Metrics prometheus.Registerer
	// HTTPMetrics measure the bulk SMS listeners' requests, with the REST
	// families' (one per registry); nil: none.
	HTTPMetrics *httpapi.Metrics
}

// retentionEvery is how often finished messages past their keep time are
// removed: each run removes all there are, a batch per transaction, so a
// minute's worth is little work and the tables stay near their steady
// size.
const retentionEvery = time.Minute

// smppKeep is how long the record of a part an SMSC took is kept for its
// receipts.
const smppKeep = 7 * 24 * time.Hour

// purger is a store of taken parts that forgets those too old for
// receipts to come.
type purger interface {
	PurgeSubmitted(ctx context.Context, before time.Time) (int64, error)
}

// The SMPP client hands its status events to the gateway in batches: one
// transaction for many events, not one each.
var _ sms.StatusBatchSink = (*sms.Gateway)(nil)

// bulkSMS is the bulk SMS family: a gateway that accepts and queues
// parts, a transmitter that hands them to the simulated network, which
// reports back to the gateway, and a dispatcher of delivery reports.
type bulkSMS struct {
	store       smsStore
	gateway     *sms.Gateway
	accounts    *sms.Accounts   // their administration, bootstrap and demo
	credit      *sms.Credit     // their credit ledger
	network     *simnet.Network // nil with an SMSC
	smsc        *smpp.Client    // nil on the simulated network
	inbound     *inbound.Router // nil without Options.Inbound
	smscStore   smpp.Store
	transmitter *sms.Transmitter
	dispatcher  *sms.Dispatcher
	reports     *sms.ReportRouter     // the dispatcher's poster
	forget      func(context.Context) // the retention of finished messages, a job
	logger      *slog.Logger
	httpMetrics *httpapi.Metrics
	acceptOnly  bool
}

func newBulkSMS(store smsStore, o bulkSMSOptions) *bulkSMS {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Gateway.Logger, o.Network.Logger, o.Transmitter.Logger, o.Dispatcher.Logger = o.Logger, o.Logger, o.Logger, o.Logger
	o.Gateway.Metrics, o.Transmitter.Metrics, o.Dispatcher.Metrics = o.Metrics, o.Metrics, o.Metrics
	accounts := sms.NewAccounts(store, sms.AccountsOptions{Clock: o.Gateway.Clock, Logger: o.Logger, BcryptCost: o.Gateway.BcryptCost, Audit: o.Audit})
	var router *inbound.Router
	var mo sms.InboundSink // nil: the SMSC keeps its messages from phones
	if o.Inbound != nil && o.Routes != nil {
		ro := o.InboundOptions
		ro.Routes, ro.Accounts, ro.Logger, ro.Metrics = routing.New(o.Routes), accounts, o.Logger, o.Metrics
		if ro.Clock == nil {
			ro.Clock = o.Gateway.Clock
		}
		router = inbound.NewRouter(o.Inbound, ro)
		mo = router
	}
	var upstream sms.Upstream
	var network *simnet.Network
	var smsc *smpp.Client
	if o.SMPP != nil {
		smsc = smpp.New(*o.SMPP, smpp.Options{Store: o.SMPPStore, Logger: o.Logger, Clock: o.Gateway.Clock, Metrics: o.Metrics, Inbound: mo})
		upstream = smsc
		// Parts split for the header the connection gives them.
		o.Gateway.RefWidth = o.SMPP.RefWidth()
		// A round waits for the SMSC's answers and the stores: more of
		// them at once keep the binds' windows full.
		o.Transmitter.MaxInFlight = cmp.Or(o.Transmitter.MaxInFlight, 1024)
	} else {
		network = simnet.New(o.Network)
		upstream = network
	}
	transmitter := sms.NewTransmitter(store, upstream, o.Transmitter)
	// Reports to ESMEs' binds go through the SMPP server, once there is
	// one (newPlatform sets it).
	reports := &sms.ReportRouter{HTTP: egress.NewReportPoster(o.Poster)}
	dispatcher := sms.NewDispatcher(store, reports, o.Dispatcher)
	if !o.AcceptOnly {
		o.Gateway.Transmitter = transmitter // the gateway hands its parts over in memory
		o.Gateway.Dispatcher = dispatcher   // and the reports of the network's events
	}
	return &bulkSMS{
		store:       store,
		gateway:     sms.NewGateway(store, o.Gateway),
		accounts:    accounts,
		inbound:     router,
		credit:      sms.NewCredit(store, sms.CreditOptions{Clock: o.Gateway.Clock, Audit: o.Audit}),
		network:     network,
		smsc:        smsc,
		smscStore:   o.SMPPStore,
		transmitter: transmitter,
		dispatcher:  dispatcher,
		reports:     reports,
		forget:      every(retentionEvery, "forgetting finished messages", o.Logger, sms.NewRetention(store, o.Retention).ForgetDue),
		logger:      o.Logger,
		httpMetrics: o.HTTPMetrics,
		acceptOnly:  o.AcceptOnly,
	}
}

// family is POST /bulk/sendsms on the bulk SMS listeners; the transmitter
// (from the outbound queue to the network), the network's event loop
// (reporting to the gateway), the dispatcher, validity expiry and the
// retention of finished messages as jobs;
// the bootstrap section smsAccounts; a demo account. An accept-only
// replica runs no job.
func (b *bulkSMS) family() family {
	f := family{
		name: "bulk SMS",
		sms:  map[string]http.Handler{bulksmsapi.SendSMSPath: bulksmsapi.Handler(b.gateway, bulksmsapi.Options{Logger: b.logger, Metrics: b.httpMetrics})},
		docs: []apiDoc{{"bulksms", bulksmsapi.OpenAPI(), bulkServers}},
		jobs: []func(context.Context){
			b.transmitter.Run,
			b.dispatcher.Run,
			every(10*time.Second, "expiring parts", b.logger, b.gateway.ExpireDue),
			b.forget,
		},
		sections: []section{{"smsAccounts", func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error) {
			return applyEach("smsAccounts", raw, func(a bootstrapSMSAccount) error { return b.createAccount(ctx, a, secret) })
		}}},
		demo: b.demo,
	}
	if b.smsc != nil {
		// The client reports to the gateway, which is made after it.
		f.jobs = append(f.jobs, func(ctx context.Context) { b.smsc.Run(ctx, b.gateway) })
		if p, ok := b.smscStore.(purger); ok {
			// A receipt comes within the part's validity or not at all;
			// smppKeep outlasts any validity an account sensibly has.
			f.jobs = append(f.jobs, every(time.Hour, "forgetting old SMPP submissions", b.logger, func(ctx context.Context) (int, error) {
				n, err := p.PurgeSubmitted(ctx, time.Now().Add(-smppKeep))
				return int(n), err
			}))
		}
	} else {
		f.jobs = append(f.jobs, b.runNetwork)
	}
	if b.inbound != nil {
		// Long messages from phones missing parts are kept after the
		// wait.
		f.jobs = append(f.jobs, b.inbound.Run)
	}
	if b.acceptOnly {
		f.jobs = nil
	}
	return f
}

// runNetwork runs the simulated network's event loop, after planning
// again the parts it held before a restart (simnet.Network.Restore): a
// simulator's pending events die with its process. Every replica of a
// shared store restores them all; the gateway ignores the events it has
// seen, so a part is reported on once more at most.
func (b *bulkSMS) runNetwork(ctx context.Context) {
	switch n, err := b.network.Restore(ctx, b.store); {
	case err != nil:
		b.logger.WarnContext(ctx, "restoring the simulated network", "err", err)
	case n > 0:
		b.logger.InfoContext(ctx, "the simulated network planned again the parts it held", "parts", n)
	}
	b.network.Run(ctx, b.gateway, 100*time.Millisecond)
}

// bootstrapSMSAccount is a bulk SMS account of the bootstrap file.
type bootstrapSMSAccount struct {
	Username     string              `json:"username"`
	Password     string              `json:"password"`
	PasswordHash string              `json:"passwordHash"`
	PasswordEnv  string              `json:"passwordEnv"`
	Networks     []string            `json:"networks"`
	Balance      decimal.Decimal     `json:"balance"`
	CreditLimit  decimal.Decimal     `json:"creditLimit"` // postpaid: the balance may go down to -creditLimit
	Currency     string              `json:"currency"`
	Validity     string              `json:"validity"` // a Go duration, e.g. "24h"
	Throughput   int                 `json:"throughput"`
	MaxParts     int                 `json:"maxParts"`
	Blacklist    map[string][]string `json:"blacklistedSenderWords"`
	Prices       map[string]string   `json:"prices"`     // prefix -> price of one part
	Tenant       string              `json:"tenant"`     // the serviceUuid it belongs to; "" none
	InboundURL   string              `json:"inboundUrl"` // where messages from phones routed to it by smpp_connect_id are posted
}

func (b *bulkSMS) createAccount(ctx context.Context, a bootstrapSMSAccount, secret secretSource) error {
	p, err := secret.get(a.Password, a.PasswordEnv)
	if err != nil {
		return err
	}
	nets, err := prefixes(a.Networks)
	if err != nil {
		return err
	}
	var validity time.Duration
	if a.Validity != "" {
		if validity, err = time.ParseDuration(a.Validity); err != nil || validity <= 0 {
			return fmt.Errorf("validity %q is not a positive duration", a.Validity)
		}
	}
	prices := make([]sms.Price, 0, len(a.Prices))
	for prefix, v := range a.Prices {
		d, err := decimal.NewFromString(v)
		if err != nil {
			return fmt.Errorf("price of %s: %q is not a decimal", prefix, v)
		}
		prices = append(prices, sms.Price{Prefix: prefix, Price: d})
	}
	slices.SortFunc(prices, func(a, b sms.Price) int { return strings.Compare(a.Prefix, b.Prefix) })
	_, err = b.accounts.Create(ctx, sms.AccountSpec{Password: p, Account: sms.Account{
		Username: a.Username, PasswordHash: a.PasswordHash, Networks: nets, Enabled: true, Tenant: msgkit.ServiceUUID(a.Tenant),
		Balance: a.Balance, CreditLimit: a.CreditLimit, Currency: a.Currency, Validity: validity, Throughput: a.Throughput,
		MaxParts: a.MaxParts, BlacklistedSenderWords: a.Blacklist, Prices: prices, InboundURL: a.InboundURL,
	}})
	return err
}

// demo creates an account with 100 EUR and the demo price list, and one
// for load tests (examples/smsload) with credit for millions of messages
// and no throughput limit, both usable from this machine.
func (b *bulkSMS) demo(ctx context.Context, d *demoCredentials) error {
	d.SMSUser, d.SMSPassword = "demo-sms-"+uuid.NewString()[:8], uuid.NewString()
	if _, err := b.accounts.Create(ctx, sms.AccountSpec{Password: d.SMSPassword, Account: sms.Account{
		Username: d.SMSUser, Networks: demoNetworks(), Enabled: true, Currency: "EUR", Tenant: d.Service,
		Balance: decimal.RequireFromString("100"), Throughput: 1000, Prices: demoPrices(),
	}}); err != nil {
		return fmt.Errorf("demo bulk SMS account: %w", err)
	}
	d.LoadUser, d.LoadPassword = "demo-load-"+uuid.NewString()[:8], uuid.NewString()
	if _, err := b.accounts.Create(ctx, sms.AccountSpec{Password: d.LoadPassword, Account: sms.Account{
		Username: d.LoadUser, Networks: demoNetworks(), Enabled: true, Currency: "EUR", Tenant: d.Service,
		Balance: decimal.RequireFromString("1000000"), Prices: demoPrices(),
	}}); err != nil {
		return fmt.Errorf("demo load test account: %w", err)
	}
	return nil
}

// demoPrices is the demo account's price list (EUR per physical SMS).
func demoPrices() []sms.Price {
	return []sms.Price{
		{Prefix: "1", Price: decimal.RequireFromString("0.0100")},
		{Prefix: "386", Price: decimal.RequireFromString("0.0350")},
		{Prefix: "38640", Price: decimal.RequireFromString("0.0300")},
		{Prefix: "44", Price: decimal.RequireFromString("0.0400")},
		{Prefix: "49", Price: decimal.RequireFromString("0.0750")},
	}
}

// demoNetwork is the simulated network of the server: most numbers are
// delivered a second after submission; German numbers starting 4915 are
// absent twice first, 4917 numbers do not exist, 4916 numbers never
// answer (validity expiry reports them), and the network refuses 4918
// numbers at hand-over (no route).
func demoNetwork() simnet.Options {
	return simnet.Options{
		Seed:    uint64(time.Now().UnixNano()),
		Default: simnet.Outcome{Kind: simnet.Deliver, AcceptDelay: 100 * time.Millisecond, Delay: time.Second},
		Rules: []simnet.Rule{
			{Prefix: "4915", Outcome: simnet.Outcome{Kind: simnet.Absent, AcceptDelay: 100 * time.Millisecond, Delay: time.Second, Attempts: 2, RetryEvery: 5 * time.Second}},
			{Prefix: "4916", Outcome: simnet.Outcome{Kind: simnet.Silent, AcceptDelay: 100 * time.Millisecond}},
			{Prefix: "4917", Outcome: simnet.Outcome{Kind: simnet.Unknown, AcceptDelay: 100 * time.Millisecond, Delay: time.Second}},
			{Prefix: "4918", Outcome: simnet.Outcome{Kind: simnet.Refuse, ErrorCode: sms.DLRNoRoute}},
		},
	}
}
