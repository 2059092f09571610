package pgstore

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/smstest"
)

func TestSMSContract(t *testing.T) {
	t.Parallel()
	smstest.Run(t, func(t *testing.T) smstest.Store { return newTestStore(t) })
}

// The tests below cover what is particular to PostgreSQL; the contract
// suite covers the rest.

// t1 has nanoseconds and a zone on purpose: the store keeps microseconds
// in UTC.
var t1 = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.FixedZone("CET", 3600))

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// exactly compares decimals by coefficient and exponent, not only by
// value: 0.0450 and 0.045 differ.
var exactly = cmp.Comparer(func(a, b decimal.Decimal) bool {
	return a.Exponent() == b.Exponent() && a.Coefficient().Cmp(b.Coefficient()) == 0
})

var equalPrefix = cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })

// countRows counts the rows of table in s's schema.
func countRows(t *testing.T, s *SMSStore, table string) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func requireBalance(t *testing.T, s *SMSStore, username, want string) {
	t.Helper()
	a, err := s.Account(t.Context(), username)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dec(want), a.Balance, exactly); diff != "" {
		t.Fatalf("balance of %s (-want +got):\n%s", username, diff)
	}
}

func TestSMSDecimalsKeepScale(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	values := []string{"0", "0.0450", "1234567.8901", "0.10", "100", "0.00000000000000000001",
		"98765432109876543210987654321.123456789012345678901234567890"}
	for i, v := range values {
		a := smstest.Account(fmt.Sprintf("acct-%d", i), v)
		a.Prices = []sms.Price{{Prefix: "49", Price: dec(v)}, {Prefix: "386", Price: dec("0.0450")}}
		if err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := s.Account(ctx, a.Username)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a.Balance, got.Balance, exactly); diff != "" {
			t.Errorf("balance %s (-want +got):\n%s", v, diff)
		}
		if diff := cmp.Diff(a.Prices, got.Prices, exactly); diff != "" {
			t.Errorf("prices with %s (-want +got):\n%s", v, diff)
		}
		m := smstest.Message(fmt.Sprintf("m-%d", i), a.Username, v)
		m.Charged = a.Balance // the whole balance, at any scale
		if err := s.Accept(ctx, m); err != nil {
			t.Fatal(err)
		}
		gotM, err := s.Message(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]decimal.Decimal{m.PartPrice, m.Charged}, []decimal.Decimal{gotM.PartPrice, gotM.Charged}, exactly); diff != "" {
			t.Errorf("part price and charge %s (-want +got):\n%s", v, diff)
		}
		// numeric subtraction keeps the larger scale, as decimal.Sub does:
		// memstore and pgstore agree on the representation too.
		after, err := s.Account(ctx, a.Username)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a.Balance.Sub(m.Charged), after.Balance, exactly); diff != "" {
			t.Errorf("balance %s after the charge (-want +got):\n%s", v, diff)
		}
	}
	// A positive exponent (1.2e3) comes back as the same value with exponent 0.
	a := smstest.Account("exp", "1.2e3")
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	got, err := s.Account(ctx, "exp")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Balance.Equal(dec("1200")) {
		t.Errorf("balance 1.2e3 came back as %s", got.Balance)
	}
	b, err := smstest.AddBalance(ctx, s, "exp", dec("0.0450"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dec("1200.0450"), b, exactly); diff != "" {
		t.Errorf("AddBalance (-want +got):\n%s", diff)
	}
}

func TestSMSAccountRoundTripExact(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	full := smstest.Account("full", "1234567.8901")
	full.Prices = []sms.Price{ // not sorted, and a prefix twice: kept as given
		{Prefix: "49", Price: dec("0.0725")}, {Prefix: "386", Price: dec("0.0450")}, {Prefix: "38640", Price: dec("0.0390")},
		{Prefix: "49", Price: dec("0.08")},
	}
	full.BlacklistedSenderWords = map[string][]string{"SI": {"bank", "<police> & co"}, "DE": {}, "AT": nil, "": {"ü"}}
	full.Validity = 90*time.Minute + 1234567*time.Nanosecond
	full.Throughput, full.MaxParts = math.MaxInt32, -1
	accounts := []sms.Account{
		full,
		{Username: "nil", PasswordHash: "h", Currency: "EUR", CreatedAt: t1},
		{Username: "empty", PasswordHash: "h", Currency: "EUR", CreatedAt: t1,
			Networks: []netip.Prefix{}, Prices: []sms.Price{}, BlacklistedSenderWords: map[string][]string{}},
		{Username: "zero time", PasswordHash: "h", Balance: dec("0.00")},
	}
	for _, a := range accounts {
		if err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, err := s.Account(ctx, a.Username)
		if err != nil {
			t.Fatal(err)
		}
		want := a
		want.CreatedAt = dbTime(a.CreatedAt)
		want.Validity = a.Validity.Truncate(time.Millisecond)
		// No EquateEmpty: nil and empty are told apart.
		if diff := cmp.Diff(want, got, exactly, equalPrefix); diff != "" {
			t.Errorf("account %q (-want +got):\n%s", a.Username, diff)
		}
	}
	var validity int64
	if err := s.pool.QueryRow(ctx, "SELECT validity_ms FROM sms_accounts WHERE username = 'full'").Scan(&validity); err != nil {
		t.Fatal(err)
	}
	if validity != 90*60*1000+1 {
		t.Errorf("validity_ms = %d, want %d", validity, 90*60*1000+1)
	}
}

func TestSMSMessageRoundTripExact(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "10")); err != nil {
		t.Fatal(err)
	}
	m := smstest.Message("m-1", "shop", "0.0450")
	// Bytes jsonb would not keep: spacing, key order, a duplicate key, an
	// escape it would decode.
	m.Custom = []byte("{ \"z\":1,\n\"a\" : \"\\u00fc\", \"z\": 2 }")
	m.Sender = sms.Sender{Value: "4915112345678", Numeric: true}
	m.DCS, m.DLRMask, m.Flash = gsm.DCSBinary, sms.MaxDLRMask, false
	m.Parts = []sms.PartRecord{ // out of order: Message sorts by Num
		{Num: 2, Data: []byte{}, Units: 0, UDH: gsm.UDH{Ref: 255, Total: 3, Seq: 3, DstPort: 65535, SrcPort: 9200},
			State: sms.StateRejected, ErrorCode: sms.DLRRepeatedSubmission, UpdatedAt: t1.Add(time.Second)},
		{Num: 0, Text: "ŽŠČ €", Data: []byte{0x00, 0xff, 0x00}, Units: 133, UDH: gsm.UDH{Ref: 255, Total: 3, Seq: 1, DstPort: 2948, SrcPort: 9200},
			State: sms.StateDelivered, UpdatedAt: t1},
		{Num: 1, Units: 128, UDH: gsm.UDH{Ref: 255, Total: 3, Seq: 2}, State: sms.StateBuffered, ErrorCode: sms.DLRAbsentSubscriber},
	}
	m.Charged = m.PartPrice.Mul(decimal.NewFromInt(3))
	if err := s.Accept(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Message(ctx, "m-1")
	if err != nil {
		t.Fatal(err)
	}
	want := m
	want.SubmittedAt, want.ExpiresAt = dbTime(m.SubmittedAt), dbTime(m.ExpiresAt)
	want.Parts = []sms.PartRecord{m.Parts[1], m.Parts[2], m.Parts[0]}
	for i := range want.Parts {
		want.Parts[i].UpdatedAt = dbTime(want.Parts[i].UpdatedAt)
	}
	// No EquateEmpty: a nil Data stays nil and an empty one empty.
	if diff := cmp.Diff(want, got, exactly); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}

	bare := smstest.Message("m-bare", "shop", "0")
	bare.Custom, bare.Parts, bare.SubmittedAt, bare.ExpiresAt = []byte{}, nil, time.Time{}, time.Time{}
	if err := s.Accept(ctx, bare); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Message(ctx, "m-bare"); err != nil {
		t.Fatal(err)
	}
	if got.Custom == nil || len(got.Custom) != 0 || got.Parts != nil || !got.SubmittedAt.IsZero() {
		t.Errorf("a bare message came back with custom %#v, parts %v, submitted %v", got.Custom, got.Parts, got.SubmittedAt)
	}
}

func TestSMSAcceptRefusals(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "0.10")); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(ctx, smstest.Message("taken", "shop", "0.05")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		m        sms.MessageRecord
		wantKind msgkit.Kind
		wantCode string
	}{
		// The precedence is memstore's: account, then id, then credit.
		{"unknown account with a taken id", smstest.Message("taken", "nobody", "0.05"), msgkit.NotFound, "account_not_found"},
		{"taken id without credit", smstest.Message("taken", "shop", "0.05"), msgkit.Conflict, "message_exists"},
		{"no credit", smstest.Message("new", "shop", "0.0001"), msgkit.PaymentRequired, "113"},
		{"unstorable account", smstest.Message("new", "sh\x00op", "0"), msgkit.NotFound, "account_not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Accept(ctx, tc.m)
			if msgkit.KindOf(err) != tc.wantKind || msgkit.CodeOf(err) != tc.wantCode {
				t.Fatalf("error %v, want %v %s", err, tc.wantKind, tc.wantCode)
			}
		})
	}
	err := s.Accept(ctx, smstest.Message("new", "shop", "0.0001"))
	if e, ok := errors.AsType[*msgkit.Error](err); !ok || e.Message != "balance 0 EUR is below the charge 0.0002" {
		t.Errorf("113 message: %v", err)
	}
	requireBalance(t, s, "shop", "0.00")
	if n := countRows(t, s, "sms_messages"); n != 1 {
		t.Errorf("%d messages stored, want 1", n)
	}
	if n := countRows(t, s, "sms_parts"); n != 2 {
		t.Errorf("%d parts stored, want 2", n)
	}
}

func TestSMSInvalidInput(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1")); err != nil {
		t.Fatal(err)
	}
	account := func(f func(*sms.Account)) error {
		a := smstest.Account("new", "1")
		f(&a)
		return s.CreateAccount(ctx, a)
	}
	message := func(f func(*sms.MessageRecord)) error {
		m := smstest.Message("new", "shop", "0.01")
		f(&m)
		return s.Accept(ctx, m)
	}
	writes := []struct {
		name  string
		err   error
		field string
	}{
		{"negative balance", account(func(a *sms.Account) { a.Balance = dec("-0.01") }), "balance"},
		{"username", account(func(a *sms.Account) { a.Username = "n\x00" }), "username"},
		{"currency", account(func(a *sms.Account) { a.Currency = "\xff" }), "currency"},
		{"blacklist region", account(func(a *sms.Account) { a.BlacklistedSenderWords = map[string][]string{"\xff": nil} }), "blacklistedSenderWords"},
		{"blacklist word", account(func(a *sms.Account) { a.BlacklistedSenderWords["SI"] = []string{"a\x00"} }), "blacklistedSenderWords"},
		{"price prefix", account(func(a *sms.Account) { a.Prices[1].Prefix = "\x00" }), "prices"},
		{"network", account(func(a *sms.Account) { a.Networks = append(a.Networks, netip.Prefix{}) }), "networks"},
		{"throughput", account(func(a *sms.Account) { a.Throughput = math.MaxInt32 + 1 }), "throughput"},
		{"max parts", account(func(a *sms.Account) { a.MaxParts = math.MinInt32 - 1 }), "maxParts"},
		{"negative charge", message(func(m *sms.MessageRecord) { m.Charged = dec("-1") }), "charged"},
		{"id", message(func(m *sms.MessageRecord) { m.ID = "\xff" }), "id"},
		{"sender", message(func(m *sms.MessageRecord) { m.Sender.Value = "\x00" }), "sender"},
		{"dlr url", message(func(m *sms.MessageRecord) { m.DLRURL = "\xff" }), "dlrUrl"},
		{"part text", message(func(m *sms.MessageRecord) { m.Parts[1].Text = "\x00" }), "parts"},
		{"part num twice", message(func(m *sms.MessageRecord) { m.Parts[1].Num = 0 }), "parts"},
		{"part num range", message(func(m *sms.MessageRecord) { m.Parts[0].Num = math.MaxInt32 + 1 }), "parts"},
	}
	for _, w := range writes {
		e, ok := errors.AsType[*msgkit.Error](w.err)
		if !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != w.field {
			t.Errorf("%s: error %v, want invalid naming %s", w.name, w.err, w.field)
		}
	}
	if n := countRows(t, s, "sms_accounts"); n != 1 {
		t.Errorf("%d accounts stored, want 1", n)
	}
	if n := countRows(t, s, "sms_messages"); n != 0 {
		t.Errorf("%d messages stored, want 0", n)
	}
	requireBalance(t, s, "shop", "1")

	for _, key := range []string{"nul\x00byte", "bad\xffutf8"} {
		if _, err := s.Account(ctx, key); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("Account(%q) = %v, want not found", key, err)
		}
		if _, err := smstest.AddBalance(ctx, s, key, dec("1")); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("AddBalance(%q) = %v, want not found", key, err)
		}
		if _, err := s.Message(ctx, sms.MessageID(key)); !errors.Is(err, msgkit.NotFound) {
			t.Errorf("Message(%q) = %v, want not found", key, err)
		}
	}
}

func TestSMSAddBalanceRefusal(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1.50")); err != nil {
		t.Fatal(err)
	}
	_, err := smstest.AddBalance(ctx, s, "shop", dec("-1.5001"))
	if e, ok := errors.AsType[*msgkit.Error](err); !ok || sms.CodeOf(err) != sms.CodeNoCredit || e.Message != "balance 1.5 EUR with -1.5001 would be below the floor 0" {
		t.Fatalf("error %v, want 113 quoting the balance", err)
	}
	requireBalance(t, s, "shop", "1.50")
}

// TestSMSConcurrentChargesAcrossReplicas runs Accept and AddBalance
// from two stores (two pools, as two replicas would have) against one
// account: whatever the interleaving, exactly the credit is spent.
func TestSMSConcurrentChargesAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	ctx := t.Context()
	// 16 messages of 2 × 0.05 and 8 debits of 0.10 want 2.40; there is 1.20.
	if err := replicas[0].CreateAccount(ctx, smstest.Account("shop", "1.20")); err != nil {
		t.Fatal(err)
	}
	const accepts, debits = 16, 8
	errs := make([]error, accepts+debits)
	var wg sync.WaitGroup
	for i := range accepts + debits {
		s := replicas[i%2]
		wg.Go(func() {
			if i < accepts {
				errs[i] = s.Accept(ctx, smstest.Message(fmt.Sprintf("m-%d", i), "shop", "0.05"))
			} else {
				_, errs[i] = smstest.AddBalance(ctx, s, "shop", dec("-0.10"))
			}
		})
	}
	wg.Wait()
	ok, accepted := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
			if i < accepts {
				accepted++
			}
		case sms.CodeOf(err) != sms.CodeNoCredit:
			t.Errorf("call %d: unexpected error %v", i, err)
		}
	}
	if ok != 12 {
		t.Errorf("%d charges succeeded, want 12", ok)
	}
	requireBalance(t, replicas[1], "shop", "0.00")
	if n := countRows(t, replicas[0], "sms_messages"); n != accepted {
		t.Errorf("%d messages stored, %d accepted", n, accepted)
	}
	if n := countRows(t, replicas[0], "sms_parts"); n != 2*accepted {
		t.Errorf("%d parts stored, want %d", n, 2*accepted)
	}
}

func TestSMSThroughputShared(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	replicas := []*SMSStore{openTestStore(t, dsn, Options{Schema: schema}), openTestStore(t, dsn, Options{Schema: schema})}
	ctx := t.Context()
	sec := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

	const calls, limit = 20, 5
	allowed := make([]bool, calls)
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			// Any instant of the second, in any zone, is the same window.
			at := sec.Add(time.Duration(i) * 49 * time.Millisecond).In(time.FixedZone("", (i%3-1)*3600))
			allowed[i], errs[i] = replicas[i%2].TakeThroughput(ctx, "shop", at, limit)
		})
	}
	wg.Wait()
	n := 0
	for i, ok := range allowed {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if ok {
			n++
		}
	}
	if n != limit {
		t.Errorf("%d of %d submissions allowed in one second, want %d", n, calls, limit)
	}
	var count int
	var window int64
	if err := replicas[0].pool.QueryRow(ctx, "SELECT window_start, count FROM sms_throughput WHERE username = 'shop'").Scan(&window, &count); err != nil {
		t.Fatal(err)
	}
	if window != sec.Unix() || count != calls {
		t.Errorf("stored window %d count %d, want %d %d", window, count, sec.Unix(), calls)
	}

	steps := []struct {
		at   time.Time
		want bool
	}{
		{sec.Add(time.Second), true},                        // a new second starts afresh
		{sec.Add(time.Second + 999*time.Millisecond), true}, // still that second
		{sec.Add(-time.Nanosecond), false},                  // an earlier second counts in the newer one: third call, limit 2
		{sec.Add(2 * time.Second), true},                    // the next second starts afresh
		{time.Unix(-1, 500_000_000), true},                  // far behind: still counted in the newest second
		{time.Unix(-1, 0), false},                           // third call there
	}
	for i, st := range steps {
		got, err := replicas[i%2].TakeThroughput(ctx, "steps", st.at, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Errorf("step %d at %v: allowed %v, want %v", i, st.at, got, st.want)
		}
	}

	for range 3 {
		if ok, err := replicas[0].TakeThroughput(ctx, "unlimited", sec, 0); !ok || err != nil {
			t.Fatalf("limit 0: %v, %v", ok, err)
		}
	}
	if ok, err := replicas[0].TakeThroughput(ctx, "unlimited", sec, -1); !ok || err != nil {
		t.Fatalf("limit -1: %v, %v", ok, err)
	}
	var rows int
	if err := replicas[0].pool.QueryRow(ctx, "SELECT count(*) FROM sms_throughput WHERE username = 'unlimited'").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Error("an unlimited account was counted in the database")
	}
	if _, err := replicas[0].TakeThroughput(ctx, "a\x00", sec, 1); !errors.Is(err, msgkit.Invalid) {
		t.Errorf("unstorable username: %v, want invalid", err)
	}
}

func TestSMSCorruptRowsAreInternal(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(ctx, smstest.Message("m-1", "shop", "0.01")); err != nil {
		t.Fatal(err)
	}
	corruptions := []struct {
		name, sql string
		read      func() error
	}{
		{"part state", "UPDATE sms_parts SET state = 256 WHERE num = 1",
			func() error { _, err := s.Message(ctx, "m-1"); return err }},
		{"dcs", "UPDATE sms_messages SET dcs = -1",
			func() error { _, err := s.Message(ctx, "m-1"); return err }},
		{"price", "UPDATE sms_messages SET part_price = 'NaN'",
			func() error { _, err := s.Message(ctx, "m-1"); return err }},
		{"network", "UPDATE sms_accounts SET networks = '{nonsense}'",
			func() error { _, err := s.Account(ctx, "shop"); return err }},
		{"blacklist", `UPDATE sms_accounts SET blacklist = '{"SI": "bank"}'`,
			func() error { _, err := s.Account(ctx, "shop"); return err }},
	}
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			tx, err := s.pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, c.sql); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			err = c.read()
			if msgkit.KindOf(err) != msgkit.Internal || msgkit.CodeOf(err) != CodeStorage {
				t.Errorf("error %v, want internal %s", err, CodeStorage)
			}
			if e, ok := errors.AsType[*msgkit.Error](err); ok && e.Message != "storage error" {
				t.Errorf("message %q, want the generic one", e.Message)
			}
		})
	}
}

func TestSMSBalanceCheckBacksTheStore(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1")); err != nil {
		t.Fatal(err)
	}
	_, err := s.pool.Exec(ctx, "UPDATE sms_accounts SET balance = -0.01")
	if err == nil || !strings.Contains(err.Error(), "23514") {
		t.Fatalf("a negative balance was written: %v", err)
	}
}

// BenchmarkAccept measures Accept on one account: one caller at a time
// (the latency of a lone submission), 8 and 64 at once (the throughput of
// one busy account, which group commit is for).
func BenchmarkAccept(b *testing.B) {
	s := newTestStore(b)
	ctx := b.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "1000000000")); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	accept := func(b *testing.B, m sms.MessageRecord) {
		m.ID = sms.MessageID(fmt.Sprintf("bench-%d", seq.Add(1)))
		if err := s.Accept(ctx, m); err != nil {
			b.Error(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		m := smstest.Message("", "shop", "0.0450") // two parts
		b.ReportAllocs()
		for b.Loop() {
			accept(b, m)
		}
	})
	b.Run("8 callers", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(4) // 8 callers on 2 CPUs: small batches, where a batch's fixed cost shows
		b.RunParallel(func(pb *testing.PB) {
			m := smstest.Message("", "shop", "0.0450")
			for pb.Next() {
				accept(b, m)
			}
		})
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(32) // 64 callers on 2 CPUs, as an HTTP server under load has
		b.RunParallel(func(pb *testing.PB) {
			m := smstest.Message("", "shop", "0.0450")
			for pb.Next() {
				accept(b, m)
			}
		})
	})
}

// BenchmarkTakeThroughput counts submissions of one busy account from
// many callers, as the gateway does for a limited account.
func BenchmarkTakeThroughput(b *testing.B) {
	s := newTestStore(b)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.TakeThroughput(b.Context(), "busy", now, 1<<30); err != nil {
				b.Fatal(err)
			}
		}
	})
}
