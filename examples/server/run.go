package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/msgkit/msgkit/adapters/httpapi/adminapi"
	"github.com/msgkit/msgkit/audit"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/adapters/pgstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/routing"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/uiproxy"
	"github.com/prometheus/client_golang/prometheus"
)

// listeners are the addresses the platform bound, for tests that ask for
// port 0.
type listeners struct {
	API, SMSHTTP, SMSHTTPS string
	Metrics                string // "": -metrics is off
	SMPPServer             string // "": -smpp-server is off
}

// stores are the domains' stores of the server: memstore's, or pgstore's
// over one PostgreSQL database.
type stores struct {
	auth     auth.Store
	sms      smsStore
	finance  financeStore
	contacts contactsStore
	routing  routing.Store
	inbound  inbound.Store // messages from phones, with the SMS store's outbox
	tests    testsystem.Store
	campaign campaignStore
	ui       uiproxy.Store
	smpp     smpp.Store
	idem     idempotency.Store // the Idempotency-Keys of every family
	audit    audit.Store       // the administration's trail
	blobs    finance.BlobStore // invoice files
	pinger   httpapi.Pinger    // nil: always ready
	close    func()
	empty    bool // nothing from an earlier start: always in memory; on PostgreSQL, tables made now
}

// openStores opens the stores -store names; the PostgreSQL store registers
// its metrics (pool, retries, errors) on reg, nil: none.
func openStores(ctx context.Context, cfg config, reg prometheus.Registerer, logger *slog.Logger) (stores, error) {
	if cfg.store == "postgres" {
		opts := pgstore.Options{Schema: cfg.pgSchema, Logger: logger, Metrics: reg}
		if !cfg.smsSend {
			// The servers that send apply the network's reports: what this
			// one accepts would only be remembered for them in vain.
			opts.RecentMessages = -1
		}
		pg, err := pgstore.Open(ctx, cfg.pgDSN, opts)
		if err != nil {
			return stores{}, fmt.Errorf("opening PostgreSQL: %w", err)
		}
		st := stores{auth: pg.Auth(), sms: pg.SMS(), finance: pg.Finance(), contacts: pg.Contacts(), routing: pg.Routing(), inbound: pg.Inbound(), tests: pg.TestSystem(), campaign: pg.Campaigns(), ui: pg.UIProxy(), smpp: pg.SMPP(), idem: pg.Idempotency(), audit: pg.Audit(), blobs: pg.Blobs(), pinger: pg, close: pg.Close, empty: pg.Fresh()}
		if cfg.filesDir != "" {
			if st.blobs, err = blobfs.New(cfg.filesDir); err != nil {
				pg.Close()
				return stores{}, fmt.Errorf("opening -files-dir: %w", err)
			}
		}
		return st, nil
	}
	mem := memstore.NewWith(cfg.mem)
	st := stores{auth: mem.Auth(), sms: mem.SMS(), finance: mem.Finance(), contacts: mem.Contacts(), routing: mem.Routing(), inbound: mem.Inbound(), tests: mem.TestSystem(), campaign: mem.Campaigns(), ui: mem.UIProxy(), smpp: mem.SMPP(), idem: mem.Idempotency(), audit: mem.Audit(), close: func() {}, empty: true}
	dir := cfg.filesDir
	if dir == "" {
		// Files live as long as the process, as the memory store's data do.
		tmp, err := os.MkdirTemp("", "msgkit-files-")
		if err != nil {
			return stores{}, fmt.Errorf("a directory for invoice files: %w", err)
		}
		dir, st.close = tmp, func() { os.RemoveAll(tmp) }
	}
	blobs, err := blobfs.New(dir)
	if err != nil {
		st.close()
		return stores{}, fmt.Errorf("opening the invoice files' directory: %w", err)
	}
	st.blobs = blobs
	return st, nil
}

// demoKept says where the demo's credentials live.
func demoKept(cfg config) string {
	if cfg.store == "postgres" {
		return "the PostgreSQL store keeps them, as hashes, across restarts"
	}
	return "they live as long as this process on the memory store"
}

// newPlatform assembles the families of the server over st, one at a time.
// Every family registers its metrics on reg where it builds its routes
// and jobs.
func newPlatform(st stores, cfg config, reg prometheus.Registerer, logger *slog.Logger) platform {
	trail := audit.New(st.audit, audit.Options{Logger: logger})
	svc := auth.New(st.auth, auth.Options{Logger: logger, BcryptCost: cfg.bcryptCost, Audit: trail})
	keys := idempotency.NewService(st.idem, idempotency.Options{Logger: logger})
	opts := httpapi.Options{Auth: svc, Pinger: st.pinger, Logger: logger, Idempotency: keys, Metrics: httpapi.NewMetrics(reg)}
	bulk := newBulkSMS(st.sms, bulkSMSOptions{
		Logger:  logger,
		Gateway: sms.GatewayOptions{BcryptCost: cfg.bcryptCost, Keys: keys, Tenants: svc},
		Audit:   trail,
		Network: demoNetwork(),
		Poster:  egress.ReportPosterOptions{Policy: cfg.dlr},
		// The transmitter's own relation of its lease to a hand-over's
		// timeout, kept when -sms-lease shortens the lease.
		Transmitter: sms.TransmitterOptions{Lease: cfg.smsLease, Timeout: cfg.smsLease / 3},
		Retention:   sms.RetentionOptions{KeepFor: cfg.keepFinishedFor},
		AcceptOnly:  !cfg.smsSend,
		SMPP:        cfg.smpp,
		SMPPStore:   st.smpp,
		Inbound:     st.inbound,
		Routes:      st.routing,
		Metrics:     reg,
		HTTPMetrics: opts.Metrics,
	})
	var proxy *uiproxy.Proxy
	if st.ui != nil {
		proxy = uiproxy.NewProxy(st.ui, egress.NewFetcher(egress.FetcherOptions{Policy: cfg.dlr}), uiproxy.Options{Audit: trail, Metrics: reg})
	}
	admin := adminapi.Backend{Auth: svc, Audit: trail, Components: proxy, Accounts: bulk.accounts, Credit: bulk.credit,
		Tracer: sms.NewTracer(st.sms, sms.TracerOptions{Logger: logger}), Inbound: bulk.inbound}
	families := append(restFamilies(svc, admin, opts, st, cfg.testTimeLimit, reg, logger), uiProxyFamily(opts, proxy), bulk.family(), idempotencyKeys(keys, logger))
	if st.campaign != nil {
		var webhook campaign.Sender
		if cfg.campaignWebhook != "" {
			webhook = campaign.WebhookSender{Poster: egress.NewReportPoster(egress.ReportPosterOptions{Policy: cfg.dlr}), URL: cfg.campaignWebhook}
		}
		families = append(families, campaignRuns(st.campaign, st.contacts, bulk.gateway, webhook, cfg, reg, logger))
	}
	if cfg.demo {
		families = append(families, demoReports(logger))
	}
	esmes := newESMEServer(cfg, bulk.gateway, reg, logger)
	if esmes != nil {
		bulk.reports.Binds = esmes // receipts to ESMEs over their binds
	}
	return platform{opts: opts, families: families, esmes: esmes}
}

// restFamilies are the families of the REST listener.
func restFamilies(svc *auth.Service, admin adminapi.Backend, opts httpapi.Options, st stores, testTimeLimit time.Duration, reg prometheus.Registerer, logger *slog.Logger) []family {
	tests, sys := testSystemFamily(opts, st.tests, st.empty, testTimeLimit, admin.Audit, reg, logger)
	admin.Tests = sys
	return []family{authFamily(svc, opts), adminFamily(admin, opts), cdsFamily(opts, st.contacts, st.campaign, reg), financeFamily(opts, st.finance, st.blobs, logger), routingFamily(opts, st.routing), tests}
}

// run builds the platform from cfg and serves until ctx ends, then shuts
// down gracefully. ready, when not nil, is told the bound addresses.
func run(ctx context.Context, cfg config, logger *slog.Logger, out io.Writer, ready func(listeners)) error {
	// One registry of the whole process: every family's metrics, the Go
	// runtime's and the process's, served on -metrics.
	reg := newRegistry()
	st, err := openStores(ctx, cfg, reg, logger)
	if err != nil {
		return err
	}
	defer st.close()
	// -demo auto makes the demo into an empty store only: a database that
	// has msgkit's tables is not a newcomer's, and a second copy of the
	// demo would not show its secrets anyway.
	noDemo := cfg.demo && cfg.demoIntoEmpty && !st.empty
	if noDemo {
		cfg = cfg.withoutDemo()
	}
	cfg = cfg.demoListeners()
	p := newPlatform(st, cfg, reg, logger)
	if cfg.bootstrap != "" {
		n, err := p.bootstrap(ctx, cfg.bootstrap, cfg.getenv)
		if err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
		logger.Info("bootstrap done", "file", cfg.bootstrap, "created", n)
	}
	api, bulk := p.apiHandler(), p.smsHandler()
	docs := newAPIDocs(p.families)
	api = docs.mount(api, logger)

	servers := []*server{{name: "api", addr: cfg.addr, handler: api}, {name: "sms-http", addr: cfg.smsHTTP, handler: bulk}}
	if cfg.tlsCert != "" {
		servers = append(servers, &server{name: "sms-https", addr: cfg.smsHTTPS, handler: bulk, certFile: cfg.tlsCert, keyFile: cfg.tlsKey})
	}
	var metrics *server
	if cfg.metrics != "" {
		metrics = &server{name: "metrics", addr: cfg.metrics, handler: metricsHandler(reg, cfg.pprof, logger)}
	}
	for _, s := range servers {
		if cfg.wrap != nil {
			s.handler = cfg.wrap(s.handler)
		}
	}
	if metrics != nil {
		servers = append(servers, metrics)
	}
	for _, s := range servers {
		if err := s.listen(); err != nil {
			for _, o := range servers {
				o.close()
			}
			return err
		}
	}
	bound := listeners{API: servers[0].ln.Addr().String(), SMSHTTP: servers[1].ln.Addr().String()}
	if cfg.tlsCert != "" {
		bound.SMSHTTPS = servers[2].ln.Addr().String()
	}
	if metrics != nil {
		bound.Metrics = metrics.ln.Addr().String()
	}
	esmes, err := listenESMEs(cfg, p.esmes)
	if err != nil {
		for _, o := range servers {
			o.close()
		}
		return err
	}
	if esmes != nil {
		bound.SMPPServer = esmes.Addr().String()
	}
	docs.setBound(bound)

	if cfg.demo {
		d, err := p.createDemo(ctx, "http://"+localURL(bound.API))
		if err != nil {
			return err
		}
		d.print(out, demoKept(cfg), bound)
	} else if noDemo {
		printNoDemo(out)
	}
	logger.Info("msgkit listening", "api", bound.API, "sms-http", bound.SMSHTTP, "sms-https", bound.SMSHTTPS, "metrics", bound.Metrics, "smpp-server", bound.SMPPServer, "store", cfg.store)
	if ready != nil {
		ready(bound)
	}

	errc := make(chan error, len(servers)+1) // and the ESMEs' listener
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { errc <- s.serve(logger) })
	}
	if esmes != nil {
		wg.Go(func() { errc <- serveESMEs(p.esmes, esmes, logger) })
	}
	p.runJobs(ctx, &wg)

	select {
	case <-ctx.Done():
	case err = <-errc: // a listener failed: stop the others too
	}
	logger.Info("shutting down: finishing requests in flight")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, s := range servers {
		if e := s.srv.Shutdown(shutdownCtx); e != nil && err == nil {
			err = e
		}
	}
	if esmes != nil {
		// Every bind unbound, so that its ESME binds again elsewhere.
		if e := p.esmes.Shutdown(shutdownCtx); e != nil && err == nil {
			err = e
		}
	}
	wg.Wait()
	return err
}

// server is one listener of the platform.
type server struct {
	name, addr        string
	handler           http.Handler
	certFile, keyFile string
	ln                net.Listener
	srv               *http.Server
}

func (s *server) listen() error {
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	return nil
}

func (s *server) serve(logger *slog.Logger) error {
	var err error
	if s.certFile != "" {
		err = s.srv.ServeTLS(s.ln, s.certFile, s.keyFile)
	} else {
		err = s.srv.Serve(s.ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	logger.Error("listener failed", "listener", s.name, "err", err)
	return fmt.Errorf("%s: %w", s.name, err)
}

func (s *server) close() {
	if s.ln != nil {
		s.ln.Close()
	}
}

// localURL turns a bound address such as [::]:8080 into one curl can reach.
func localURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "::" || host == "0.0.0.0" {
		return "localhost:" + port
	}
	return net.JoinHostPort(host, port)
}
