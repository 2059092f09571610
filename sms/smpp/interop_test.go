package smpp_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smpp"
)

// interopDir holds smsc.js, an SMSC written with the npm smpp package.
const interopDir = "interop"

// TestInteropNodeSMPP runs the client against an SMSC built on another
// implementation of SMPP (interop/smsc.js), so that the codec and the
// client are checked against a reading of the specification that is
// not their own: the PDUs it decodes, the receipts it writes, the way it
// drops a connection. Without node it is skipped, unless MSGKIT_INTEROP=1
// says it must run (then it fails).
func TestInteropNodeSMPP(t *testing.T) {
	node := interopNode(t)
	t.Run("codings and receipts", func(t *testing.T) { testInteropCodings(t, node) })
	t.Run("drop mid-window", func(t *testing.T) { testInteropDrop(t, node) })
	t.Run("bind refused", func(t *testing.T) { testInteropBindRefused(t, node) })
}

// testInteropCodings sends a short and a long message in each coding,
// the long GSM one tied by an 8-bit reference in the header and the long
// UCS-2 one by the SAR parameters, and checks what the SMSC read and
// that a receipt of every part came back and was acknowledged.
func testInteropCodings(t *testing.T, node string) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	s := startSMSC(t, ctx, node, "--id-format=hex")
	sk := newSink()
	// The UDH connection checks the link often, so that the SMSC's
	// enquire_link_resp is read too.
	udh := startESME(t, s, smpp.Config{Name: "node-udh", EnquireEvery: 50 * time.Millisecond}, sk)
	sar := startESME(t, s, smpp.Config{Name: "node-sar", Concat: smpp.ConcatSAR}, sk)

	gsmSingle := interopPart("gsm-single", 0, 1, "+38640000001", gsm.DCSGSM, "Hello from msgkit: 5€ @ {home}")
	gsmChunks := splitText(strings.Repeat("The quick brown fox jumps over the lazy dog; 0123456789 @ 5€ {ok}. ", 6), 153, gsmLen)
	gsmLong := longMessage("gsm-long", "+38640000002", gsm.DCSGSM, 0x2A, gsmChunks)
	ucsSingle := interopPart("ucs-single", 0, 1, "+38640000003", gsm.DCSUCS, "Привет, мир! 😀")
	ucsChunks := splitText(strings.Repeat("Съешь же ещё этих мягких французских булок 😀 ", 4), 67, utf16.RuneLen)
	ucsLong := longMessage("ucs-long", "+38640000004", gsm.DCSUCS, 0, ucsChunks)
	if len(gsmChunks) != 3 || len(ucsChunks) != 3 {
		t.Fatalf("the long texts split into %d and %d parts, want 3 each", len(gsmChunks), len(ucsChunks))
	}

	if errs := udh.Send(ctx, append(append([]sms.OutboundPart{gsmSingle}, gsmLong...), ucsSingle)); errs != nil {
		t.Fatalf("Send on the UDH connection: %v", errs)
	}
	if errs := sar.Send(ctx, ucsLong); errs != nil {
		t.Fatalf("Send on the SAR connection: %v", errs)
	}
	all := slices.Concat([]sms.OutboundPart{gsmSingle}, gsmLong, []sms.OutboundPart{ucsSingle}, ucsLong)
	evs := s.await(t, ctx, "every submit_sm", func(evs []smscEvent) bool { return len(byEvent(evs, "submit_sm")) >= len(all) })
	submits := byEvent(evs, "submit_sm")
	if len(submits) != len(all) {
		t.Fatalf("the SMSC answered %d submit_sm, want %d", len(submits), len(all))
	}

	// Each message went to its own number, its parts in order on one
	// connection: the n-th submit_sm to a number is the n-th part.
	byDest := map[string][]smscEvent{}
	for _, ev := range submits {
		byDest[ev.DestAddr] = append(byDest[ev.DestAddr], ev)
	}
	var sarRef *int
	for _, p := range all {
		got := byDest[p.Receiver.Digits()]
		if len(got) <= p.PartNum {
			t.Errorf("%s part %d: the SMSC has no submit_sm of it", p.MsgID, p.PartNum)
			continue
		}
		ev := got[p.PartNum]
		name := fmt.Sprintf("%s part %d", p.MsgID, p.PartNum)
		if ev.SourceAddr != "msgkit" || ev.SourceTON != 5 || ev.SourceNPI != 0 || ev.DestTON != 1 || ev.DestNPI != 1 || ev.RegisteredDelivery != 1 {
			t.Errorf("%s: addresses %s (%d/%d) to %s (%d/%d), registered_delivery %d; want msgkit (5/0), (1/1), 1",
				name, ev.SourceAddr, ev.SourceTON, ev.SourceNPI, ev.DestAddr, ev.DestTON, ev.DestNPI, ev.RegisteredDelivery)
		}
		var (
			payload []byte
			coding  int
		)
		if p.DCS == gsm.DCSUCS {
			payload, coding = ucs2Octets(p.Text), 8
		} else {
			payload, coding = gsmOctets(t, p.Text), 0
		}
		var header []byte
		var ies []string
		wantESM := 0
		if p.NumParts > 1 && p.MsgID == "gsm-long" {
			// The reference is the client's (counted per destination),
			// the one of the message's first part in every part.
			ref := p.UDH.Ref
			if first, err := hex.DecodeString(got[0].ShortMessage); err == nil && len(first) > 3 {
				ref = first[3]
			}
			header = []byte{0x05, 0x00, 0x03, ref, p.UDH.Total, p.UDH.Seq}
			ies = []string{hex.EncodeToString(header[1:])}
			wantESM = 0x40
		}
		want := hex.EncodeToString(append(header, payload...))
		if ev.DataCoding != coding || ev.ESMClass != wantESM || ev.ShortMessage != want {
			t.Errorf("%s: data_coding %d, esm_class %#x, short_message %s; want %d, %#x, %s", name, ev.DataCoding, ev.ESMClass, ev.ShortMessage, coding, wantESM, want)
		}
		// How the other implementation reads it back.
		if ev.Text == nil || *ev.Text != p.Text || !slices.Equal(ev.UDH, ies) {
			t.Errorf("%s: the SMSC read the text %s and the header %q; want %q and %q", name, strOrNil(ev.Text), ev.UDH, p.Text, ies)
		}
		if p.MsgID == "ucs-long" {
			if ev.SarRef == nil || ev.SarTotal == nil || ev.SarSeq == nil || *ev.SarTotal != 3 || *ev.SarSeq != p.PartNum+1 {
				t.Errorf("%s: sar_total_segments %s, sar_segment_seqnum %s; want 3, %d", name, intOrNil(ev.SarTotal), intOrNil(ev.SarSeq), p.PartNum+1)
			} else if sarRef == nil {
				sarRef = ev.SarRef
			} else if *ev.SarRef != *sarRef {
				t.Errorf("%s: sar_msg_ref_num %d, the first part's %d", name, *ev.SarRef, *sarRef)
			}
		} else if ev.SarRef != nil || ev.SarTotal != nil || ev.SarSeq != nil {
			t.Errorf("%s: SAR parameters (%s, %s, %s) where none belong", name, intOrNil(ev.SarRef), intOrNil(ev.SarTotal), intOrNil(ev.SarSeq))
		}
	}

	waitDelivered(t, ctx, sk, all)
	checkReceiptsAcked(t, ctx, s, submits)

	// Either side's enquire_link is answered, and neither connection was
	// lost on the way.
	evs = s.await(t, ctx, "the links checked", func(evs []smscEvent) bool {
		return len(byEvent(evs, "enquire_link")) >= 2 && len(byEvent(evs, "enquire_link_resp")) >= 2
	})
	for _, ev := range byEvent(evs, "enquire_link_resp") {
		if ev.Status != 0 {
			t.Errorf("connection %d answered the SMSC's enquire_link %#x", ev.Conn, ev.Status)
		}
	}
	if n := len(byEvent(evs, "bind")); n != 2 || len(byEvent(evs, "close")) != 0 {
		t.Errorf("%d binds and %d closed connections, want 2 and none", n, len(byEvent(evs, "close")))
	}
}

// testInteropDrop: the SMSC breaks the connection on a submit_sm with
// others in flight. The parts it answered are taken; the others fail as
// Unavailable and, sent again on the next bind, reach it once each, and
// every part's receipt comes, those sent on the broken connection again
// on the new one.
func testInteropDrop(t *testing.T, node string) {
	ctx, cancel := context.WithTimeout(t.Context(), 12*time.Second)
	defer cancel()
	s := startSMSC(t, ctx, node, "--id-format=dec", "--drop-after=4")
	sk := newSink()
	c := startESME(t, s, smpp.Config{Name: "node-drop"}, sk)

	// Two short messages, then a long one whose second part is the 4th
	// submit_sm, then three more short ones.
	single := func(i int) sms.OutboundPart {
		return interopPart(fmt.Sprintf("drop-%d", i), 0, 1, fmt.Sprintf("+3864000002%d", i), gsm.DCSGSM, fmt.Sprintf("Single message %d", i))
	}
	long := longMessage("drop-long", "+38640000011", gsm.DCSGSM, 0x2C,
		splitText(strings.Repeat("A long message whose parts meet a connection that breaks. ", 6), 153, gsmLen))
	if len(long) != 3 {
		t.Fatalf("the long text split into %d parts, want 3", len(long))
	}
	parts := slices.Concat([]sms.OutboundPart{single(0), single(1)}, long, []sms.OutboundPart{single(2), single(3), single(4)})
	key := func(dest, text string) string { return dest + "|" + text }
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = key(p.Receiver.Digits(), p.Text)
	}
	answered := func(evs []smscEvent) map[string]int {
		n := map[string]int{}
		for _, ev := range byEvent(evs, "submit_sm") {
			n[key(ev.DestAddr, strOrNil(ev.Text))]++
		}
		return n
	}

	errs := c.Send(ctx, parts)
	if errs == nil {
		t.Fatal("every part was taken, though the SMSC dropped the connection on its 4th submit_sm")
	}
	taken := 0
	for i, err := range errs {
		if err == nil {
			taken++
		} else if msgkit.KindOf(err) != msgkit.Unavailable {
			t.Errorf("part %d (%s): %v, want an Unavailable error", i, keys[i], err)
		}
	}
	// Every part Send calls taken was answered by the SMSC, and no other.
	evs := s.await(t, ctx, "the answered parts", func(evs []smscEvent) bool {
		return len(byEvent(evs, "drop")) == 1 && len(byEvent(evs, "submit_sm")) >= taken
	})
	before := answered(evs)
	dropped := byEvent(evs, "drop")[0]
	for i, err := range errs {
		if (err == nil) != (before[keys[i]] == 1) {
			t.Errorf("part %d (%s): Send says %v, the SMSC answered it %d times", i, keys[i], err, before[keys[i]])
		}
	}
	if k := key(dropped.DestAddr, strOrNil(dropped.Text)); k != keys[3] {
		t.Errorf("the SMSC dropped the connection on %s, want the 4th part sent, %s", k, keys[3])
	} else if before[k] != 0 {
		t.Errorf("the dropped submit_sm (%s) was answered", k)
	}
	if t.Failed() {
		// A part answered but called lost is sent again and its first
		// receipt never matches: what follows would only repeat this.
		t.FailNow()
	}

	// The client binds again by itself.
	s.await(t, ctx, "a second bind", func(evs []smscEvent) bool {
		n := 0
		for _, ev := range byEvent(evs, "bind") {
			if ev.Status == 0 {
				n++
			}
		}
		return n >= 2
	})
	for c.Bound() < 1 {
		if ctx.Err() != nil {
			t.Fatal("the client did not bind again")
		}
		time.Sleep(5 * time.Millisecond) // waiting for a condition, not a schedule
	}
	if errs := c.Send(ctx, parts); errs != nil {
		t.Fatalf("Send again: %v", errs)
	}

	waitDelivered(t, ctx, sk, parts)
	evs = s.await(t, ctx, "every part answered", func(evs []smscEvent) bool { return len(byEvent(evs, "submit_sm")) >= len(parts) })
	checkReceiptsAcked(t, ctx, s, byEvent(evs, "submit_sm"))
	// Counted after the receipts, so that a part sent twice has had the
	// time to show.
	after := answered(s.events())
	for i, k := range keys {
		switch {
		case before[k] == 1 && after[k] != 1:
			t.Errorf("part %d (%s), answered before the drop, reached the SMSC %d times", i, k, after[k])
		case after[k] != 1:
			t.Errorf("part %d (%s) reached the SMSC %d times, want once", i, k, after[k])
		}
	}
	if n := len(byEvent(s.events(), "submit_sm")); n != len(parts) {
		t.Errorf("the SMSC answered %d submit_sm, want %d", n, len(parts))
	}
}

// testInteropBindRefused: the SMSC refuses a wrong password with a
// bind_transceiver_resp without a body; the client reads it as the
// refusal it is, retries, and a Send finds no bind.
func testInteropBindRefused(t *testing.T, node string) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	s := startSMSC(t, ctx, node)
	log := &msgkittest.Buffer{}
	c := startESMELogged(t, s, smpp.Config{Name: "node-refused", Password: "wrong"}, newSink(), log)
	s.await(t, ctx, "two refused binds", func(evs []smscEvent) bool { return len(byEvent(evs, "bind")) >= 2 })
	for _, ev := range byEvent(s.events(), "bind") {
		if ev.Status != 0x0D {
			t.Errorf("bind answered %#x, want ESME_RBINDFAIL", ev.Status)
		}
	}
	if !strings.Contains(log.String(), "ESME_RBINDFAIL") {
		t.Errorf("the client's log does not name the refusal:\n%s", log)
	}
	sctx, scancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer scancel()
	if errs := c.Send(sctx, []sms.OutboundPart{interopPart("refused", 0, 1, "+38640000031", gsm.DCSGSM, "x")}); msgkit.KindOf(errs[0]) != msgkit.Unavailable || c.Bound() != 0 {
		t.Errorf("without a bind: %v, %d bound", errs, c.Bound())
	}
	if n := len(byEvent(s.events(), "submit_sm")); n != 0 {
		t.Errorf("%d submit_sm without a bind", n)
	}
}

// interopNode finds node and makes sure the SMSC's packages are
// installed; without them the test is skipped, or fails when
// MSGKIT_INTEROP=1.
func interopNode(t *testing.T) string {
	t.Helper()
	return msgkittest.Node(t, interopDir, "smpp")
}

// smsc is a running smsc.js and what it has logged.
type smsc struct {
	addr   string
	stderr msgkittest.Buffer

	out msgkittest.JSONLines[smscEvent] // its standard output

	exited  chan struct{} // closed when the process ended
	exitErr error         // how it ended; set before exited is closed
}

// smscEvent is one line of smsc.js's log; which fields are set depends
// on Event (see interop/README.md).
type smscEvent struct {
	Event              string   `json:"event"`
	Port               int      `json:"port"`
	Conn               int      `json:"conn"`
	Command            string   `json:"command"`
	SystemID           string   `json:"system_id"`
	Status             int      `json:"status"`
	Seq                int      `json:"seq"`
	SourceAddr         string   `json:"source_addr"`
	SourceTON          int      `json:"source_addr_ton"`
	SourceNPI          int      `json:"source_addr_npi"`
	DestAddr           string   `json:"destination_addr"`
	DestTON            int      `json:"dest_addr_ton"`
	DestNPI            int      `json:"dest_addr_npi"`
	ESMClass           int      `json:"esm_class"`
	DataCoding         int      `json:"data_coding"`
	RegisteredDelivery int      `json:"registered_delivery"`
	ShortMessage       string   `json:"short_message"`
	UDH                []string `json:"udh"`
	Text               *string  `json:"text"`
	SarRef             *int     `json:"sar_msg_ref_num"`
	SarTotal           *int     `json:"sar_total_segments"`
	SarSeq             *int     `json:"sar_segment_seqnum"`
	MessageID          string   `json:"message_id"`
}

// startSMSC runs smsc.js with args on a port of its choosing; it is
// killed when the test ends.
func startSMSC(t *testing.T, ctx context.Context, node string, args ...string) *smsc {
	t.Helper()
	s := &smsc{exited: make(chan struct{})}
	pctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(pctx, node, append([]string{"smsc.js", "--port=0", "--system-id=msgkit", "--password=secret"}, args...)...)
	cmd.Dir = interopDir
	cmd.Stdout = &s.out
	cmd.Stderr = &s.stderr
	cmd.WaitDelay = 2 * time.Second
	// smsc.js ends when its stdin closes; the pipe stays open until Wait.
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		kill()
		t.Fatalf("starting smsc.js: %v", err)
	}
	go func() {
		s.exitErr = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		kill()
		<-s.exited
		lines, bad := s.out.Lines()
		if len(bad) > 0 {
			t.Errorf("smsc.js wrote lines that are not JSON: %q", bad)
		}
		if t.Failed() {
			t.Logf("smsc.js logged:\n%s\nstderr:\n%s", strings.Join(lines, "\n"), s.stderr.String())
		}
	})
	evs := s.await(t, ctx, "the SMSC's port", func(evs []smscEvent) bool { return len(evs) > 0 })
	if evs[0].Port == 0 {
		t.Fatalf("smsc.js's first line is not its port: %+v", evs[0])
	}
	s.addr = fmt.Sprintf("127.0.0.1:%d", evs[0].Port)
	return s
}

func (s *smsc) events() []smscEvent {
	evs, _ := s.out.Events()
	return evs
}

// await waits until done holds of the events logged, and returns them.
func (s *smsc) await(t *testing.T, ctx context.Context, what string, done func([]smscEvent) bool) []smscEvent {
	t.Helper()
	for {
		evs, changed := s.out.Events()
		if done(evs) {
			return evs
		}
		select {
		case <-changed:
		case <-s.exited:
			t.Fatalf("smsc.js ended (%v) before %s", s.exitErr, what)
		case <-ctx.Done():
			t.Fatalf("no %s in time", what)
		}
	}
}

func byEvent(evs []smscEvent, name string) []smscEvent {
	var out []smscEvent
	for _, ev := range evs {
		if ev.Event == name {
			out = append(out, ev)
		}
	}
	return out
}

// startESME runs a client of the SMSC that stops when the test ends.
func startESME(t *testing.T, s *smsc, cfg smpp.Config, sk *sink) *smpp.Client {
	t.Helper()
	return startESMELogged(t, s, cfg, sk, &msgkittest.Buffer{})
}

// startESMELogged is startESME with the client's log kept in log, and
// shown when the test fails.
func startESMELogged(t *testing.T, s *smsc, cfg smpp.Config, sk *sink, log *msgkittest.Buffer) *smpp.Client {
	t.Helper()
	cfg.Addr = s.addr
	cfg.SystemID = cmp.Or(cfg.SystemID, "msgkit")
	cfg.Password = cmp.Or(cfg.Password, "secret")
	cfg.MinBackoff, cfg.MaxBackoff = 20*time.Millisecond, 200*time.Millisecond
	cfg.Timeout = 3 * time.Second
	c := smpp.New(cfg, smpp.Options{Store: memstore.New().SMPP(), Logger: slog.New(slog.NewTextHandler(log, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		c.Run(ctx, sk)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if t.Failed() {
			t.Logf("client %s logged:\n%s", cfg.Name, log)
		}
	})
	return c
}

// waitDelivered waits for a delivered event of every part. Acceptances
// (the SMSC took the part) may come too; any other status is an error.
func waitDelivered(t *testing.T, ctx context.Context, sk *sink, parts []sms.OutboundPart) {
	t.Helper()
	reported := 0
	for {
		got := map[smpp.PartKey]bool{}
		evs := sk.events()
		for _, ev := range evs[reported:] {
			if ev.Status != sms.StatusDelivered && ev.Status != sms.StatusAccepted {
				t.Errorf("event %+v, want delivered", ev)
			}
		}
		reported = len(evs)
		for _, ev := range evs {
			if ev.Status == sms.StatusDelivered {
				got[smpp.PartKey{MsgID: ev.MsgID, PartNum: ev.PartNum}] = true
			}
		}
		var missing []smpp.PartKey
		for _, p := range parts {
			if k := (smpp.PartKey{MsgID: p.MsgID, PartNum: p.PartNum}); !got[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			return
		}
		select {
		case <-sk.got:
		case <-ctx.Done():
			t.Fatalf("no receipt of %v", missing)
		}
	}
}

// checkReceiptsAcked waits for the SMSC to have had ESME_ROK to the
// receipt of every submit_sm it answered, and no other status.
func checkReceiptsAcked(t *testing.T, ctx context.Context, s *smsc, submits []smscEvent) {
	t.Helper()
	evs := s.await(t, ctx, "every receipt acknowledged", func(evs []smscEvent) bool {
		ok := map[string]bool{}
		for _, ev := range byEvent(evs, "deliver_sm_resp") {
			ok[ev.MessageID] = ok[ev.MessageID] || ev.Status == 0
		}
		for _, sub := range submits {
			if !ok[sub.MessageID] {
				return false
			}
		}
		return true
	})
	for _, ev := range byEvent(evs, "deliver_sm_resp") {
		if ev.Status != 0 {
			t.Errorf("the receipt of %s was answered %#x", ev.MessageID, ev.Status)
		}
	}
}

func interopPart(id string, num, total int, receiver string, dcs gsm.DCS, text string) sms.OutboundPart {
	return sms.OutboundPart{MsgID: sms.MessageID(id), PartNum: num, NumParts: total, Sender: sms.Sender{Value: "msgkit"},
		Receiver: sms.MSISDN(receiver), DCS: dcs, Text: text, ExpiresAt: time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)}
}

// longMessage is the parts of a message of the given texts, each with
// its header's place in the message (a ConcatSAR client takes total and
// seq from it too).
func longMessage(id, receiver string, dcs gsm.DCS, ref uint8, chunks []string) []sms.OutboundPart {
	var parts []sms.OutboundPart
	for i, c := range chunks {
		p := interopPart(id, i, len(chunks), receiver, dcs, c)
		p.UDH = gsm.UDH{Ref: ref, Total: uint8(len(chunks)), Seq: uint8(i + 1)}
		parts = append(parts, p)
	}
	return parts
}

// splitText cuts text into parts of at most max units, never inside a
// character (an escaped GSM character, a UTF-16 surrogate pair).
func splitText(text string, max int, units func(rune) int) []string {
	var out []string
	var cur strings.Builder
	n := 0
	for _, r := range text {
		u := units(r)
		if n+u > max {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		cur.WriteRune(r)
		n += u
	}
	return append(out, cur.String())
}

// gsmExtension is the characters the texts use from the GSM 7-bit
// extension table, written as an escape and their code.
var gsmExtension = map[rune]byte{'€': 0x65, '{': 0x28, '}': 0x29}

func gsmLen(r rune) int {
	if _, ok := gsmExtension[r]; ok {
		return 2
	}
	return 1
}

// gsmOctets is text in the GSM 7-bit default alphabet, a septet an
// octet, for the characters the test's texts use: written out here
// rather than taken from package sms, whose encoder is under test.
func gsmOctets(t *testing.T, text string) []byte {
	t.Helper()
	var out []byte
	for _, r := range text {
		if code, ok := gsmExtension[r]; ok {
			out = append(out, 0x1B, code)
			continue
		}
		switch {
		case r == '@':
			out = append(out, 0x00)
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', strings.ContainsRune(" !\"#%&'()*+,-./:;<=>?", r):
			out = append(out, byte(r)) // the same code in both alphabets
		default:
			t.Fatalf("gsmOctets does not know %q", r)
		}
	}
	return out
}

func ucs2Octets(text string) []byte {
	var out []byte
	for _, u := range utf16.Encode([]rune(text)) {
		out = binary.BigEndian.AppendUint16(out, u)
	}
	return out
}

func strOrNil(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

func intOrNil(n *int) string {
	if n == nil {
		return "<none>"
	}
	return fmt.Sprint(*n)
}
