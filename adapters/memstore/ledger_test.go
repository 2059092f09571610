package memstore_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// BenchmarkAcceptWithTopUps: see smstest.BenchmarkAcceptWithTopUps.
func BenchmarkAcceptWithTopUps(b *testing.B) {
	smstest.BenchmarkAcceptWithTopUps(b, memstore.New().SMS())
}

// Reconcile reports an account whose balance was changed behind the
// ledger's back, and only that one.
func TestLedgerReconcileReportsCorruption(t *testing.T) {
	s := memstore.New().SMS()
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
	s.SetBalanceBehindLedger("broken", decimal.RequireFromString("1.40"))
	want := []sms.Discrepancy{{Account: "broken", Currency: "EUR", Expected: decimal.RequireFromString("0.90"),
		Actual: decimal.RequireFromString("1.40"), Difference: decimal.RequireFromString("0.50")}}
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
