// Package smstest is the contract every sms.Store implementation meets.
// memstore and pgstore both call Run; a behaviour that differs
// between them is a bug.
package smstest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/shopspring/decimal"
)

// Store is what the contract exercises: the Gateway's Store, the
// Dispatcher's OutboxStore, the Transmitter's TransmitterStore, the
// Retention's RetentionStore, the Tracer's TraceStore, and the
// inspection that only operators and tests use (no service calls it).
type Store interface {
	sms.Store
	sms.OutboxStore
	sms.TransmitterStore
	sms.RetentionStore
	sms.ReportLeasingStore
	sms.LedgerStore
	sms.AccountStore
	sms.TraceStore
	// FinishReport is FinishReports of one report.
	FinishReport(ctx context.Context, r sms.Report) error
	// ReportCounts counts the outbox's reports by state.
	ReportCounts(ctx context.Context) (map[sms.ReportState]int, error)
	// HandedParts lists up to limit parts the network holds (handed over,
	// so off the queue, and not final) of messages not expired at now,
	// after the key after in (message id in byte order, part number)
	// order, as simnet.HeldParts says.
	HandedParts(ctx context.Context, now time.Time, after sms.PartKey, limit int) ([]sms.OutboundPart, error)
}

// Run runs the contract against stores made by newStore, one
// fresh, empty store per subtest. The subtests run in parallel, so
// newStore must give each its own store (a schema each, on PostgreSQL).
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	tests := []storeTest{
		{"AccountRoundTrip", testAccountRoundTrip},
		{"AccountNotFoundAndConflict", testAccountNotFoundAndConflict},
		{"AddBalance", testAddBalance},
		{"AcceptAndMessage", testAcceptAndMessage},
		{"AcceptWithoutCredit", testAcceptWithoutCredit},
		{"AcceptDuplicate", testAcceptDuplicate},
		{"ConcurrentAcceptNeverOverdraws", testConcurrentAccept},
		{"Throughput", testThroughput},
	}
	tests = append(tests, outboxTests()...)
	tests = append(tests, outboundTests()...)
	tests = append(tests, retentionTests()...)
	tests = append(tests, ledgerTests()...)
	tests = append(tests, accountAdminTests()...)
	tests = append(tests, traceTests()...)
	tests = append(tests, backlogTests()...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// storeTest is one test of the contract, run on a fresh store.
type storeTest struct {
	name string
	fn   func(t *testing.T, s Store)
}

var t0 = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.FixedZone("CET", 3600))

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Account returns a complete sample account with balance.
func Account(username, balance string) sms.Account {
	return sms.Account{
		Username:     username,
		PasswordHash: "$2a$04$abcdefghijklmnopqrstuu5Cq2Zk0bF2bS0mB0D3Y5yW8bZK1ZQzS",
		Networks:     []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("2001:db8::/32")},
		Enabled:      true,
		Balance:      dec(balance),
		CreditLimit:  decimal.Zero,
		Currency:     "EUR",
		Validity:     6 * time.Hour,
		Throughput:   50,
		MaxParts:     10,
		BlacklistedSenderWords: map[string][]string{
			"SI": {"bank", "police"},
			"DE": {"polizei"},
		},
		Prices: []sms.Price{
			{Prefix: "386", Price: dec("0.0450")},
			{Prefix: "38640", Price: dec("0.0390")},
			{Prefix: "49", Price: dec("0.0725")},
		},
		CreatedAt: t0,
	}
}

var equate = gocmp.Options{
	cmpopts.EquateEmpty(),
	gocmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) }),
	gocmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
	cmpopts.SortSlices(func(a, b sms.Price) bool { return a.Prefix < b.Prefix }),
}

func requireKind(t *testing.T, err error, kind msgkit.Kind) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want kind %v", err, kind)
	}
}

// requireErrorCode holds err to a code of the stores' refusals: both
// stores answer sms's constructors.
func requireErrorCode(t *testing.T, err error, code string) {
	t.Helper()
	if msgkit.CodeOf(err) != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func requireCode(t *testing.T, err error, code sms.Code) {
	t.Helper()
	if sms.CodeOf(err) != code || err == nil {
		t.Fatalf("error %v, want code %d", err, code)
	}
}

func requireBalance(t *testing.T, s sms.Store, username, want string) {
	t.Helper()
	a, err := s.Account(t.Context(), username)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Balance.Equal(dec(want)) {
		t.Fatalf("balance %s, want %s", a.Balance, want)
	}
}

func testAccountRoundTrip(t *testing.T, s Store) {
	a := Account("shop", "1234567.8901")
	a.CreditLimit = dec("250.50")
	a.Tenant = "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"
	a.Prices = append(a.Prices, sms.Price{Prefix: "44", Price: dec("0.05"), ValidFrom: date("2026-01-01"), ValidTo: date("2026-06-30")},
		sms.Price{Prefix: "44", Price: dec("0.04"), ValidFrom: date("2026-07-01")})
	if err := s.CreateAccount(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	got, err := s.Account(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	want := a
	want.CreatedAt = t0.Truncate(time.Microsecond).UTC()
	if diff := gocmp.Diff(want, got, equate); diff != "" {
		t.Errorf("account (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt in %v, want UTC", got.CreatedAt.Location())
	}
	bare := sms.Account{Username: "bare", PasswordHash: "h", Balance: decimal.Zero, CreatedAt: t0}
	if err := s.CreateAccount(t.Context(), bare); err != nil {
		t.Fatal(err)
	}
	got, err = s.Account(t.Context(), "bare")
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled || !got.Balance.IsZero() || len(got.Prices)+len(got.Networks)+len(got.BlacklistedSenderWords) != 0 {
		t.Errorf("a bare account came back as %+v", got)
	}
}

func testAccountNotFoundAndConflict(t *testing.T, s Store) {
	_, err := s.Account(t.Context(), "nobody")
	requireKind(t, err, msgkit.NotFound)
	if err := s.CreateAccount(t.Context(), Account("shop", "10")); err != nil {
		t.Fatal(err)
	}
	requireKind(t, s.CreateAccount(t.Context(), Account("shop", "99")), msgkit.Conflict)
	requireBalance(t, s, "shop", "10")
	_, err = AddBalance(t.Context(), s, "nobody", dec("1"))
	requireKind(t, err, msgkit.NotFound)
	_, err = s.Message(t.Context(), "no-such-message")
	requireKind(t, err, msgkit.NotFound)
}

func testAddBalance(t *testing.T, s Store) {
	if err := s.CreateAccount(t.Context(), Account("shop", "1.50")); err != nil {
		t.Fatal(err)
	}
	b, err := AddBalance(t.Context(), s, "shop", dec("0.0450"))
	if err != nil || !b.Equal(dec("1.545")) {
		t.Fatalf("AddBalance = %s, %v; want 1.545", b, err)
	}
	b, err = AddBalance(t.Context(), s, "shop", dec("-1.545"))
	if err != nil || !b.IsZero() {
		t.Fatalf("AddBalance to zero = %s, %v", b, err)
	}
	_, err = AddBalance(t.Context(), s, "shop", dec("-0.0001"))
	requireCode(t, err, sms.CodeNoCredit)
	requireBalance(t, s, "shop", "0")
}

// Message returns a two-part message of account charged 2 × price, both
// parts queued for sending at t0.
func Message(id, account, price string) sms.MessageRecord {
	p := dec(price)
	return sms.MessageRecord{
		ID: sms.MessageID(id), Account: account, Type: "text",
		Sender: sms.Sender{Value: "MyShop"}, Receiver: "+38640123456", DCS: gsm.DCSGSM,
		Flash: true, DLRMask: 19, DLRURL: "https://example.com/dlr?x=1",
		Custom:    []byte(`{"order": 42, "tags": ["a", "ü"]}`),
		PartPrice: p, Charged: p.Mul(decimal.NewFromInt(2)), Currency: "EUR",
		SubmittedAt: t0, ExpiresAt: t0.Add(24 * time.Hour),
		Parts: []sms.PartRecord{
			{Num: 0, Text: "first [part]", Units: 153, UDH: gsm.UDH{Ref: 7, Total: 2, Seq: 1}, State: sms.StateSubmitted, UpdatedAt: t0, SendAt: t0},
			{Num: 1, Text: "second", Units: 6, UDH: gsm.UDH{Ref: 7, Total: 2, Seq: 2}, State: sms.StateSubmitted, UpdatedAt: t0, SendAt: t0},
		},
	}
}

func storedMessage(m sms.MessageRecord) sms.MessageRecord {
	m.SubmittedAt = m.SubmittedAt.Truncate(time.Microsecond).UTC()
	m.ExpiresAt = m.ExpiresAt.Truncate(time.Microsecond).UTC()
	for i := range m.Parts {
		m.Parts[i].UpdatedAt = m.Parts[i].UpdatedAt.Truncate(time.Microsecond).UTC()
		if !m.Parts[i].SendAt.IsZero() {
			m.Parts[i].SendAt = m.Parts[i].SendAt.Truncate(time.Microsecond).UTC()
		}
	}
	return m
}

func testAcceptAndMessage(t *testing.T, s Store) {
	if err := s.CreateAccount(t.Context(), Account("shop", "1.00")); err != nil {
		t.Fatal(err)
	}
	m := Message("m-1", "shop", "0.0450")
	if err := s.Accept(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	requireBalance(t, s, "shop", "0.91")
	got, err := s.Message(t.Context(), "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(storedMessage(m), got, equate); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	push := Message("m-2", "shop", "0.0450")
	push.Type, push.DCS, push.Custom, push.Flash = "wsi", gsm.DCSBinary, nil, false
	push.Parts = []sms.PartRecord{{Num: 0, Data: []byte{0x00, 0x06, 0xff, 0x01}, Units: 4, UDH: gsm.UDH{DstPort: 2948, SrcPort: 9200}, State: sms.StateSubmitted, UpdatedAt: t0,
		SendAt: t0.Add(time.Second), SendAttempts: 3, SendError: "an earlier error"}}
	push.Charged = push.PartPrice
	if err := s.Accept(t.Context(), push); err != nil {
		t.Fatal(err)
	}
	got, err = s.Message(t.Context(), "m-2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(storedMessage(push), got, equate); diff != "" {
		t.Errorf("push message (-want +got):\n%s", diff)
	}
	requireBalance(t, s, "shop", "0.865")
	other := Message("m-3", "nobody", "0.01")
	requireKind(t, s.Accept(t.Context(), other), msgkit.NotFound)
}

func testAcceptWithoutCredit(t *testing.T, s Store) {
	if err := s.CreateAccount(t.Context(), Account("shop", "0.0899")); err != nil {
		t.Fatal(err)
	}
	requireCode(t, s.Accept(t.Context(), Message("m-1", "shop", "0.0450")), sms.CodeNoCredit)
	requireBalance(t, s, "shop", "0.0899")
	_, err := s.Message(t.Context(), "m-1")
	requireKind(t, err, msgkit.NotFound)
	if err := s.Accept(t.Context(), Message("m-2", "shop", "0.04495")); err != nil {
		t.Fatalf("a charge equal to the balance is refused: %v", err)
	}
	requireBalance(t, s, "shop", "0")
}

func testAcceptDuplicate(t *testing.T, s Store) {
	if err := s.CreateAccount(t.Context(), Account("shop", "1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(t.Context(), Message("m-1", "shop", "0.10")); err != nil {
		t.Fatal(err)
	}
	err := s.Accept(t.Context(), Message("m-1", "shop", "0.10"))
	requireKind(t, err, msgkit.Conflict)
	requireErrorCode(t, err, sms.CodeMessageExists)
	requireBalance(t, s, "shop", "0.80") // charged once
}

func testConcurrentAccept(t *testing.T, s Store) {
	const n = 16
	// Credit for exactly n/2 messages of two parts at 0.05.
	if err := s.CreateAccount(t.Context(), Account("shop", decimal.NewFromInt(n/2).Mul(dec("0.10")).String())); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = s.Accept(t.Context(), Message(fmt.Sprintf("m-%d", i), "shop", "0.05")) })
	}
	wg.Wait()
	accepted := 0
	for _, err := range errs {
		switch {
		case err == nil:
			accepted++
		case sms.CodeOf(err) != sms.CodeNoCredit:
			t.Errorf("unexpected error %v", err)
		}
	}
	if accepted != n/2 {
		t.Errorf("%d accepted, want %d", accepted, n/2)
	}
	requireBalance(t, s, "shop", "0")
	for i := range n {
		_, err := s.Message(t.Context(), sms.MessageID(fmt.Sprintf("m-%d", i)))
		if (err == nil) != (errs[i] == nil) {
			t.Errorf("message %d: stored %v, accepted %v", i, err == nil, errs[i] == nil)
		}
	}
}

func testThroughput(t *testing.T, s Store) {
	sec := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	take := func(user string, at time.Time, limit int) bool {
		t.Helper()
		ok, err := s.TakeThroughput(t.Context(), user, at, limit)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	var got []bool
	for _, d := range []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond, 999 * time.Millisecond} {
		got = append(got, take("shop", sec.Add(d), 3))
	}
	if want := []bool{true, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("within one second: %v, want %v", got, want)
	}
	if !take("shop", sec.Add(time.Second), 3) {
		t.Error("a new second does not reset the count")
	}
	// A call stamped with an earlier second (a lagging replica) counts in
	// the newer one instead of resetting it.
	take("shop", sec.Add(time.Second), 3)
	take("shop", sec.Add(time.Second), 3)
	if take("shop", sec, 3) {
		t.Error("an earlier second reset the window")
	}
	if !take("other", sec.Add(999*time.Millisecond), 1) || take("other", sec.Add(999*time.Millisecond), 1) {
		t.Error("accounts do not count separately")
	}
	for range 5 {
		if !take("unlimited", sec, 0) {
			t.Fatal("limit 0 means unlimited")
		}
	}
}
