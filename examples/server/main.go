// Command server runs the whole msgkit platform in one process:
//
//	go run ./examples/server                      # in-memory store, demo credentials
//	go run ./examples/server -store postgres -pg postgres://…/msgkit
//	go run ./examples/server -bootstrap clients.json
//
// REST families and the token endpoint listen on -addr (default :8080), bulk
// SMS on -sms-http (:12020) and, with -tls-cert and -tls-key, -sms-https
// (:12021). GET /healthz answers while the process lives and GET /readyz
// while the store answers. SIGINT or SIGTERM stops accepting connections,
// lets requests in flight finish, then exits.
//
// Every flag has an environment fallback: MSGKIT_ADDR, MSGKIT_SMS_HTTP,
// MSGKIT_SMS_HTTPS, MSGKIT_TLS_CERT, MSGKIT_TLS_KEY, MSGKIT_STORE, MSGKIT_PG, MSGKIT_PG_SCHEMA,
// MSGKIT_BOOTSTRAP, MSGKIT_DEMO, MSGKIT_DLR_FORBID, MSGKIT_LOG_LEVEL.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, logger, os.Stdout, nil); err != nil {
		logger.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

type config struct {
	addr, smsHTTP, smsHTTPS string
	tlsCert, tlsKey         string
	store, pgDSN, pgSchema  string
	bootstrap               string
	demo                    bool
	logLevel                slog.Level
	getenv                  func(string) string             // secrets named by the bootstrap file
	bcryptCost              int                             // 0: auth's default; tests lower it
	wrap                    func(http.Handler) http.Handler // tests watch requests enter the handlers
	dlrForbidden            []netip.Prefix                  // ranges delivery reports may not go to
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := config{getenv: getenv}
	var demo, level string
	fs.StringVar(&c.addr, "addr", env("MSGKIT_ADDR", ":8080"), "listen address of the REST APIs and the token endpoint")
	fs.StringVar(&c.smsHTTP, "sms-http", env("MSGKIT_SMS_HTTP", ":12020"), "listen address of bulk SMS over HTTP")
	fs.StringVar(&c.smsHTTPS, "sms-https", env("MSGKIT_SMS_HTTPS", ":12021"), "listen address of bulk SMS over HTTPS (needs -tls-cert and -tls-key)")
	fs.StringVar(&c.tlsCert, "tls-cert", env("MSGKIT_TLS_CERT", ""), "TLS certificate file (PEM) for bulk SMS over HTTPS")
	fs.StringVar(&c.tlsKey, "tls-key", env("MSGKIT_TLS_KEY", ""), "TLS key file (PEM) for bulk SMS over HTTPS")
	fs.StringVar(&c.store, "store", env("MSGKIT_STORE", "memory"), "store: memory or postgres")
	fs.StringVar(&c.pgDSN, "pg", env("MSGKIT_PG", ""), "PostgreSQL DSN for -store postgres")
	fs.StringVar(&c.pgSchema, "pg-schema", env("MSGKIT_PG_SCHEMA", ""), "PostgreSQL schema to keep msgkit's tables in (default: the DSN's search_path)")
	fs.StringVar(&c.bootstrap, "bootstrap", env("MSGKIT_BOOTSTRAP", ""), "JSON file of clients, users and API keys to create")
	var forbidden string
	fs.StringVar(&forbidden, "dlr-forbid", env("MSGKIT_DLR_FORBID", ""), "comma-separated address ranges delivery reports must not be posted to (e.g. your private networks)")
	fs.StringVar(&demo, "demo", env("MSGKIT_DEMO", "auto"), "create and print demo credentials: auto (memory store without -bootstrap), true or false")
	fs.StringVar(&level, "log-level", env("MSGKIT_LOG_LEVEL", "info"), "log level: debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
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
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return c, errors.New("-tls-cert and -tls-key go together")
	}
	switch demo {
	case "auto":
		c.demo = c.store == "memory" && c.bootstrap == ""
	case "true", "false":
		c.demo = demo == "true"
	default:
		return c, fmt.Errorf("-demo must be auto, true or false, not %q", demo)
	}
	for p := range strings.SplitSeq(forbidden, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			return c, fmt.Errorf("-dlr-forbid: %q is not an address range", p)
		}
		c.dlrForbidden = append(c.dlrForbidden, prefix.Masked())
	}
	if err := c.logLevel.UnmarshalText([]byte(level)); err != nil {
		return c, fmt.Errorf("-log-level: %w", err)
	}
	return c, nil
}
