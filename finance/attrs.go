package finance

import (
	"maps"
	"slices"

	"github.com/msgkit/msgkit"
)

// attr is one attribute of a listing of records T: its type and how to
// read it from a record.
type attr[T any] struct {
	typ msgkit.AttrType
	get func(*T) msgkit.Value
}

// attrs are a listing's attributes by name.
type attrs[T any] map[string]attr[T]

// addTo adds the attributes to spec, each filterable and sortable.
func (as attrs[T]) addTo(spec msgkit.ListSpec) msgkit.ListSpec {
	for name, a := range as {
		spec.Filter[name] = a.typ
		spec.Sort = append(spec.Sort, name)
	}
	return spec
}

// value reads attribute name of r.
func (as attrs[T]) value(r *T, name string) (msgkit.Value, bool) {
	a, ok := as[name]
	if !ok {
		return msgkit.Value{}, false
	}
	return a.get(r), true
}

func str(s string) msgkit.Value {
	if s == "" {
		return msgkit.Null()
	}
	return msgkit.StringValue(s)
}

func num(n int64) msgkit.Value { return msgkit.IntValue(n) }

func dateV(d msgkit.Date) msgkit.Value {
	if d.IsZero() {
		return msgkit.Null()
	}
	return msgkit.DateValue(d)
}

func amount(a interface{ String() string }) msgkit.Value {
	v, _ := msgkit.NumberValue(a.String())
	return v
}

// invoiceAttrs are the attributes of the documents' invoice filters and
// sorts that the record holds. The rest (disputeStatus, externalRefId,
// invoicingDatePolicy, processingStatus, overDueDate and the netting and
// collection-lead details) are not kept and are not accepted.
var invoiceAttrs = attrs[Invoice]{
	"id":                  {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(int64(i.ID)) }},
	"custID":              {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.Customer.ID) }},
	"custName":            {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Customer.Name) }},
	"custShortName":       {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Customer.ShortName) }},
	"customerShortName":   {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Customer.ShortName) }},
	"custPOBox":           {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Customer.POBox) }},
	"custCountry":         {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(int64(i.Customer.Country)) }},
	"customerType":        {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Customer.Type) }},
	"classCodeName":       {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.Class)) }},
	"dataSourceCodeName":  {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.DataSource)) }},
	"domainCodeName":      {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.Domain)) }},
	"dtsSelectorCodeName": {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.Selector) }},
	"currency":            {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(int64(i.Currency.Numeric)) }},
	"invType":             {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.InvType) }},
	"invoiceType":         {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.InvType) }},
	"invUid":              {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.UID) }},
	"invNumber":           {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.InvNumberFix) }},
	"invPeriod":           {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.InvPeriod) }},
	"invDate":             {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.InvDate) }},
	"invDueDate":          {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.InvDueDate) }},
	"invoicingDate":       {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.InvoicingDate) }},
	"deliveryDate":        {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.DeliveryDate) }},
	"invPeriodStart":      {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.InvPeriodStart) }},
	"invPeriodEnd":        {msgkit.AttrDate, func(i *Invoice) msgkit.Value { return dateV(i.InvPeriodEnd) }},
	"amountNoVat":         {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.AmountNoVat) }},
	"amountVat":           {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.AmountVat) }},
	"vat":                 {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.Vat) }},
	"rounding":            {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.Rounding) }},
	"total":               {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.Total) }},
	"totalPaid":           {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.TotalPaid) }},
	"totalUnpaid":         {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return amount(i.TotalUnpaid) }},
	"status":              {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.Status)) }},
	"statusDt":            {msgkit.AttrDateTime, func(i *Invoice) msgkit.Value { return msgkit.TimeValue(i.StatusDt) }},
	"paymentStatus":       {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.PaymentStatus)) }},
	"syncStatus":          {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.SyncStatus)) }},
	"syncStatusDt": {msgkit.AttrDateTime, func(i *Invoice) msgkit.Value {
		if i.SyncStatusDt.IsZero() {
			return msgkit.Null()
		}
		return msgkit.TimeValue(i.SyncStatusDt)
	}},
	"docsDeliveryStatus": {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(string(i.DocsDeliveryStatus)) }},
	"collectionMode":     {msgkit.AttrString, func(i *Invoice) msgkit.Value { return str(i.CollectionMode) }},
	"collectionLeadId":   {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.CollectionLeadID) }},
	"nettingInvoiceId":   {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.NettingInvoiceID) }},
	"ownerId":            {msgkit.AttrNumber, func(i *Invoice) msgkit.Value { return num(i.OwnerID) }},
}

// InvoiceSpec is the listing spec of invoices: every attribute above may
// be filtered (equality, or operator form) and sorted; page size default
// 10, at most 100. q searches custName, customerShortName, invUid and
// status (the documents' other searched fields, ownerBpName,
// ownerBpBriefName and ownerId, are not kept or not text).
func InvoiceSpec() msgkit.ListSpec {
	return invoiceAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100,
		Search: []string{"custName", "customerShortName", "invUid", "status"}, Ignore: []string{"showAccountManager"}})
}

// InvoiceValue reads attribute attr of inv for a listing, as msgkit.Apply
// wants (memory stores list with it; the PostgreSQL store maps the same
// names to columns).
func InvoiceValue(inv Invoice, attr string) (msgkit.Value, bool) {
	return invoiceAttrs.value(&inv, attr)
}

// InvoiceAttrNames are the attributes of the listing, sorted, for the
// stores.
func InvoiceAttrNames() []string { return slices.Sorted(maps.Keys(invoiceAttrs)) }
