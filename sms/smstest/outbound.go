package smstest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
)

func outboundTests() []storeTest {
	return []storeTest{
		{"ClaimParts", testClaimParts},
		{"ClaimPartsOrderAndLimit", testClaimPartsOrder},
		{"ClaimPartsLeases", testClaimPartsLeases},
		{"FinishPartsHanded", testFinishHanded},
		{"FinishPartsRetry", testFinishRetry},
		{"ExpiredPartsAreNeverClaimed", testExpiredPartsNotClaimed},
		{"UpdatePartLeavesTheQueue", testUpdatePartLeavesQueue},
		{"HandOverAfterAnUpdate", testHandOverAfterUpdate},
		{"UpdatePartNeverResubmits", testUpdatePartNeverResubmits},
		{"HandedParts", testHandedParts},
		{"PartsNotQueued", testPartsNotQueued},
		{"ConcurrentPartClaims", testConcurrentPartClaims},
	}
}

// claimParts claims up to limit parts at now with a one-minute lease.
func claimParts(t *testing.T, s Store, now time.Time, limit int) []sms.QueuedPart {
	t.Helper()
	got, err := s.ClaimParts(t.Context(), now, time.Minute, limit)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func keysOf(qs []sms.QueuedPart) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = fmt.Sprintf("%s/%d", q.MsgID, q.PartNum)
	}
	return out
}

func finishParts(t *testing.T, s Store, results ...sms.SendResult) int {
	t.Helper()
	n, err := s.FinishParts(t.Context(), results)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func handed(q sms.QueuedPart) sms.SendResult {
	return sms.SendResult{Key: sms.PartKey{MsgID: q.MsgID, PartNum: q.PartNum}, LeaseUntil: q.LeaseUntil, Handed: true, Attempts: q.Attempts}
}

func retry(q sms.QueuedPart, next time.Time, reason string) sms.SendResult {
	return sms.SendResult{Key: sms.PartKey{MsgID: q.MsgID, PartNum: q.PartNum}, LeaseUntil: q.LeaseUntil, Attempts: q.Attempts + 1, NextAt: next, LastError: reason}
}

// part returns a stored part.
func part(t *testing.T, s Store, id string, num int) sms.PartRecord {
	t.Helper()
	m, err := s.Message(t.Context(), sms.MessageID(id))
	if err != nil {
		t.Fatal(err)
	}
	return m.Parts[num]
}

// acceptQueued stores a one-part message id queued for sending at sendAt.
func acceptQueued(t *testing.T, s Store, id string, sendAt time.Time) {
	t.Helper()
	accepted(t, s) // the account
	m := Message(id, "shop", "0.01")
	m.Parts = m.Parts[:1]
	m.Parts[0].SendAt = sendAt
	m.Charged = m.PartPrice
	if err := s.Accept(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

func testClaimParts(t *testing.T, s Store) {
	accepted(t, s, "m-1") // both parts queued at t0
	wsi := Message("m-2", "shop", "0.01")
	wsi.Type, wsi.DCS, wsi.Flash, wsi.Sender = "wsi", gsm.DCSBinary, false, sms.Sender{Value: "4930123", Numeric: true}
	wsi.Parts = []sms.PartRecord{{Num: 0, Data: []byte{0, 6, 0xff}, Units: 3, UDH: gsm.UDH{DstPort: 2948, SrcPort: 9200}, State: sms.StateSubmitted, UpdatedAt: t0, SendAt: t0.Add(time.Second)}}
	if err := s.Accept(t.Context(), wsi); err != nil {
		t.Fatal(err)
	}
	if got := claimParts(t, s, t0.Add(-time.Microsecond), 10); len(got) != 0 {
		t.Fatalf("claimed %v before they were due", keysOf(got))
	}
	got, err := s.ClaimParts(t.Context(), t0, time.Minute, 10)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b sms.QueuedPart) int { return a.PartNum - b.PartNum })
	lease := t0.Add(time.Minute).Truncate(time.Microsecond).UTC()
	expires := t0.Add(24 * time.Hour).Truncate(time.Microsecond).UTC()
	out := func(num int, text string, udh gsm.UDH) sms.QueuedPart {
		return sms.QueuedPart{
			OutboundPart: sms.OutboundPart{MsgID: "m-1", PartNum: num, NumParts: 2, Sender: sms.Sender{Value: "MyShop"},
				Receiver: "+38640123456", DCS: gsm.DCSGSM, Flash: true, Text: text, UDH: udh, ExpiresAt: expires},
			LeaseUntil: lease,
		}
	}
	want := []sms.QueuedPart{
		out(0, "first [part]", gsm.UDH{Ref: 7, Total: 2, Seq: 1}),
		out(1, "second", gsm.UDH{Ref: 7, Total: 2, Seq: 2}),
	}
	if diff := gocmp.Diff(want, got, equate); diff != "" {
		t.Fatalf("claimed at t0 (-want +got):\n%s", diff)
	}
	got = claimParts(t, s, t0.Add(time.Second), 10)
	wantWSI := []sms.QueuedPart{{
		OutboundPart: sms.OutboundPart{MsgID: "m-2", PartNum: 0, NumParts: 1, Sender: sms.Sender{Value: "4930123", Numeric: true},
			Receiver: "+38640123456", DCS: gsm.DCSBinary, Data: []byte{0, 6, 0xff}, UDH: gsm.UDH{DstPort: 2948, SrcPort: 9200}, ExpiresAt: expires},
		LeaseUntil: t0.Add(time.Second + time.Minute).Truncate(time.Microsecond).UTC(),
	}}
	if diff := gocmp.Diff(wantWSI, got, equate); diff != "" {
		t.Errorf("claimed a second later, with m-1's parts leased (-want +got):\n%s", diff)
	}
}

func testClaimPartsOrder(t *testing.T, s Store) {
	acceptQueued(t, s, "b", t0.Add(3*time.Second))
	acceptQueued(t, s, "c", t0.Add(time.Second))
	acceptQueued(t, s, "a", t0.Add(2*time.Second))
	acceptQueued(t, s, "d", t0.Add(time.Hour+time.Second)) // not yet due
	now := t0.Add(time.Hour)
	if got := keysOf(claimParts(t, s, now, 2)); !slices.Equal(got, []string{"a/0", "c/0"}) {
		t.Errorf("first claim %v, want the two oldest, by message id", got)
	}
	if got := keysOf(claimParts(t, s, now, 2)); !slices.Equal(got, []string{"b/0"}) {
		t.Errorf("second claim %v", got)
	}
	if got, err := s.ClaimParts(t.Context(), now.Add(time.Hour), time.Minute, 0); err != nil || len(got) != 0 {
		t.Errorf("limit 0: %v, %v", keysOf(got), err)
	}
}

func testClaimPartsLeases(t *testing.T, s Store) {
	acceptQueued(t, s, "m", t0)
	first := claimParts(t, s, t0, 10)
	if len(first) != 1 {
		t.Fatalf("claimed %v", keysOf(first))
	}
	if got := claimParts(t, s, t0.Add(time.Minute-time.Microsecond), 10); len(got) != 0 {
		t.Fatal("a leased part was claimed again")
	}
	if p := part(t, s, "m", 0); !p.SendAt.Equal(first[0].LeaseUntil) {
		t.Errorf("a claimed part is next due at %v, want the lease's end %v", p.SendAt, first[0].LeaseUntil)
	}
	second := claimParts(t, s, t0.Add(time.Minute), 10)
	if len(second) != 1 || !second[0].LeaseUntil.After(first[0].LeaseUntil) {
		t.Fatalf("a part whose lease ended (its claimer died) was not claimed again: %v", second)
	}
	// The first claimer comes back late: its claim is lost, whatever it
	// says, and the second claimer's stands.
	if n := finishParts(t, s, retry(first[0], t0.Add(time.Hour), "late")); n != 0 {
		t.Errorf("a lost claim recorded %d results", n)
	}
	if n := finishParts(t, s, handed(first[0])); n != 0 {
		t.Errorf("a lost claim recorded a hand-over")
	}
	if p := part(t, s, "m", 0); !p.SendAt.Equal(second[0].LeaseUntil) || p.SendAttempts != 0 {
		t.Errorf("a lost claim changed the part: %+v; want it held by the second claim", p)
	}
	if n := finishParts(t, s, handed(second[0])); n != 1 {
		t.Errorf("the holder of the claim recorded %d results", n)
	}
}

func testFinishHanded(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	got := claimParts(t, s, t0, 10)
	if len(got) != 2 {
		t.Fatalf("claimed %v", keysOf(got))
	}
	// A part that failed once, then is handed over.
	if n := finishParts(t, s, retry(got[0], t0.Add(time.Second), "down")); n != 1 {
		t.Fatalf("recorded %d", n)
	}
	got[0] = claimParts(t, s, t0.Add(time.Second), 1)[0]
	if n := finishParts(t, s, handed(got[0])); n != 1 {
		t.Fatalf("recorded %d", n)
	}
	p := part(t, s, string(got[0].MsgID), got[0].PartNum)
	if !p.SendAt.IsZero() || p.SendAttempts != 0 || p.SendError != "" || p.State != sms.StateSubmitted {
		t.Errorf("after the hand-over the part is %+v; want off the queue (no queue fields), still submitted", p)
	}
	if n := finishParts(t, s, handed(got[0])); n != 0 {
		t.Errorf("a second hand-over recorded %d", n)
	}
	if again := claimParts(t, s, t0.Add(time.Hour), 10); !slices.Equal(keysOf(again), keysOf(got[1:])) {
		t.Errorf("after the hand-over of %v, an hour later claimed %v; want only the other part", keysOf(got[:1]), keysOf(again))
	}
}

func testFinishRetry(t *testing.T, s Store) {
	acceptQueued(t, s, "m", t0)
	got := claimParts(t, s, t0, 10)
	if len(got) != 1 {
		t.Fatalf("claimed %v", keysOf(got))
	}
	bad := retry(got[0], time.Time{}, "no time")
	_, err := s.FinishParts(t.Context(), []sms.SendResult{retry(got[0], t0.Add(time.Hour), "fine"), bad})
	requireKind(t, err, msgkit.Invalid)
	if p := part(t, s, "m", 0); p.SendAttempts != 0 {
		t.Fatalf("a refused call recorded a result: %+v", p)
	}
	next := t0.Add(time.Minute)
	if n := finishParts(t, s, retry(got[0], next, "network down")); n != 1 {
		t.Fatalf("recorded %d", n)
	}
	p := part(t, s, "m", 0)
	if !p.SendAt.Equal(next.Truncate(time.Microsecond)) || p.SendAttempts != 1 || p.SendError != "network down" {
		t.Errorf("after a failed attempt the part is %+v", p)
	}
	if got := claimParts(t, s, next.Add(-time.Microsecond), 10); len(got) != 0 {
		t.Fatal("claimed before its next attempt")
	}
	again := claimParts(t, s, next, 10)
	if len(again) != 1 || again[0].Attempts != 1 {
		t.Fatalf("at its next attempt claimed %+v", again)
	}
	if n := finishParts(t, s, retry(again[0], next.Add(2*time.Minute), "throttled")); n != 1 {
		t.Fatalf("recorded %d", n)
	}
	if got := claimParts(t, s, next.Add(time.Minute), 10); len(got) != 0 {
		t.Fatal("claimed at the time of an attempt it was moved from")
	}
	if got := claimParts(t, s, next.Add(2*time.Minute), 10); len(got) != 1 || got[0].Attempts != 2 {
		t.Fatalf("the third attempt claimed %+v", got)
	}
}

func testExpiredPartsNotClaimed(t *testing.T, s Store) {
	accepted(t, s, "m-1") // expires at t0 + 24 h
	expiry := t0.Add(24 * time.Hour)
	taken := claimParts(t, s, t0, 1) // a claim from before the expiry
	if got := claimParts(t, s, expiry, 10); len(got) != 0 {
		t.Errorf("parts of an expired message claimed: %v", keysOf(got))
	}
	keys, err := s.ExpiredParts(t.Context(), expiry, 10)
	if err != nil || len(keys) != 2 {
		t.Fatalf("ExpiredParts = %v, %v; want both queued parts", keys, err)
	}
	for _, k := range keys {
		err := s.UpdatePart(t.Context(), k, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: sms.StateUndelivered, ErrorCode: sms.DLRValidityExpired, UpdatedAt: expiry}, true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := finishParts(t, s, retry(taken[0], t0.Add(time.Minute), "late")); n != 0 {
		t.Errorf("an expired part was queued again by a claim from before: %d recorded", n)
	}
	// Not even a claim stamped before the expiry gets them now.
	if got := claimParts(t, s, t0.Add(time.Hour), 10); len(got) != 0 {
		t.Errorf("ended parts claimed: %v", keysOf(got))
	}
}

// claimBoth accepts m-1 and claims its two parts.
func claimBoth(t *testing.T, s Store) []sms.QueuedPart {
	t.Helper()
	accepted(t, s, "m-1")
	got := claimParts(t, s, t0, 10)
	if len(got) != 2 {
		t.Fatalf("claimed %v", keysOf(got))
	}
	return got
}

func testUpdatePartLeavesQueue(t *testing.T, s Store) {
	got := claimBoth(t, s)
	// The network reports part 0 before the hand-over is recorded: it has
	// the part, so the part leaves the queue and the late result is lost.
	queue(t, s, "m-1", 0, sms.StateSentToSMSC)
	if p := part(t, s, "m-1", 0); !p.SendAt.IsZero() || p.State != sms.StateSentToSMSC {
		t.Errorf("after an update the part is %+v", p)
	}
	if n := finishParts(t, s, retry(got[0], t0.Add(time.Minute), "timeout"), retry(got[1], t0.Add(time.Minute), "timeout")); n != 1 {
		t.Errorf("recorded %d results, want part 1's only", n)
	}
	if again := keysOf(claimParts(t, s, t0.Add(time.Hour), 10)); !slices.Equal(again, []string{"m-1/1"}) {
		t.Errorf("claimed %v; want part 1 only", again)
	}
}

func testHandOverAfterUpdate(t *testing.T, s Store) {
	got := claimBoth(t, s)
	// The network reports part 0 before its hand-over is recorded: the
	// hand-over's result is no claim any more, part 1's is.
	queue(t, s, "m-1", 0, sms.StateDelivered)
	if n := finishParts(t, s, handed(got[0]), handed(got[1])); n != 1 {
		t.Errorf("recorded %d hand-overs, want part 1's only", n)
	}
	for num, want := range []sms.PartState{sms.StateDelivered, sms.StateSubmitted} {
		if p := part(t, s, "m-1", num); !p.SendAt.IsZero() || p.State != want {
			t.Errorf("part %d is %+v, want %v off the queue", num, p, want)
		}
	}
	if again := claimParts(t, s, t0.Add(time.Hour), 10); len(again) != 0 {
		t.Errorf("claimed %v after both left the queue", keysOf(again))
	}
}

func testUpdatePartNeverResubmits(t *testing.T, s Store) {
	accepted(t, s, "m-1")
	for _, state := range []sms.PartState{sms.StateSubmitted, 0, 99} {
		err := s.UpdatePart(t.Context(), sms.PartKey{MsgID: "m-1", PartNum: 0}, func(m sms.MessageRecord, p sms.PartRecord) (sms.PartUpdate, bool, error) {
			return sms.PartUpdate{State: state, UpdatedAt: t0.Add(time.Minute)}, true, nil
		})
		if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != sms.CodePartInvalid {
			t.Errorf("an update to state %d: %v, want Invalid part_invalid", state, err)
		}
	}
	// Nothing was saved: the part is still queued as accepted.
	if p := part(t, s, "m-1", 0); p.State != sms.StateSubmitted || !p.UpdatedAt.Equal(t0.Truncate(time.Microsecond)) || p.SendAt.IsZero() {
		t.Errorf("after refused updates the part is %+v", p)
	}
	if got := keysOf(claimParts(t, s, t0, 10)); !slices.Equal(got, []string{"m-1/0", "m-1/1"}) {
		t.Errorf("claimed %v, want both parts", got)
	}
}

func testHandedParts(t *testing.T, s Store) {
	accepted(t, s, "m-1", "m-2", "m-3")
	soon := Message("m-4", "shop", "0.01")
	soon.ExpiresAt = t0.Add(30 * time.Minute)
	if err := s.Accept(t.Context(), soon); err != nil {
		t.Fatal(err)
	}
	var results []sms.SendResult
	for _, q := range claimParts(t, s, t0, 10) {
		if q.MsgID == "m-3" {
			results = append(results, retry(q, t0.Add(time.Hour), "busy")) // still queued
		} else {
			results = append(results, handed(q))
		}
	}
	if n := finishParts(t, s, results...); n != 8 {
		t.Fatalf("recorded %d results, want 8", n)
	}
	queue(t, s, "m-2", 0, sms.StateDelivered)  // final: the network is done with it
	queue(t, s, "m-1", 1, sms.StateSentToSMSC) // still the network's
	now := t0.Add(time.Hour)                   // m-4 has expired
	keys := func(ps []sms.OutboundPart) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = fmt.Sprintf("%s/%d", p.MsgID, p.PartNum)
		}
		return out
	}
	held, err := s.HandedParts(t.Context(), now, sms.PartKey{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(held), []string{"m-1/0", "m-1/1", "m-2/1"}; !slices.Equal(got, want) {
		t.Fatalf("HandedParts = %v, want %v", got, want)
	}
	m := Message("m-1", "shop", "0.01")
	want := sms.OutboundPart{MsgID: "m-1", PartNum: 1, NumParts: 2, Sender: m.Sender, Receiver: m.Receiver, DCS: m.DCS,
		Flash: m.Flash, Text: m.Parts[1].Text, UDH: m.Parts[1].UDH, ExpiresAt: m.ExpiresAt.Truncate(time.Microsecond).UTC()}
	if diff := gocmp.Diff(want, held[1], equate); diff != "" {
		t.Errorf("held part (-want +got):\n%s", diff)
	}
	next, err := s.HandedParts(t.Context(), now, sms.PartKey{MsgID: "m-1", PartNum: 1}, 1)
	if err != nil || !slices.Equal(keys(next), []string{"m-2/1"}) {
		t.Errorf("the page after m-1/1: %v, %v; want m-2/1", keys(next), err)
	}
	if none, err := s.HandedParts(t.Context(), now, sms.PartKey{}, 0); err != nil || len(none) != 0 {
		t.Errorf("limit 0: %v, %v", keys(none), err)
	}
}

func testPartsNotQueued(t *testing.T, s Store) {
	accepted(t, s)
	m := Message("m-1", "shop", "0.01")
	m.Parts[0].SendAt, m.Parts[0].SendAttempts = time.Time{}, 3      // not queued
	m.Parts[1].State, m.Parts[1].SendError = sms.StateDelivered, "x" // final: never sent, whatever SendAt says
	if err := s.Accept(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if got := claimParts(t, s, t0.Add(time.Hour), 10); len(got) != 0 {
		t.Errorf("claimed %v", keysOf(got))
	}
	for num := range 2 {
		if p := part(t, s, "m-1", num); !p.SendAt.IsZero() || p.SendAttempts != 0 || p.SendError != "" {
			t.Errorf("part %d, not queued, has queue fields: %+v", num, p)
		}
	}
}

func testConcurrentPartClaims(t *testing.T, s Store) {
	const msgs = 20
	for i := range msgs {
		accepted(t, s, fmt.Sprintf("m-%d", i))
	}
	seen := claimConcurrently(t, func() ([]string, error) {
		got, err := s.ClaimParts(t.Context(), t0, time.Hour, 3)
		return keysOf(got), err
	})
	if len(seen) != 2*msgs {
		t.Errorf("%d parts claimed, want %d", len(seen), 2*msgs)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("part %s claimed %d times while its lease ran", k, n)
		}
	}
}
