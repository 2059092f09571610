package finance

import (
	"testing"

	"github.com/msgkit/msgkit"
)

func TestDefaultConfig(t *testing.T) {
	seed := SeedConfigs()
	c, err := DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", TemplateLang: "de"})
	if err != nil || c.TemplateLang != "de" || c.TemplateID == 0 || c.TypeID == 0 {
		t.Fatalf("German: %+v, %v", c, err)
	}
	// No French template: the English one, and templateLang says so.
	c, err = DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", TemplateLang: "fr"})
	if err != nil || c.TemplateLang != "en" {
		t.Fatalf("French: %+v, %v", c, err)
	}
	// Only English for debit notes; the default language is en.
	c, err = DefaultConfig(seed, ConfigQuery{Domain: "BULK-MNP", DataSource: "POSTPAID", DocClass: "CREDIT_DEBIT_NOTE", CollectionCode: "debit-note"})
	if err != nil || c.TemplateLang != "en" || c.CollectionCode != "debit-note" {
		t.Fatalf("debit note: %+v, %v", c, err)
	}
	// A fallback to a non-English language when English is missing.
	only := []InvoiceConfig{{TypeID: 1, Domain: Bulk, DataSource: Prepaid, DocClass: CustomerInvoice, CollectionCode: "none", TemplateLang: "it", TemplateID: 9},
		{TypeID: 1, Domain: Bulk, DataSource: Prepaid, DocClass: CustomerInvoice, CollectionCode: "none", TemplateLang: "de", TemplateID: 8}}
	if c, _ := DefaultConfig(only, ConfigQuery{Domain: "BULK", DataSource: "PREPAID", DocClass: "CUSTOMER_INVOICE", TemplateLang: "fr"}); c.TemplateLang != "de" {
		t.Errorf("fallback %q, want de (first by code)", c.TemplateLang)
	}
	// Supplier invoices: no template.
	c, err = DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "SUPPLIER-INVOICE", DocClass: "SUPPLIER_INVOICE"})
	if err != nil || c.TemplateID != 0 || c.TemplateLang != "" || c.TypeID == 0 {
		t.Fatalf("supplier: %+v, %v", c, err)
	}
	// The selector and the co-owner select.
	pp, _ := DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", Selector: "PART-PAYMENT"})
	plain, _ := DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE"})
	if pp.TypeID == plain.TypeID || pp.Selector != PartPayment {
		t.Errorf("part payment type %d, plain %d", pp.TypeID, plain.TypeID)
	}
	if _, err := DefaultConfig(seed, ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", CoOwnerID: 5}); msgkit.CodeOf(err) != CodeConfigNotFound {
		t.Errorf("co-owner 5: %v", err)
	}
	for _, tc := range []struct {
		q    ConfigQuery
		want string
	}{
		{ConfigQuery{}, "domainCodeName,dataSourceCodeName,docClassCodeName"},
		{ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", CollectionCode: "refund"}, "collectionCode"},
		{ConfigQuery{Domain: "BULK", DataSource: "POSTPAID", DocClass: "CUSTOMER_INVOICE", Selector: "FULL"}, "dtsSelectorCodeName"},
	} {
		_, err := DefaultConfig(seed, tc.q)
		var names string
		if e, ok := err.(*msgkit.Error); ok && e.Kind == msgkit.Invalid {
			for i, f := range e.Fields {
				if i > 0 {
					names += ","
				}
				names += f.Name
			}
		}
		if names != tc.want {
			t.Errorf("%+v: %v, want fields %s", tc.q, err, tc.want)
		}
	}
}
