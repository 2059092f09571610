package main

import (
	"context"
	"encoding/hex"
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

	"github.com/jackc/pgx/v5"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// What the ESME interoperability tests (Kannel's in kannel_test.go, the npm
// smpp package's in esme_npm_test.go) share: the platform they bind to (a
// server process on PostgreSQL with an SMPP port it comes back on after a
// restart, and smppsim as its network), the account they bind with, and
// what they read of msgkit's messages and the SMSC's parts.

// esmeAccount is the bulk SMS account the ESMEs bind with: SMPP 3.4
// allows a password of at most 8 characters.
const (
	esmeUser     = "esme"
	esmePassword = "esmepw01"
)

// stop ends the process as SIGTERM does, gracefully, and waits for it.
func (p *serverProcess) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(t)
}

// wait waits for the process to end after the SIGTERM it was sent, and
// requires it to exit 0 within 20 s. (A second SIGTERM would end it at
// once, as it ends any server.)
func (p *serverProcess) wait(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not stop within 20 s of SIGTERM:\n%s", strings.Join(p.tail(regexp.MustCompile(``), 20), "\n"))
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the server exited %d after SIGTERM:\n%s", code, strings.Join(p.tail(regexp.MustCompile(``), 20), "\n"))
	}
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

// esmePlatform is msgkit's server as a child process on PostgreSQL, its
// SMPP server on a port of its own, with smppsim as its network.
type esmePlatform struct {
	cfg      config
	sim      *smppsim.Server
	smppAddr string
	args     []string
	servers  []*serverProcess // the first, then one per restart
}

func startESMEPlatform(t *testing.T) *esmePlatform {
	t.Helper()
	p := &esmePlatform{cfg: pgConfig(t)}
	p.sim = smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}, ReceiptDelay: 20 * time.Millisecond})
	smsc, err := p.sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.sim.Close)
	smppFile := filepath.Join(t.TempDir(), "smpp.json")
	os.WriteFile(smppFile, []byte(`{"name": "sim", "addr": "`+smsc+`", "systemId": "msgkit", "password": "secret", "binds": 1, "window": 50, "timeout": "2s"}`), 0o600)
	p.smppAddr = freeAddr(t)
	// A lease of 3 s rather than 30: parts a stopping server held go out
	// again soon.
	p.args = []string{"-store", "postgres", "-pg", p.cfg.pgDSN, "-pg-schema", p.cfg.pgSchema, "-smpp", smppFile,
		"-bootstrap", esmeBootstrap(t, esmeUser, esmePassword), "-demo", "false", "-addr", "127.0.0.1:0", "-sms-http", "127.0.0.1:0",
		"-smpp-server", p.smppAddr, "-log-level", "debug", "-sms-lease", "3s"}
	p.servers = []*serverProcess{startServer(t, p.args...)}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, s := range p.servers {
			t.Logf("server process %d, its SMPP server and warnings:\n%s", i+1, strings.Join(s.tail(regexp.MustCompile(`smpp|level=(WARN|ERROR)`), 200), "\n"))
			t.Logf("server process %d, its last lines:\n%s", i+1, strings.Join(s.tail(regexp.MustCompile(``), 30), "\n"))
		}
	})
	return p
}

// restart stops the server gracefully and starts another on the same
// store and ports.
func (p *esmePlatform) restart(t *testing.T) {
	t.Helper()
	p.servers[len(p.servers)-1].stop(t)
	p.servers = append(p.servers, startServer(t, p.args...))
}

// storedMessage is what msgkit holds of a message: its id, coding, parts
// (their texts joined) and whether every part was delivered; copies
// counts the messages to its receiver, and network the SMSC's copies of
// each of its parts, by their octets.
type storedMessage struct {
	id      string
	dcs     int
	parts   int
	text    string
	done    bool
	copies  int
	network map[string]int
}

// messages reads the ESME account's messages from msgkit's store, by
// receiver.
func (p *esmePlatform) messages(ctx context.Context) (map[string]*storedMessage, error) {
	conn, err := pgx.Connect(ctx, p.cfg.pgDSN)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	schema := p.cfg.pgSchema
	rows, err := conn.Query(ctx, `SELECT m.id, m.receiver, m.dcs, count(*), string_agg(p.text, '' ORDER BY p.num), bool_and(p.state = $1)
		FROM `+schema+`.sms_messages m JOIN `+schema+`.sms_parts p ON p.msg_id = m.id
		WHERE m.account = $2 GROUP BY m.id, m.receiver, m.dcs`, int(sms.StateDelivered), esmeUser)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	got := map[string]*storedMessage{}
	for rows.Next() {
		var s storedMessage
		var r string
		if err := rows.Scan(&s.id, &r, &s.dcs, &s.parts, &s.text, &s.done); err != nil {
			return nil, err
		}
		if prev := got[r]; prev != nil {
			prev.copies++
			continue
		}
		s.copies, s.network = 1, map[string]int{}
		got[r] = &s
	}
	return got, rows.Err()
}

// allDelivered reports whether got has want messages, each delivered.
func allDelivered(got map[string]*storedMessage, want int) bool {
	if len(got) < want {
		return false
	}
	for _, s := range got {
		if !s.done {
			return false
		}
	}
	return true
}

// checkNetwork counts the SMSC's parts into got and checks that it
// took every part of every message exactly once, and nothing else.
func (p *esmePlatform) checkNetwork(t *testing.T, got map[string]*storedMessage, name func(receiver string) string) (parts int) {
	t.Helper()
	for _, sub := range p.sim.Submits() {
		r := "+" + sub.Dest().Addr
		if s := got[r]; s != nil {
			s.network[hex.EncodeToString(sub.Message())]++
		} else {
			t.Errorf("the SMSC got a part to %s, of no message", r)
		}
	}
	for r, s := range got {
		parts += s.parts
		if len(s.network) != s.parts {
			t.Errorf("%s: the SMSC got %d distinct parts of the %d", name(r), len(s.network), s.parts)
		}
		for m, n := range s.network {
			if n != 1 {
				t.Errorf("%s: the SMSC got part %s %d times", name(r), m, n)
			}
		}
	}
	return parts
}

// appendixB is a delivery receipt's text as SMPP 3.4's Appendix B has it
// (its example writes Text:, others text:).
var appendixB = regexp.MustCompile(`^id:(\S+) sub:(\d{3}) dlvrd:(\d{3}) submit date:(\d{10}) done date:(\d{10}) stat:(\w+) err:(\d{3}) [Tt]ext:`)
