package finance_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// docs creates the documents of the membership tests for partner 7 in
// EUR unless said: stated amounts, every one of them total.
type docs struct {
	t   *testing.T
	svc *finance.Service
}

func (d docs) make(class finance.Class, cust int64, currency int, total string) finance.Invoice {
	d.t.Helper()
	in := finance.Input{CustID: ptr(cust), InvNumberFix: ptr("D-1"), Currency: ptr(currency), InvDueDateDays: ptr(30)}
	if class == finance.SupplierInvoice {
		in = supplier(cust)
	}
	if total != "" {
		a := decimal.RequireFromString(total)
		in.AmountNoVat, in.AmountVat, in.Total = &a, &a, &a
	}
	inv, err := d.svc.Create(d.t.Context(), finance.Scope{All: true}, class, in)
	if err != nil {
		d.t.Fatal(err)
	}
	return inv
}

func (d docs) get(id finance.InvoiceID) finance.Invoice {
	d.t.Helper()
	inv, err := d.svc.Get(d.t.Context(), finance.Scope{All: true}, id)
	if err != nil {
		d.t.Fatal(err)
	}
	return inv
}

// wantErr fails unless err has kind, code and, when field is not empty,
// names field.
func wantErr(t *testing.T, what string, err error, kind msgkit.Kind, code, field string) {
	t.Helper()
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != kind || e.Code != code {
		t.Errorf("%s: %v, want %v %s", what, err, kind, code)
		return
	}
	if field != "" && (len(e.Fields) == 0 || e.Fields[0].Name != field) {
		t.Errorf("%s: fields %+v, want %s", what, e.Fields, field)
	}
}

func TestNettingRules(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	d := docs{t, svc}
	stmt := d.make(finance.NettingInvoice, 7, 978, "")
	cust := d.make(finance.CustomerInvoice, 7, 978, "100.00")
	supp := d.make(finance.SupplierInvoice, 7, 978, "")
	for _, id := range []finance.InvoiceID{cust.ID, supp.ID} {
		got, err := svc.SetGroup(ctx, all, finance.Netting, id, stmt.ID)
		if err != nil || got.NettingInvoiceID != int64(stmt.ID) {
			t.Fatalf("join %d: %d, %v", id, got.NettingInvoiceID, err)
		}
	}
	// 100.00 owed by the partner, 120.00 owed to it.
	s := d.get(stmt.ID)
	for name, got := range map[string]decimal.Decimal{"total": s.Total, "amountNoVat": s.AmountNoVat, "totalUnpaid": s.TotalUnpaid} {
		want := map[string]string{"total": "-20", "amountNoVat": "0", "totalUnpaid": "-20"}[name]
		if !got.Equal(decimal.RequireFromString(want)) {
			t.Errorf("statement %s %s, want %s", name, got, want)
		}
	}
	// Joining again is no change; a second statement is a conflict.
	if _, err := svc.SetGroup(ctx, all, finance.Netting, cust.ID, stmt.ID); err != nil {
		t.Errorf("join repeated: %v", err)
	}
	stmt2 := d.make(finance.NettingInvoice, 7, 978, "")
	_, err := svc.SetGroup(ctx, all, finance.Netting, cust.ID, stmt2.ID)
	wantErr(t, "second statement", err, msgkit.Conflict, finance.CodeAlreadyMember, "")
	// A member is neither updated nor deleted; a statement takes no
	// amounts of its own.
	_, err = svc.Update(ctx, all, cust.ID, finance.Input{Comment: ptr("x")})
	wantErr(t, "update a member", err, msgkit.Conflict, finance.CodeNotEditable, "")
	wantErr(t, "delete a member", svc.Delete(ctx, all, cust.ID), msgkit.Conflict, finance.CodeNotEditable, "")
	_, err = svc.Update(ctx, all, stmt.ID, finance.Input{Total: ptr(decimal.NewFromInt(1))})
	wantErr(t, "statement amounts", err, msgkit.Invalid, finance.CodeInvalidInvoice, "total")
	// Leaving takes the member's amounts out; leaving again is no change.
	for range 2 {
		if got, err := svc.SetGroup(ctx, all, finance.Netting, cust.ID, 0); err != nil || got.NettingInvoiceID != 0 {
			t.Fatalf("leave: %d, %v", got.NettingInvoiceID, err)
		}
	}
	if s := d.get(stmt.ID); !s.Total.Equal(decimal.RequireFromString("-120")) {
		t.Errorf("after leaving: total %s", s.Total)
	}
	// An approved statement is closed: its member stays, no one joins.
	if _, err := svc.Update(ctx, all, stmt.ID, finance.Input{Status: ptr("approved")}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.SetGroup(ctx, all, finance.Netting, supp.ID, 0)
	wantErr(t, "leave a closed statement", err, msgkit.Conflict, finance.CodeStatementClosed, "")
	_, err = svc.SetGroup(ctx, all, finance.Netting, cust.ID, stmt.ID)
	wantErr(t, "join a closed statement", err, msgkit.Conflict, finance.CodeStatementClosed, "")
}

func TestNettingRefusals(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	d := docs{t, svc}
	stmt := d.make(finance.NettingInvoice, 7, 978, "")
	cust := d.make(finance.CustomerInvoice, 7, 978, "1.00")
	gone := d.make(finance.NettingInvoice, 7, 978, "")
	if err := svc.Delete(ctx, all, gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		scope       finance.Scope
		member, to  finance.InvoiceID
		kind        msgkit.Kind
		code, field string
	}{
		{"a statement as member", all, d.make(finance.NettingInvoice, 7, 978, "").ID, stmt.ID, msgkit.Invalid, finance.CodeInvalidMembership, "invoiceid"},
		{"no statement", all, cust.ID, d.make(finance.CustomerInvoice, 7, 978, "1.00").ID, msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
		{"another partner", all, d.make(finance.CustomerInvoice, 8, 978, "1.00").ID, stmt.ID, msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
		{"another currency", all, d.make(finance.CustomerInvoice, 7, 756, "1.00").ID, stmt.ID, msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
		{"a deleted statement", all, cust.ID, gone.ID, msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
		{"an unknown statement", all, cust.ID, 999, msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
		{"an unknown member", all, 999, stmt.ID, msgkit.NotFound, finance.CodeInvoiceNotFound, ""},
		{"a member out of scope", finance.Scope{Partners: []int64{8}}, cust.ID, stmt.ID, msgkit.NotFound, finance.CodeInvoiceNotFound, ""},
		{"a statement of a class not managed", finance.Scope{All: true, Classes: []finance.Class{finance.CustomerInvoice}}, cust.ID, stmt.ID,
			msgkit.Invalid, finance.CodeInvalidMembership, "nettingInvoiceId"},
	} {
		_, err := svc.SetGroup(ctx, tc.scope, finance.Netting, tc.member, tc.to)
		wantErr(t, tc.name, err, tc.kind, tc.code, tc.field)
	}
	if s := d.get(stmt.ID); !s.Total.IsZero() {
		t.Errorf("refused joins changed the statement: %s", s.Total)
	}
	// A statement has no items nor amounts of its own.
	_, err := svc.Create(ctx, all, finance.NettingInvoice, finance.Input{CustID: ptr(int64(7)), InvNumberFix: ptr("N"), Currency: ptr(978),
		InvDueDateDays: ptr(1), Items: []finance.ItemInput{{Name: "x", Quantity: decimal.NewFromInt(1), Price: decimal.NewFromInt(1)}}})
	wantErr(t, "statement with items", err, msgkit.Invalid, finance.CodeInvalidInvoice, "items")
}

// A deleted statement takes no member, and its members may leave it.
func TestNettingDeletedStatement(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	d := docs{t, svc}
	stmt := d.make(finance.NettingInvoice, 7, 978, "")
	cust := d.make(finance.CustomerInvoice, 7, 978, "1.00")
	if _, err := svc.SetGroup(ctx, all, finance.Netting, cust.ID, stmt.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, all, stmt.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.SetGroup(ctx, all, finance.Netting, cust.ID, 0); err != nil || got.NettingInvoiceID != 0 {
		t.Fatalf("leave a deleted statement: %d, %v", got.NettingInvoiceID, err)
	}
}

func TestCollectionRules(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	d := docs{t, svc}
	lead := d.make(finance.CustomerInvoice, 7, 978, "50.00")
	note := d.make(finance.CreditDebitNote, 7, 978, "-5.00")
	got, err := svc.SetGroup(ctx, all, finance.Collection, note.ID, lead.ID)
	if err != nil || !got.CollectionMember() || got.CollectionLeadID != int64(lead.ID) {
		t.Fatalf("join: %+v, %v", got, err)
	}
	if l := d.get(lead.ID); l.CollectionMode != finance.CollectionLead || !l.Total.Equal(decimal.NewFromInt(50)) {
		t.Errorf("lead: %q %s", l.CollectionMode, l.Total)
	}
	_, err = svc.Update(ctx, all, note.ID, finance.Input{Comment: ptr("x")})
	wantErr(t, "update a member", err, msgkit.Conflict, finance.CodeNotEditable, "")
	wantErr(t, "delete a member", svc.Delete(ctx, all, note.ID), msgkit.Conflict, finance.CodeNotEditable, "")
	lead2 := d.make(finance.CustomerInvoice, 7, 978, "1.00")
	_, err = svc.SetGroup(ctx, all, finance.Collection, note.ID, lead2.ID)
	wantErr(t, "second lead", err, msgkit.Conflict, finance.CodeAlreadyMember, "")
	for _, tc := range []struct {
		name     string
		member   finance.InvoiceID
		to       finance.InvoiceID
		field    string
		contains string
	}{
		{"an invoice as member", lead2.ID, lead.ID, "invoiceid", "notes"},
		{"a supplier note to a customer invoice", d.make(finance.SupplierCrDbNote, 7, 978, "-1.00").ID, lead.ID, "collectionLeadId", "SUPPLIER_INVOICE"},
		{"a note as lead", d.make(finance.CreditDebitNote, 7, 978, "-1.00").ID, note.ID, "collectionLeadId", "CUSTOMER_INVOICE"},
		{"another partner", d.make(finance.CreditDebitNote, 8, 978, "-1.00").ID, lead.ID, "collectionLeadId", "partner"},
	} {
		_, err := svc.SetGroup(ctx, all, finance.Collection, tc.member, tc.to)
		wantErr(t, tc.name, err, msgkit.Invalid, finance.CodeInvalidMembership, tc.field)
		if !strings.Contains(msgkit.MessageOf(err), tc.contains) {
			t.Errorf("%s: %q does not say %q", tc.name, msgkit.MessageOf(err), tc.contains)
		}
	}
	got, err = svc.SetGroup(ctx, all, finance.Collection, note.ID, 0)
	if err != nil || got.CollectionMode != finance.CollectionNone || got.CollectionLeadID != 0 {
		t.Fatalf("leave: %+v, %v", got, err)
	}
	if l := d.get(lead.ID); l.CollectionMode != finance.CollectionNone {
		t.Errorf("lead without members: %q", l.CollectionMode)
	}
	if _, err := svc.Update(ctx, all, note.ID, finance.Input{Comment: ptr("x")}); err != nil {
		t.Errorf("update after leaving: %v", err)
	}
}
