package smstest

import (
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms"
)

func backlogTests() []storeTest {
	return []storeTest{
		{"OutboundBacklog", testOutboundBacklog},
		{"OutboxBacklog", testOutboxBacklog},
	}
}

// requireBacklog checks a Backlog against the length and the oldest due
// time wanted (zero: none), as stored (to the microsecond, UTC).
func requireBacklog(t *testing.T, what string, got sms.Backlog, err error, wantLen int, wantOldest time.Time) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !wantOldest.IsZero() {
		wantOldest = wantOldest.Truncate(time.Microsecond).UTC()
	}
	if got.Len != wantLen || !got.OldestDue.Equal(wantOldest) || got.OldestDue.Location() != time.UTC && !got.OldestDue.IsZero() {
		t.Fatalf("%s: backlog %d, oldest due %v; want %d, %v", what, got.Len, got.OldestDue, wantLen, wantOldest)
	}
}

// The outbound queue's backlog counts every queued part, leased or
// waiting for a retry, and finds the earliest SendAt of the parts a claim
// would take: due, not leased, message not expired.
func testOutboundBacklog(t *testing.T, s Store) {
	ctx := t.Context()
	b, err := s.OutboundBacklog(ctx, t0)
	requireBacklog(t, "empty", b, err, 0, time.Time{})

	accepted(t, s, "m-1")                                 // two parts due at t0
	acceptQueued(t, s, "m-2", t0.Add(10*time.Second))     // one at t0 + 10 s
	b, err = s.OutboundBacklog(ctx, t0.Add(-time.Second)) // none due yet
	requireBacklog(t, "before any is due", b, err, 3, time.Time{})
	now := t0.Add(20 * time.Second)
	b, err = s.OutboundBacklog(ctx, now)
	requireBacklog(t, "all due", b, err, 3, t0)

	first := claimParts(t, s, now, 2) // m-1's parts, leased: no longer due
	b, err = s.OutboundBacklog(ctx, now)
	requireBacklog(t, "m-1 leased", b, err, 3, t0.Add(10*time.Second))
	if n := finishParts(t, s, handed(first[0]), retry(first[1], now.Add(time.Minute), "busy")); n != 2 {
		t.Fatalf("recorded %d results", n)
	}
	b, err = s.OutboundBacklog(ctx, now)
	requireBacklog(t, "one handed over, one waiting for its retry", b, err, 2, t0.Add(10*time.Second))
	b, err = s.OutboundBacklog(ctx, now.Add(2*time.Minute))
	requireBacklog(t, "the retry due", b, err, 2, t0.Add(10*time.Second))

	second := claimParts(t, s, now, 1) // m-2's part
	b, err = s.OutboundBacklog(ctx, now)
	requireBacklog(t, "all leased or waiting", b, err, 2, time.Time{})
	b, err = s.OutboundBacklog(ctx, now.Add(2*time.Minute)) // the lease (one minute) ran out too
	requireBacklog(t, "the lease ran out", b, err, 2, now.Add(time.Minute))
	finishParts(t, s, handed(second[0]))

	// Parts of an expired message stay queued until ExpireDue ends them,
	// but no claim takes them.
	b, err = s.OutboundBacklog(ctx, t0.Add(24*time.Hour))
	requireBacklog(t, "expired", b, err, 1, time.Time{})
}

// The outbox's backlog counts every pending report, leased or waiting
// for a retry, and finds the earliest NextAt of the reports a claim would
// take: due, lease free, the oldest pending report of their part.
func testOutboxBacklog(t *testing.T, s Store) {
	ctx := t.Context()
	b, err := s.OutboxBacklog(ctx, t0)
	requireBacklog(t, "empty", b, err, 0, time.Time{})

	accepted(t, s, "m-1")
	at := t0.Add(time.Minute)
	queue(t, s, "m-1", 0, sms.StateSentToSMSC, report("m-1", 0, "first", at))
	queue(t, s, "m-1", 0, sms.StateDelivered, report("m-1", 0, "second", at.Add(time.Second)))
	queue(t, s, "m-1", 1, sms.StateSentToSMSC, report("m-1", 1, "other part", at.Add(2*time.Second)))
	b, err = s.OutboxBacklog(ctx, at.Add(-time.Second))
	requireBacklog(t, "before any is due", b, err, 3, time.Time{})
	now := at.Add(10 * time.Second)
	b, err = s.OutboxBacklog(ctx, now)
	requireBacklog(t, "all due", b, err, 3, at)

	first, err := s.ClaimReports(ctx, now, time.Minute, 1)
	if err != nil || len(first) != 1 || string(first[0].Body) != "first" {
		t.Fatalf("claimed %v, %v", first, err)
	}
	// The second report of part 0 waits behind the first, leased.
	b, err = s.OutboxBacklog(ctx, now)
	requireBacklog(t, "the first leased", b, err, 3, at.Add(2*time.Second))
	other, err := s.ClaimReports(ctx, now, time.Minute, 1)
	if err != nil || len(other) != 1 {
		t.Fatalf("claimed %v, %v", other, err)
	}
	b, err = s.OutboxBacklog(ctx, now)
	requireBacklog(t, "all leased or waiting", b, err, 3, time.Time{})

	first[0].State, first[0].Attempts = sms.ReportDelivered, 1
	if err := s.FinishReport(ctx, first[0]); err != nil {
		t.Fatal(err)
	}
	b, err = s.OutboxBacklog(ctx, now)
	requireBacklog(t, "the first delivered", b, err, 2, at.Add(time.Second))
	other[0].Attempts, other[0].NextAt, other[0].LastError = 1, now.Add(time.Hour), "503"
	if err := s.FinishReport(ctx, other[0]); err != nil {
		t.Fatal(err)
	}
	b, err = s.OutboxBacklog(ctx, now.Add(2*time.Hour))
	requireBacklog(t, "the retry due", b, err, 2, at.Add(time.Second))
}
