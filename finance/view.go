package finance

import (
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// View is an invoice as its answers and its listing show it: the invoice
// and what the platform knows beside it. ViewOf computes it from the
// operator data the finance documents export reads, and DocumentOf
// takes the same values from it, so that an invoice answer and its
// document never disagree on the type's name, self-billing, the owner's
// names or the domestic amounts.
type View struct {
	Invoice
	TypeName       string // the document type's name (PutDocumentType); "" unknown
	SelfBilling    bool   // the type's money flows opposite to its class's
	OwnerName      string // the stored partner of OwnerID; "" none
	OwnerBriefName string
	// ExternalRefID is the customer's reference in the operator's other
	// systems (PutPartnerExport); "" none.
	ExternalRefID string
	// Domestic are the amounts in the domestic (accounting) currency, nil
	// without a domestic rate (PutDomestic).
	Domestic *DomesticView
	// OverDue is how many days an invoice that is still to be paid
	// (payment status open or on-hold) is past its due date on the day
	// the view was made; 0 otherwise.
	OverDue int
	// Netting is the netting statement the invoice is a member of, and
	// Lead the collection lead; nil when it is none or the store has no
	// such invoice.
	Netting *Related
	Lead    *Related
}

// DomesticView is a document's domestic currency and its amounts in it.
type DomesticView struct {
	Currency Currency
	Domestic
}

// Related is another invoice as an invoice answer names it: a netting
// statement or a collection lead (with the lead's own statement).
type Related struct {
	ID            InvoiceID
	Number        string // invNumberFix
	Status        Status
	PaymentStatus PaymentStatus
	Currency      Currency
	Total         decimal.Decimal
	TotalPaid     decimal.Decimal
	TotalUnpaid   decimal.Decimal
	Netting       *Related // a lead's netting statement; nil for a statement
}

// relatedOf is r as a related invoice; nil for nil.
func relatedOf(r *Invoice, netting *Invoice) *Related {
	if r == nil {
		return nil
	}
	return &Related{ID: r.ID, Number: r.InvNumberFix, Status: r.Status, PaymentStatus: r.PaymentStatus, Currency: r.Currency,
		Total: r.Total, TotalPaid: r.TotalPaid, TotalUnpaid: r.TotalUnpaid, Netting: relatedOf(netting, nil)}
}

// OverDueDays is how many days inv is past its due date on today: 0
// unless it is still to be paid (open or on-hold) and its due date has
// passed.
func OverDueDays(inv *Invoice, today msgkit.Date) int {
	if (inv.PaymentStatus != PaymentOpen && inv.PaymentStatus != PaymentOnHold) || inv.InvDueDate.IsZero() || !today.After(inv.InvDueDate) {
		return 0
	}
	return DaysBetween(inv.InvDueDate, today)
}

// ViewOf is inv's view with the operator data and related invoices d
// (its Owner, Partner, Type, Domestic, Netting, Lead and LeadNetting; the
// accounts and traffic are the export's alone), on the day today.
func ViewOf(inv *Invoice, d DocumentData, today msgkit.Date) View {
	v := View{Invoice: *inv}
	setParts(&v, inv, d, today, AllParts)
	return v
}

// ViewParts are parts of a view beside its invoice, each computed from
// its own piece of DocumentData, so that a listing in memory computes,
// of every invoice, only the parts its query reads (ListViews).
type ViewParts uint8

// The parts of a view and what each sets.
const (
	PartOwner    ViewParts = 1 << iota // OwnerName, OwnerBriefName, from Owner
	PartPartner                        // ExternalRefID, from Partner
	PartType                           // TypeName, SelfBilling, from Type
	PartDomestic                       // Domestic, from Domestic
	PartOverDue                        // OverDue, from the day
	PartRelated                        // Netting and Lead, from Netting, Lead and LeadNetting
	AllParts     = PartOwner | PartPartner | PartType | PartDomestic | PartOverDue | PartRelated
)

// setParts sets every field of the parts of v (and no other) from inv,
// d and today, as ViewOf computes them.
func setParts(v *View, inv *Invoice, d DocumentData, today msgkit.Date, parts ViewParts) {
	if parts&PartOwner != 0 {
		v.OwnerName, v.OwnerBriefName = "", ""
		if d.Owner != nil {
			v.OwnerName, v.OwnerBriefName = d.Owner.Name, d.Owner.ShortName
		}
	}
	if parts&PartPartner != 0 {
		v.ExternalRefID = d.Partner.ExternalRefID
	}
	if parts&PartType != 0 {
		v.TypeName, v.SelfBilling = "", false
		if d.Type != nil {
			v.TypeName, v.SelfBilling = d.Type.Name, d.Type.SelfBilling
		}
	}
	if parts&PartDomestic != 0 {
		v.Domestic = nil
		if r := d.Domestic; r != nil {
			v.Domestic = &DomesticView{Currency: r.Currency,
				Domestic: ToDomestic(Totals{AmountNoVat: inv.AmountNoVat, AmountVat: inv.AmountVat, Total: inv.Total}, r.Rate, r.Currency)}
		}
	}
	if parts&PartOverDue != 0 {
		v.OverDue = OverDueDays(inv, today)
	}
	if parts&PartRelated != 0 {
		v.Netting, v.Lead = relatedParts(inv, d)
	}
}

// relatedParts are inv's netting statement and collection lead as its
// view names them: nil where d has not the invoice inv names.
func relatedParts(inv *Invoice, d DocumentData) (netting, lead *Related) {
	if inv.NettingInvoiceID != 0 && d.Netting != nil && d.Netting.ID == InvoiceID(inv.NettingInvoiceID) {
		netting = relatedOf(d.Netting, nil)
	}
	if inv.CollectionLeadID != 0 && d.Lead != nil && d.Lead.ID == InvoiceID(inv.CollectionLeadID) {
		var ln *Invoice
		if d.LeadNetting != nil && d.Lead.NettingInvoiceID != 0 && d.LeadNetting.ID == InvoiceID(d.Lead.NettingInvoiceID) {
			ln = d.LeadNetting
		}
		lead = relatedOf(d.Lead, ln)
	}
	return netting, lead
}

// RelatedIDs are the invoices a store reads for the views of invs beside
// the operator data: each one's netting statement and collection lead. A
// store reads the leads' own statements too (DocumentData.LeadNetting).
func RelatedIDs(invs []Invoice) []InvoiceID {
	var ids []InvoiceID
	for i := range invs {
		for _, id := range []int64{invs[i].NettingInvoiceID, invs[i].CollectionLeadID} {
			if id != 0 {
				ids = append(ids, InvoiceID(id))
			}
		}
	}
	return ids
}

// DomainName names a domain for people ("" for an unknown one).
func DomainName(d Domain) string {
	switch d {
	case Bulk:
		return "Bulk SMS"
	case BulkMNP:
		return "Bulk MNP"
	}
	return ""
}

// InvoiceSelectorID is an invoice's dtsSelectorId: 1 with the
// PART-PAYMENT selector, 0 for a POSTPAID invoice without it (the value
// that selects postpaid invoices paid in one), and none (ok false)
// otherwise.
func InvoiceSelectorID(inv *Invoice) (id int64, ok bool) {
	switch {
	case inv.Selector != "":
		return SelectorID(inv.Selector), true
	case inv.DataSource == Postpaid:
		return 0, true
	}
	return 0, false
}
