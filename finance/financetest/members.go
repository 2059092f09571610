package financetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// runMembershipTests runs the contract of SetMembership: what a move
// reads, what it stores, and that moves and updates of one group run one
// after the other.
func runMembershipTests(t *testing.T, newStore func(t *testing.T) finance.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s finance.Store)
	}{
		{"NettingTotals", testNettingTotals},
		{"MoveReads", testMoveReads},
		{"MoveUnknown", testMoveUnknown},
		{"MoveErrorStoresNothing", testMoveErrorStoresNothing},
		{"CollectionLead", testCollectionLead},
		{"ConcurrentJoins", testConcurrentJoins},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// doc stores a document of class for partner 1 in EUR, a draft without
// members, with total as its every amount but the paid one.
func doc(t *testing.T, s finance.Store, class finance.Class, total string) finance.Invoice {
	t.Helper()
	inv := sample(1)
	inv.UID = uuid.NewString()
	inv.Class, inv.Status, inv.PaymentStatus = class, finance.Draft, finance.PaymentNone
	inv.CollectionMode, inv.CollectionLeadID, inv.NettingInvoiceID = finance.CollectionNone, 0, 0
	inv.Amounts = finance.Amounts{AmountNoVat: d(total), AmountVat: d(total), Vat: d("0.00"), Rounding: d("0.00"),
		Total: d(total), TotalPaid: d("0.00"), TotalUnpaid: d(total)}
	got, err := s.CreateInvoice(t.Context(), inv)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// join moves member into group to (0: out) by the rules of finance.Join,
// for a caller that sees everything.
func join(t *testing.T, s finance.Store, g finance.Group, member, to finance.InvoiceID) (finance.Invoice, error) {
	t.Helper()
	return s.SetMembership(t.Context(), g, member, to, func(m *finance.Move) error { return finance.Join(g, m, to, finance.Scope{All: true}) })
}

func mustGet(t *testing.T, s finance.Store, id finance.InvoiceID) finance.Invoice {
	t.Helper()
	inv, err := s.Invoice(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// wantAmounts fails unless inv's amounts are want's, by value.
func wantAmounts(t *testing.T, inv finance.Invoice, want finance.Amounts) {
	t.Helper()
	if diff := cmp.Diff(want, inv.Amounts, cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) })); diff != "" {
		t.Fatalf("invoice %d amounts (-want +got):\n%s", inv.ID, diff)
	}
}

// testNettingTotals: a statement's amounts follow its members as they
// join and leave, supplier documents negated, and the listing finds the
// members by nettingInvoiceId.
func testNettingTotals(t *testing.T, s finance.Store) {
	stmt := doc(t, s, finance.NettingInvoice, "0.00")
	cust := doc(t, s, finance.CustomerInvoice, "10.00")
	supp := doc(t, s, finance.SupplierInvoice, "4.00")
	if got, err := join(t, s, finance.Netting, cust.ID, stmt.ID); err != nil || got.NettingInvoiceID != int64(stmt.ID) {
		t.Fatalf("join: %+v, %v", got.NettingInvoiceID, err)
	}
	wantAmounts(t, mustGet(t, s, stmt.ID), finance.NettingAmounts([]finance.Invoice{cust}))
	if _, err := join(t, s, finance.Netting, supp.ID, stmt.ID); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, s, stmt.ID)
	if !got.Total.Equal(d("6.00")) || !got.TotalUnpaid.Equal(d("6.00")) {
		t.Fatalf("statement total %s unpaid %s, want 6.00", got.Total, got.TotalUnpaid)
	}
	q, err := msgkit.ParseListQuery(map[string][]string{"nettingInvoiceId": {fmt.Sprint(stmt.ID)}}, finance.InvoiceSpec())
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.ListInvoices(t.Context(), q, finance.Scope{All: true}, msgkit.Date{})
	if err != nil || page.Total != 2 || page.Items[0].ID != cust.ID || page.Items[1].ID != supp.ID {
		t.Fatalf("members listed: %+v, %v", page, err)
	}
	if _, err := join(t, s, finance.Netting, cust.ID, 0); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, stmt.ID); !got.Total.Equal(d("-4.00")) {
		t.Fatalf("after the customer invoice left: total %s, want -4.00", got.Total)
	}
	if got := mustGet(t, s, cust.ID); got.NettingInvoiceID != 0 {
		t.Fatalf("left, still in %d", got.NettingInvoiceID)
	}
}

// testMoveReads: a move sees the member, the group it is in, the group it
// joins and both groups' other members, and the store writes all three.
func testMoveReads(t *testing.T, s finance.Store) {
	s1 := doc(t, s, finance.NettingInvoice, "0.00")
	s2 := doc(t, s, finance.NettingInvoice, "0.00")
	a := doc(t, s, finance.CustomerInvoice, "1.00")
	b := doc(t, s, finance.CustomerInvoice, "2.00")
	c := doc(t, s, finance.CustomerInvoice, "3.00")
	for _, m := range []struct{ member, to finance.InvoiceID }{{a.ID, s1.ID}, {b.ID, s1.ID}, {c.ID, s2.ID}} {
		if _, err := join(t, s, finance.Netting, m.member, m.to); err != nil {
			t.Fatal(err)
		}
	}
	// b moves from s1 to s2 by a rule of the test's: the store reads and
	// writes what it is given, whatever the rule.
	var seen finance.Move
	got, err := s.SetMembership(t.Context(), finance.Netting, b.ID, s2.ID, func(m *finance.Move) error {
		seen = *m
		m.Member.NettingInvoiceID = int64(s2.ID)
		m.Old.Comment, m.New.Comment = "old", "new"
		return nil
	})
	if err != nil || got.NettingInvoiceID != int64(s2.ID) {
		t.Fatalf("move: %d, %v", got.NettingInvoiceID, err)
	}
	ids := func(invs []finance.Invoice) []finance.InvoiceID {
		out := []finance.InvoiceID{}
		for _, inv := range invs {
			out = append(out, inv.ID)
		}
		return out
	}
	if seen.Member.ID != b.ID || seen.Old == nil || seen.Old.ID != s1.ID || seen.New == nil || seen.New.ID != s2.ID ||
		!slices.Equal(ids(seen.OldMembers), []finance.InvoiceID{a.ID}) || !slices.Equal(ids(seen.NewMembers), []finance.InvoiceID{c.ID}) {
		t.Fatalf("move saw member %d, old %v (members %v), new %v (members %v)", seen.Member.ID, seen.Old, ids(seen.OldMembers), seen.New, ids(seen.NewMembers))
	}
	if mustGet(t, s, s1.ID).Comment != "old" || mustGet(t, s, s2.ID).Comment != "new" || mustGet(t, s, b.ID).NettingInvoiceID != int64(s2.ID) {
		t.Fatal("the move's changes were not all stored")
	}
	if got := mustGet(t, s, s1.ID); got.UID != s1.UID {
		t.Fatalf("the group's UID changed: %q", got.UID)
	}
}

// testMoveUnknown: an unknown member is NotFound; an unknown group is
// nil to the move, which words the refusal.
func testMoveUnknown(t *testing.T, s finance.Store) {
	a := doc(t, s, finance.CustomerInvoice, "1.00")
	_, err := s.SetMembership(t.Context(), finance.Netting, a.ID+100, 0, func(*finance.Move) error { return nil })
	requireKind(t, err, msgkit.NotFound)
	called := false
	_, err = s.SetMembership(t.Context(), finance.Netting, a.ID, a.ID+100, func(m *finance.Move) error {
		called = m.New == nil && m.Old == nil && m.Member.ID == a.ID
		return nil
	})
	if err != nil || !called {
		t.Fatalf("unknown group: move called with nil New %v, %v", called, err)
	}
	_, err = join(t, s, finance.Netting, a.ID, a.ID+100)
	requireKind(t, err, msgkit.Invalid)
}

// testMoveErrorStoresNothing: a move that fails leaves all three as they
// were.
func testMoveErrorStoresNothing(t *testing.T, s finance.Store) {
	stmt := doc(t, s, finance.NettingInvoice, "0.00")
	a := doc(t, s, finance.CustomerInvoice, "1.00")
	_, err := s.SetMembership(t.Context(), finance.Netting, a.ID, stmt.ID, func(m *finance.Move) error {
		m.Member.NettingInvoiceID, m.New.Comment = int64(stmt.ID), "changed"
		return msgkit.New(msgkit.Conflict, "nope", "nope")
	})
	requireKind(t, err, msgkit.Conflict)
	if mustGet(t, s, a.ID).NettingInvoiceID != 0 || mustGet(t, s, stmt.ID).Comment != stmt.Comment {
		t.Fatal("a failed move stored its changes")
	}
}

// testCollectionLead: a lead is a lead while it has members, and the
// listing finds them by collectionLeadId and collectionMode=member.
func testCollectionLead(t *testing.T, s finance.Store) {
	lead := doc(t, s, finance.CustomerInvoice, "50.00")
	n1 := doc(t, s, finance.CreditDebitNote, "-5.00")
	n2 := doc(t, s, finance.CreditDebitNote, "-6.00")
	for _, n := range []finance.InvoiceID{n1.ID, n2.ID} {
		got, err := join(t, s, finance.Collection, n, lead.ID)
		if err != nil || got.CollectionMode != finance.CollectionMember || got.CollectionLeadID != int64(lead.ID) {
			t.Fatalf("join %d: %q %d, %v", n, got.CollectionMode, got.CollectionLeadID, err)
		}
	}
	if got := mustGet(t, s, lead.ID); got.CollectionMode != finance.CollectionLead || !got.Total.Equal(d("50.00")) {
		t.Fatalf("lead: mode %q total %s", got.CollectionMode, got.Total)
	}
	for _, f := range []map[string][]string{{"collectionLeadId": {fmt.Sprint(lead.ID)}}, {"collectionMode": {"member"}}} {
		q, err := msgkit.ParseListQuery(f, finance.InvoiceSpec())
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.ListInvoices(t.Context(), q, finance.Scope{All: true}, msgkit.Date{})
		if err != nil || page.Total != 2 {
			t.Fatalf("%v: %d listed, %v", f, page.Total, err)
		}
	}
	for i, n := range []finance.InvoiceID{n1.ID, n2.ID} {
		if _, err := join(t, s, finance.Collection, n, 0); err != nil {
			t.Fatal(err)
		}
		want := []string{finance.CollectionLead, finance.CollectionNone}[i]
		if got := mustGet(t, s, lead.ID); got.CollectionMode != want {
			t.Fatalf("after %d left: lead mode %q, want %q", i+1, got.CollectionMode, want)
		}
	}
}

// testConcurrentJoins: members joining a statement at once, while it is
// approved (closed), all count or are refused as closed; the statement's
// amounts are the sum of the members it ends with.
func testConcurrentJoins(t *testing.T, s finance.Store) {
	stmt := doc(t, s, finance.NettingInvoice, "0.00")
	const n = 8
	members := make([]finance.Invoice, n)
	for i := range members {
		class := finance.CustomerInvoice
		if i%2 == 1 {
			class = finance.SupplierInvoice
		}
		members[i] = doc(t, s, class, fmt.Sprintf("%d.25", i+1))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for i := range members {
		wg.Go(func() {
			_, err := join(t, s, finance.Netting, members[i].ID, stmt.ID)
			if err != nil && msgkit.CodeOf(err) == finance.CodeStatementClosed {
				err = nil
			}
			errs <- err
		})
		if i == n/2 {
			wg.Go(func() {
				_, err := s.UpdateInvoice(t.Context(), stmt.ID, func(inv finance.Invoice) (finance.Invoice, error) {
					inv.Status = finance.Approved
					return inv, nil
				})
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var in []finance.Invoice
	for _, m := range members {
		if got := mustGet(t, s, m.ID); got.NettingInvoiceID == int64(stmt.ID) {
			in = append(in, got)
		}
	}
	wantAmounts(t, mustGet(t, s, stmt.ID), finance.NettingAmounts(in))
}
