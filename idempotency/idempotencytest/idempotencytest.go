// Package idempotencytest is the store contract of package idempotency:
// memstore and pgstore both call Run, so that they behave alike.
// Beside the Store's own methods it runs the Service over each store:
// the rules of keys (replay, refusal of another request, in progress,
// take-over, expiry) and the law that a key's request succeeds at most
// once while the key lives, whatever the order of requests.
package idempotencytest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
)

// Store is what the contract exercises: the Service's Store and an
// inspection that only tests use.
type Store interface {
	idempotency.Store
	// Record returns the record of a scope and key, expired or not;
	// NotFound when there is none.
	Record(ctx context.Context, scope string, key idempotency.Key) (idempotency.Record, error)
}

// Run runs the contract against stores newStore makes, each
// empty.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, Store)
	}{
		{"CreateAndRead", testCreateAndRead},
		{"ScopesApart", testScopesApart},
		{"ExpiredReplaced", testExpiredReplaced},
		{"Replace", testReplace},
		{"Release", testRelease},
		{"Purge", testPurge},
		{"RoundTrip", testRoundTrip},
		{"Invalid", testInvalid},
		{"ConcurrentCreate", testConcurrentCreate},
		{"ServiceReplay", testServiceReplay},
		{"ServiceReused", testServiceReused},
		{"ServiceInProgressAndTakeOver", testServiceTakeOver},
		{"ServiceAbandon", testServiceAbandon},
		{"ServiceExpiry", testServiceExpiry},
		{"ServiceConcurrentBegin", testServiceConcurrent},
		{"ServiceActsOnceLaw", testServiceLaw},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

var t0 = time.Date(2026, 11, 22, 10, 30, 15, 123456000, time.UTC)

var fpA, fpB = idempotency.FingerprintOf([]byte("a")), idempotency.FingerprintOf([]byte("b"))

// record is a pending record of scope and key made at t0 with ref.
func record(scope string, key idempotency.Key, ref string) idempotency.Record {
	return idempotency.Record{
		Scope: scope, Key: key, Fingerprint: fpA, Ref: ref, Attempt: 1, State: idempotency.Pending,
		Created: t0, LeaseUntil: t0.Add(time.Minute), Expires: t0.Add(24 * time.Hour),
	}
}

var equate = cmpopts.EquateEmpty()

func wantRecord(t *testing.T, s Store, want idempotency.Record) {
	t.Helper()
	got, err := s.Record(t.Context(), want.Scope, want.Key)
	if err != nil {
		t.Fatalf("Record(%q, %q): %v", want.Scope, want.Key, err)
	}
	if !bytes.Equal(want.Answer.Body, got.Answer.Body) {
		t.Errorf("stored body of %d bytes, want %d bytes", len(got.Answer.Body), len(want.Answer.Body))
	}
	// go-cmp compares bodies byte by byte, which takes seconds for 1 MiB.
	want.Answer.Body, got.Answer.Body = nil, nil
	if d := gocmp.Diff(want, got, equate); d != "" {
		t.Errorf("stored record (-want +got):\n%s", d)
	}
}

func wantNone(t *testing.T, s Store, scope string, key idempotency.Key) {
	t.Helper()
	if _, err := s.Record(t.Context(), scope, key); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("Record(%q, %q): %v, want NotFound", scope, key, err)
	}
}

func mustCreate(t *testing.T, s Store, r idempotency.Record) {
	t.Helper()
	if _, created, err := s.Create(t.Context(), r); err != nil || !created {
		t.Fatalf("Create(%q, %q): created %v, %v", r.Scope, r.Key, created, err)
	}
}

func testCreateAndRead(t *testing.T, s Store) {
	ctx := t.Context()
	wantNone(t, s, "acct:shop", "k1")
	r := record("acct:shop", "k1", "ref-1")
	got, created, err := s.Create(ctx, r)
	if err != nil || !created || gocmp.Diff(r, got, equate) != "" {
		t.Fatalf("Create = %+v, %v, %v", got, created, err)
	}
	wantRecord(t, s, r)
	// A second request finds the first's record and changes nothing.
	second := record("acct:shop", "k1", "ref-2")
	second.Fingerprint = fpB
	second.Created = t0.Add(time.Hour)
	got, created, err = s.Create(ctx, second)
	if err != nil || created {
		t.Fatalf("Create of a live key: created %v, %v", created, err)
	}
	if d := gocmp.Diff(r, got, equate); d != "" {
		t.Errorf("Create returned (-want +got):\n%s", d)
	}
	wantRecord(t, s, r)
}

func testScopesApart(t *testing.T, s Store) {
	a, b := record("client:a", "same", "ref-a"), record("client:b", "same", "ref-b")
	mustCreate(t, s, a)
	mustCreate(t, s, b)
	wantRecord(t, s, a)
	wantRecord(t, s, b)
	c := record("client:a", "SAME", "ref-c") // keys are case-sensitive
	mustCreate(t, s, c)
	wantRecord(t, s, a)
}

func testExpiredReplaced(t *testing.T, s Store) {
	old := record("s", "k", "ref-old")
	old.State, old.Answer = idempotency.Done, idempotency.Answer{Status: 201, Body: []byte(`{"id":1}`)}
	mustCreate(t, s, old)
	// A microsecond before expiry the record binds the key; at expiry it
	// does not.
	early := record("s", "k", "ref-early")
	early.Created = old.Expires.Add(-time.Microsecond)
	if _, created, err := s.Create(t.Context(), early); err != nil || created {
		t.Fatalf("Create before expiry: created %v, %v", created, err)
	}
	fresh := record("s", "k", "ref-new")
	fresh.Fingerprint = fpB
	fresh.Created, fresh.LeaseUntil, fresh.Expires = old.Expires, old.Expires.Add(time.Minute), old.Expires.Add(24*time.Hour)
	mustCreate(t, s, fresh)
	wantRecord(t, s, fresh)
}

func testReplace(t *testing.T, s Store) {
	ctx := t.Context()
	held := record("s", "k", "ref")
	mustCreate(t, s, held)
	next := held
	next.Attempt, next.LeaseUntil = 2, held.LeaseUntil.Add(time.Hour)
	for name, other := range map[string]func(idempotency.Record) idempotency.Record{
		"another ref":     func(r idempotency.Record) idempotency.Record { r.Ref = "other"; return r },
		"another attempt": func(r idempotency.Record) idempotency.Record { r.Attempt = 7; return r },
		"another key":     func(r idempotency.Record) idempotency.Record { r.Key = "other"; return r },
		"another scope":   func(r idempotency.Record) idempotency.Record { r.Scope = "other"; return r },
	} {
		o := other(held)
		n := next
		n.Scope, n.Key = o.Scope, o.Key
		if ok, err := s.Replace(ctx, o, n); ok || err != nil {
			t.Errorf("Replace holding %s: %v, %v", name, ok, err)
		}
	}
	wantRecord(t, s, held)
	if ok, err := s.Replace(ctx, held, next); !ok || err != nil {
		t.Fatalf("Replace: %v, %v", ok, err)
	}
	wantRecord(t, s, next)
	// The lease changed hands: the first holder replaces nothing.
	if ok, err := s.Replace(ctx, held, held); ok || err != nil {
		t.Errorf("Replace by the old holder: %v, %v", ok, err)
	}
	done := next
	done.State, done.Answer = idempotency.Done, idempotency.Answer{Status: 202, Body: []byte("x")}
	if ok, err := s.Replace(ctx, next, done); !ok || err != nil {
		t.Fatalf("Replace to done: %v, %v", ok, err)
	}
	// A done record is no one's to replace.
	if ok, err := s.Replace(ctx, done, done); ok || err != nil {
		t.Errorf("Replace of a done record: %v, %v", ok, err)
	}
	wantRecord(t, s, done)
	moved := next
	moved.Key = "elsewhere"
	if _, err := s.Replace(ctx, next, moved); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("Replace to another key: %v, want Invalid", err)
	}
}

func testRelease(t *testing.T, s Store) {
	ctx := t.Context()
	held := record("s", "k", "ref")
	mustCreate(t, s, held)
	for _, other := range []idempotency.Record{
		func() idempotency.Record { r := held; r.Ref = "x"; return r }(),
		func() idempotency.Record { r := held; r.Attempt = 2; return r }(),
		record("s", "unknown", "ref"),
	} {
		if ok, err := s.Release(ctx, other); ok || err != nil {
			t.Errorf("Release(%+v): %v, %v", other, ok, err)
		}
	}
	wantRecord(t, s, held)
	if ok, err := s.Release(ctx, held); !ok || err != nil {
		t.Fatalf("Release: %v, %v", ok, err)
	}
	wantNone(t, s, "s", "k")
	if ok, err := s.Release(ctx, held); ok || err != nil {
		t.Errorf("Release again: %v, %v", ok, err)
	}
	done := record("s", "d", "ref")
	done.State = idempotency.Done
	mustCreate(t, s, done)
	if ok, err := s.Release(ctx, done); ok || err != nil {
		t.Errorf("Release of a done record: %v, %v", ok, err)
	}
	wantRecord(t, s, done)
}

func testPurge(t *testing.T, s Store) {
	ctx := t.Context()
	var keep []idempotency.Record
	for i, exp := range []time.Duration{time.Hour, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour} {
		r := record("s", idempotency.Key(fmt.Sprint("k", i)), "ref")
		r.Expires = t0.Add(exp)
		if i%2 == 1 {
			r.State = idempotency.Done
		}
		mustCreate(t, s, r)
		if exp > 2*time.Hour {
			keep = append(keep, r)
		}
	}
	if n, err := s.Purge(ctx, t0.Add(2*time.Hour)); n != 2 || err != nil {
		t.Fatalf("Purge = %d, %v; want 2 (expiry at now included)", n, err)
	}
	wantNone(t, s, "s", "k0")
	wantNone(t, s, "s", "k1")
	for _, r := range keep {
		wantRecord(t, s, r)
	}
	if n, err := s.Purge(ctx, t0.Add(2*time.Hour)); n != 0 || err != nil {
		t.Errorf("Purge again = %d, %v", n, err)
	}
}

func testRoundTrip(t *testing.T, s Store) {
	ctx := t.Context()
	body := make([]byte, idempotency.MaxAnswerBytes)
	for i := range body {
		body[i] = byte(i) // NUL bytes and invalid UTF-8: a body is bytes
	}
	rs := []idempotency.Record{
		record("user:ünïcode ☂ "+strings.Repeat("s", 900), idempotency.Key(` "quoted" \ `+strings.Repeat("~", 240)), strings.Repeat("r", idempotency.MaxRefLen)),
		record("s", "no-answer", "ref"),
	}
	rs[0].Fingerprint = idempotency.FingerprintOf([]byte{0, 1, 2})
	rs[0].State, rs[0].Attempt = idempotency.Done, 3
	rs[0].Answer = idempotency.Answer{Status: 201, Body: body, Header: map[string][]string{
		"Content-Type": {"application/json"}, "Location": {"/x/1"}, "X-Ratelimit-Limit": {"10"}, "Link": {"<a>", "<b>"},
	}}
	rs[0].Created, rs[0].LeaseUntil, rs[0].Expires = t0.Add(time.Microsecond), t0.Add(3*time.Microsecond), t0.Add(5*time.Microsecond)
	for _, r := range rs {
		mustCreate(t, s, r)
		wantRecord(t, s, r)
	}
	// What a caller changes after Create does not reach the store.
	rs[0].Answer.Body[0], rs[0].Answer.Header["Location"][0] = 0xff, "/changed"
	got, _ := s.Record(ctx, rs[0].Scope, rs[0].Key)
	if got.Answer.Body[0] != 0 || got.Answer.Header["Location"][0] != "/x/1" {
		t.Error("the store shares memory with the record it was given")
	}
}

func testInvalid(t *testing.T, s Store) {
	ctx := t.Context()
	for name, change := range map[string]func(*idempotency.Record){
		"NUL in the scope":  func(r *idempotency.Record) { r.Scope = "a\x00b" },
		"bad UTF-8 scope":   func(r *idempotency.Record) { r.Scope = "\xff" },
		"empty key":         func(r *idempotency.Record) { r.Key = "" },
		"key of 256":        func(r *idempotency.Record) { r.Key = idempotency.Key(strings.Repeat("k", 256)) },
		"key with a tab":    func(r *idempotency.Record) { r.Key = "a\tb" },
		"no ref":            func(r *idempotency.Record) { r.Ref = "" },
		"no state":          func(r *idempotency.Record) { r.State = 0 },
		"attempt 0":         func(r *idempotency.Record) { r.Attempt = 0 },
		"no times":          func(r *idempotency.Record) { r.Expires = time.Time{} },
		"header with NUL":   func(r *idempotency.Record) { r.Answer.Header = map[string][]string{"X": {"a\x00"}} },
		"body over the cap": func(r *idempotency.Record) { r.Answer.Body = make([]byte, idempotency.MaxAnswerBytes+1) },
	} {
		r := record("s", "k", "ref")
		change(&r)
		if _, _, err := s.Create(ctx, r); msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("Create with %s: %v, want Invalid", name, err)
		}
	}
	wantNone(t, s, "s", "k")
	held := record("s", "k", "ref")
	mustCreate(t, s, held)
	bad := held
	bad.Answer.Header = map[string][]string{"": {"x"}}
	if _, err := s.Replace(ctx, held, bad); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("Replace with a header without name: %v, want Invalid", err)
	}
	wantRecord(t, s, held)
	wantNone(t, s, "a\x00b", "k")
	if ok, err := s.Release(ctx, record("a\x00b", "k", "ref")); ok || err != nil {
		t.Errorf("Release of an unstorable scope: %v, %v", ok, err)
	}
}

func testConcurrentCreate(t *testing.T, s Store) {
	const n = 16
	var wg sync.WaitGroup
	refs := make([]string, n)
	var created atomic.Int32
	for i := range n {
		wg.Go(func() {
			got, ok, err := s.Create(context.Background(), record("s", "k", fmt.Sprint("ref-", i)))
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				created.Add(1)
			}
			refs[i] = got.Ref
		})
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Fatalf("%d Creates made the record, want 1", created.Load())
	}
	winner, _ := s.Record(t.Context(), "s", "k")
	for i, r := range refs {
		if r != winner.Ref {
			t.Errorf("caller %d saw ref %q, the record has %q", i, r, winner.Ref)
		}
	}
}

// newService is a Service over s with a manual clock at t0 and refs
// numbered in order.
func newService(s Store) (*idempotency.Service, *msgkittest.Clock) {
	clk := msgkittest.NewClock(t0)
	var n atomic.Int64
	return idempotency.NewService(s, idempotency.Options{
		Clock: clk.Now, TTL: 24 * time.Hour, Lease: time.Minute,
		NewRef: func() string { return fmt.Sprint("ref-", n.Add(1)) },
	}), clk
}

func request(scope string, key idempotency.Key, fp idempotency.Fingerprint) idempotency.Request {
	return idempotency.Request{Scope: scope, Key: key, Fingerprint: fp}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if msgkit.CodeOf(err) != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func testServiceReplay(t *testing.T, s Store) {
	ctx := t.Context()
	svc, clk := newService(s)
	c, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil || c.Replay || c.TakenOver() || c.Record.Ref != "ref-1" || c.Record.State != idempotency.Pending {
		t.Fatalf("first Begin = %+v, %v", c, err)
	}
	answer := idempotency.Answer{Status: 201, Header: map[string][]string{"Location": {"/x/1"}}, Body: []byte(`{"id":1}`)}
	if err := svc.Finish(ctx, c, answer); err != nil {
		t.Fatal(err)
	}
	clk.Advance(23*time.Hour + 59*time.Minute)
	r, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil || !r.Replay || r.Record.Ref != "ref-1" {
		t.Fatalf("retry = %+v, %v; want the replay of ref-1", r, err)
	}
	if d := gocmp.Diff(answer, r.Record.Answer, equate); d != "" {
		t.Errorf("replayed answer (-want +got):\n%s", d)
	}
	if err := svc.Finish(ctx, r, answer); msgkit.CodeOf(err) != idempotency.CodeClaimLost {
		t.Errorf("Finish of a replay: %v, want %s", err, idempotency.CodeClaimLost)
	}
}

func testServiceReused(t *testing.T, s Store) {
	ctx := t.Context()
	svc, _ := newService(s)
	c, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Begin(ctx, request("s", "k", fpB))
	wantCode(t, err, idempotency.CodeKeyReused)
	if msgkit.KindOf(err) != msgkit.Conflict {
		t.Errorf("kind %v, want conflict", msgkit.KindOf(err))
	}
	if err := svc.Finish(ctx, c, idempotency.Answer{Status: 200}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Begin(ctx, request("s", "k", fpB))
	wantCode(t, err, idempotency.CodeKeyReused)
	// The same key in another scope is another key.
	if c, err := svc.Begin(ctx, request("other", "k", fpB)); err != nil || c.Replay {
		t.Fatalf("another scope: %+v, %v", c, err)
	}
}

func testServiceTakeOver(t *testing.T, s Store) {
	ctx := t.Context()
	svc, clk := newService(s)
	first, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(20 * time.Second)
	_, err = svc.Begin(ctx, request("s", "k", fpA))
	wantCode(t, err, idempotency.CodeInProgress)
	if wait, ok := idempotency.RetryAfter(err); !ok || wait != 40*time.Second {
		t.Errorf("RetryAfter = %v, %v; want 40s", wait, ok)
	}
	clk.Advance(40 * time.Second) // the lease ends: the first request died
	second, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil || !second.TakenOver() || second.Record.Ref != first.Record.Ref || second.Record.Attempt != 2 {
		t.Fatalf("Begin after the lease = %+v, %v; want a take-over keeping the ref", second, err)
	}
	_, err = svc.Begin(ctx, request("s", "k", fpA))
	wantCode(t, err, idempotency.CodeInProgress)
	// The first request comes back late: it records and releases nothing.
	wantCode(t, svc.Finish(ctx, first, idempotency.Answer{Status: 201, Body: []byte("first")}), idempotency.CodeClaimLost)
	if err := svc.Abandon(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := svc.Finish(ctx, second, idempotency.Answer{Status: 201, Body: []byte("second")}); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil || !r.Replay || string(r.Record.Answer.Body) != "second" {
		t.Fatalf("replay = %+v, %v", r, err)
	}
}

func testServiceAbandon(t *testing.T, s Store) {
	ctx := t.Context()
	svc, _ := newService(s)
	c, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Abandon(ctx, c); err != nil {
		t.Fatal(err)
	}
	wantNone(t, s, "s", "k")
	// A refused request leaves the key free, for the same request or a
	// corrected one.
	again, err := svc.Begin(ctx, request("s", "k", fpB))
	if err != nil || again.Replay || again.Record.Ref == c.Record.Ref {
		t.Fatalf("Begin after Abandon = %+v, %v; want a new record", again, err)
	}
}

func testServiceExpiry(t *testing.T, s Store) {
	ctx := t.Context()
	svc, clk := newService(s)
	c, err := svc.Begin(ctx, request("s", "k", fpA))
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Finish(ctx, c, idempotency.Answer{Status: 201}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Microsecond)
	stale, err := svc.Begin(ctx, request("s", "stale", fpA)) // pending for good
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(24*time.Hour - time.Microsecond) // k expires now, stale a microsecond later
	// The key is free: the same request acts again, under a new ref, and
	// so does another one.
	n, err := svc.Begin(ctx, request("s", "k", fpB))
	if err != nil || n.Replay || n.TakenOver() || n.Record.Ref == c.Record.Ref {
		t.Fatalf("Begin after 24 h = %+v, %v; want a new record", n, err)
	}
	if m, err := svc.Purge(ctx); m != 0 || err != nil {
		t.Fatalf("Purge = %d, %v; want 0: k was replaced and stale is live until now", m, err)
	}
	clk.Advance(time.Microsecond)
	if m, err := svc.Purge(ctx); m != 1 || err != nil {
		t.Fatalf("Purge = %d, %v; want 1 (stale)", m, err)
	}
	wantNone(t, s, "s", stale.Record.Key)
	wantRecord(t, s, n.Record)
}

func testServiceConcurrent(t *testing.T, s Store) {
	svc, _ := newService(s)
	const n = 16
	var acted, busy atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			c, err := svc.Begin(context.Background(), request("s", "k", fpA))
			switch {
			case err == nil && !c.Replay:
				acted.Add(1)
			case msgkit.CodeOf(err) == idempotency.CodeInProgress:
				busy.Add(1)
			default:
				t.Errorf("Begin = %+v, %v", c, err)
			}
		})
	}
	wg.Wait()
	if acted.Load() != 1 || busy.Load() != n-1 {
		t.Errorf("%d acted and %d were in progress; want 1 and %d", acted.Load(), busy.Load(), n-1)
	}
}
