package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// esmeDir holds esme.js, an ESME written with the npm smpp package.
const esmeDir = "testdata/esme"

// esmeNode is node, with esmeDir's packages installed (npm ci when they
// are missing). Without node or npm the test is skipped, unless
// MSGKIT_INTEROP=1 says it must run (then it fails).
func esmeNode(t *testing.T) string {
	t.Helper()
	return msgkittest.Node(t, esmeDir, "smpp")
}

// esmeEvent is one line of esme.js's log (see testdata/esme/README.md).
type esmeEvent struct {
	Event              string  `json:"event"`
	Conn               int     `json:"conn"`
	Status             int     `json:"status"`
	ID                 string  `json:"id"`
	Part               int     `json:"part"`
	Parts              int     `json:"parts"`
	MessageID          string  `json:"message_id"`
	ESMClass           int     `json:"esm_class"`
	SourceAddr         string  `json:"source_addr"`
	DestAddr           string  `json:"destination_addr"`
	DataCoding         int     `json:"data_coding"`
	Text               *string `json:"text"`
	ReceiptedMessageID *string `json:"receipted_message_id"`
	MessageState       *int    `json:"message_state"`
}

// npmESME is a running esme.js and what it logged.
type npmESME struct {
	stdin  io.WriteCloser
	stderr msgkittest.Buffer

	out     msgkittest.JSONLines[esmeEvent] // its standard output
	exited  chan struct{}
	exitErr error
}

// startNpmESME runs esme.js bound to addr with the ESME account until the
// test ends.
func startNpmESME(t *testing.T, node, addr string) *npmESME {
	t.Helper()
	e := &npmESME{exited: make(chan struct{})}
	pctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(pctx, node, "esme.js", "--addr="+addr, "--system-id="+esmeUser, "--password="+esmePassword)
	cmd.Dir = esmeDir
	cmd.Stdout = &e.out
	cmd.Stderr = &e.stderr
	cmd.WaitDelay = 2 * time.Second
	var err error
	if e.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		kill()
		t.Fatalf("starting esme.js: %v", err)
	}
	go func() {
		e.exitErr = cmd.Wait()
		close(e.exited)
	}()
	t.Cleanup(func() {
		kill()
		<-e.exited
		lines, bad := e.out.Lines()
		if len(bad) > 0 {
			t.Errorf("esme.js wrote lines that are not JSON: %q", bad)
		}
		if t.Failed() {
			t.Logf("esme.js logged:\n%s\nstderr:\n%s", strings.Join(lines, "\n"), e.stderr.String())
		}
	})
	return e
}

// await waits until done holds of the events logged, and returns them.
func (e *npmESME) await(t *testing.T, ctx context.Context, what string, done func([]esmeEvent) bool) []esmeEvent {
	t.Helper()
	for {
		evs, changed := e.out.Events()
		if done(evs) {
			return evs
		}
		select {
		case <-changed:
		case <-e.exited:
			t.Fatalf("esme.js ended (%v) before %s", e.exitErr, what)
		case <-ctx.Done():
			t.Fatalf("no %s in time", what)
		}
	}
}

func (e *npmESME) events() []esmeEvent {
	evs, _ := e.out.Events()
	return evs
}

// npmMessage is a message esme.js is told to submit: coding gsm, ucs2 or
// auto (the library's choice), a long one cut into parts tied by a UDH
// (concat udh) or the SAR parameters (sar) with reference ref.
type npmMessage struct {
	ID     string `json:"id"`
	Dest   string `json:"dest"`
	Text   string `json:"text"`
	Coding string `json:"coding"`
	Concat string `json:"concat,omitempty"`
	Ref    int    `json:"ref,omitempty"`
}

func (e *npmESME) submit(t *testing.T, msgs ...npmMessage) {
	t.Helper()
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		if _, err := e.stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("writing to esme.js: %v", err)
		}
	}
}

// answered is the submit_sm_resp events of each message, once every part
// of each of msgs was answered; nil before.
func answered(evs []esmeEvent, msgs []npmMessage) map[string][]esmeEvent {
	by := map[string][]esmeEvent{}
	for _, ev := range evs {
		if ev.Event == "submit_sm_resp" {
			by[ev.ID] = append(by[ev.ID], ev)
		}
	}
	for _, m := range msgs {
		resps := by[m.ID]
		if len(resps) == 0 || len(resps) < resps[0].Parts {
			return nil
		}
	}
	return by
}

func countEvents(evs []esmeEvent, name string, status int) int {
	n := 0
	for _, ev := range evs {
		if ev.Event == name && ev.Status == status {
			n++
		}
	}
	return n
}

// TestNpmESME: an ESME written with the npm smpp package binds to msgkit's
// SMPP server (on PostgreSQL, smppsim as its network) as a transceiver and
// submits GSM and UCS-2 messages, single and long (tied by a UDH or the
// SAR parameters), asking for receipts, in three batches: one before
// msgkit is stopped gracefully, one as it stops (it drains, unbinds the
// ESME, and is started again on the same database and port, where the
// ESME binds again and sends again what was not taken), one after. Every message is one in
// msgkit under the id its submit_sm_resp gave, whole, its parts reach the
// SMSC once each, and a receipt of each part
// reaches the ESME, in SMPP 3.4's form, once (again only when the restart
// ended the connection it first came on). The library's own choice of
// data_coding for GSM text (1, IA5) is taken as ASCII.
func TestNpmESME(t *testing.T) {
	node := esmeNode(t)
	if testing.Short() {
		t.Skip("runs node and server processes and restarts one; the full suite runs it")
	}
	t.Parallel()
	p := startESMEPlatform(t)
	e := startNpmESME(t, node, p.smppAddr)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Second)
	defer cancel()
	e.await(t, ctx, "a bind", func(evs []esmeEvent) bool { return countEvents(evs, "bind", 0) >= 1 })

	n := 0
	message := func(kind, concat string) npmMessage {
		n++
		coding := "gsm"
		if strings.HasPrefix(kind, "ucs") {
			coding = "ucs2"
		}
		return npmMessage{ID: fmt.Sprintf("%s-%d", kind, n), Dest: fmt.Sprintf("3864200%04d", n), Text: esmeText(kind, n), Coding: coding, Concat: concat, Ref: 40 + n}
	}
	first := []npmMessage{message("gsm-single", ""), message("gsm-long", "udh"), message("ucs-single", ""), message("ucs-long", "sar")}
	across := []npmMessage{message("gsm-long", "udh"), message("ucs-single", ""), message("ucs-long", "sar"), message("gsm-single", ""),
		message("gsm-long", "sar"), message("ucs-long", "udh"), message("gsm-single", ""), message("ucs-single", "")}
	second := []npmMessage{message("gsm-single", ""), message("gsm-long", "sar"), message("ucs-single", ""), message("ucs-long", "udh")}
	// The library writes its "ASCII" (data_coding 1) in GSM 03.38 codes,
	// which agree with ASCII on letters, digits, space and most
	// punctuation, the text here; msgkit reads 1 as ASCII, as SMPP 3.4
	// defines it, so '_', '@' or '$' would differ.
	auto := npmMessage{ID: "auto", Dest: "38642009999", Text: "GSM text in the library's own coding", Coding: "auto"}
	all := slices.Concat(first, []npmMessage{auto}, across, second)
	byDest := map[string]npmMessage{}
	for _, m := range all {
		byDest["+"+m.Dest] = m
	}
	name := func(r string) string { return byDest[r].ID }

	e.submit(t, append(first, auto)...)
	e.await(t, ctx, "the first batch answered", func(evs []esmeEvent) bool { return answered(evs, append(first, auto)) != nil })
	// The next batch goes as the server is told to stop: some of it is
	// answered by the stopping server, some ESME_RTHROTTLED or not at all
	// and sent again to the next.
	e.submit(t, across...)
	began := time.Now()
	p.restart(t)
	restarted := time.Since(began)
	evs := e.await(t, ctx, "a bind to the restarted server", func(evs []esmeEvent) bool { return countEvents(evs, "bind", 0) >= 2 })
	if countEvents(evs, "unbind", 0) < 1 {
		t.Error("the stopping server did not unbind the ESME")
	}
	e.submit(t, second...)
	evs = e.await(t, ctx, "every batch answered", func(evs []esmeEvent) bool { return answered(evs, slices.Concat(across, second)) != nil })

	// Every part answered ESME_ROK, the parts of a message with one id,
	// the library's own data_coding (1, ASCII) too.
	resps := answered(evs, all)
	ids := map[string]string{} // message id by receiver
	for _, m := range all {
		for _, r := range resps[m.ID] {
			if r.Status != 0 || r.MessageID == "" {
				t.Errorf("%s part %d/%d: command_status %#x, message_id %q", m.ID, r.Part, r.Parts, r.Status, r.MessageID)
			}
			if id, ok := ids["+"+m.Dest]; ok && id != r.MessageID {
				t.Errorf("%s part %d/%d: message_id %s, another part's %s", m.ID, r.Part, r.Parts, r.MessageID, id)
			}
			ids["+"+m.Dest] = r.MessageID
		}
	}

	// Into msgkit, to the SMSC, and the receipts back.
	var got map[string]*storedMessage
	receipts := func(evs []esmeEvent) map[string][]esmeEvent {
		by := map[string][]esmeEvent{}
		for _, ev := range evs {
			if ev.Event == "deliver_sm" {
				by["+"+strings.TrimPrefix(ev.SourceAddr, "+")] = append(by["+"+strings.TrimPrefix(ev.SourceAddr, "+")], ev)
			}
		}
		return by
	}
	if !waitFor(30*time.Second, func() bool {
		var err error
		if got, err = p.messages(ctx); err != nil {
			t.Logf("reading msgkit's messages: %v", err)
			return false
		}
		if !allDelivered(got, len(all)) {
			return false
		}
		rs := receipts(e.events())
		for r, s := range got {
			if len(rs[r]) < s.parts {
				return false
			}
		}
		return true
	}) {
		t.Errorf("msgkit has %d of the %d messages, not all delivered, or the receipts did not come", len(got), len(all))
	}
	settled := time.Since(began)
	time.Sleep(500 * time.Millisecond) // for a duplicate to show
	got, err := p.messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for r, m := range byDest {
		s := got[r]
		if s == nil {
			t.Errorf("%s: not in msgkit", m.ID)
			continue
		}
		wantDCS := int(gsm.DCSGSM)
		if m.Coding == "ucs2" {
			wantDCS = int(gsm.DCSUCS)
		}
		if s.copies != 1 || s.id != ids[r] || s.text != m.Text || s.dcs != wantDCS || !s.done {
			t.Errorf("%s: msgkit has %d messages, the first %s: %q in dcs %d, delivered %v; want one, %s: %q in %d, delivered",
				m.ID, s.copies, s.id, s.text, s.dcs, s.done, ids[r], m.Text, wantDCS)
		}
	}
	if len(got) != len(all) {
		t.Errorf("msgkit has %d messages of the ESME's account, want %d", len(got), len(all))
	}
	parts := p.checkNetwork(t, got, name)

	// One receipt of each part msgkit sent, as the HTTP reports; at least
	// once, so a receipt first sent on the connection the restart ended
	// may come again on the next.
	evs = e.events()
	rcpts := receipts(evs)
	lastConn := 0
	for _, ev := range evs {
		lastConn = max(lastConn, ev.Conn)
	}
	again := 0
	for r, m := range byDest {
		rs, s := rcpts[r], got[r]
		if s == nil {
			continue
		}
		early := 0 // receipts on a connection that ended
		for _, ev := range rs {
			if ev.Conn < lastConn {
				early++
			}
		}
		if len(rs) < s.parts || len(rs) > s.parts+early {
			t.Errorf("%s: %d receipts (%d on the connection the restart ended), want one of each of its %d parts", m.ID, len(rs), early, s.parts)
		}
		again += len(rs) - s.parts
		for _, ev := range rs {
			var text string
			if ev.Text != nil {
				text = *ev.Text
			}
			b := appendixB.FindStringSubmatch(text)
			switch {
			case ev.ESMClass&0x3c != 0x04:
				t.Errorf("%s: a deliver_sm of esm_class %#x, want a delivery receipt (0x04)", m.ID, ev.ESMClass)
			case ev.DestAddr != "npm-esme":
				t.Errorf("%s: the receipt is to %q, want the message's sender npm-esme", m.ID, ev.DestAddr)
			case ev.ReceiptedMessageID == nil || *ev.ReceiptedMessageID != ids[r]:
				t.Errorf("%s: receipted_message_id %v, want %s", m.ID, strOrNone(ev.ReceiptedMessageID), ids[r])
			case ev.MessageState == nil || *ev.MessageState != 2:
				t.Errorf("%s: message_state %v, want 2 (DELIVERED)", m.ID, ev.MessageState)
			case b == nil || b[1] != ids[r] || b[6] != "DELIVRD" || b[7] != "000":
				t.Errorf("%s: the receipt's text %q is not SMPP 3.4's id:%s ... stat:DELIVRD err:000 text:...", m.ID, text, ids[r])
			}
		}
	}
	nReceipts := 0
	for r, rs := range rcpts {
		nReceipts += len(rs)
		if _, ok := byDest[r]; !ok {
			t.Errorf("a deliver_sm from %s, to which nothing was sent: %+v", r, rs)
		}
	}
	t.Logf("%d messages (%d parts) from the npm smpp ESME, %d submitted before the restart, %d as it stopped (%d parts asked for again) and %d after; %d receipts came, %d of them again; restarted in %v, everything delivered and its receipts in %v from the stop",
		len(all), parts, len(first), len(across), countEvents(evs, "submit_sm_retry", int(pdu.ESME_RTHROTTLED)), len(second), nReceipts, again, restarted.Round(time.Millisecond), settled.Round(time.Millisecond))
}

func strOrNone(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
