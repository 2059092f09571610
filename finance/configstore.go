package finance

import (
	"context"
	"slices"
	"strings"
)

// ConfigStore keeps the default invoice configurations an operator adds
// at run time, beside the built-in ones of Options.Configs.
type ConfigStore interface {
	// PutConfig creates or replaces the configuration of c's type and
	// template language (TypeID, TemplateLang), and records its
	// document type (TypeID, Name, SelfBilling "yes"), as
	// ExportStore.PutDocumentType does, in the same atomic step, so the
	// export names the type as its configuration does.
	PutConfig(ctx context.Context, c InvoiceConfig) error
	// Configs lists the stored configurations by type, then template
	// language.
	Configs(ctx context.Context) ([]InvoiceConfig, error)
}

// CheckConfig refuses a configuration DefaultConfig could not answer
// with: a type that is not a positive id, no name, a domain, data source
// or class this package does not know, a selfBilling other than yes or
// no, an unknown collection code or selector, a negative co-owner, a
// template language that is not 2 or 3 lowercase letters, and text a
// store cannot keep. Every problem is one field of the error; the names
// are the wire's.
func CheckConfig(c InvoiceConfig) error {
	var v invalid
	if c.TypeID < 1 {
		v.add("typeId", "the type id is a positive integer")
	}
	if strings.TrimSpace(c.Name) == "" {
		v.add("name", "a configuration needs its type's name")
	}
	if !slices.Contains(Domains(), c.Domain) {
		v.add("domainCodeName", "unknown domain %q", c.Domain)
	}
	if !slices.Contains(DataSources(), c.DataSource) {
		v.add("dataSourceCodeName", "unknown data source %q", c.DataSource)
	}
	if !slices.Contains(Classes(), c.DocClass) {
		v.add("docClassCodeName", "unknown document class %q", c.DocClass)
	}
	if c.SelfBilling != "yes" && c.SelfBilling != "no" {
		v.add("selfBilling", "selfBilling is yes or no, not %q", c.SelfBilling)
	}
	switch c.CollectionCode {
	case "none", "credit-note", "debit-note", "reminder":
	default:
		v.add("collectionCode", "none, credit-note, debit-note or reminder, not %q", c.CollectionCode)
	}
	if c.Selector != "" && c.Selector != PartPayment {
		v.add("dtsSelectorCodeName", "unknown selector %q", c.Selector)
	}
	if c.CoOwnerID < 0 {
		v.add("coOwnerId", "coOwnerId is 0 (the operator's own) or a partner's id")
	}
	if !isLang(c.TemplateLang) {
		v.add("templateLang", "a template language is 2 or 3 lowercase letters, not %q", c.TemplateLang)
	}
	for _, f := range []struct{ name, value string }{
		{"name", c.Name}, {"status", c.Status}, {"dataSourceDefault", c.DataSourceDefault}, {"templateName", c.TemplateName},
		{"templateFileName", c.TemplateFileName}, {"docFactoryParams", c.DocFactoryParams}, {"comment", c.Comment},
	} {
		if !storableText(f.value) {
			v.add(f.name, "%s must be valid UTF-8 without NUL characters", f.name)
		}
	}
	if v.e != nil {
		v.e.Code = CodeInvalidReference
	}
	return v.err()
}

func isLang(s string) bool {
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// ConfigType is the document type a configuration names, as the export
// keeps it.
func ConfigType(c InvoiceConfig) DocumentType {
	return DocumentType{ID: c.TypeID, Name: c.Name, SelfBilling: c.SelfBilling == "yes"}
}
