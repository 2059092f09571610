package financetest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// runReferenceTests is the contract of the operator's reference data:
// partner records (finance.PartnerStore) and stored invoice
// configurations (finance.ConfigStore), each subtest on a fresh store.
func runReferenceTests(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s Store)
	}{
		{"PartnerRecords", testPartnerRecords},
		{"ListPartners", testListPartners},
		{"Configs", testConfigs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

const tenantA msgkit.ServiceUUID = "11111111-1111-4111-8111-111111111111"

// equateEmpty compares records whose absent attribute lists are nil in
// one store and empty in another.
var equateEmpty = cmpopts.EquateEmpty()

// A partner record is stored and replaced whole: its data, export data
// and tenant link, which the other views of a store (Partner, PartnersOf,
// the documents' export data) read.
func testPartnerRecords(t *testing.T, s Store) {
	ctx := t.Context()
	_, err := s.PartnerRecord(ctx, 7)
	requireKind(t, err, msgkit.NotFound)
	r := finance.PartnerRecord{
		Partner: finance.Partner{ID: 7, Name: "ACME AG", ShortName: "ACME", Attn: "Billing", Address: "Main 1", Address2: "c/o X",
			Post: "3000", City: "Bern", POBox: "12", VatNumber: "CHE-1", Country: 756, Type: "customer"},
		Export: finance.PartnerExport{PartnerID: 7, ExternalRefID: "ERP-7",
			CustomAttributes: []finance.CustomAttribute{{CodeName: "segment", Value: json.RawMessage(`"gold"`)},
				{CodeName: "limits", Value: json.RawMessage(`{"credit": 1000}`)}}},
		Service: tenantA,
	}
	if err := s.PutPartnerRecord(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.PartnerRecord(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got, equateEmpty); diff != "" {
		t.Fatalf("PartnerRecord (-want +got):\n%s", diff)
	}
	if p, err := s.Partner(ctx, 7); err != nil || p != r.Partner {
		t.Fatalf("Partner = %+v, %v; want %+v", p, err, r.Partner)
	}
	if ids, err := s.PartnersOf(ctx, []msgkit.ServiceUUID{tenantA}); err != nil || !cmp.Equal(ids, []int64{7}) {
		t.Fatalf("PartnersOf = %v, %v; want [7]", ids, err)
	}

	// Replaced: a new name, no export data, no tenant.
	r.Name, r.Export, r.Service = "ACME Holding AG", finance.PartnerExport{PartnerID: 7}, ""
	if err := s.PutPartnerRecord(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err = s.PartnerRecord(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got, equateEmpty); diff != "" {
		t.Fatalf("replaced PartnerRecord (-want +got):\n%s", diff)
	}
	if ids, err := s.PartnersOf(ctx, []msgkit.ServiceUUID{tenantA}); err != nil || len(ids) != 0 {
		t.Fatalf("PartnersOf after unlinking = %v, %v; want none", ids, err)
	}

	// A record breaking a rule is Invalid and changes nothing.
	bad := r
	bad.Name, bad.Export.CustomAttributes = "", []finance.CustomAttribute{{CodeName: "x", Value: json.RawMessage(`1`)}}
	requireKind(t, s.PutPartnerRecord(ctx, bad), msgkit.Invalid)
	bad = r
	bad.City = "Bern\x00"
	requireKind(t, s.PutPartnerRecord(ctx, bad), msgkit.Invalid)
	if got, err := s.PartnerRecord(ctx, 7); err != nil || got.Name != r.Name || got.City != r.City {
		t.Fatalf("after refused puts: %+v, %v", got, err)
	}
}

// Partners list as msgkit.Apply lists them over finance.PartnerValue.
func testListPartners(t *testing.T, s Store) {
	ctx := t.Context()
	records := []finance.PartnerRecord{
		{Partner: finance.Partner{ID: 3, Name: "Carrier One Ltd", ShortName: "Carrier One", City: "Zagreb", Country: 191, Type: "supplier"}},
		{Partner: finance.Partner{ID: 1, Name: "Shop d.o.o.", ShortName: "Shop", City: "Ljubljana", Country: 705, Type: "customer", VatNumber: "SI1"},
			Export: finance.PartnerExport{ExternalRefID: "ERP-1"}, Service: tenantA},
		{Partner: finance.Partner{ID: 2, Name: "Other Shop GmbH", ShortName: "Other", City: "Wien", Country: 40, Type: "customer"},
			Export: finance.PartnerExport{ExternalRefID: "ERP-2"}},
	}
	for _, r := range records {
		r.Export.PartnerID = r.ID
		if err := s.PutPartnerRecord(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		q    msgkit.ListQuery
		want []int64
		all  int
	}{
		{"store order", msgkit.ListQuery{PageNumber: 1, PageSize: 10}, []int64{1, 2, 3}, 3},
		{"page", msgkit.ListQuery{PageNumber: 2, PageSize: 2}, []int64{3}, 3},
		{"sorted by brief name descending", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "briefName", Desc: true}}}, []int64{1, 2, 3}, 3},
		{"by type", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Attr: "partnerType", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("customer")}}}}, []int64{1, 2}, 2},
		{"name contains", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Attr: "name", Op: msgkit.OpContains, Values: []msgkit.Value{msgkit.StringValue("shop")}}}}, []int64{1, 2}, 2},
		{"without external reference", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Attr: "externalRefId", Op: msgkit.OpIsNull}}}, []int64{3}, 1},
		{"of a tenant", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Attr: "serviceUuid", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue(string(tenantA))}}}}, []int64{1}, 1},
		{"country", msgkit.ListQuery{PageNumber: 1, PageSize: 10, Filters: []msgkit.Filter{{Attr: "country", Op: msgkit.OpGt, Values: []msgkit.Value{msgkit.IntValue(190)}}}}, []int64{1, 3}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.ListPartners(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range page.Items {
				ids = append(ids, r.ID)
			}
			if !cmp.Equal(ids, tt.want) || page.Total != tt.all {
				t.Errorf("ids %v of %d, want %v of %d", ids, page.Total, tt.want, tt.all)
			}
			// The memory model's answer is the same.
			all, _ := msgkit.Apply(func() []finance.PartnerRecord {
				out := make([]finance.PartnerRecord, 0, len(records))
				for _, id := range []int64{1, 2, 3} {
					for _, r := range records {
						if r.ID == id {
							out = append(out, r)
						}
					}
				}
				return out
			}(), tt.q, finance.PartnerValue)
			if len(all.Items) != len(page.Items) || all.Total != page.Total {
				t.Errorf("msgkit.Apply lists %d of %d, the store %d of %d", len(all.Items), all.Total, len(page.Items), page.Total)
			}
		})
	}
}

// Configurations are stored per type and language, replaced by a put of
// the same pair, listed by type then language, and record their document
// type as the export names it.
func testConfigs(t *testing.T, s Store) {
	ctx := t.Context()
	if got, err := s.Configs(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new store's configs: %v, %v", got, err)
	}
	en := finance.InvoiceConfig{TypeID: 300, InstanceID: 1, Name: "Customer invoice BULK", Status: "active", Domain: finance.Bulk,
		DataSource: finance.Postpaid, DataSourceDefault: "yes", DocClass: finance.CustomerInvoice, SelfBilling: "no", CollectionCode: "none",
		TemplateID: 900, TemplateLang: "en", TemplateName: "Invoice (en)", TemplateFileName: "inv-en.odt", Comment: "ünïcode", StatusDt: t0}
	de := en
	de.TemplateID, de.TemplateLang, de.TemplateName, de.TemplateFileName = 901, "de", "Rechnung (de)", "inv-de.odt"
	other := en
	other.TypeID, other.Name, other.SelfBilling, other.DocClass, other.TemplateLang = 7, "Self-billed note", "yes", finance.CreditDebitNote, "sl"
	for _, c := range []finance.InvoiceConfig{de, en, other} {
		if err := s.PutConfig(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	en.TemplateName = "Invoice (English)"
	if err := s.PutConfig(ctx, en); err != nil {
		t.Fatal(err)
	}
	got, err := s.Configs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]finance.InvoiceConfig{other, de, en}, got); diff != "" {
		t.Fatalf("Configs (-want +got):\n%s", diff)
	}
	bad := en
	bad.DocClass = "NOPE"
	requireKind(t, s.PutConfig(ctx, bad), msgkit.Invalid)

	// The export names the invoices of type 7 as its configuration does.
	inv := sample(1)
	inv.InvType = other.TypeID
	if _, err := s.CreateInvoice(ctx, inv); err != nil {
		t.Fatal(err)
	}
	page, err := s.Documents(ctx, finance.Scope{All: true}, finance.DocumentQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 10}})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("Documents = %v, %v", page, err)
	}
	if d := page.Items[0]; d.DocumentTypeName != other.Name || d.SelfBilling != "yes" {
		t.Errorf("the document's type: %q self-billing %s, want %q yes", d.DocumentTypeName, d.SelfBilling, other.Name)
	}
}
