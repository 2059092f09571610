package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
)

// cutProxy is a TCP proxy in front of PostgreSQL that a test cuts (every
// connection closed, new ones refused) and restores on the same address.
type cutProxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	p := &cutProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

func (p *cutProxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut while dialling
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

// cut closes the listener and every connection: the database is gone.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// restore listens again on the same address: the database is back.
func (p *cutProxy) restore() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// viaProxy is dsn with its host and port replaced by addr.
func viaProxy(t *testing.T, dsn, addr string) (proxied, target string) {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("MSGKIT_TEST_PG must be a URL with a host: %v", err)
	}
	target = u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	u.Host = addr
	return u.String(), target
}

// A store that cannot be reached is 503 with Retry-After on every route of
// every family, in the family's own body (bulk SMS: none), never 500;
// /readyz is 503 meanwhile; and once the database is back, the same calls
// succeed without a restart.
func TestStoreOutage(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("MSGKIT_TEST_PG")
	if dsn == "" {
		t.Skip("MSGKIT_TEST_PG is not set")
	}
	cfg := pgConfig(t)
	_, target := viaProxy(t, dsn, "")
	proxy := newCutProxy(t, target)
	cfg.pgDSN, _ = viaProxy(t, dsn, proxy.addr)
	w := newWalkWorld(t, cfg)
	probes := walkProbes(t)
	routes := w.routes()
	// Every credential the walk uses, taken while the database is there.
	for _, r := range routes {
		w.credentialsOf(r, true)
		w.credentialsOf(r, false)
	}
	ready := func() int { return w.do(w.api, http.MethodGet, "/readyz", "", "", "").Code }
	if got := ready(); got != http.StatusOK {
		t.Fatalf("/readyz before the cut: %d", got)
	}

	proxy.cut()
	if got := ready(); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz while the database is gone: %d, want 503", got)
	}
	for _, r := range routes {
		if r.spec.Auth == httpapi.AuthNone {
			continue // made-up data: no store behind it
		}
		p, _ := probeOf(probes, r)
		for _, asB := range []bool{false, true} {
			tenant, v := walkTenantA, w.a
			if asB {
				tenant = walkTenantB
			}
			got, res := w.callRecorded(r, p, v, tenant, w.credentialsOf(r, asB))
			if res == nil {
				continue
			}
			if got.status != http.StatusServiceUnavailable {
				t.Errorf("%s (B %v) while the database is gone: %s, want 503", r.op(), asB, got)
				continue
			}
			if s, err := strconv.Atoi(res.Header().Get("Retry-After")); err != nil || s < 1 {
				t.Errorf("%s: 503 without a Retry-After of whole seconds: %q", r.op(), res.Header().Get("Retry-After"))
			}
			wantFamilyBody(t, r, got)
		}
	}

	proxy.restore()
	deadline := time.Now().Add(30 * time.Second)
	for ready() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz did not come back after the database did")
		}
		time.Sleep(50 * time.Millisecond) // waiting for the pool to reconnect, not for a schedule
	}
	for _, r := range routes {
		if r.route.Method != http.MethodGet || r.spec.Auth == httpapi.AuthNone {
			continue
		}
		p, _ := probeOf(probes, r)
		if got, ok := w.call(r, p, w.a, walkTenantA, w.credentialsOf(r, false)); ok && got.status >= 500 {
			t.Errorf("%s after the database came back: %s", r.op(), got)
		}
	}
}

// wantFamilyBody checks that a 503 has the body of r's family: bulk SMS
// none; the others their error shape with a code saying unavailable.
func wantFamilyBody(t *testing.T, r walkRoute, got answer) {
	t.Helper()
	if r.route.Path == "/bulk/sendsms" {
		if got.body != "" {
			t.Errorf("%s: bulk SMS 5xx carry no body: %q", r.op(), got.body)
		}
		return
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(got.body), &m); err != nil {
		t.Errorf("%s: 503 body is not JSON: %q", r.op(), got.body)
		return
	}
	var keys []string
	switch r.spec.Family {
	case httpapi.CDS:
		keys = []string{"code", "message", "description", "items"}
	case httpapi.Finance, httpapi.Routing, httpapi.UIProxy:
		keys = []string{"Code", "Message"}
	case httpapi.TestSystem:
		keys = []string{"code", "message"}
	case httpapi.Admin:
		keys = []string{"code", "message", "fields"}
	case httpapi.OAuth:
		keys = []string{"error"}
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: the 503 body lacks %s: %s", r.op(), k, got.body)
		}
	}
	if len(m) != len(keys) && r.spec.Family != httpapi.OAuth {
		t.Errorf("%s: the 503 body has members beyond %v: %s", r.op(), keys, got.body)
	}
	if strings.Contains(got.body, "internal") {
		t.Errorf("%s: an outage is no internal error: %s", r.op(), got.body)
	}
}
