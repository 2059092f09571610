// Command server runs the whole msgkit platform in one process:
//
//	go run ./examples/server                      # in-memory store, demo credentials
//	go run ./examples/server -store postgres -pg postgres://…/msgkit
//	go run ./examples/server -bootstrap clients.json
//
// REST families and the token endpoint listen on -addr (default :8080), bulk
// SMS on -sms-http (:12020) and, with -tls-cert and -tls-key, -sms-https
// (:12021). The demo prints live secrets, so with it the addresses left to
// their defaults are on loopback (127.0.0.1:8080, ...): only this machine
// reaches them, and an -addr (or MSGKIT_ADDR) given binds where it says.
// GET /healthz answers while the process lives and GET /readyz
// while the store answers. GET /openapi/ on the REST listener lists the
// families' OpenAPI documents, GET /openapi/{family}.json serves one with
// the addresses this server listens on. SIGINT or SIGTERM stops accepting connections,
// lets requests in flight finish, then exits.
//
// Servers sharing a PostgreSQL store divide the campaigns' runs: a run is
// held under a lease (-campaign-lease) that another server takes over when
// its holder dies, and each server paces each tenant's campaigns: at the
// rate the bootstrap section campaignRates gives the tenant, else at its
// payer account's throughput, else at -campaign-rate (0 or unpaced: as
// fast as they go).
//
// Finished bulk SMS messages (no part open, no report pending) are
// removed with their parts and reports once -keep-finished-for has passed
// since they finished: an hour on the memory store, 30 days on
// PostgreSQL by default, by a job every sending server runs each minute.
//
// Prometheus metrics are served at GET /metrics on -metrics (default
// 127.0.0.1:9464, loopback; empty: off), a listener of their own, with Go's
// profiles under /debug/pprof/ when -metrics-pprof is true. -version
// prints the build and GET /version answers it. -log-format json writes
// one JSON object a line; every line logged while a request is served
// names its request_id.
//
// Every flag has an environment fallback named after it: -sms-http is
// MSGKIT_SMS_HTTP, -pg is MSGKIT_PG, and so on; -h lists them.
//
// The garbage collector runs when the heap has grown by 400% since the
// last collection (Go's GOGC; Go's own default is 100), unless GOGC is
// set in the environment: a busy gateway allocates per request and per
// report, and at 100 the collector took about an eighth of the server's
// CPU under load. The heap then peaks at about five times what is live;
// GOMEMLIMIT caps it where memory is short.
//
// Without -bootstrap the server creates demo credentials and prints them:
// on the memory store at every start; on PostgreSQL once, at the first
// start on an empty database (the demo client "msgkit-demo" marks it), and
// on later starts it says how to get credentials instead, since only the
// secrets' hashes are kept. -bootstrap FILE creates clients, users, API
// keys and bulk SMS accounts from a JSON file; bootstrap.example.json
// beside this file shows every section and field (see bootstrap.go).
//
// Delivery reports go to the customers' dlrUrl, campaign webhooks to
// their URL and the UI proxy's calls to customer APIs, all through one
// guarded dialer (package adapters/egress): loopback, private,
// link-local, CGNAT, multicast and the other special-purpose ranges are
// refused, whatever the URL's spelling and whatever DNS answers. -dlr-allow lets ranges
// through (default auto: loopback with -demo, so the demo's reports reach
// it and the demo's UI components reach the mock operations, nothing
// otherwise); -dlr-forbid adds ranges, and wins over -dlr-allow.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

// gcPercent is the server's GOGC when the environment sets none; see the
// package doc.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	}
	if cfg.version {
		printVersion(os.Stdout, httpapi.ReadVersion())
		return
	}
	logger := newLogger(os.Stderr, cfg)
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "server: -cpuprofile:", err)
			os.Exit(2)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, logger, os.Stdout, nil); err != nil {
		logger.Error("server stopped", "err", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

type config struct {
	addr, smsHTTP, smsHTTPS string
	defaultAddrs            listenDefaults // the listen addresses no flag or environment variable gave
	tlsCert, tlsKey         string
	store, pgDSN, pgSchema  string
	bootstrap               string
	demo                    bool
	smsSend                 bool // false: accept and queue bulk SMS only
	demoIntoEmpty           bool // -demo auto: on PostgreSQL, only into an empty database
	dlrAuto                 bool // -dlr-allow auto: loopback when the demo runs
	logLevel                slog.Level
	getenv                  func(string) string             // secrets named by the bootstrap file
	bcryptCost              int                             // 0: auth's default; tests lower it
	wrap                    func(http.Handler) http.Handler // tests watch requests enter the handlers
	dlr                     egress.Policy                   // where delivery reports may go
	mem                     memstore.Options                // the memory store's retention
	keepFinishedFor         time.Duration                   // how long a finished bulk SMS message is kept, on either store
	filesDir                string                          // invoice files; "": PostgreSQL, or a temporary directory
	testTimeLimit           time.Duration                   // how long a test message has to reach its handset
	campaignWebhook         string                          // where campaigns of channels other than sms are posted; "": nowhere
	smpp                    *smpp.Config                    // the SMSC bulk SMS goes to; nil: the simulated network
	smppServer              string                          // listen address of the SMPP server for ESMEs; "": none
	smppServerTLS           bool                            // the SMPP server's connections in TLS, with -tls-cert and -tls-key
	cpuProfile              string                          // where to write a CPU profile of the whole run; "": none
	campaignLease           time.Duration                   // how long a campaign runner holds a task between store steps; 0: the runner's default
	campaignRate            float64                         // messages a second of a tenant's campaigns, per server, when its payer has no throughput; 0: unpaced
	smsLease                time.Duration                   // how long the transmitter holds the parts it claims; a third of it bounds a hand-over
	metrics                 string                          // listen address of /metrics; "": none
	pprof                   bool                            // net/http/pprof on the metrics listener
	logJSON                 bool                            // -log-format json
	version                 bool                            // -version: print the build and exit
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(flagName, def string) string {
		if v := getenv(envName(flagName)); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := config{getenv: getenv}
	var demo, level string
	fs.StringVar(&c.addr, "addr", env("addr", ":8080"), "listen address of the REST APIs and the token endpoint (the demo binds the default on loopback, 127.0.0.1:8080)")
	fs.StringVar(&c.smsHTTP, "sms-http", env("sms-http", ":12020"), "listen address of bulk SMS over HTTP (the demo binds the default on loopback, 127.0.0.1:12020)")
	fs.StringVar(&c.smsHTTPS, "sms-https", env("sms-https", ":12021"), "listen address of bulk SMS over HTTPS, which needs -tls-cert and -tls-key (the demo binds the default on loopback, 127.0.0.1:12021)")
	fs.StringVar(&c.tlsCert, "tls-cert", env("tls-cert", ""), "TLS certificate file (PEM) for bulk SMS over HTTPS")
	fs.StringVar(&c.tlsKey, "tls-key", env("tls-key", ""), "TLS key file (PEM) for bulk SMS over HTTPS")
	fs.StringVar(&c.store, "store", env("store", "memory"), "store: memory or postgres")
	fs.StringVar(&c.pgDSN, "pg", env("pg", ""), "PostgreSQL DSN for -store postgres")
	fs.StringVar(&c.pgSchema, "pg-schema", env("pg-schema", ""), "PostgreSQL schema to keep msgkit's tables in (default: the DSN's search_path)")
	fs.StringVar(&c.filesDir, "files-dir", env("files-dir", ""), "directory to keep uploaded invoice files in (default: in PostgreSQL with -store postgres, a temporary directory removed at exit with -store memory)")
	fs.StringVar(&c.bootstrap, "bootstrap", env("bootstrap", ""), "JSON file of clients, users, API keys, bulk SMS accounts, test system and finance reference data to create (see examples/server/bootstrap.example.json)")
	var allow, forbid string
	fs.StringVar(&allow, "dlr-allow", env("dlr-allow", "auto"), "address ranges delivery reports, campaign webhooks and UI proxy calls to customer APIs may go to although loopback, private or otherwise special: auto (loopback with -demo, none otherwise), none, or comma-separated ranges such as 127.0.0.0/8,::1/128")
	fs.StringVar(&forbid, "dlr-forbid", env("dlr-forbid", ""), "comma-separated address ranges outward calls (delivery reports, webhooks, UI proxy) must not go to on top of the special ones (e.g. your public networks); wins over -dlr-allow")
	fs.StringVar(&demo, "demo", env("demo", "auto"), "create and print demo credentials: auto (without -bootstrap; on PostgreSQL only into an empty database), true or false")
	fs.StringVar(&level, "log-level", env("log-level", "info"), "log level: debug, info, warn or error")
	var send string
	fs.StringVar(&send, "sms-send", env("sms-send", "true"), "true: this server sends the bulk SMS it queues and delivers their reports; false: it only accepts, charges and queues them, for other servers sharing its PostgreSQL store to send (needs -store postgres)")
	var keep, keepFor, memKeepFor, testLimit, campaignLease, campaignRate, smsLease string
	fs.StringVar(&smsLease, "sms-lease", env("sms-lease", "30s"), "how long this server's bulk SMS transmitter holds the parts it takes from the queue; a third of it bounds one hand-over to the network, and a server that dies leaves its parts to another sharing the store once it ends (a Go duration, at least 3s)")
	fs.StringVar(&campaignLease, "campaign-lease", env("campaign-lease", time.Minute.String()), "how long a campaign runner holds a running campaign between its store steps; a server that dies mid-run leaves the run to another sharing the store once it ends (a Go duration)")
	fs.StringVar(&campaignRate, "campaign-rate", env("campaign-rate", "200"), "messages a second each tenant's campaigns are sent at, at most, by one server, when neither the bootstrap's campaignRates nor the throughput of the tenant's payer account says; 0 or unpaced: as fast as they go")
	fs.StringVar(&c.campaignWebhook, "campaign-webhook", env("campaign-webhook", ""), "URL the messages of campaigns of channels other than sms are posted to, one JSON body each (campaign.WebhookMessage); without it their messages fail")
	fs.StringVar(&c.cpuProfile, "cpuprofile", env("cpuprofile", ""), "write a CPU profile of the run to this file when the server stops (for go tool pprof)")
	fs.StringVar(&c.metrics, "metrics", env("metrics", defaultMetricsAddr), "listen address of Prometheus metrics (GET /metrics), apart from the APIs; empty: off")
	var pprofOn, logFormat string
	fs.StringVar(&pprofOn, "metrics-pprof", env("metrics-pprof", "false"), "true: serve net/http/pprof's profiles under /debug/pprof/ on the -metrics listener")
	fs.StringVar(&logFormat, "log-format", env("log-format", "text"), "log format: text (key=value) or json (one object a line)")
	fs.BoolVar(&c.version, "version", false, "print the build's version and exit")
	var smppPath string
	fs.StringVar(&smppPath, "smpp", env("smpp", ""), "JSON file of an SMSC connection (SMPP 3.4) that bulk SMS goes to instead of the simulated network (see examples/server/smpp.example.json)")
	var smppTLS string
	fs.StringVar(&c.smppServer, "smpp-server", env("smpp-server", ""), "listen address of the SMPP 3.4 server for customers' ESMEs, which bind with bulk SMS accounts (e.g. 127.0.0.1:2775), at most 10 binds per account on each replica (counted per process); empty: off")
	fs.StringVar(&smppTLS, "smpp-server-tls", env("smpp-server-tls", "false"), "true: the -smpp-server listener speaks TLS with -tls-cert and -tls-key")
	fs.StringVar(&testLimit, "test-time-limit", env("test-time-limit", "30s"), "how long a test system message has to reach its simulated handset before it is judged (a Go duration)")
	fs.StringVar(&keep, "mem-keep-finished", env("mem-keep-finished", strconv.Itoa(memstore.DefaultKeepFinished)), "finished messages the memory store keeps (the oldest leave first); 0 keeps none")
	fs.StringVar(&keepFor, "keep-finished-for", env("keep-finished-for", ""), "how long a finished bulk SMS message (every part delivered or failed, no report left to deliver) is kept after its last part's update, then removed with its parts and reports (a Go duration; default "+memstore.DefaultKeepFinishedFor.String()+" on the memory store, "+sms.DefaultKeepFinishedFor.String()+" on PostgreSQL)")
	fs.StringVar(&memKeepFor, "mem-keep-finished-for", env("mem-keep-finished-for", ""), "an alias of -keep-finished-for, from when only the memory store removed finished messages")
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "version" {
			f.Usage += " (env " + envName(f.Name) + ")"
		}
	})
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	given := func(name string) bool {
		set := getenv(envName(name)) != ""
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
		return set
	}
	c.defaultAddrs = listenDefaults{addr: !given("addr"), smsHTTP: !given("sms-http"), smsHTTPS: !given("sms-https")}
	n, err := strconv.Atoi(keep)
	if err != nil || n < 0 {
		return c, fmt.Errorf("-mem-keep-finished must be a number of messages, not %q", keep)
	}
	c.mem.KeepFinished = cmp.Or(n, -1) // memstore's 0 is its default
	if c.testTimeLimit, err = time.ParseDuration(testLimit); err != nil || c.testTimeLimit <= 0 {
		return c, fmt.Errorf("-test-time-limit must be a positive duration, not %q", testLimit)
	}
	if smppPath != "" {
		if c.smpp, err = loadSMPP(smppPath, getenv); err != nil {
			return c, err
		}
	}
	if c.campaignLease, c.campaignRate, err = campaignPace(campaignLease, campaignRate); err != nil {
		return c, err
	}
	if c.smsLease, err = time.ParseDuration(smsLease); err != nil || c.smsLease < 3*time.Second {
		return c, fmt.Errorf("-sms-lease must be a duration of at least 3s, not %q", smsLease)
	}
	switch c.store {
	case "memory":
	case "postgres":
		if c.pgDSN == "" {
			return c, errors.New("-store postgres needs -pg or MSGKIT_PG")
		}
	default:
		return c, fmt.Errorf("-store must be memory or postgres, not %q", c.store)
	}
	if c.keepFinishedFor, err = keepFinished(c.store, keepFor, memKeepFor); err != nil {
		return c, err
	}
	if c.store == "memory" {
		c.mem.KeepFinishedFor = c.keepFinishedFor
	}
	switch send {
	case "true", "false":
		c.smsSend = send == "true"
	default:
		return c, fmt.Errorf("-sms-send must be true or false, not %q", send)
	}
	if !c.smsSend && c.store != "postgres" {
		return c, errors.New("-sms-send false needs -store postgres: another server must share the queue and send what this one accepts")
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return c, errors.New("-tls-cert and -tls-key go together")
	}
	if c.smppServerTLS, err = smppServerTLS(smppTLS, c.smppServer, c.tlsCert); err != nil {
		return c, err
	}
	switch demo {
	case "auto":
		c.demo, c.demoIntoEmpty = c.bootstrap == "", true
	case "true", "false":
		c.demo = demo == "true"
	default:
		return c, fmt.Errorf("-demo must be auto, true or false, not %q", demo)
	}
	switch allow {
	case "auto":
		c.dlrAuto = true
		if c.demo {
			c.dlr.Allow = loopback()
		}
	case "none":
	default:
		if c.dlr.Allow, err = rangeList("-dlr-allow", allow); err != nil {
			return c, err
		}
	}
	if c.dlr.Forbid, err = rangeList("-dlr-forbid", forbid); err != nil {
		return c, err
	}
	if err := c.logLevel.UnmarshalText([]byte(level)); err != nil {
		return c, fmt.Errorf("-log-level: %w", err)
	}
	switch logFormat {
	case "text", "json":
		c.logJSON = logFormat == "json"
	default:
		return c, fmt.Errorf("-log-format must be text or json, not %q", logFormat)
	}
	switch pprofOn {
	case "true", "false":
		c.pprof = pprofOn == "true"
	default:
		return c, fmt.Errorf("-metrics-pprof must be true or false, not %q", pprofOn)
	}
	if c.pprof && c.metrics == "" {
		return c, errors.New("-metrics-pprof needs the -metrics listener")
	}
	return c, nil
}

// newLogger is the server's logger, in -log-format at -log-level: every
// line logged while a request is served names its request id
// (httpapi.LogHandler).
func newLogger(w io.Writer, cfg config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.logJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(httpapi.LogHandler(h))
}

// printVersion writes what -version prints: the build information, one
// line.
func printVersion(w io.Writer, v httpapi.Version) {
	rev := v.Revision
	if rev == "" {
		rev = "unknown"
	} else if v.Modified {
		rev += " (modified)"
	}
	fmt.Fprintf(w, "msgkit server %s (msgkit %s, commit %s, %s)\n", v.Version, v.Msgkit, rev, v.GoVersion)
}

// keepFinished reads -keep-finished-for and its alias
// -mem-keep-finished-for (which must agree when both are given); neither
// is the store's default: an hour in memory, which bounds the heap under
// load, and 30 days on PostgreSQL, as long as customers look messages up.
func keepFinished(store, keepFor, alias string) (time.Duration, error) {
	name := "-keep-finished-for"
	switch {
	case keepFor != "" && alias != "" && keepFor != alias:
		return 0, fmt.Errorf("-keep-finished-for %q and its alias -mem-keep-finished-for %q disagree", keepFor, alias)
	case keepFor == "" && alias != "":
		keepFor, name = alias, "-mem-keep-finished-for"
	case keepFor == "" && store == "postgres":
		return sms.DefaultKeepFinishedFor, nil
	case keepFor == "":
		return memstore.DefaultKeepFinishedFor, nil
	}
	d, err := time.ParseDuration(keepFor)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration, not %q", name, keepFor)
	}
	return d, nil
}

// campaignPace reads -campaign-lease and -campaign-rate: a rate of 0 or
// "unpaced" is 0, no pacing. Whatever a tenant's pace, the runner records
// what it hands over, renewing its lease, every half lease at the latest,
// so the two need no check against each other.
func campaignPace(leaseFlag, rateFlag string) (time.Duration, float64, error) {
	lease, err := time.ParseDuration(leaseFlag)
	if err != nil || lease <= 0 {
		return 0, 0, fmt.Errorf("-campaign-lease must be a positive duration, not %q", leaseFlag)
	}
	if rateFlag == "unpaced" {
		return lease, 0, nil
	}
	perSecond, err := strconv.ParseFloat(rateFlag, 64)
	if err != nil || !(perSecond >= 0) || math.IsInf(perSecond, 1) {
		return 0, 0, fmt.Errorf("-campaign-rate must be a number of messages a second, or 0 or unpaced for none, not %q", rateFlag)
	}
	return lease, perSecond, nil
}

// rangeList reads a flag's comma-separated addresses and ranges.
func rangeList(flag, list string) ([]netip.Prefix, error) {
	var items []string
	for item := range strings.SplitSeq(list, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	out, err := prefixes(items)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return out, nil
}

// loopback is what the demo lets delivery reports go to.
func loopback() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// listenDefaults says which listen addresses were left to their
// defaults.
type listenDefaults struct{ addr, smsHTTP, smsHTTPS bool }

// demoListeners is c with the listen addresses left to their defaults on
// loopback when the demo runs: it prints live secrets (the test system
// user's password and the routing API key work from any address), so it
// is not served to the network unless an address is asked for.
func (c config) demoListeners() config {
	if !c.demo {
		return c
	}
	for _, l := range []struct {
		dflt bool
		addr *string
	}{{c.defaultAddrs.addr, &c.addr}, {c.defaultAddrs.smsHTTP, &c.smsHTTP}, {c.defaultAddrs.smsHTTPS, &c.smsHTTPS}} {
		if _, port, err := net.SplitHostPort(*l.addr); l.dflt && err == nil {
			*l.addr = net.JoinHostPort("127.0.0.1", port)
		}
	}
	return c
}

// withoutDemo is c when the demo does not run: its loopback allowance
// (-dlr-allow auto) goes with it.
func (c config) withoutDemo() config {
	c.demo = false
	if c.dlrAuto {
		c.dlr.Allow = nil
	}
	return c
}

// envName is the environment variable behind a flag: -sms-http is
// MSGKIT_SMS_HTTP.
func envName(flagName string) string {
	return "MSGKIT_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}
