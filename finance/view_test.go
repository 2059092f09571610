package finance_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// The workflow values: a new invoice is not processed (none), not synced
// automatically (disabled) and has no dispute or invoicing date policy;
// each takes only the values of its list, naming the field otherwise; an
// empty string clears one; a dispute status is dated when it changes.
func TestWorkflowValues(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	draft := func() finance.Input {
		return finance.Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("W-1"), InvDueDateDays: ptr(10)}
	}
	inv, err := svc.Create(ctx, all, finance.CustomerInvoice, draft())
	if err != nil {
		t.Fatal(err)
	}
	if inv.ProcessingStatus != "none" || inv.SyncMode != "disabled" || inv.DisputeStatus != "" || inv.InvoicingDatePolicy != "" || !inv.DisputeDt.IsZero() {
		t.Fatalf("new invoice: processing %q, sync mode %q, dispute %q at %v, policy %q",
			inv.ProcessingStatus, inv.SyncMode, inv.DisputeStatus, inv.DisputeDt, inv.InvoicingDatePolicy)
	}
	in := draft()
	in.ProcessingStatus, in.DisputeStatus, in.InvoicingDatePolicy, in.SyncMode = ptr("paid"), ptr("maybe"), ptr("whenever"), ptr("sometimes")
	_, err = svc.Create(ctx, all, finance.CustomerInvoice, in)
	for _, field := range []string{"processingStatus", "disputeStatus", "invoicingDatePolicy", "syncMode"} {
		if !hasField(err, field) {
			t.Errorf("unknown %s: %v, want the field named", field, err)
		}
	}
	in = draft()
	in.ProcessingStatus, in.DisputeStatus, in.InvoicingDatePolicy, in.SyncMode = ptr("scheduled"), ptr("open"), ptr("delivery"), ptr("manual")
	inv, err = svc.Create(ctx, all, finance.CustomerInvoice, in)
	if err != nil {
		t.Fatal(err)
	}
	created := inv.DisputeDt
	if inv.ProcessingStatus != "scheduled" || inv.DisputeStatus != "open" || inv.InvoicingDatePolicy != "delivery" || inv.SyncMode != "manual" || created.IsZero() {
		t.Fatalf("set on create: %+v", inv)
	}
	// The same dispute status again keeps its date; clearing with "".
	up, err := svc.Update(ctx, all, inv.ID, finance.Input{DisputeStatus: ptr("open"), ProcessingStatus: ptr(""), SyncMode: ptr("")})
	if err != nil {
		t.Fatal(err)
	}
	if up.ProcessingStatus != "none" || up.SyncMode != "" || up.InvoicingDatePolicy != "delivery" || !up.DisputeDt.Equal(created) {
		t.Fatalf("after update: %+v", up)
	}
	up, err = svc.Update(ctx, all, inv.ID, finance.Input{DisputeStatus: ptr("")})
	if err != nil || up.DisputeStatus != "" {
		t.Fatalf("cleared dispute: %q, %v", up.DisputeStatus, err)
	}
}

// ownerId names a stored partner (0: the operator); the invoice's view
// carries the owner's names.
func TestInvoiceOwner(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	all := finance.Scope{All: true}
	in := supplier(7)
	in.OwnerID = ptr(int64(99))
	if _, err := svc.Create(ctx, all, finance.SupplierInvoice, in); !hasField(err, "ownerId") {
		t.Fatalf("unknown owner: %v, want ownerId named", err)
	}
	in.OwnerID = ptr(int64(8))
	inv, err := svc.Create(ctx, all, finance.SupplierInvoice, in)
	if err != nil {
		t.Fatal(err)
	}
	views, err := svc.Views(ctx, inv)
	if err != nil {
		t.Fatal(err)
	}
	if v := views[0]; v.OwnerID != 8 || v.OwnerName != "Globex" {
		t.Fatalf("owner %d named %q, want 8 Globex", v.OwnerID, v.OwnerName)
	}
	page, err := svc.List(ctx, all, msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "ownerBpName", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("Globex")}}}})
	if err != nil || page.Total != 1 || page.Items[0].ID != inv.ID {
		t.Fatalf("listed by the owner's name: %+v, %v", page, err)
	}
	if _, err := svc.Update(ctx, all, inv.ID, finance.Input{OwnerID: ptr(int64(-1))}); !hasField(err, "ownerId") {
		t.Fatalf("negative owner: %v", err)
	}
}

func hasField(err error, name string) bool {
	e, ok := err.(*msgkit.Error)
	if !ok {
		return false
	}
	for _, f := range e.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// An invoice's view and its document show the same values for what both
// compute from the operator data: the owner's names, the type's name and
// self-billing, the domestic currency and amounts.
func TestViewAgreesWithDocument(t *testing.T) {
	eur, _ := finance.CurrencyByCode("EUR")
	chf, _ := finance.CurrencyByCode("CHF")
	rapid.Check(t, func(t *rapid.T) {
		cents := func(name string) decimal.Decimal {
			return decimal.New(rapid.Int64Range(-1_000_000, 1_000_000).Draw(t, name), -2)
		}
		inv := finance.Invoice{ID: 1, Currency: eur, InvType: 3, OwnerID: 5, Class: finance.CustomerInvoice,
			Amounts: finance.Amounts{AmountNoVat: cents("net"), AmountVat: cents("gross"), Total: cents("total")}}
		var d finance.DocumentData
		if rapid.Bool().Draw(t, "owner") {
			d.Owner = &finance.Partner{ID: 5, Name: rapid.String().Draw(t, "ownerName"), ShortName: rapid.String().Draw(t, "ownerBrief")}
		}
		if rapid.Bool().Draw(t, "type") {
			d.Type = &finance.DocumentType{ID: 3, Name: rapid.String().Draw(t, "typeName"), SelfBilling: rapid.Bool().Draw(t, "self")}
		}
		if rapid.Bool().Draw(t, "domestic") {
			d.Domestic = &finance.DomesticRate{Currency: chf, Rate: decimal.New(rapid.Int64Range(1, 1_000_000).Draw(t, "rate"), -4)}
		}
		v := finance.ViewOf(&inv, d, msgkit.Date{})
		doc := finance.DocumentOf(&inv, d, false)
		if doc.OwnerBpName != v.OwnerName || doc.OwnerBpBriefName != v.OwnerBriefName || doc.DocumentTypeName != v.TypeName ||
			doc.SelfBilling != finance.YesNo(v.SelfBilling) {
			t.Fatalf("document %q %q %q %q, view %q %q %q %v", doc.OwnerBpName, doc.OwnerBpBriefName, doc.DocumentTypeName, doc.SelfBilling,
				v.OwnerName, v.OwnerBriefName, v.TypeName, v.SelfBilling)
		}
		if (doc.Domestic == nil) != (v.Domestic == nil) {
			t.Fatalf("domestic: document %v, view %v", doc.Domestic, v.Domestic)
		}
		if v.Domestic != nil && (doc.DomesticCurrency != v.Domestic.Currency || !doc.Domestic.Total.Equal(v.Domestic.Total) ||
			!doc.Domestic.AmountNoVat.Equal(v.Domestic.AmountNoVat) || !doc.Domestic.Rounding.Equal(v.Domestic.Rounding)) {
			t.Fatalf("domestic: document %+v, view %+v", doc.Domestic, v.Domestic)
		}
	})
}

// Days overdue count only for documents still to be paid whose due date
// has passed; the related invoices a view names are those the invoice
// points to, and none that it does not.
func TestViewOf(t *testing.T) {
	day := func(s string) msgkit.Date { d, _ := msgkit.ParseDate(s); return d }
	today := day("2026-03-10")
	for _, tt := range []struct {
		pay  finance.PaymentStatus
		due  string
		want int
	}{
		{finance.PaymentOpen, "2026-03-01", 9}, {finance.PaymentOnHold, "2026-02-28", 10}, {finance.PaymentOpen, "2026-03-10", 0},
		{finance.PaymentOpen, "2026-04-01", 0}, {finance.PaymentClosed, "2026-01-01", 0}, {finance.PaymentNone, "2026-01-01", 0},
		{finance.PaymentOpen, "", 0},
	} {
		inv := finance.Invoice{PaymentStatus: tt.pay}
		if tt.due != "" {
			inv.InvDueDate = day(tt.due)
		}
		if got := finance.ViewOf(&inv, finance.DocumentData{}, today).OverDue; got != tt.want {
			t.Errorf("%s due %q: %d days overdue, want %d", tt.pay, tt.due, got, tt.want)
		}
	}
	stmt := &finance.Invoice{ID: 9, InvNumberFix: "NET-1", Status: finance.Draft}
	lead := &finance.Invoice{ID: 4, InvNumberFix: "INV-4", NettingInvoiceID: 9}
	member := finance.Invoice{ID: 5, NettingInvoiceID: 9, CollectionLeadID: 4}
	v := finance.ViewOf(&member, finance.DocumentData{Netting: stmt, Lead: lead, LeadNetting: stmt}, today)
	if v.Netting == nil || v.Netting.Number != "NET-1" || v.Lead == nil || v.Lead.Number != "INV-4" || v.Lead.Netting == nil || v.Lead.Netting.ID != 9 {
		t.Fatalf("member's view: netting %+v lead %+v", v.Netting, v.Lead)
	}
	alone := finance.Invoice{ID: 6}
	if v := finance.ViewOf(&alone, finance.DocumentData{Netting: stmt, Lead: lead}, today); v.Netting != nil || v.Lead != nil {
		t.Fatalf("an invoice in no group names %+v and %+v", v.Netting, v.Lead)
	}
	for _, tt := range []struct {
		ds       finance.DataSource
		selector string
		id       int64
		ok       bool
	}{{finance.Postpaid, finance.PartPayment, 1, true}, {finance.Postpaid, "", 0, true}, {finance.Prepaid, "", 0, false}} {
		inv := finance.Invoice{DataSource: tt.ds, Selector: tt.selector}
		if id, ok := finance.InvoiceSelectorID(&inv); id != tt.id || ok != tt.ok {
			t.Errorf("%s %q: dtsSelectorId %d %v, want %d %v", tt.ds, tt.selector, id, ok, tt.id, tt.ok)
		}
	}
}

// ListViews, which looks up only the parts of a view the query reads,
// lists as msgkit.Apply over whole views does, for every attribute: a
// lookup that leaves the parts not asked for zero would show any part an
// attribute reads but does not declare.
func TestListViewsReadsTheParts(t *testing.T) {
	chf, _ := finance.CurrencyByCode("CHF")
	today := msgkit.Date{Year: 2026, Month: 3, Day: 10}
	stmt := &finance.Invoice{ID: 9, InvNumberFix: "NET-1", Status: finance.Draft, PaymentStatus: finance.PaymentOpen}
	lead := &finance.Invoice{ID: 4, InvNumberFix: "INV-4", NettingInvoiceID: 9}
	invs := []*finance.Invoice{
		{ID: 1, OwnerID: 5, InvType: 3, NettingInvoiceID: 9, CollectionLeadID: 4, PaymentStatus: finance.PaymentOpen, InvDueDate: msgkit.Date{Year: 2026, Month: 1, Day: 1}},
		{ID: 2, OwnerID: 6, InvType: 2, PaymentStatus: finance.PaymentClosed, Customer: finance.Partner{ID: 7, Name: "Seven"}},
		{ID: 3, OwnerID: 5, InvType: 3, NettingInvoiceID: 9, PaymentStatus: finance.PaymentOnHold, InvDueDate: msgkit.Date{Year: 2026, Month: 3, Day: 1}},
	}
	data := func(inv *finance.Invoice) finance.DocumentData {
		d := finance.DocumentData{Partner: finance.PartnerExport{ExternalRefID: fmt.Sprintf("ext-%d", inv.ID)},
			Domestic: &finance.DomesticRate{Currency: chf, Rate: decimal.New(95, -2)}}
		if inv.OwnerID == 5 {
			d.Owner = &finance.Partner{ID: 5, Name: "Owner d.o.o.", ShortName: "Owner"}
		}
		if inv.InvType == 3 {
			d.Type = &finance.DocumentType{ID: 3, Name: "Credit note", SelfBilling: true}
		}
		if inv.NettingInvoiceID == 9 {
			d.Netting = stmt
		}
		if inv.CollectionLeadID == 4 {
			d.Lead, d.LeadNetting = lead, stmt
		}
		return d
	}
	lookup := func(inv *finance.Invoice, parts finance.ViewParts) finance.DocumentData {
		all, d := data(inv), finance.DocumentData{}
		if parts&finance.PartOwner != 0 {
			d.Owner = all.Owner
		}
		if parts&finance.PartPartner != 0 {
			d.Partner = all.Partner
		}
		if parts&finance.PartType != 0 {
			d.Type = all.Type
		}
		if parts&finance.PartDomestic != 0 {
			d.Domestic = all.Domestic
		}
		if parts&finance.PartRelated != 0 {
			d.Netting, d.Lead, d.LeadNetting = all.Netting, all.Lead, all.LeadNetting
		}
		return d
	}
	var views []finance.View
	for _, inv := range invs {
		views = append(views, finance.ViewOf(inv, data(inv), today))
	}
	ids := func(vs []finance.View) []finance.InvoiceID {
		out := []finance.InvoiceID{}
		for _, v := range vs {
			out = append(out, v.ID)
		}
		return out
	}
	for _, name := range finance.InvoiceAttrNames() {
		first, _ := finance.InvoiceValue(views[0], name)
		eq := msgkit.Filter{Op: msgkit.OpIsNull, Attr: name}
		if !first.IsNull() {
			eq = msgkit.Filter{Op: msgkit.OpEq, Attr: name, Values: []msgkit.Value{first}}
		}
		for _, q := range []msgkit.ListQuery{
			{Sort: []msgkit.SortKey{{Attr: name, Desc: true}}},
			{Filters: []msgkit.Filter{eq}, PageNumber: 1, PageSize: 2},
		} {
			got, err := finance.ListViews(finance.NewListColumns(invs), finance.Scope{All: true}, q, lookup, today)
			if err != nil {
				t.Fatal(err)
			}
			want, err := msgkit.Apply(views, q, finance.InvoiceValue)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || !slices.Equal(ids(got.Items), ids(want.Items)) {
				t.Errorf("%s, %+v: got %v of %d, want %v of %d", name, q, ids(got.Items), got.Total, ids(want.Items), want.Total)
			}
			for i := range got.Items {
				if !cmp.Equal(got.Items[i], views[got.Items[i].ID-1]) {
					t.Errorf("%s: the page's view of %d is not ViewOf's", name, got.Items[i].ID)
				}
			}
		}
	}
}

// ListViews lists the invoices that are not deleted and that the scope
// sees, and counts only those.
func TestListViewsShowsWhatTheScopeSees(t *testing.T) {
	var invs []*finance.Invoice
	for i := range 6 {
		inv := &finance.Invoice{ID: finance.InvoiceID(i + 1), Status: finance.Approved, Customer: finance.Partner{ID: int64(i % 2)}}
		if i == 2 {
			inv.Status = finance.Deleted
		}
		invs = append(invs, inv)
	}
	lookup := func(*finance.Invoice, finance.ViewParts) finance.DocumentData { return finance.DocumentData{} }
	for _, tt := range []struct {
		scope finance.Scope
		want  []finance.InvoiceID
	}{
		{finance.Scope{All: true}, []finance.InvoiceID{6, 5, 4, 2, 1}},
		{finance.Scope{Partners: []int64{0}}, []finance.InvoiceID{5, 1}},
		{finance.Scope{}, []finance.InvoiceID{}},
	} {
		q := msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "id", Desc: true}}}
		page, err := finance.ListViews(finance.NewListColumns(invs), tt.scope, q, lookup, msgkit.Date{})
		if err != nil {
			t.Fatal(err)
		}
		var got []finance.InvoiceID
		for _, v := range page.Items {
			got = append(got, v.ID)
		}
		if page.Total != len(tt.want) || !slices.Equal(got, tt.want) && len(tt.want) > 0 {
			t.Errorf("%+v: got %v of %d, want %v", tt.scope, got, page.Total, tt.want)
		}
	}
}
