package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/cdsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/financeapi"
	"github.com/msgkit/msgkit/adapters/httpapi/routingapi"
	"github.com/msgkit/msgkit/adapters/httpapi/testsystemapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/adapters/pgstore"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
)

// listeners are the addresses the platform bound, for tests that ask for
// port 0.
type listeners struct {
	API, SMSHTTP, SMSHTTPS string
}

// platform holds the domain services the server runs.
type platform struct {
	auth *auth.Service
	sms  *sms.Gateway
}

// run builds the platform from cfg and serves until ctx ends, then shuts
// down gracefully. ready, when not nil, is told the bound addresses.
func run(ctx context.Context, cfg config, logger *slog.Logger, out io.Writer, ready func(listeners)) error {
	var (
		authStore auth.Store
		smsStore  interface {
			sms.Store
			sms.OutboxStore
		}
		pinger httpapi.Pinger
	)
	switch cfg.store {
	case "postgres":
		pg, err := pgstore.Open(ctx, cfg.pgDSN, pgstore.Options{Schema: cfg.pgSchema, Logger: logger})
		if err != nil {
			return fmt.Errorf("opening PostgreSQL: %w", err)
		}
		defer pg.Close()
		authStore, smsStore, pinger = pg.Auth(), pg.SMS(), pg
	default:
		mem := memstore.New()
		authStore, smsStore = mem.Auth(), mem.SMS()
	}
	authSvc := auth.New(authStore, auth.Options{Logger: logger, BcryptCost: cfg.bcryptCost})
	// The simulated network reports to the gateway (Run), which sends to it.
	network := simnet.New(simnet.Options{Seed: uint64(time.Now().UnixNano()), Rules: demoNetworkRules(), Default: demoDelivery, Logger: logger})
	gateway := sms.NewGateway(smsStore, network, sms.GatewayOptions{Logger: logger, BcryptCost: cfg.bcryptCost})
	dispatcher := sms.NewDispatcher(smsStore, httpapi.NewReportPoster(httpapi.ReportPosterOptions{Forbidden: cfg.dlrForbidden}), sms.DispatcherOptions{Logger: logger})
	svc := platform{auth: authSvc, sms: gateway}

	if cfg.bootstrap != "" {
		n, err := bootstrap(ctx, svc, cfg.bootstrap, cfg.getenv)
		if err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
		logger.Info("bootstrap done", "file", cfg.bootstrap, "created", n)
	}

	api := apiHandler(httpapi.Options{Auth: authSvc, Pinger: pinger, Logger: logger})
	bulk := smsHandler(bulksmsapi.Handler(gateway, bulksmsapi.Options{Logger: logger}),
		httpapi.HealthHandler(httpapi.Options{Pinger: pinger, Logger: logger}))

	servers := []*server{{name: "api", addr: cfg.addr, handler: api}, {name: "sms-http", addr: cfg.smsHTTP, handler: bulk}}
	if cfg.tlsCert != "" {
		servers = append(servers, &server{name: "sms-https", addr: cfg.smsHTTPS, handler: bulk, certFile: cfg.tlsCert, keyFile: cfg.tlsKey})
	}
	for _, s := range servers {
		if err := s.listen(cfg.connState); err != nil {
			for _, o := range servers {
				o.close()
			}
			return err
		}
	}
	bound := listeners{API: servers[0].ln.Addr().String(), SMSHTTP: servers[1].ln.Addr().String()}
	if len(servers) > 2 {
		bound.SMSHTTPS = servers[2].ln.Addr().String()
	}

	if cfg.demo {
		d, err := createDemo(ctx, svc)
		if err != nil {
			return err
		}
		d.print(out, "http://"+localURL(bound.API), "http://"+localURL(bound.SMSHTTP))
	}
	logger.Info("msgkit listening", "api", bound.API, "sms-http", bound.SMSHTTP, "sms-https", bound.SMSHTTPS, "store", cfg.store)
	if ready != nil {
		ready(bound)
	}

	errc := make(chan error, len(servers))
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { errc <- s.serve(logger) })
	}
	wg.Go(func() { every(ctx, time.Minute, "purging expired tokens", logger, authSvc.PurgeExpired) })
	wg.Go(func() { network.Run(ctx, gateway, 100*time.Millisecond) })
	wg.Go(func() { dispatcher.Run(ctx) })
	wg.Go(func() { every(ctx, 10*time.Second, "expiring parts", logger, gateway.ExpireDue) })

	var err error
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

func (s *server) listen(connState func(net.Conn, http.ConnState)) error {
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
		ConnState:         connState,
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

// apiHandler is the platform's REST API: every family mounted at its base
// paths, the token endpoint, /healthz and /readyz. Any other path is 404 in
// the body {"code","message"}.
func apiHandler(opts httpapi.Options) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(cdsapi.BasePath, cdsapi.Handler(opts))
	finance := financeapi.Handler(opts)
	mux.Handle(financeapi.BasePath, finance)
	mux.Handle(financeapi.UploadBasePath, finance)
	mux.Handle(routingapi.BasePath, routingapi.Handler(opts))
	mux.Handle(testsystemapi.BasePath, testsystemapi.Handler(opts))
	mux.Handle("/oauth2/", httpapi.OAuthHandler(opts))
	health := httpapi.HealthHandler(opts)
	mux.Handle("/healthz", health)
	mux.Handle("/readyz", health)
	mux.Handle("/", httpapi.NotFoundHandler(opts))
	return mux
}

// smsHandler serves the bulk SMS listener: submission and health.
func smsHandler(bulk, health http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(bulksmsapi.SendSMSPath, bulk)
	mux.Handle("GET /healthz", health)
	mux.Handle("GET /readyz", health)
	return mux
}

// every runs job each period until ctx ends, logging what it did: the
// server's housekeeping (validity expiry, token purge).
func every(ctx context.Context, period time.Duration, what string, logger *slog.Logger, job func(context.Context) (int, error)) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := job(ctx); err != nil {
				logger.Warn(what, "err", err)
			} else if n > 0 {
				logger.Info(what, "count", n)
			}
		}
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
