package finance_test

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
)

// withReference is a service with the reference parts over the memory
// store.
func withReference(t *testing.T) (*finance.Service, finance.Store) {
	t.Helper()
	return newServiceWith(t, func(o *finance.Options, st *memstore.FinanceStore) {
		o.Partners, o.Export, o.ConfigStore, o.Tenants, o.Documents = st, st, st, st, st
	})
}

// Without the reference parts their operations are not served.
func TestReferenceNotServed(t *testing.T) {
	ctx := t.Context()
	bare, _ := newService(t)
	if bare.HasPartners() || bare.HasExport() || bare.HasConfigStore() {
		t.Fatal("a bare service has reference parts")
	}
	for name, err := range map[string]error{
		"PutPartner":        func() error { _, err := bare.PutPartner(ctx, finance.PartnerRecord{}); return err }(),
		"Partner":           func() error { _, err := bare.Partner(ctx, 7); return err }(),
		"Partners":          func() error { _, err := bare.Partners(ctx, msgkit.ListQuery{}); return err }(),
		"PutBillingAccount": bare.PutBillingAccount(ctx, finance.BillingAccount{}),
		"PutSourceRecord":   bare.PutSourceRecord(ctx, finance.SourceRef{}, 1),
		"PutDocumentType":   bare.PutDocumentType(ctx, finance.DocumentType{}),
		"PutConfig":         func() error { _, err := bare.PutConfig(ctx, finance.InvoiceConfig{}); return err }(),
		"SetDomesticRate":   bare.SetDomesticRate(ctx, 1, finance.DomesticRate{}),
		"SetTrafficReports": bare.SetTrafficReports(ctx, 1, nil),
	} {
		if msgkit.KindOf(err) != msgkit.Unavailable || msgkit.CodeOf(err) != finance.CodeNotServed {
			t.Errorf("%s of a bare service: %v", name, err)
		}
	}
}

// A partner put through the Service is what Create finds: an empty store
// gets its first invoice, and the partner's tenant sees it.
func TestServicePutPartner(t *testing.T) {
	ctx := t.Context()
	svc, _ := withReference(t)
	in := supplier(42)
	if _, err := svc.Create(ctx, finance.Scope{All: true}, finance.SupplierInvoice, in); msgkit.KindOf(err) != msgkit.Invalid {
		t.Fatalf("an invoice of an unknown partner: %v", err)
	}
	const tenant = "0B7E6A58-4F3C-4D2E-9A51-7C0F6F2B1A90" // upper case: stored canonical
	r, err := svc.PutPartner(ctx, finance.PartnerRecord{Partner: finance.Partner{ID: 42, Name: "Carrier", Country: 191},
		Export: finance.PartnerExport{PartnerID: 99, ExternalRefID: "ERP-42"}, Service: tenant})
	if err != nil {
		t.Fatal(err)
	}
	if r.Export.PartnerID != 42 || r.Service != "0b7e6a58-4f3c-4d2e-9a51-7c0f6f2b1a90" || r.Export.ExternalRefID != "ERP-42" {
		t.Errorf("stored %+v", r)
	}
	inv, err := svc.Create(ctx, finance.Scope{All: true}, finance.SupplierInvoice, in)
	if err != nil || inv.Customer.Name != "Carrier" {
		t.Fatalf("Create after PutPartner: %+v, %v", inv.Customer, err)
	}
	scope, err := svc.ScopeFor(ctx, false, []msgkit.ServiceUUID{r.Service})
	if err != nil || !scope.Sees(42) {
		t.Errorf("the partner's tenant's scope %+v, %v", scope, err)
	}
	page, err := svc.Partners(ctx, msgkit.ListQuery{PageNumber: 1, PageSize: 10})
	if err != nil || page.Total != 3 { // and the two of newServiceWith
		t.Errorf("Partners: %+v, %v", page, err)
	}
	for name, bad := range map[string]finance.PartnerRecord{
		"no id":       {Partner: finance.Partner{Name: "X"}},
		"no name":     {Partner: finance.Partner{ID: 5}},
		"bad tenant":  {Partner: finance.Partner{ID: 5, Name: "X"}, Service: "tenant"},
		"bad country": {Partner: finance.Partner{ID: 5, Name: "X", Country: -1}},
		"bad attribute": {Partner: finance.Partner{ID: 5, Name: "X"},
			Export: finance.PartnerExport{CustomAttributes: []finance.CustomAttribute{{CodeName: "a", Value: json.RawMessage(`[1]`)}}}},
	} {
		if _, err := svc.PutPartner(ctx, bad); msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%s: %v, want Invalid", name, err)
		}
	}
	if _, err := svc.Partner(ctx, 5); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("a refused partner was stored: %v", err)
	}
}

// A stored configuration answers before the built-in ones; a query it
// does not answer falls back to them; PutConfig fills the defaults and
// stamps the time.
func TestServiceConfigs(t *testing.T) {
	ctx := t.Context()
	svc, _ := withReference(t)
	q := finance.ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", TemplateLang: "de"}
	seed, err := svc.DefaultConfig(ctx, q)
	if err != nil || seed.TemplateLang != "de" {
		t.Fatalf("the seed's: %+v, %v", seed, err)
	}
	c, err := svc.PutConfig(ctx, finance.InvoiceConfig{TypeID: 900, Name: "Invoice", Domain: finance.Bulk, DataSource: finance.Postpaid,
		DocClass: finance.CustomerInvoice, TemplateLang: "en", TemplateID: 9})
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "active" || c.SelfBilling != "no" || c.CollectionCode != "none" || c.DataSourceDefault != "yes" || c.StatusDt.IsZero() {
		t.Errorf("defaults: %+v", c)
	}
	// The stored type answers, in English: its only language.
	got, err := svc.DefaultConfig(ctx, q)
	if err != nil || got.TypeID != 900 || got.TemplateLang != "en" {
		t.Errorf("with a stored configuration: %+v, %v", got, err)
	}
	// Another class still comes from the seed.
	other, err := svc.DefaultConfig(ctx, finance.ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "NETTING_INVOICE"})
	if err != nil || other.TypeID == 900 {
		t.Errorf("the seed's netting configuration: %+v, %v", other, err)
	}
	// A query the stored ones would refuse is refused as before.
	if _, err := svc.DefaultConfig(ctx, finance.ConfigQuery{DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE"}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("a query without domain: %v", err)
	}
	for name, bad := range map[string]finance.InvoiceConfig{
		"no type":     {Name: "X", Domain: finance.Bulk, DataSource: finance.Postpaid, DocClass: finance.CustomerInvoice, TemplateLang: "en"},
		"no language": {TypeID: 1, Name: "X", Domain: finance.Bulk, DataSource: finance.Postpaid, DocClass: finance.CustomerInvoice},
		"bad domain":  {TypeID: 1, Name: "X", Domain: "SMS", DataSource: finance.Postpaid, DocClass: finance.CustomerInvoice, TemplateLang: "en"},
		"bad selector": {TypeID: 1, Name: "X", Domain: finance.Bulk, DataSource: finance.Postpaid, DocClass: finance.CustomerInvoice, TemplateLang: "en",
			Selector: "HALF"},
	} {
		if _, err := svc.PutConfig(ctx, bad); msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != finance.CodeInvalidReference {
			t.Errorf("%s: %v, want Invalid %s", name, err, finance.CodeInvalidReference)
		}
	}
}

// The export's data: checked, and a document's data only for an invoice
// that exists.
func TestServiceExportData(t *testing.T) {
	ctx := t.Context()
	svc, _ := withReference(t)
	eur, _ := finance.CurrencyByCode("EUR")
	inv, err := svc.Create(ctx, finance.Scope{All: true}, finance.SupplierInvoice, supplier(7))
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"account":       svc.PutBillingAccount(ctx, finance.BillingAccount{ID: 1, BizPartnerID: 7, Currency: eur, SMSConnections: []finance.Connection{{ID: 1, Name: "c"}}}),
		"record":        svc.PutSourceRecord(ctx, finance.SourceRef{Kind: finance.CreditRecord, ID: 3}, 1),
		"type":          svc.PutDocumentType(ctx, finance.DocumentType{ID: 2, Name: "Supplier invoice"}),
		"domestic rate": svc.SetDomesticRate(ctx, inv.ID, finance.DomesticRate{Currency: eur, Rate: decimal.NewFromInt(1)}),
		"traffic":       svc.SetTrafficReports(ctx, inv.ID, nil),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, err := range map[string]error{
		"account without partner":   svc.PutBillingAccount(ctx, finance.BillingAccount{ID: 1}),
		"account's connection":      svc.PutBillingAccount(ctx, finance.BillingAccount{ID: 1, BizPartnerID: 7, MNPConnections: []finance.Connection{{ID: 0}}}),
		"record of no kind":         svc.PutSourceRecord(ctx, finance.SourceRef{ID: 3}, 1),
		"record without account":    svc.PutSourceRecord(ctx, finance.SourceRef{Kind: finance.BillingRecord, ID: 3}, 0),
		"type without name":         svc.PutDocumentType(ctx, finance.DocumentType{ID: 2}),
		"rate not positive":         svc.SetDomesticRate(ctx, inv.ID, finance.DomesticRate{Currency: eur}),
		"traffic of a bad currency": svc.SetTrafficReports(ctx, inv.ID, []finance.TrafficReport{{Currency: finance.Currency{Numeric: 1, Code: "XXX"}}}),
	} {
		if msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%s: %v, want Invalid", name, err)
		}
	}
	if err := svc.SetDomesticRate(ctx, 999, finance.DomesticRate{Currency: eur, Rate: decimal.NewFromInt(1)}); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("the rate of an unknown invoice: %v", err)
	}
	if err := svc.SetTrafficReports(ctx, 999, nil); msgkit.CodeOf(err) != finance.CodeInvoiceNotFound {
		t.Errorf("the traffic of an unknown invoice: %v", err)
	}
}
