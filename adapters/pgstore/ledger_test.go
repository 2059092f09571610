package pgstore

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// BenchmarkAcceptWithTopUps: see smstest.BenchmarkAcceptWithTopUps.
func BenchmarkAcceptWithTopUps(b *testing.B) {
	smstest.BenchmarkAcceptWithTopUps(b, newTestStore(b))
}

// Reconcile reports an account whose balance was changed behind the
// ledger's back, and only that one.
func TestLedgerReconcileReportsCorruption(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	for _, u := range []string{"fine", "broken"} {
		if err := s.CreateAccount(ctx, smstest.Account(u, "1.00")); err != nil {
			t.Fatal(err)
		}
		if err := s.Accept(ctx, smstest.Message("m-"+u, u, "0.05")); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := s.Reconcile(ctx, ""); err != nil || len(d) != 0 {
		t.Fatalf("before: %+v, %v", d, err)
	}
	if _, err := s.pool.Exec(ctx, "UPDATE sms_accounts SET balance = balance + 0.5 WHERE username = 'broken'"); err != nil {
		t.Fatal(err)
	}
	want := []sms.Discrepancy{{Account: "broken", Currency: "EUR", Expected: dec("0.90"), Actual: dec("1.40"), Difference: dec("0.50")}}
	for _, account := range []string{"", "broken"} {
		got, err := s.Reconcile(ctx, account)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) })); diff != "" {
			t.Errorf("Reconcile(%q) (-want +got):\n%s", account, diff)
		}
	}
	if d, err := s.Reconcile(ctx, "fine"); err != nil || len(d) != 0 {
		t.Errorf("Reconcile(fine) = %+v, %v", d, err)
	}
}

// The ledger's page and listing read about the entries they return: index
// scans of both branches of the view from the account's place, merged in
// the ledger's order and stopped at the limit, however many messages the
// account has.
func TestLedgerPlan(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	script := `INSERT INTO sms_accounts (username, password_hash, enabled, balance, currency, validity_ms, throughput, max_parts, created_at)
		SELECT 'a-' || a, 'x', true, 1000, 'EUR', 0, 0, 0, $1 FROM generate_series(0, 4) a;
		INSERT INTO sms_messages (id, account, type, sender, sender_numeric, receiver, dcs, flash, dlr_mask, dlr_url,
			part_price, charged, currency, submitted_at, expires_at)
		SELECT 'm-' || g, 'a-' || g % 5, 'text', 'Shop', false, '+38640123456', 0, false, 31, 'https://example.com/dlr',
			0.01, 0.02, 'EUR', $1::timestamptz + make_interval(secs => g), $1::timestamptz + make_interval(secs => g) + interval '1 day'
		FROM generate_series(1, 100000) g;
		INSERT INTO sms_ledger (account, kind, amount, currency, balance_after, at, actor, note)
		SELECT 'a-' || g % 5, 'top_up', 1, 'EUR', 1, $1::timestamptz + make_interval(secs => g * 97), 'test', ''
		FROM generate_series(1, 1000) g;
		ANALYZE sms_messages; ANALYZE sms_ledger; ANALYZE sms_accounts`
	execScript(t, s, script, base)
	mid := base.Add(50000 * time.Second)
	pagePlan := planOf(t, s.pool, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)", ledgerPageSQL,
		"a-1", base, base.Add(365*24*time.Hour), mid, int64(0), 100)
	st, err := ledgerTable.statement(msgkit.ListQuery{PageNumber: 1, PageSize: 50, Filters: []msgkit.Filter{
		{Attr: "at", Op: msgkit.OpGte, Values: []msgkit.Value{msgkit.TimeValue(mid)}},
	}}, []any{"a-1"})
	if err != nil {
		t.Fatal(err)
	}
	listPlan := planOf(t, s.pool, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)", st.page, st.args...)
	for name, plan := range map[string]string{"page": pagePlan, "listing": listPlan} {
		if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, "sms_messages_account_idx") {
			t.Errorf("%s plan reads more than the account's range:\n%s", name, plan)
		}
		if b := topBuffers(plan); b > 400 {
			t.Errorf("%s plan touches %d buffers for a page (20,000 messages of the account):\n%s", name, b, plan)
		}
	}
	// The export over the whole account reads every entry once.
	n := 0
	for _, err := range sms.NewCredit(s, sms.CreditOptions{ExportPage: 1000}).Export(t.Context(), "a-1", base, base.Add(365*24*time.Hour)) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 20000+200 {
		t.Errorf("exported %d entries, want 20,200", n)
	}
}

// Ledger changes batched with acceptances (acceptWithEntries) are settled
// first, each as ApplyLedger alone would be, and written in the batch's
// transaction: the messages the top-up pays for are accepted, the law
// holds, and the refused changes wrote nothing.
func TestLedgerChangesInABatch(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.CreateAccount(ctx, smstest.Account("shop", "0.05")); err != nil {
		t.Fatal(err)
	}
	change := func(amount, currency, account string) sms.LedgerEntry {
		return sms.LedgerEntry{Account: account, Kind: sms.LedgerAdjustment, Amount: dec(amount), Currency: currency, Actor: "test", At: time.Now()}
	}
	entries := []sms.LedgerEntry{change("1.00", "EUR", "shop"), change("-5", "EUR", "shop"), change("1", "USD", "shop"), change("1", "EUR", "nobody")}
	msgs := []sms.MessageRecord{smstest.Message("m-1", "shop", "0.10"), smstest.Message("m-2", "shop", "0.10")}
	outcomes, changes := s.accepts.acceptWithEntries(ctx, msgs, entries)
	for i, err := range outcomes {
		if err != nil {
			t.Errorf("message %d: %v", i, err)
		}
	}
	if c := changes[0]; c.err != nil || c.entry.ID == 0 || !c.entry.BalanceAfter.Decimal.Equal(dec("1.05")) {
		t.Errorf("the top-up: %+v", c)
	}
	if sms.CodeOf(changes[1].err) != sms.CodeNoCredit || msgkit.CodeOf(changes[2].err) != sms.CodeLedgerInvalid || msgkit.KindOf(changes[3].err) != msgkit.NotFound {
		t.Errorf("refusals: %v; %v; %v", changes[1].err, changes[2].err, changes[3].err)
	}
	a, err := s.Account(ctx, "shop")
	if err != nil || !a.Balance.Equal(dec("0.65")) {
		t.Fatalf("balance %s, %v; want 0.65", a.Balance, err)
	}
	smstest.RequireLaw(t, s, "shop")
}
