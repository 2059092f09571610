package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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

	"github.com/msgkit/msgkit/sms/gsm"
)

// kannel is a running Kannel: a bearerbox whose smsc group binds to
// msgkit's SMPP server as a transceiver, and an smsbox that takes
// sendsms requests.
type kannel struct {
	dir              string // its configuration and logs
	adminURL, sendsm string // bearerbox's status page, smsbox's sendsms
}

// kannelBearerbox is Kannel's bearerbox from MSGKIT_KANNEL, whose
// directory holds smsbox; the test is skipped without it, and fails when
// it is set but missing.
func kannelBearerbox(t *testing.T) (bearerbox, smsbox string) {
	t.Helper()
	bearerbox = os.Getenv("MSGKIT_KANNEL")
	if bearerbox == "" {
		t.Skip("MSGKIT_KANNEL is not set (the path of Kannel's bearerbox, e.g. /usr/sbin/bearerbox from Debian's kannel)")
	}
	smsbox = filepath.Join(filepath.Dir(bearerbox), "smsbox")
	for _, bin := range []string{bearerbox, smsbox} {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("MSGKIT_KANNEL=%s: %v", bearerbox, err)
		}
	}
	return bearerbox, smsbox
}

// startKannel runs bearerbox and smsbox with a configuration whose smsc
// group binds to smppAddr with the ESME account, until the test ends;
// their logs are printed when it fails.
func startKannel(t *testing.T, bearerbox, smsbox, smppAddr string) *kannel {
	t.Helper()
	dir := t.TempDir()
	port := func() string { _, p, _ := net.SplitHostPort(freeAddr(t)); return p }
	admin, box, sendsms := port(), port(), port()
	host, smppPort, _ := net.SplitHostPort(smppAddr)
	conf := fmt.Sprintf(`group = core
admin-port = %[1]s
admin-password = adm
admin-allow-ip = 127.0.0.1
smsbox-port = %[2]s
box-allow-ip = 127.0.0.1
log-level = 0
log-file = %[4]s/bearerbox.log
dlr-storage = internal
sms-resend-freq = 1

group = smsc
smsc = smpp
smsc-id = msgkit
host = %[5]s
port = %[6]s
transceiver-mode = true
smsc-username = %[7]s
smsc-password = %[8]s
system-type = ""
reconnect-delay = 1
enquire-link-interval = 5
max-pending-submits = 10

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = %[3]s
log-level = 0
log-file = %[4]s/smsbox.log

group = sendsms-user
username = send
password = sendpw
max-messages = 10
concatenation = true
`, admin, box, sendsms, dir, host, smppPort, esmeUser, esmePassword)
	confFile := filepath.Join(dir, "kannel.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	k := &kannel{dir: dir, adminURL: "http://127.0.0.1:" + admin + "/status.txt?password=adm", sendsm: "http://127.0.0.1:" + sendsms + "/cgi-bin/sendsms"}
	var cmds []*exec.Cmd
	start := func(bin, name string) {
		out, err := os.Create(filepath.Join(dir, name+".out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-v", "0", confFile)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		cmds = append(cmds, cmd)
	}
	t.Cleanup(func() {
		status := ""
		if t.Failed() {
			status = k.status()
		}
		for i := len(cmds) - 1; i >= 0; i-- {
			cmds[i].Process.Kill()
			cmds[i].Wait()
		}
		if t.Failed() {
			k.printLogs(t)
			t.Logf("Kannel's status:\n%s", status)
		}
	})
	start(bearerbox, "bearerbox")
	if !waitFor(10*time.Second, func() bool { return dialable("127.0.0.1:" + box) }) {
		t.Fatal("bearerbox did not listen for smsbox within 10 s")
	}
	start(smsbox, "smsbox")
	if !waitFor(10*time.Second, func() bool { return dialable("127.0.0.1:" + sendsms) }) {
		t.Fatal("smsbox did not listen for sendsms within 10 s")
	}
	return k
}

func dialable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// status is bearerbox's status page.
func (k *kannel) status() string {
	resp, err := http.Get(k.adminURL)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

var (
	kannelOnline   = regexp.MustCompile(`SMPP:\S+ \(online`)
	kannelSMSBoxUp = regexp.MustCompile(`smsbox:\S*, IP \S+ \(\d+ queued\), \(on-line`)
)

// waitOnline waits for the smsc group's bind to msgkit and for smsbox to
// be connected to bearerbox: Kannel 1.4.5's smsbox serves sendsms before
// it connects, and a request in that moment makes it panic
// (lock_out: Assertion `conn != NULL' failed).
func (k *kannel) waitOnline(t *testing.T, d time.Duration) {
	t.Helper()
	if !waitFor(d, func() bool { s := k.status(); return kannelOnline.MatchString(s) && kannelSMSBoxUp.MatchString(s) }) {
		t.Fatalf("Kannel did not bind to msgkit within %v:\n%s", d, k.status())
	}
}

// send asks smsbox to send text to receiver (in coding 0, GSM, or 2,
// UCS-2), asking for delivery reports at dlrURL; it reports whether
// Kannel accepted it.
func (k *kannel) send(receiver, text string, coding int, dlrURL string) error {
	q := url.Values{"username": {"send"}, "password": {"sendpw"}, "from": {"Shop"}, "to": {receiver}, "text": {text},
		"charset": {"UTF-8"}, "coding": {fmt.Sprint(coding)}, "dlr-mask": {"19"}, "dlr-url": {dlrURL}}
	resp, err := http.Get(k.sendsm + "?" + q.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// "0: Accepted for delivery", or "3: Queued for later delivery" while
	// the SMSC connection is down.
	if resp.StatusCode != http.StatusAccepted || !(strings.HasPrefix(string(b), "0:") || strings.HasPrefix(string(b), "3:")) {
		return fmt.Errorf("sendsms: %d %s", resp.StatusCode, b)
	}
	return nil
}

// printLogs prints what bearerbox and smsbox said beyond the PDU dumps:
// errors, warnings, binds and the delivery reports.
func (k *kannel) printLogs(t *testing.T) {
	keep := regexp.MustCompile(`ERROR|WARNING|PANIC|INFO|DLR|bind|unbind|[Cc]onnect|generic_nack|command_status: [1-9]`)
	for _, name := range []string{"bearerbox.log", "smsbox.log", "bearerbox.out", "smsbox.out"} {
		b, err := os.ReadFile(filepath.Join(k.dir, name))
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if keep.MatchString(l) {
				lines = append(lines, l)
			}
		}
		if len(lines) > 300 {
			lines = append([]string{fmt.Sprintf("(%d lines before)", len(lines)-300)}, lines[len(lines)-300:]...)
		}
		t.Logf("Kannel's %s (%d bytes):\n%s", name, len(b), strings.Join(lines, "\n"))
	}
}

// TestKannelESME: Kannel (bearerbox with an smsc group of type smpp) is
// an ESME bound to msgkit's SMPP server, on PostgreSQL, with an SMSC
// (smppsim) as msgkit's network. Messages go in through Kannel's sendsms,
// GSM and UCS-2, single and long (Kannel splits them with a UDH), while
// msgkit is stopped gracefully and started again on the same database and
// port, and Kannel binds again by itself. Every message Kannel accepted
// becomes exactly one message in msgkit, with its text whole; the SMSC
// gets each of its parts exactly once; and each
// message's delivery report reaches Kannel's dlr-url exactly once.
func TestKannelESME(t *testing.T) {
	bearerbox, smsbox := kannelBearerbox(t)
	if testing.Short() {
		t.Skip("runs Kannel and server processes and restarts one; the full suite runs it")
	}
	t.Parallel()
	p := startESMEPlatform(t)
	k := startKannel(t, bearerbox, smsbox, p.smppAddr)
	k.waitOnline(t, 15*time.Second)
	sink := newDLRSink(t)

	// 40 messages of every kind one by one; then 120 at once from 4
	// clients, msgkit stopped once a third went in, so that Kannel has
	// submit_sm in flight, and started again; then 40 more of every kind.
	const before, burst, after = 40, 120, 40
	const messages = before + burst + after
	receiver := func(i int) string { return fmt.Sprintf("+3864100%04d", i) }
	texts := map[string]string{} // by receiver
	kinds := map[string]string{}
	for i := range messages {
		kind := esmeKinds[i%len(esmeKinds)]
		texts[receiver(i)], kinds[receiver(i)] = esmeText(kind, i), kind
	}
	name := func(r string) string { return r + " (" + kinds[r] + ")" }
	var (
		errMu    sync.Mutex
		sendErrs []string
	)
	send := func(i int) {
		coding := 0
		if strings.HasPrefix(kinds[receiver(i)], "ucs") {
			coding = 2
		}
		dlr := sink.url + "/dlr?id=" + url.QueryEscape(receiver(i)) + "&type=%d&fid=%F&answer=%A"
		if err := k.send(receiver(i), texts[receiver(i)], coding, dlr); err != nil {
			errMu.Lock()
			sendErrs = append(sendErrs, fmt.Sprintf("message %d: %v", i, err))
			errMu.Unlock()
		}
	}
	began := time.Now()
	for i := range before {
		send(i)
		time.Sleep(10 * time.Millisecond)
	}
	var next, sent atomic.Int64
	next.Store(before)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < before+burst; i = int(next.Add(1) - 1) {
				send(i)
				sent.Add(1)
			}
		})
	}
	if !waitFor(30*time.Second, func() bool { return sent.Load() >= burst/3 }) {
		t.Fatal("Kannel did not take a third of the burst within 30 s")
	}
	stopped := time.Now()
	p.restart(t)
	restarted := time.Now()
	wg.Wait()
	beforeStop := 0
	for _, sub := range p.sim.Submits() {
		if sub.At.Before(stopped) {
			beforeStop++
		}
	}
	for i := before + burst; i < messages; i++ {
		send(i)
		time.Sleep(10 * time.Millisecond)
	}
	if len(sendErrs) > 0 {
		t.Fatalf("Kannel refused messages: %s", strings.Join(sendErrs, "; "))
	}

	// Everything reaches msgkit, the SMSC, and back.
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	defer cancel()
	var got map[string]*storedMessage
	allIn := func() bool {
		var err error
		if got, err = p.messages(ctx); err != nil {
			t.Logf("reading msgkit's messages: %v", err)
			return false
		}
		if !allDelivered(got, messages) {
			return false
		}
		reports, _ := sink.reports()
		final := map[string]bool{}
		for _, r := range reports {
			if r["type"] == "1" {
				final[r["id"]] = true
			}
		}
		return len(final) >= messages
	}
	// What is still missing after 10 s, so that a slow run says why.
	missing := func() string {
		delivered := 0
		for _, s := range got {
			if s.done {
				delivered++
			}
		}
		reports, _ := sink.reports()
		final := map[string]bool{}
		for _, r := range reports {
			if r["type"] == "1" {
				final[r["id"]] = true
			}
		}
		var late []string
		for r := range texts {
			if s := got[r]; s == nil || !s.done || !final[r] {
				late = append(late, fmt.Sprintf("%s in msgkit %v delivered %v reported %v", name(r), s != nil, s != nil && s.done, final[r]))
			}
		}
		slices.Sort(late)
		return fmt.Sprintf("%d in msgkit, %d delivered, %d reported; %s", len(got), delivered, len(final), strings.Join(late, "; "))
	}
	if !waitFor(10*time.Second, allIn) {
		t.Logf("after 10 s: %s", missing())
	}
	if waitFor(40*time.Second, allIn) {
		t.Logf("every message in msgkit and delivered %v after the restart", time.Since(restarted).Round(time.Millisecond))
	} else {
		t.Errorf("after 50 s msgkit has %d of the %d messages Kannel accepted, not all delivered or reported", len(got), messages)
	}
	time.Sleep(time.Second) // for a duplicate to show
	if _, _, ok := p.servers[1].lastLog(regexp.MustCompile(`smpp server: bound.*system_id=` + esmeUser)); !ok {
		t.Error("Kannel did not bind to the restarted server")
	}
	got, err := p.messages(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Each message once in msgkit, whole.
	for r, text := range texts {
		s := got[r]
		if s == nil {
			t.Errorf("%s: not in msgkit", name(r))
			continue
		}
		if s.copies != 1 {
			t.Errorf("%s: %d messages in msgkit, want 1", name(r), s.copies)
		}
		wantDCS := int(gsm.DCSGSM)
		if strings.HasPrefix(kinds[r], "ucs") {
			wantDCS = int(gsm.DCSUCS)
		}
		if s.text != text || s.dcs != wantDCS {
			t.Errorf("%s: msgkit has %q in dcs %d, want %q in %d", name(r), s.text, s.dcs, text, wantDCS)
		}
		if !s.done {
			t.Errorf("%s: not every part delivered", name(r))
		}
	}
	for r := range got {
		if _, ok := texts[r]; !ok {
			t.Errorf("msgkit has a message to %s, which Kannel was not sent", r)
		}
	}

	// Each part once at the SMSC.
	partsTotal := p.checkNetwork(t, got, name)

	// Each report once at Kannel's dlr-url.
	reports, _ := sink.reports()
	byMsg := map[string][]string{}
	for _, r := range reports {
		byMsg[r["id"]] = append(byMsg[r["id"]], r["type"])
		if s := got[r["id"]]; s != nil && r["fid"] != s.id {
			t.Errorf("%s: Kannel's report names the SMSC's message id %q, msgkit's is %s", name(r["id"]), r["fid"], s.id)
		}
	}
	for r, types := range byMsg {
		if _, ok := texts[r]; !ok {
			t.Errorf("a report of %s, which Kannel was not sent: %v", r, types)
		}
	}
	for r := range texts {
		if types := byMsg[r]; len(types) != 1 || types[0] != "1" {
			t.Errorf("%s: the reports %v reached Kannel's dlr-url, want one of type 1 (delivered)", name(r), types)
		}
	}
	// msgkit sends a receipt of each part it sent; Kannel, which keeps one
	// report per message, matches the first and logs the others as
	// unmatched.
	unmatched := 0
	if b, err := os.ReadFile(filepath.Join(k.dir, "bearerbox.log")); err == nil {
		unmatched = strings.Count(string(b), "got DLR but could not find message")
	}
	t.Logf("%d messages (%d parts) through Kannel and msgkit; msgkit stopped %v after the first, with %d parts at the SMSC, and back %v later; %d reports at the dlr-url, %d receipts Kannel did not match",
		messages, partsTotal, stopped.Sub(began).Round(time.Millisecond), beforeStop, restarted.Sub(stopped).Round(time.Millisecond), len(reports), unmatched)
}
