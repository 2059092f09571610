package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// family is one API family as the server assembles it: what it mounts on
// the REST listener (api) and on the bulk SMS listeners (sms), by ServeMux
// pattern; its OpenAPI documents, served under /openapi/; the background
// jobs it runs; its sections of the bootstrap file; and the demo data it
// creates. Each family's file (auth.go, bulksms.go, cds.go, ...) builds
// its own; run loops over them.
type family struct {
	name     string
	api, sms map[string]http.Handler
	docs     []apiDoc
	jobs     []func(context.Context)
	sections []section
	demo     func(ctx context.Context, d *demoCredentials) error
}

// section is one top-level member of the bootstrap file, which a family
// reads and applies: it returns how many records it created.
type section struct {
	key   string
	apply func(ctx context.Context, raw json.RawMessage, secret secretSource) (int, error)
}

// platform is every family of the server, in the order they bootstrap,
// create demo data and start.
type platform struct {
	opts     httpapi.Options // Auth, Pinger and Logger of the REST families
	families []family
	esmes    *smppserver.Server // the SMPP server for ESMEs; nil without -smpp-server
}

// apiHandler serves the REST listener: every family's api routes, /healthz,
// /readyz and /version, and 404 {"code","message"} for any other path.
func (p platform) apiHandler() http.Handler {
	mux := p.mux(func(f family) map[string]http.Handler { return f.api })
	health := httpapi.HealthHandler(p.opts)
	mux.Handle("/healthz", health)
	mux.Handle("/readyz", health)
	mux.Handle("/version", health)
	mux.Handle("/", httpapi.NotFoundHandler(p.opts))
	return mux
}

// smsHandler serves the bulk SMS listeners: every family's sms routes and
// health.
func (p platform) smsHandler() http.Handler {
	mux := p.mux(func(f family) map[string]http.Handler { return f.sms })
	health := httpapi.HealthHandler(p.opts)
	mux.Handle("GET /healthz", health)
	mux.Handle("GET /readyz", health)
	mux.Handle("GET /version", health)
	return mux
}

// mux mounts the routes that routesOf picks of every family.
func (p platform) mux(routesOf func(family) map[string]http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for _, f := range p.families {
		for pattern, h := range routesOf(f) {
			mux.Handle(pattern, h)
		}
	}
	return mux
}

// runJobs starts every family's background jobs on wg; they end with ctx.
func (p platform) runJobs(ctx context.Context, wg *sync.WaitGroup) {
	for _, f := range p.families {
		for _, job := range f.jobs {
			wg.Go(func() { job(ctx) })
		}
	}
}

// bootstrap creates what the file at path names. The file is one JSON
// object whose members are the families' sections (clients, users,
// apiKeys, smsAccounts, campaignAccounts, testSystem, finance, uiComponents); an unknown member or field is an error, so a typo
// never goes unnoticed. Records that exist already (a restart against the
// same database) are left as they are.
func (p platform) bootstrap(ctx context.Context, path string, getenv func(string) string) (created int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	secret := secretSource{getenv: getenv}
	for _, f := range p.families {
		for _, s := range f.sections {
			raw, ok := file[s.key]
			if !ok {
				continue
			}
			delete(file, s.key)
			n, err := s.apply(ctx, raw, secret)
			created += n
			if err != nil {
				return created, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	if len(file) > 0 {
		return created, fmt.Errorf("%s: unknown sections %s", path, strings.Join(slices.Sorted(maps.Keys(file)), ", "))
	}
	return created, nil
}

// createDemo makes every family's demo data.
func (p platform) createDemo(ctx context.Context, apiBase string) (demoCredentials, error) {
	d := demoCredentials{APIBase: apiBase}
	for _, f := range p.families {
		if f.demo == nil {
			continue
		}
		if err := f.demo(ctx, &d); err != nil {
			return d, fmt.Errorf("demo of %s: %w", f.name, err)
		}
	}
	return d, nil
}

// applyEach reads a section that is a list of records, strictly (unknown
// fields are errors), and creates each with create. A record that exists
// already is not an error, so bootstrapping is repeatable; other errors
// name the record ("clients[2]").
func applyEach[T any](key string, raw json.RawMessage, create func(T) error) (created int, err error) {
	var recs []T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&recs); err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	for i, r := range recs {
		switch err := create(r); {
		case err == nil:
			created++
		case msgkit.KindOf(err) == msgkit.Conflict:
		default:
			return created, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
	}
	return created, nil
}

// secretSource reads the secrets of the bootstrap file: each is given in
// clear or as the name of an environment variable holding it, so files can
// be committed without secrets.
type secretSource struct{ getenv func(string) string }

func (s secretSource) get(clear, env string) (string, error) {
	if env == "" {
		return clear, nil
	}
	if clear != "" {
		return "", errors.New("give a value or an environment variable, not both")
	}
	v := s.getenv(env)
	if v == "" {
		return "", fmt.Errorf("environment variable %s is empty", env)
	}
	return v, nil
}

// every runs job each period until ctx ends, logging what it did: the
// families' housekeeping (validity expiry, token purge).
func every(period time.Duration, what string, logger *slog.Logger, job func(context.Context) (int, error)) func(context.Context) {
	return func(ctx context.Context) {
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
}
