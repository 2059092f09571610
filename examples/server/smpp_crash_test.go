package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// TestMain lets a test run the server as a process of its own, so that it
// can kill it: with MSGKIT_SERVER_ARGS (a JSON array of flags) set, the
// test binary is the server.
func TestMain(m *testing.M) {
	if raw := os.Getenv("MSGKIT_SERVER_ARGS"); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, "MSGKIT_SERVER_ARGS:", err)
			os.Exit(2)
		}
		os.Args = append([]string{"server"}, args...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serverProcess is the server running as a child process.
type serverProcess struct {
	cmd              *exec.Cmd
	apiAddr, smsAddr string
	done             chan struct{}

	mu   sync.Mutex
	logs []logLine // what it wrote to stderr
}

// logLine is a line a server process wrote and when the test read it.
type logLine struct {
	at   time.Time
	text string
}

var listening = regexp.MustCompile(`msg="msgkit listening" api=(\S+) sms-http=(\S+)`)

// startServer runs the server as a child process with args and waits
// until it listens.
func startServer(t testing.TB, args ...string) *serverProcess {
	t.Helper()
	return startServers(t, 1, args...)[0]
}

// startServers runs n servers with the same args at once, as child
// processes, and waits until each listens.
func startServers(t testing.TB, n int, args ...string) []*serverProcess {
	t.Helper()
	raw, _ := json.Marshal(args)
	ps := make([]*serverProcess, n)
	addrs := make([]chan []string, n)
	for i := range ps {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		// Metrics on a port of their own each, unless args say: servers
		// run side by side.
		cmd.Env = append(os.Environ(), "MSGKIT_SERVER_ARGS="+string(raw), "MSGKIT_METRICS=127.0.0.1:0")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &serverProcess{cmd: cmd, done: make(chan struct{})}
		ps[i], addrs[i] = p, make(chan []string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				line := sc.Text()
				p.mu.Lock()
				p.logs = append(p.logs, logLine{at: time.Now(), text: line})
				p.mu.Unlock()
				if m := listening.FindStringSubmatch(line); m != nil {
					addrs[i] <- m[1:]
				}
			}
			cmd.Wait()
			close(p.done)
		}()
		t.Cleanup(func() { p.kill() })
	}
	timeout := time.After(60 * time.Second)
	for i, p := range ps {
		select {
		case a := <-addrs[i]:
			p.apiAddr, p.smsAddr = a[0], a[1]
		case <-p.done:
			t.Fatalf("the server exited before it listened:\n%s", strings.Join(p.tail(regexp.MustCompile(``), 20), "\n"))
		case <-timeout:
			t.Fatal("the server did not listen within a minute")
		}
	}
	return ps
}

// lastLog is the last line the process wrote that re matches, and when
// the test read it; ok false when none did.
func (p *serverProcess) lastLog(re *regexp.Regexp) (at time.Time, text string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.logs) - 1; i >= 0; i-- {
		if re.MatchString(p.logs[i].text) {
			return p.logs[i].at, p.logs[i].text, true
		}
	}
	return time.Time{}, "", false
}

// tail is the last n lines the process wrote that re matches.
func (p *serverProcess) tail(re *regexp.Regexp, n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for i := len(p.logs) - 1; i >= 0 && len(out) < n; i-- {
		if re.MatchString(p.logs[i].text) {
			out = append(out, p.logs[i].text)
		}
	}
	slices.Reverse(out)
	return out
}

// kill ends the process at once, as a crash does.
func (p *serverProcess) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// TestSMPPCrash kills the server with submit_sm in flight and starts it
// again on the same PostgreSQL store: every accepted message reaches the
// SMSC and is delivered, no part whose submit_sm_resp was stored is sent
// again, and the test reports the parts of the one window no ESME can
// close: sent before the kill, their answer not yet stored.
func TestSMPPCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs server processes and kills one mid-run; the full suite runs it")
	}
	t.Parallel()
	cfg := pgConfig(t)
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}, RespDelay: 20 * time.Millisecond, ReceiptDelay: 20 * time.Millisecond})
	smsc, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	smppFile := filepath.Join(t.TempDir(), "smpp.json")
	os.WriteFile(smppFile, []byte(`{"name": "sim", "addr": "`+smsc+`", "systemId": "msgkit", "password": "secret", "binds": 2, "window": 50, "timeout": "2s"}`), 0o600)
	// The parts the killed server held go out again once their lease
	// ends: 9 s instead of 30 (a hand-over's timeout 3 s, over the SMSC's 2).
	args := []string{"-store", "postgres", "-pg", cfg.pgDSN, "-pg-schema", cfg.pgSchema, "-smpp", smppFile,
		"-bootstrap", "../smsload/bootstrap.json", "-demo", "false", "-addr", "127.0.0.1:0", "-sms-http", "127.0.0.1:0", "-log-level", "info", "-sms-lease", "9s"}

	const messages = 1500
	receiver := func(i int) string { return fmt.Sprintf("38640%06d", i) }
	first := startServer(t, args...)
	// The SMSC holds its answers while the messages are accepted, so the
	// kill below comes with most of them still to send.
	sim.Stall(true)
	var accepted atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= messages; i = int(next.Add(1)) {
				body := `{"type":"text","auth":{"username":"load","password":"loadpw"},"sender":"Crash","receiver":"` + receiver(i) + `","text":"crash test ` + fmt.Sprint(i) + `"}`
				resp, err := http.Post("http://"+first.smsAddr+"/bulk/sendsms", "application/json", strings.NewReader(body))
				if err != nil {
					t.Errorf("message %d: %v", i, err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					t.Errorf("message %d: %d", i, resp.StatusCode)
					return
				}
				accepted.Add(1)
			}
		})
	}
	wg.Wait()
	if accepted.Load() != messages {
		t.Fatalf("%d messages accepted", accepted.Load())
	}
	sim.Stall(false)
	// Kill the server while parts are on their way. The rest takes
	// 14–16 s alone (the killed server's parts wait out their 9 s lease);
	// the budget leaves room for CI, which runs every package at once on
	// two cores (60 s ran out there once).
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := sim.Wait(ctx, func() bool { return len(sim.Submits()) >= messages/3 && sim.Outstanding() > 0 }); err != nil {
		t.Fatalf("the SMSC got %d submits", len(sim.Submits()))
	}
	first.kill()

	conn, err := pgx.Connect(ctx, cfg.pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	stored := map[string]bool{} // receivers of the parts whose answer was stored
	rows, err := conn.Query(ctx, `SELECT m.receiver FROM `+cfg.pgSchema+`.smpp_submitted s JOIN `+cfg.pgSchema+`.sms_messages m ON m.id = s.msg_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		rows.Scan(&r)
		stored[strings.TrimPrefix(r, "+")] = true
	}
	rows.Close()
	sentBefore := map[string]bool{}
	for _, s := range sim.Submits() {
		sentBefore[s.Dest().Addr] = true
	}
	if len(sentBefore) >= messages {
		t.Fatalf("every message reached the SMSC before the kill: the restart sends nothing")
	}
	window := 0
	for r := range sentBefore {
		if !stored[r] {
			window++
		}
	}

	// Start again; everything goes out and comes back delivered.
	startServer(t, args...)
	if err := sim.Wait(ctx, func() bool { return distinctDests(sim) >= messages }); err != nil {
		t.Fatalf("after the restart the SMSC took %d of %d messages", distinctDests(sim), messages)
	}
	times := map[string]int{}
	for _, s := range sim.Submits() {
		times[s.Dest().Addr]++
	}
	again := 0
	for r, n := range times {
		if n > 1 {
			again++
			if stored[r] {
				t.Errorf("%s was sent %d times although its submit_sm_resp was stored before the crash", r, n)
			}
		}
	}
	if again > window {
		t.Errorf("%d parts sent again, more than the %d in the window", again, window)
	}
	for {
		var delivered int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+cfg.pgSchema+`.sms_parts WHERE state = $1`, int(sms.StateDelivered)).Scan(&delivered); err != nil {
			t.Fatal(err)
		}
		if delivered == messages {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d parts delivered", delivered, messages)
		}
		time.Sleep(100 * time.Millisecond) // waiting for the receipts to be stored
	}
	t.Logf("killed after %d of %d messages reached the SMSC: %d had their answer stored, %d were in the window (sent, answer not stored) and %d of those were sent again",
		len(sentBefore), messages, len(stored), window, again)
}

func distinctDests(sim *smppsim.Server) int {
	seen := map[string]bool{}
	for _, s := range sim.Submits() {
		seen[s.Dest().Addr] = true
	}
	return len(seen)
}
