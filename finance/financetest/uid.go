package financetest

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// testInvoiceUID: a store refuses an invoice without a UID (Invalid) and
// one whose UID another invoice has (Conflict), and keeps the UID it was
// given whatever an update returns.
func testInvoiceUID(t *testing.T, s finance.Store) {
	ctx := t.Context()
	none := sample(1)
	none.UID = ""
	_, err := s.CreateInvoice(ctx, none)
	requireKind(t, err, msgkit.Invalid)
	if e, ok := errors.AsType[*msgkit.Error](err); !ok || len(e.Fields) == 0 || e.Fields[0].Name != "invUid" {
		t.Errorf("an invoice without a UID: %v, want the field invUid named", err)
	}
	a, err := s.CreateInvoice(ctx, sample(1))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateInvoice(ctx, sample(1))
	requireKind(t, err, msgkit.Conflict)
	if msgkit.CodeOf(err) != "invoice_exists" {
		t.Errorf("a second invoice with a UID: code %q, want invoice_exists", msgkit.CodeOf(err))
	}
	b, err := s.CreateInvoice(ctx, sample(2))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateInvoice(ctx, a.ID, func(stored finance.Invoice) (finance.Invoice, error) {
		stored.UID, stored.Comment = b.UID, "moved"
		return stored, nil
	})
	if err != nil || got.UID != a.UID || got.Comment != "moved" {
		t.Fatalf("UpdateInvoice changing the UID = %q %q, %v; want %q kept", got.UID, got.Comment, err, a.UID)
	}
	if read, _ := s.Invoice(ctx, a.ID); read.UID != a.UID {
		t.Fatalf("UID read back %q, want %q", read.UID, a.UID)
	}
}

// uidSource is a deterministic id source for a Service: UUID n+1 at its
// nth call.
func uidSource() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("%08x-0000-4000-8000-00000000000%d", n*0x1f3, n%10)
	}
}

// testServiceInvoiceUID runs a Service over the store: each invoice it
// creates gets a UID of its id source, kept by updates and status changes,
// and the listing finds it by invUid (eq) and by q, and sorts by it.
func testServiceInvoiceUID(t *testing.T, s finance.Store) {
	ctx := t.Context()
	if err := s.PutPartner(ctx, finance.Partner{ID: 7, Name: "ACME"}); err != nil {
		t.Fatal(err)
	}
	svc := finance.NewService(s, finance.Options{Clock: func() time.Time { return t0 }, NewUUID: uidSource()})
	all := finance.Scope{All: true}
	cust, cur, typ, number := int64(7), 978, int64(3), "S-1"
	invDate, dueDate, net, gross := day("2026-11-01"), day("2026-12-01"), d("100.00"), d("120.00")
	in := finance.Input{CustID: &cust, Currency: &cur, InvType: &typ, InvDate: &invDate, InvDueDate: &dueDate,
		SupplierInvNumber: &number, AmountNoVat: &net, AmountVat: &gross, Total: &gross}
	var invs []finance.Invoice
	for range 3 {
		inv, err := svc.Create(ctx, all, finance.SupplierInvoice, in)
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, inv)
	}
	src := uidSource()
	for i, inv := range invs {
		if want := src(); inv.UID != want {
			t.Fatalf("invoice %d: UID %q, want %q from the id source", i, inv.UID, want)
		}
	}
	a := invs[1]
	comment := "checked"
	steps := []struct {
		name string
		run  func() (finance.Invoice, error)
	}{
		{"Update", func() (finance.Invoice, error) { return svc.Update(ctx, all, a.ID, finance.Input{Comment: &comment}) }},
		{"SetSyncStatus", func() (finance.Invoice, error) {
			return svc.SetSyncStatus(ctx, all, a.ID, finance.SyncChange{Status: "waiting"})
		}},
		{"SetDeliveryStatus", func() (finance.Invoice, error) { return svc.SetDeliveryStatus(ctx, all, a.ID, "sent") }},
		{"Get", func() (finance.Invoice, error) { return svc.Get(ctx, all, a.ID) }},
	}
	for _, st := range steps {
		got, err := st.run()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.UID != a.UID {
			t.Fatalf("after %s: UID %q, want %q", st.name, got.UID, a.UID)
		}
	}
	if r := svc.SetSyncStatusMany(ctx, all, []finance.InvoiceID{a.ID}, finance.SyncChange{Status: "syncing"}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	if got, _ := svc.Get(ctx, all, a.ID); got.UID != a.UID || got.Comment != comment {
		t.Fatalf("after every change: UID %q comment %q, want %q", got.UID, got.Comment, a.UID)
	}

	ids := func(q msgkit.ListQuery) []finance.InvoiceID {
		t.Helper()
		page, err := svc.List(ctx, all, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []finance.InvoiceID
		for _, inv := range page.Items {
			out = append(out, inv.ID)
		}
		return out
	}
	spec := finance.InvoiceSpec()
	if !slices.Contains(spec.Search, "invUid") {
		t.Fatalf("q searches %v, want invUid among them", spec.Search)
	}
	eq := msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "invUid", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue(a.UID)}}}}
	if got := ids(eq); !slices.Equal(got, []finance.InvoiceID{a.ID}) {
		t.Errorf("eq(invUid)=%s: %v, want [%d]", a.UID, got, a.ID)
	}
	// q: a part of the UID, in upper case, and no other field holds it.
	q, err := msgkit.ParseListQuery(url.Values{"q": {strings.ToUpper(a.UID[:8])}}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(q); !slices.Equal(got, []finance.InvoiceID{a.ID}) {
		t.Errorf("q=%s: %v, want [%d]", q.Search.Text, got, a.ID)
	}
	byUID := slices.Clone(invs)
	slices.SortFunc(byUID, func(x, y finance.Invoice) int { return strings.Compare(y.UID, x.UID) })
	var want []finance.InvoiceID
	for _, inv := range byUID {
		want = append(want, inv.ID)
	}
	if got := ids(msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "invUid", Desc: true}}}); !slices.Equal(got, want) {
		t.Errorf("sort=-invUid: %v, want %v", got, want)
	}
}
