package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What the ESME interoperability tests (Kannel's in kannel_test.go, the npm
// smpp package's in npm_esme_test.go) share: the account they bind with, a
// fixed SMPP port the server comes back on after a restart, a graceful
// stop, and the failure report of a server process.

// receiptsOverBinds: msgkit's SMPP server sends delivery receipts
// (deliver_sm, esm_class 0x04) to receiver and transceiver binds. The
// ESME tests assert that every message's receipt reaches the ESME exactly
// once when it is true; while false they check the submit side only and
// log what receipts came.
const receiptsOverBinds = false

// esmeAccount is the bulk SMS account the ESMEs bind with: SMPP 3.4
// allows a password of at most 8 characters.
const (
	esmeUser     = "esme"
	esmePassword = "esmepw01"
)

// writeESMEBootstrap writes a bootstrap file with the ESMEs' account:
// loopback only, credit for every test message, long messages of up to
// 10 parts, no throughput limit.
func writeESMEBootstrap(t *testing.T) string {
	t.Helper()
	boot := filepath.Join(t.TempDir(), "bootstrap.json")
	if err := os.WriteFile(boot, []byte(`{"smsAccounts": [{"username": "`+esmeUser+`", "password": "`+esmePassword+
		`", "networks": ["127.0.0.0/8"], "balance": "100000", "currency": "EUR", "validity": "1h", "maxParts": 10, "prices": {"386": "0.01"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return boot
}

// stop ends the process as SIGTERM does, gracefully, and waits for it.
func (p *serverProcess) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not stop within 20 s of SIGTERM:\n%s", strings.Join(p.tail(regexp.MustCompile(``), 20), "\n"))
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the server exited %d after SIGTERM:\n%s", code, strings.Join(p.tail(regexp.MustCompile(``), 20), "\n"))
	}
}

// logOnFailure prints what the server processes wrote, the SMPP server's
// lines and the last others, when the test fails.
func logOnFailure(t *testing.T, ps ...*serverProcess) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, p := range ps {
			if p == nil {
				continue
			}
			smppLines := p.tail(regexp.MustCompile(`smpp|level=(WARN|ERROR)`), 200)
			t.Logf("server process %d, its SMPP server and warnings:\n%s", i+1, strings.Join(smppLines, "\n"))
			t.Logf("server process %d, its last lines:\n%s", i+1, strings.Join(p.tail(regexp.MustCompile(``), 30), "\n"))
		}
	})
}

// dlrSink is an HTTP server that takes delivery reports as GET or POST
// requests and keeps each one's query.
type dlrSink struct {
	url string

	mu      sync.Mutex
	got     []map[string]string
	changed chan struct{}
}

func newDLRSink(t *testing.T) *dlrSink {
	t.Helper()
	s := &dlrSink{changed: make(chan struct{})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := map[string]string{}
		for k, v := range r.Form {
			q[k] = v[0]
		}
		s.mu.Lock()
		s.got = append(s.got, q)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.url = "http://" + ln.Addr().String()
	return s
}

// reports is a copy of the reports taken so far and a channel closed at
// the next.
func (s *dlrSink) reports() ([]map[string]string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got), s.changed
}

// waitFor polls cond every 50 ms until it holds or d passes; it reports
// whether it held.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond) // polling processes of their own
	}
}

// esmeText is the text of test message i of kind k: the GSM ones use the
// extension table (€, {}), the UCS-2 ones Cyrillic and a character beyond
// the BMP; the long ones need 3 parts.
func esmeText(kind string, i int) string {
	switch kind {
	case "gsm-single":
		return fmt.Sprintf("Hello %d from the ESME: 5€ @ {home}", i)
	case "gsm-long":
		return fmt.Sprintf("Long %d: ", i) + strings.Repeat("The quick brown fox jumps over the lazy dog; 0123456789 @ 5€. ", 6)
	case "ucs-single":
		return fmt.Sprintf("Привет %d, мир! 😀", i)
	case "ucs-long":
		return fmt.Sprintf("Длинное %d: ", i) + strings.Repeat("Съешь же ещё этих мягких французских булок 😀 ", 4)
	}
	panic(kind)
}

var esmeKinds = []string{"gsm-single", "gsm-long", "ucs-single", "ucs-long"}
