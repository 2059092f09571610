package finance

import (
	"cmp"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
)

// InvoiceConfig is one default invoice configuration: the invoice type
// and template to use for documents of a domain, data source and class
// (and collection code, selector and co-owner). It is operator data,
// given to the Service, with SeedConfigs as a start.
type InvoiceConfig struct {
	TypeID            int64
	InstanceID        int64
	Name              string
	Status            string
	Domain            Domain
	DataSource        DataSource
	DataSourceDefault string
	DocClass          Class
	SelfBilling       string // yes or no
	SelfBillingOfType int64
	CollectionCode    string // none, credit-note, debit-note, reminder
	Selector          string // "" or PartPayment
	CoOwnerID         int64  // 0: the operator's own
	TemplateID        int64
	TemplateLang      string
	TemplateName      string
	TemplateFileName  string
	DocFactoryParams  string
	Comment           string
	StatusDt          time.Time
}

// ConfigQuery asks for a default configuration, as the documents'
// query parameters do.
type ConfigQuery struct {
	Domain         string // domainCodeName, required
	DataSource     string // dataSourceCodeName, required
	DocClass       string // docClassCodeName, required
	TemplateLang   string // default en
	CollectionCode string // default none
	Selector       string // dtsSelectorCodeName
	CoOwnerID      int64
}

// CodeConfigNotFound is the code of a query no configuration answers.
const CodeConfigNotFound = "CONFIG_NOTFOUND"

// DefaultConfig finds the configuration for q among configs: the one of
// q's domain, data source, class, collection code, selector and
// co-owner, with its template in q's language. When the type has
// templates only in other languages, the English one (else the first by
// language code) is returned, and its TemplateLang says which. A
// supplier invoice's configuration has no template: its template fields
// are empty. A query without domain, data source or class is Invalid; a
// query no configuration answers is NotFound (CONFIG_NOTFOUND).
func DefaultConfig(configs []InvoiceConfig, q ConfigQuery) (InvoiceConfig, error) {
	var v invalid
	for _, r := range []struct{ name, value string }{
		{"domainCodeName", q.Domain}, {"dataSourceCodeName", q.DataSource}, {"docClassCodeName", q.DocClass},
	} {
		if r.value == "" {
			v.add(r.name, "required")
		}
	}
	switch q.CollectionCode {
	case "":
		q.CollectionCode = "none"
	case "none", "credit-note", "debit-note", "reminder":
	default:
		v.add("collectionCode", "none, credit-note, debit-note or reminder, not %q", q.CollectionCode)
	}
	if q.Selector != "" && q.Selector != PartPayment {
		v.add("dtsSelectorCodeName", "unknown selector %q", q.Selector)
	}
	if err := v.err(); err != nil {
		return InvoiceConfig{}, err
	}
	if q.TemplateLang == "" {
		q.TemplateLang = "en"
	}
	var found []InvoiceConfig
	for _, c := range configs {
		if string(c.Domain) == q.Domain && string(c.DataSource) == q.DataSource && string(c.DocClass) == q.DocClass &&
			c.CollectionCode == q.CollectionCode && c.Selector == q.Selector && c.CoOwnerID == q.CoOwnerID {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return InvoiceConfig{}, msgkit.Errorf(msgkit.NotFound, CodeConfigNotFound,
			"no invoice configuration for %s %s %s (collection %s)", q.Domain, q.DataSource, q.DocClass, q.CollectionCode)
	}
	// The asked language, then English, then by language code.
	slices.SortStableFunc(found, func(a, b InvoiceConfig) int {
		rank := func(c InvoiceConfig) int {
			switch c.TemplateLang {
			case q.TemplateLang:
				return 0
			case "en":
				return 1
			}
			return 2
		}
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.TemplateLang, b.TemplateLang))
	})
	c := found[0]
	if c.DocClass == SupplierInvoice {
		c.TemplateID, c.TemplateLang, c.TemplateName, c.TemplateFileName = 0, "", "", ""
	}
	return c, nil
}

// SeedConfigs is a start for an operator's configurations: for both
// domains, a customer invoice per prepaid and postpaid (with and without
// part payment) source, a credit/debit note for collections, a netting
// statement, a control invoice and the supplier invoices, with English
// and German templates for customer documents.
func SeedConfigs() []InvoiceConfig {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []InvoiceConfig
	typeID, templateID := int64(100), int64(500)
	add := func(d Domain, ds DataSource, class Class, collection, selector string, langs ...string) {
		typeID++
		if len(langs) == 0 {
			out = append(out, InvoiceConfig{TypeID: typeID, InstanceID: 1, Name: string(class) + " " + string(d), Status: "active", Domain: d,
				DataSource: ds, DataSourceDefault: "yes", DocClass: class, SelfBilling: "no", CollectionCode: collection, Selector: selector, StatusDt: t0})
			return
		}
		for _, lang := range langs {
			templateID++
			out = append(out, InvoiceConfig{TypeID: typeID, InstanceID: 1, Name: string(class) + " " + string(d), Status: "active", Domain: d,
				DataSource: ds, DataSourceDefault: "yes", DocClass: class, SelfBilling: "no", CollectionCode: collection, Selector: selector,
				TemplateID: templateID, TemplateLang: lang, TemplateName: string(class) + " (" + lang + ")",
				TemplateFileName: "invoice-" + lang + ".odt", StatusDt: t0})
		}
	}
	for _, d := range []Domain{Bulk, BulkMNP} {
		add(d, Prepaid, CustomerInvoice, "none", "", "en", "de")
		add(d, Postpaid, CustomerInvoice, "none", "", "en", "de")
		add(d, Postpaid, CustomerInvoice, "none", PartPayment, "en", "de")
		add(d, Postpaid, CreditDebitNote, "credit-note", "", "en", "de")
		add(d, Postpaid, CreditDebitNote, "debit-note", "", "en")
		add(d, Postpaid, NettingInvoice, "none", "", "en")
		add(d, PostpaidControl, ControlInvoice, "none", "", "en")
		add(d, SupplierInvoiceSource, SupplierInvoice, "none", "")
		add(d, PostpaidSupplierInvoice, SupplierInvoice, "none", "")
	}
	return out
}
