package finance

import (
	"cmp"
	"context"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// SheetRow is one document of a partner's balance sheet.
type SheetRow struct {
	Partner       Partner
	Currency      Currency
	OwnerID       int64
	DocumentID    InvoiceID
	DocumentUUID  string
	Number        string
	Date          msgkit.Date // documentDate: invDate
	DueDate       msgkit.Date
	IssuingDate   msgkit.Date // invoicingDate
	VatPercent    decimal.Decimal
	PaymentStatus PaymentStatus
	Amounts
}

// SheetOptions select a balance sheet: a partner's documents of one
// side that count in balances, documentDate within Start..End (each
// optional, both included), ordered by document date then id, descending
// with Desc.
type SheetOptions struct {
	Side       Side
	Partner    int64
	Start, End *msgkit.Date
	Desc       bool
}

// Check refuses an End before the Start, naming endDate.
func (o SheetOptions) Check() error {
	if o.Start != nil && o.End != nil && o.End.Before(*o.Start) {
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "endDate", "endDate %s is before startDate %s", o.End, o.Start)
	}
	return nil
}

// SheetRowOf is inv as a sheet row.
func SheetRowOf(inv *Invoice) SheetRow {
	return SheetRow{Partner: inv.Customer, Currency: inv.Currency, OwnerID: inv.OwnerID, DocumentID: inv.ID, DocumentUUID: inv.UID,
		Number: inv.InvNumberFix, Date: inv.InvDate, DueDate: inv.InvDueDate, IssuingDate: inv.InvoicingDate, VatPercent: inv.VatPercent,
		PaymentStatus: inv.PaymentStatus, Amounts: inv.Amounts}
}

// InSheet reports whether inv belongs to the sheet o selects.
func (o SheetOptions) InSheet(inv *Invoice) bool {
	return inv.Customer.ID == o.Partner && inv.Class.Side() == o.Side && InBalance(inv.Status) &&
		(o.Start == nil || !inv.InvDate.Before(*o.Start)) && (o.End == nil || !inv.InvDate.After(*o.End))
}

// SortSheet orders rows as o says.
func (o SheetOptions) SortSheet(rows []SheetRow) {
	slices.SortFunc(rows, func(a, b SheetRow) int {
		c := cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.DocumentID, b.DocumentID))
		if o.Desc {
			return -c
		}
		return c
	})
}

// sheetAttrs are the filter and sort attributes of sheet rows besides the
// amounts: the balance record's, and the document's own.
var sheetAttrs = attrs[SheetRow]{
	"bizPartnerId":        {msgkit.AttrNumber, func(r *SheetRow) msgkit.Value { return num(r.Partner.ID) }},
	"bizPartnerName":      {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(r.Partner.Name) }},
	"bizPartnerBriefName": {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(r.Partner.ShortName) }},
	"currency":            {msgkit.AttrNumber, func(r *SheetRow) msgkit.Value { return num(int64(r.Currency.Numeric)) }},
	"currencyCode":        {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(r.Currency.Code) }},
	"ownerId":             {msgkit.AttrNumber, func(r *SheetRow) msgkit.Value { return num(r.OwnerID) }},
	"documentId":          {msgkit.AttrNumber, func(r *SheetRow) msgkit.Value { return num(int64(r.DocumentID)) }},
	"documentUuId":        {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(r.DocumentUUID) }},
	"documentNumber":      {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(r.Number) }},
	"documentDate":        {msgkit.AttrDate, func(r *SheetRow) msgkit.Value { return dateV(r.Date) }},
	"documentDueDate":     {msgkit.AttrDate, func(r *SheetRow) msgkit.Value { return dateV(r.DueDate) }},
	"documentIssuingDate": {msgkit.AttrDate, func(r *SheetRow) msgkit.Value { return dateV(r.IssuingDate) }},
	"vatPercent":          {msgkit.AttrNumber, func(r *SheetRow) msgkit.Value { return amount(r.VatPercent) }},
	"paymentStatus":       {msgkit.AttrString, func(r *SheetRow) msgkit.Value { return str(string(r.PaymentStatus)) }},
}

// SheetSpec is the listing spec of balance sheets; CheckBalanceQuery's
// rule on amounts applies to it too.
func SheetSpec() msgkit.ListSpec {
	return withAmounts(sheetAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100, Ignore: []string{"startDate", "endDate", "dir"}}))
}

// SheetValue reads attribute attr of r for a listing.
func SheetValue(r SheetRow, attr string) (msgkit.Value, bool) {
	if v, ok := sheetAttrs.value(&r, attr); ok {
		return v, true
	}
	return amountValue(&r.Amounts, attr)
}

// SheetStore lists balance sheets.
type SheetStore interface {
	// Sheet lists the rows o selects, if o.Partner is in scope (else
	// none), in o's order, then filtered, sorted and paged by q over
	// SheetSpec.
	Sheet(ctx context.Context, scope Scope, o SheetOptions, q msgkit.ListQuery) (msgkit.Page[SheetRow], error)
}
