package simnet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

// probe is the method set a route test system asks of its test handsets
// (testsystem.Probe), declared here so that simnet does not import it.
type probe interface {
	Handset(ctx context.Context, mccmnc string) (number sms.MSISDN, ok bool, err error)
	Received(ctx context.Context, handset sms.MSISDN, since time.Time) ([]sms.Received, error)
}

var _ probe = (*Handsets)(nil)

// The test handsets: two on Slovenian networks, one in Germany.
const (
	hsA, hsA2, hsB     = sms.MSISDN("+38640111111"), sms.MSISDN("+38640222222"), sms.MSISDN("+4915111111111")
	netA, netB         = "29340", "26201"
	smscA, smscB       = "+38640990000", "+491770610000"
	foreignSMSC        = "+447785016005"
	acceptD, deliverD  = time.Second, 5 * time.Second
	absentD, absentGap = time.Minute, time.Hour
)

func newHandsets(t testing.TB, clock msgkit.Clock) *Handsets {
	t.Helper()
	h := NewHandsets(clock)
	for _, a := range []struct {
		n        sms.MSISDN
		net, smc string
	}{{hsA, netA, smscA}, {hsA2, netA, smscA}, {hsB, netB, smscB}} {
		if err := h.Add(a.n, a.net, a.smc); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// handsetNet is a network with the test handsets: parts to hsB's network
// (4915) are Absent twice, the rest delivered after deliverD.
func handsetNet(t testing.TB, route Route) (*Network, *Handsets, *msgkittest.Clock) {
	t.Helper()
	clock := msgkittest.NewClock(t0)
	h := newHandsets(t, clock.Now)
	n := New(Options{
		Clock:    clock.Now,
		Handsets: h,
		Route:    route,
		Default:  Outcome{Kind: Deliver, AcceptDelay: acceptD, Delay: deliverD},
		Rules: []Rule{
			{Prefix: "4915", Outcome: Outcome{Kind: Absent, AcceptDelay: acceptD, Delay: absentD, Attempts: 2, RetryEvery: absentGap}},
			{Prefix: "38641", Outcome: Outcome{Kind: Unknown, AcceptDelay: acceptD, Delay: deliverD}},
			{Prefix: "38642", Outcome: Outcome{Kind: Reject, AcceptDelay: acceptD}},
			{Prefix: "38643", Outcome: Outcome{Kind: Silent, AcceptDelay: acceptD}},
		},
	})
	return n, h, clock
}

// message splits text into the parts of message id to receiver.
func message(t testing.TB, id string, to sms.MSISDN, sender string, text string, dcs gsm.DCS, ref uint8) []sms.OutboundPart {
	t.Helper()
	m, err := gsm.SplitText(text, dcs, ref)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sms.ParseSender(sender)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]sms.OutboundPart, len(m.Parts))
	for i, p := range m.Parts {
		parts[i] = sms.OutboundPart{
			MsgID: sms.MessageID(id), PartNum: i, NumParts: len(m.Parts), Sender: s, Receiver: to,
			DCS: m.DCS, Text: p.Text, UDH: p.UDH, ExpiresAt: t0.Add(24 * time.Hour),
		}
	}
	return parts
}

func send(t testing.TB, n *Network, parts []sms.OutboundPart) {
	t.Helper()
	if errs := n.Send(context.Background(), parts); errs != nil {
		t.Fatalf("Send: %v", errs)
	}
}

func received(t testing.TB, h *Handsets, number sms.MSISDN, since time.Time) []sms.Received {
	t.Helper()
	got, err := h.Received(context.Background(), number, since)
	if err != nil {
		t.Fatalf("Received(%s): %v", number, err)
	}
	return got
}

func decode(t testing.TB, rs []sms.Received) []gsm.Deliver {
	t.Helper()
	out := make([]gsm.Deliver, len(rs))
	for i, r := range rs {
		d, err := gsm.DecodeDeliver(r.PDU)
		if err != nil {
			t.Fatalf("receipt %d: %v", i, err)
		}
		out[i] = d
	}
	return out
}

// utc compares time stamps by instant, whatever their zone.
var utc = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

// An honest route delivers a GSM part and a 3-part UCS message to their
// handsets at the time the network reports them delivered, and not before,
// from the handset's home SMSC, with sender, text, coding and
// concatenation intact.
func TestHandsetsHonestRoute(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	ucsText := strings.Repeat("Žluťoučký kůň úpěl ďábelské ódy. ", 5) // 165 UTF-16 units: 3 parts
	send(t, n, message(t, "gsm", hsA, "msgkit", "Hello from msgkit", gsm.DCSGSM, 0))
	ucs := message(t, "ucs", hsB, "38640123456", ucsText, gsm.DCSUCS, 77)
	if len(ucs) != 3 {
		t.Fatalf("the UCS text makes %d parts, want 3", len(ucs))
	}
	send(t, n, ucs)

	gsmAt := t0.Add(acceptD + deliverD)
	ucsAt := t0.Add(acceptD + absentD + 2*absentGap) // two failed attempts, then delivery
	sink := &recorder{}
	drain(t, n, sink)
	delivered := map[string]time.Time{}
	for _, ev := range sink.events() {
		if ev.Status == sms.StatusDelivered {
			delivered[fmt.Sprintf("%s/%d", ev.MsgID, ev.PartNum)] = ev.At
		}
	}
	want := map[string]time.Time{"gsm/0": gsmAt, "ucs/0": ucsAt, "ucs/1": ucsAt, "ucs/2": ucsAt}
	if diff := cmp.Diff(want, delivered); diff != "" {
		t.Fatalf("delivery reports (-want +got):\n%s", diff)
	}

	// Nothing shows before the delivery time.
	clock.Set(gsmAt.Add(-time.Millisecond))
	if got := received(t, h, hsA, t0); len(got) != 0 {
		t.Errorf("hsA before delivery: %d receipts", len(got))
	}
	clock.Set(gsmAt)
	got := received(t, h, hsA, t0)
	if len(got) != 1 || !got[0].At.Equal(gsmAt) || got[0].Network != netA {
		t.Fatalf("hsA at delivery: %+v; want one receipt at %v on %s", got, gsmAt, netA)
	}
	wantGSM := []gsm.Deliver{{
		SMSC: smscA, Sender: gsm.Address{Value: "msgkit"}, DCS: gsm.DCSGSM, SCTS: gsmAt, Text: "Hello from msgkit",
	}}
	if diff := cmp.Diff(wantGSM, decode(t, got), utc); diff != "" {
		t.Errorf("hsA's SMS-DELIVER (-want +got):\n%s", diff)
	}
	if got := received(t, h, hsB, t0); len(got) != 0 {
		t.Errorf("hsB before its delivery: %d receipts", len(got))
	}

	clock.Set(ucsAt)
	got = received(t, h, hsB, t0)
	var wantUCS []gsm.Deliver
	for i, p := range ucs {
		wantUCS = append(wantUCS, gsm.Deliver{
			SMSC: smscB, Sender: gsm.Address{Value: "38640123456", Numeric: true}, DCS: gsm.DCSUCS, SCTS: ucsAt,
			Concat: gsm.Concat{Ref: 77, Total: 3, Seq: uint8(i + 1)}, Text: p.Text,
		})
		if !got[i].At.Equal(ucsAt) || got[i].Network != netB {
			t.Errorf("hsB receipt %d at %v on %s, want %v on %s", i, got[i].At, got[i].Network, ucsAt, netB)
		}
	}
	dd := decode(t, got)
	if diff := cmp.Diff(wantUCS, dd, utc); diff != "" {
		t.Errorf("hsB's SMS-DELIVERs (-want +got):\n%s", diff)
	}
	if joined := dd[0].Text + dd[1].Text + dd[2].Text; joined != ucsText {
		t.Errorf("the parts join to %q, want %q", joined, ucsText)
	}
}

// Received gives what arrived at or after since and at or before now, in
// arrival order whatever the order of Send.
func TestReceivedWindowAndOrder(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	for i, id := range []string{"c", "b", "a"} { // c, then b and a a minute later: a arrives with b, before it
		clock.Set(t0.Add(time.Duration(min(i, 1)) * time.Minute))
		send(t, n, message(t, id, hsA, "msgkit", "text "+id, gsm.DCSGSM, 0))
	}
	first := t0.Add(acceptD + deliverD)
	clock.Set(t0.Add(time.Hour))
	texts := func(rs []sms.Received) (out []string) {
		for _, d := range decode(t, rs) {
			out = append(out, d.Text)
		}
		return out
	}
	if got, want := texts(received(t, h, hsA, t0)), []string{"text c", "text a", "text b"}; !cmp.Equal(got, want) {
		t.Errorf("all: %q, want %q", got, want)
	}
	if got, want := texts(received(t, h, hsA, first.Add(time.Nanosecond))), []string{"text a", "text b"}; !cmp.Equal(got, want) {
		t.Errorf("since after the first: %q, want %q", got, want)
	}
	if got := received(t, h, hsA, first); len(got) != 3 {
		t.Errorf("since exactly the first arrival: %d receipts, want 3 (since is included)", len(got))
	}
	if got := received(t, h, hsA, t0.Add(2*time.Hour)); len(got) != 0 {
		t.Errorf("since after every arrival: %d receipts", len(got))
	}
	// The PDUs are copies.
	got := received(t, h, hsA, t0)
	clear(got[0].PDU)
	if _, err := gsm.DecodeDeliver(received(t, h, hsA, t0)[0].PDU); err != nil {
		t.Errorf("a caller changed a stored PDU: %v", err)
	}
}

// A fake DLR: the sink hears DELIVERED, the handset gets nothing.
func TestHandsetsFakeDLR(t *testing.T) {
	n, h, clock := handsetNet(t, Route{FakeDLR: true})
	send(t, n, message(t, "m", hsA, "msgkit", "hi", gsm.DCSGSM, 0))
	sink := &recorder{}
	drain(t, n, sink)
	want := []sms.StatusEvent{ev("m", 0, sms.StatusAccepted, 0, acceptD), ev("m", 0, sms.StatusDelivered, 0, acceptD+deliverD)}
	if diff := cmp.Diff(want, sink.events()); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
	clock.Set(t0.Add(time.Hour))
	if got := received(t, h, hsA, t0); len(got) != 0 {
		t.Errorf("the handset received %d parts", len(got))
	}
}

// A route changes the sender, the coding (Transcode) and the service
// centre.
func TestHandsetsRouteBehaviours(t *testing.T) {
	ucs := func(t testing.TB) []sms.OutboundPart {
		ps := message(t, "m", hsA, "MyShop", "Zürich ĄĘ", gsm.DCSUCS, 0)
		ps[0].UDH = gsm.UDH{Ref: 9, Total: 1, Seq: 1, DstPort: 2948} // a header to keep
		return ps
	}
	gsm7 := func(t testing.TB) []sms.OutboundPart { return message(t, "m", hsA, "MyShop", "Hi", gsm.DCSGSM, 0) }
	at := t0.Add(acceptD + deliverD)
	tests := []struct {
		name  string
		route Route
		parts func(testing.TB) []sms.OutboundPart
		want  gsm.Deliver
	}{
		{"numeric sender", Route{Sender: "+4915199999999"}, gsm7, gsm.Deliver{
			SMSC: smscA, Sender: gsm.Address{Value: "4915199999999", Numeric: true}, DCS: gsm.DCSGSM, SCTS: at, Text: "Hi"}},
		{"alphanumeric sender", Route{Sender: "INFO"}, gsm7, gsm.Deliver{
			SMSC: smscA, Sender: gsm.Address{Value: "INFO"}, DCS: gsm.DCSGSM, SCTS: at, Text: "Hi"}},
		{"honest UCS", Route{}, ucs, gsm.Deliver{
			SMSC: smscA, Sender: gsm.Address{Value: "MyShop"}, DCS: gsm.DCSUCS, SCTS: at, Text: "Zürich ĄĘ",
			Concat: gsm.Concat{Ref: 9, Total: 1, Seq: 1}, DstPort: 2948}},
		{"transcode", Route{Transcode: true}, ucs, gsm.Deliver{
			SMSC: smscA, Sender: gsm.Address{Value: "MyShop"}, DCS: gsm.DCSGSM, SCTS: at, Text: "Zürich AE",
			Concat: gsm.Concat{Ref: 9, Total: 1, Seq: 1}, DstPort: 2948}},
		{"transcode keeps GSM", Route{Transcode: true}, gsm7, gsm.Deliver{
			SMSC: smscA, Sender: gsm.Address{Value: "MyShop"}, DCS: gsm.DCSGSM, SCTS: at, Text: "Hi"}},
		{"foreign SMSC", Route{SMSC: foreignSMSC}, gsm7, gsm.Deliver{
			SMSC: foreignSMSC, Sender: gsm.Address{Value: "MyShop"}, DCS: gsm.DCSGSM, SCTS: at, Text: "Hi"}},
		{"all at once", Route{SMSC: foreignSMSC, Sender: "12345", Transcode: true}, ucs, gsm.Deliver{
			SMSC: foreignSMSC, Sender: gsm.Address{Value: "12345", Numeric: true}, DCS: gsm.DCSGSM, SCTS: at, Text: "Zürich AE",
			Concat: gsm.Concat{Ref: 9, Total: 1, Seq: 1}, DstPort: 2948}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, h, clock := handsetNet(t, tc.route)
			send(t, n, tc.parts(t))
			clock.Set(at)
			got := decode(t, received(t, h, hsA, t0))
			if diff := cmp.Diff([]gsm.Deliver{tc.want}, got, utc); diff != "" {
				t.Errorf("SMS-DELIVER (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFoldGSM(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Zürich ĄĘ", "Zürich AE"},
		{"café crème", "café crème"}, // é and è are GSM
		{"Fête à Noël", "Fete à Noel"},
		{"Łódź Kraków", "Lodz Krakow"},
		{"ça Ça", "ca Ça"},
		{"Ștefan țară", "Stefan tara"},
		{"€5 [x] {y}", "€5 [x] {y}"}, // the extension table
		{"中文 😀 “q”", "?? ? ?q?"},
	}
	for _, tc := range tests {
		if got := FoldGSM(tc.in); got != tc.want {
			t.Errorf("FoldGSM(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, r := range FoldGSM(tc.in) {
			if !gsm.InAlphabet(r) {
				t.Errorf("FoldGSM(%q) keeps %q, outside GSM", tc.in, r)
			}
		}
	}
}

// Only handsets receive, and only what the network delivers.
func TestHandsetsReceiveOnlyDelivered(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	// Receivers that are no handset, on the handsets' networks and
	// prefixes, and outcomes that deliver nothing.
	for i, to := range []sms.MSISDN{"+38640333333", "+38641111111", "+38642111111", "+38643111111", "+4915122222222"} {
		send(t, n, message(t, fmt.Sprintf("m%d", i), to, "msgkit", "hi", gsm.DCSGSM, 0))
	}
	if err := h.Add("+38641111111", netA, smscA); err != nil { // unknown subscriber
		t.Fatal(err)
	}
	if err := h.Add("+38642111111", netA, smscA); err != nil { // rejected
		t.Fatal(err)
	}
	if err := h.Add("+38643111111", netA, smscA); err != nil { // silent
		t.Fatal(err)
	}
	for i, to := range []sms.MSISDN{"+38641111111", "+38642111111", "+38643111111"} {
		send(t, n, message(t, fmt.Sprintf("h%d", i), to, "msgkit", "hi", gsm.DCSGSM, 0))
	}
	// A delivery after the part's validity is an expiry, not a delivery.
	late := message(t, "late", hsB, "msgkit", "hi", gsm.DCSGSM, 0)
	late[0].ExpiresAt = t0.Add(time.Hour)
	send(t, n, late)
	drain(t, n, &recorder{})
	clock.Set(t0.Add(48 * time.Hour))
	for _, hs := range []sms.MSISDN{hsA, hsA2, hsB, "+38641111111", "+38642111111", "+38643111111"} {
		if got := received(t, h, hs, t0); len(got) != 0 {
			t.Errorf("%s received %d parts", hs, len(got))
		}
	}
	if _, err := h.Received(t.Context(), "+38640333333", t0); !errors.Is(err, msgkit.NotFound) {
		t.Errorf("Received of a number that is no handset: %v, want NotFound", err)
	}
}

func TestHandsetLookupsAndAdd(t *testing.T) {
	h := newHandsets(t, nil)
	ctx := t.Context()
	for _, tc := range []struct {
		net  string
		want sms.MSISDN
		ok   bool
	}{{netA, hsA, true}, {netB, hsB, true}, {"29341", "", false}, {"", "", false}} {
		got, ok, err := h.Handset(ctx, tc.net)
		if err != nil || got != tc.want || ok != tc.ok {
			t.Errorf("Handset(%q) = %q, %v, %v; want %q, %v", tc.net, got, ok, err, tc.want, tc.ok)
		}
	}
	if err := h.Add("+38640999999", "293400", smscA); err != nil { // a 3-digit MNC
		t.Errorf("Add with a 6-digit network: %v", err)
	}

	err := h.Add(hsA, netB, smscB)
	if !errors.Is(err, msgkit.Conflict) {
		t.Errorf("Add of a number twice: %v, want Conflict", err)
	}
	if got, _, _ := h.Handset(ctx, netB); got != hsB {
		t.Errorf("a refused Add changed network %s's handset to %s", netB, got)
	}
	err = h.Add("38640123", "2934", "+1")
	var e *msgkit.Error
	if !errors.As(err, &e) || e.Kind != msgkit.Invalid {
		t.Fatalf("Add of bad fields: %v, want Invalid", err)
	}
	var fields []string
	for _, f := range e.Fields {
		fields = append(fields, f.Name)
	}
	if want := []string{"number", "network", "homeSMSC"}; !cmp.Equal(fields, want) {
		t.Errorf("bad fields named %q, want %q", fields, want)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := h.Handset(cancelled, netA); !errors.Is(err, context.Canceled) {
		t.Errorf("Handset with a cancelled context: %v", err)
	}
	if _, err := h.Received(cancelled, hsA, t0); !errors.Is(err, context.Canceled) {
		t.Errorf("Received with a cancelled context: %v", err)
	}
}

// A handset keeps its latest receipts, at most the limit.
func TestReceiptCap(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	h.SetMaxReceipts(3)
	for i := range 5 {
		clock.Set(t0.Add(time.Duration(i) * time.Minute))
		send(t, n, message(t, fmt.Sprintf("m%d", i), hsA, "msgkit", fmt.Sprint("text ", i), gsm.DCSGSM, 0))
	}
	clock.Set(t0.Add(time.Hour))
	var texts []string
	for _, d := range decode(t, received(t, h, hsA, t0)) {
		texts = append(texts, d.Text)
	}
	if want := []string{"text 2", "text 3", "text 4"}; !cmp.Equal(texts, want) {
		t.Errorf("kept %q, want %q", texts, want)
	}
	h.SetMaxReceipts(1)
	if got := received(t, h, hsA, t0); len(got) != 1 {
		t.Errorf("after lowering the limit to 1: %d receipts", len(got))
	}
	h.SetMaxReceipts(0) // the default again
	send(t, n, message(t, "m5", hsA, "msgkit", "text 5", gsm.DCSGSM, 0))
	clock.Set(t0.Add(2 * time.Hour))
	if got := received(t, h, hsA, t0); len(got) != 2 {
		t.Errorf("after restoring the default limit: %d receipts, want 2", len(got))
	}
}

// The handset has a part before the network's report of its delivery
// reaches the sink.
func TestReceiptBeforeReport(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	h := newHandsets(t, clock.Now)
	n := New(Options{Clock: clock.Now, Handsets: h}) // delivered at once
	checked := 0
	sink := &recorder{fail: func(ev sms.StatusEvent) error {
		if ev.Status == sms.StatusDelivered {
			checked++
			if got, err := h.Received(context.Background(), hsA, t0); len(got) != 1 || err != nil {
				t.Errorf("at the report of delivery the handset has %d receipts (%v)", len(got), err)
			}
		}
		return nil
	}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := n.RunDue(t.Context(), sink, t0); err != nil {
				t.Error(err)
			}
		}
	})
	send(t, n, message(t, "m", hsA, "msgkit", "hi", gsm.DCSGSM, 0))
	close(stop)
	wg.Wait()
	drain(t, n, sink)
	if checked != 1 {
		t.Errorf("%d delivery reports, want 1", checked)
	}
}

// A part whose SMS-DELIVER cannot be written (here: text outside the GSM
// alphabet in a GSM part) reaches no handset; its reports still come.
func TestUnencodablePart(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	p := message(t, "m", hsA, "msgkit", "hi", gsm.DCSGSM, 0)
	p[0].Text = "中"
	send(t, n, p)
	sink := &recorder{}
	drain(t, n, sink)
	if got := len(sink.events()); got != 2 {
		t.Errorf("%d reports, want 2", got)
	}
	clock.Set(t0.Add(time.Hour))
	if got := received(t, h, hsA, t0); len(got) != 0 {
		t.Errorf("the handset received %d parts", len(got))
	}
}

// Restore delivers the held parts to handsets that lack them, and never a
// part twice to one that has it.
func TestRestoreHandsets(t *testing.T) {
	n, h, clock := handsetNet(t, Route{})
	held := &heldList{parts: message(t, "m", hsA, "msgkit", "hi", gsm.DCSGSM, 0)}
	send(t, n, held.parts)
	clock.Set(t0.Add(2 * time.Second)) // accepted, not yet delivered
	if got, err := n.Restore(t.Context(), held); got != 1 || err != nil {
		t.Fatalf("Restore = %d, %v", got, err)
	}
	clock.Set(t0.Add(time.Hour))
	got := received(t, h, hsA, t0)
	if len(got) != 1 || !got[0].At.Equal(t0.Add(acceptD+deliverD)) {
		t.Errorf("after Restore in the same process: %+v; want the first receipt alone", got)
	}

	// A restarted process: a new network and new handsets.
	h2 := newHandsets(t, clock.Now)
	n2 := New(Options{Clock: clock.Now, Handsets: h2, Default: Outcome{Kind: Deliver, Delay: deliverD}})
	if got, err := n2.Restore(t.Context(), held); got != 1 || err != nil {
		t.Fatalf("Restore = %d, %v", got, err)
	}
	clock.Set(t0.Add(2 * time.Hour))
	got = received(t, h2, hsA, t0)
	if len(got) != 1 || !got[0].At.Equal(t0.Add(time.Hour+deliverD)) {
		t.Errorf("after Restore in a new process: %+v; want one receipt at the new delivery time", got)
	}
}

func TestNewPanicsOnBadRoute(t *testing.T) {
	for _, r := range []Route{
		{SMSC: "38640990000"}, {SMSC: "+123"}, {SMSC: "+1234567890123456"}, {SMSC: "+3864a"},
		{Sender: "far too long a sender"}, {Sender: "a$b"}, {Sender: "+12a"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New with route %+v did not panic", r)
				}
			}()
			New(Options{Route: r})
		}()
	}
	New(Options{Route: Route{SMSC: "+1234", Sender: "+123456789012345"}}) // at the limits
}

// Sends, receipts, lookups and additions at once (run with -race).
func TestHandsetsConcurrent(t *testing.T) {
	clock := msgkittest.NewClock(t0)
	h := newHandsets(t, clock.Now)
	n := New(Options{Clock: clock.Now, Handsets: h, Default: Outcome{Delay: time.Second, Jitter: time.Second}, Seed: 3})
	ctx := t.Context()
	const senders, perSender = 8, 50
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range perSender {
				to := []sms.MSISDN{hsA, hsA2, hsB}[i%3]
				send(t, n, message(t, fmt.Sprintf("s%d-%03d", s, i), to, "msgkit", "hi", gsm.DCSGSM, 0))
			}
		})
	}
	for r := range 4 {
		wg.Go(func() {
			for i := range 100 {
				clock.Advance(time.Millisecond)
				if _, err := h.Received(ctx, hsA, t0); err != nil {
					t.Error(err)
				}
				if _, _, err := h.Handset(ctx, netA); err != nil {
					t.Error(err)
				}
				if err := h.Add(sms.MSISDN(fmt.Sprintf("+3864077%d%03d", r, i)), netA, smscA); err != nil {
					t.Error(err)
				}
				if _, err := n.RunDue(ctx, &recorder{}, clock.Now()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	clock.Set(t0.Add(time.Hour))
	total := 0
	for _, hs := range []sms.MSISDN{hsA, hsA2, hsB} {
		got := received(t, h, hs, t0)
		for i := 1; i < len(got); i++ {
			if got[i].At.Before(got[i-1].At) {
				t.Errorf("%s: receipts out of order", hs)
			}
		}
		total += len(got)
	}
	if total != senders*perSender {
		t.Errorf("%d receipts, want %d", total, senders*perSender)
	}
}

// BenchmarkSendToHandsets sends 1,000 single-part messages a call to 10
// handsets that keep receipts (each SMS-DELIVER encoded and recorded); the
// events are run off outside the timer.
func BenchmarkSendToHandsets(b *testing.B) {
	clock := msgkittest.NewClock(t0)
	h := NewHandsets(clock.Now)
	var numbers []sms.MSISDN
	for i := range 10 {
		numbers = append(numbers, sms.MSISDN(fmt.Sprintf("+3864011100%d", i)))
		if err := h.Add(numbers[i], netA, smscA); err != nil {
			b.Fatal(err)
		}
	}
	n := New(Options{Clock: clock.Now, Handsets: h, Seed: 1, Default: Outcome{AcceptDelay: time.Second, Delay: 5 * time.Second, Jitter: time.Second}})
	s, _ := sms.ParseSender("msgkit")
	parts := make([]sms.OutboundPart, 1000)
	for i := range parts {
		parts[i] = sms.OutboundPart{
			MsgID: sms.MessageID(fmt.Sprintf("m-%04d", i)), NumParts: 1, Sender: s, Receiver: numbers[i%10],
			DCS: gsm.DCSGSM, Text: "Your code is 123456. It expires in 10 minutes.",
		}
	}
	ctx := context.Background()
	sink := &discard{}
	b.ReportAllocs()
	for b.Loop() {
		if errs := n.Send(ctx, parts); errs != nil {
			b.Fatal(errs)
		}
		b.StopTimer()
		clock.Advance(time.Minute)
		if _, err := n.RunDue(ctx, sink, clock.Now()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*len(parts))/b.Elapsed().Seconds(), "parts/s")
}
