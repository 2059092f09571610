package finance

import (
	"maps"
	"slices"
	"sync"

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

// invoiceAttrs are the attributes of the invoice listing: every one the
// documents list for its filters and its sort, each both filterable and
// sortable, read from an invoice's view. Ids the invoice has none of
// (nettingInvoiceId, collectionLeadId, dtsSelectorId of a document
// without a selector that is not POSTPAID) and texts that are empty are
// null; a related invoice's values are null when it has none.
var invoiceAttrs = attrs[viewRow]{
	"id":                  {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(int64(v.ID)) }},
	"custID":              {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(v.Customer.ID) }},
	"custName":            {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Customer.Name) }},
	"custShortName":       {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Customer.ShortName) }},
	"customerShortName":   {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Customer.ShortName) }},
	"custPOBox":           {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Customer.POBox) }},
	"custCountry":         {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(int64(v.Customer.Country)) }},
	"customerType":        {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Customer.Type) }},
	"externalRefId":       {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.ExternalRefID) }},
	"classCodeName":       {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.Class)) }},
	"dataSourceCodeName":  {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.DataSource)) }},
	"domainCodeName":      {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.Domain)) }},
	"domainName":          {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(DomainName(v.Domain)) }},
	"dtsSelectorCodeName": {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.Selector) }},
	"dtsSelectorId": {msgkit.AttrNumber, func(v *viewRow) msgkit.Value {
		if id, ok := InvoiceSelectorID(v.Invoice); ok {
			return num(id)
		}
		return msgkit.Null()
	}},
	"currency":            {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(int64(v.Currency.Numeric)) }},
	"invType":             {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(v.InvType) }},
	"invoiceType":         {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(v.InvType) }},
	"invTypeName":         {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.TypeName) }},
	"invoiceTypeName":     {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.TypeName) }},
	"selfBilling":         {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(YesNo(v.SelfBilling)) }},
	"invUid":              {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.UID) }},
	"invNumber":           {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.InvNumberFix) }},
	"invPeriod":           {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.InvPeriod) }},
	"invDate":             {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.InvDate) }},
	"invDueDate":          {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.InvDueDate) }},
	"invoicingDate":       {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.InvoicingDate) }},
	"deliveryDate":        {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.DeliveryDate) }},
	"invPeriodStart":      {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.InvPeriodStart) }},
	"invPeriodEnd":        {msgkit.AttrDate, func(v *viewRow) msgkit.Value { return dateV(v.InvPeriodEnd) }},
	"overDueDate":         {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(int64(v.OverDue)) }},
	"amountNoVat":         {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.AmountNoVat) }},
	"amountVat":           {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.AmountVat) }},
	"vat":                 {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.Vat) }},
	"rounding":            {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.Rounding) }},
	"total":               {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.Total) }},
	"totalPaid":           {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.TotalPaid) }},
	"totalUnpaid":         {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return amount(v.TotalUnpaid) }},
	"status":              {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.Status)) }},
	"statusDt":            {msgkit.AttrDateTime, func(v *viewRow) msgkit.Value { return msgkit.TimeValue(v.StatusDt) }},
	"paymentStatus":       {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.PaymentStatus)) }},
	"syncStatus":          {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.SyncStatus)) }},
	"syncStatusDt":        {msgkit.AttrDateTime, func(v *viewRow) msgkit.Value { return timeV(v.SyncStatusDt) }},
	"syncMode":            {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.SyncMode) }},
	"documentSync":        {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.DocumentSync)) }},
	"docsDeliveryStatus":  {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(string(v.DocsDeliveryStatus)) }},
	"processingStatus":    {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.ProcessingStatus) }},
	"disputeStatus":       {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.DisputeStatus) }},
	"invoicingDatePolicy": {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.InvoicingDatePolicy) }},
	"collectionMode":      {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.CollectionMode) }},
	"collectionLeadId":    {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return idValue(v.CollectionLeadID) }},
	"collectionLeadNumber": {msgkit.AttrString, func(v *viewRow) msgkit.Value {
		if v.Lead == nil {
			return msgkit.Null()
		}
		return str(v.Lead.Number)
	}},
	"nettingInvoiceId": {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return idValue(v.NettingInvoiceID) }},
	"nettingInvoiceStatus": {msgkit.AttrString, func(v *viewRow) msgkit.Value {
		if v.Netting == nil {
			return msgkit.Null()
		}
		return str(string(v.Netting.Status))
	}},
	"nettingInvoicePaymentStatus": {msgkit.AttrString, func(v *viewRow) msgkit.Value {
		if v.Netting == nil {
			return msgkit.Null()
		}
		return str(string(v.Netting.PaymentStatus))
	}},
	"ownerId":          {msgkit.AttrNumber, func(v *viewRow) msgkit.Value { return num(v.OwnerID) }},
	"ownerBpName":      {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.OwnerName) }},
	"ownerBpBriefName": {msgkit.AttrString, func(v *viewRow) msgkit.Value { return str(v.OwnerBriefName) }},
}

// invoiceSearch are the attributes q searches: the texts contain it, the
// owner's id equals it.
var invoiceSearch = []string{"custName", "customerShortName", "invUid", "ownerBpBriefName", "ownerBpName", "ownerId", "status"}

// InvoiceSpec is the listing spec of invoices: every attribute above may
// be filtered (equality, or operator form) and sorted; page size default
// 10, at most 100; q searches the seven attributes the documents name.
func InvoiceSpec() msgkit.ListSpec {
	return invoiceAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100,
		Search: slices.Clone(invoiceSearch), Ignore: []string{"showAccountManager"}})
}

// viewRow is an invoice's view as the listing's attributes read it: the
// invoice in place and the parts of its view beside it. The invoice's
// fields are the embedded *Invoice's (they are shallower than View's own
// Invoice, which a row leaves zero), so a row never copies an invoice.
type viewRow struct {
	*Invoice
	*View
}

// invoiceParts are the parts of a view (ViewParts) the attributes read
// beyond the invoice; an attribute not named reads the invoice alone.
var invoiceParts = map[string]ViewParts{
	"externalRefId":               PartPartner,
	"invTypeName":                 PartType,
	"invoiceTypeName":             PartType,
	"selfBilling":                 PartType,
	"overDueDate":                 PartOverDue,
	"collectionLeadNumber":        PartRelated,
	"nettingInvoiceStatus":        PartRelated,
	"nettingInvoicePaymentStatus": PartRelated,
	"ownerBpName":                 PartOwner,
	"ownerBpBriefName":            PartOwner,
}

// InvoiceValue reads attribute attr of an invoice's view for a listing,
// as msgkit.Apply wants (the PostgreSQL store maps the same names to
// expressions; memory stores list with ListViews).
func InvoiceValue(v View, attr string) (msgkit.Value, bool) {
	return invoiceAttrs.value(&viewRow{Invoice: &v.Invoice, View: &v}, attr)
}

// ViewLookup is what a store in memory knows beside its invoice inv:
// the parts of its operator data and related invoices that parts name,
// as ViewOf reads them (what other parts read may be left zero).
type ViewLookup func(inv *Invoice, parts ViewParts) DocumentData

// ListColumns are what listings read most of a store's invoices, by
// position (the store's order), in arrays: whether each is deleted, its
// customer, and the values of the invoice's own attributes listings
// filter, sort and search by, each made when a listing first reads it.
// A listing then reads a few arrays instead of invoices scattered over
// the heap, a cache miss each. A store keeps them while its invoices do
// not change and makes new ones when one does; the operator data a view
// reads beside the invoice is looked up at each listing (ViewLookup).
// Listings may share them concurrently.
type ListColumns struct {
	invs    []*Invoice
	pos     []int32 // 0 to len(invs)-1: what a listing runs over
	deleted []bool
	partner []int64

	mu     sync.Mutex // guards values
	values map[string][]msgkit.Value
}

// NewListColumns are the columns of invs, which the caller does not
// change while it lists with them.
func NewListColumns(invs []*Invoice) *ListColumns {
	cs := &ListColumns{invs: invs, pos: make([]int32, len(invs)), deleted: make([]bool, len(invs)), partner: make([]int64, len(invs)),
		values: map[string][]msgkit.Value{}}
	for i, inv := range invs {
		cs.pos[i], cs.deleted[i], cs.partner[i] = int32(i), inv.Status == Deleted, inv.Customer.ID
	}
	return cs
}

// columns are the columns of the invoice's own attributes q reads, made
// now where they are not yet; attributes of view parts and unknown ones
// have none.
func (cs *ListColumns) columns(q msgkit.ListQuery) map[string][]msgkit.Value {
	names := q.Attrs()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := map[string][]msgkit.Value{}
	for _, name := range names {
		a, ok := invoiceAttrs[name]
		if !ok || invoiceParts[name] != 0 {
			continue
		}
		col, ok := cs.values[name]
		if !ok {
			col = make([]msgkit.Value, len(cs.invs))
			for i, inv := range cs.invs {
				col[i] = a.get(&viewRow{Invoice: inv})
			}
			cs.values[name] = col
		}
		out[name] = col
	}
	return out
}

// ListViews lists the invoices of cs that are not deleted and that scope
// sees, in memory with msgkit.ApplyAttrs over the attributes of
// InvoiceSpec, and makes the views of the page's invoices (ViewOf, on
// the day today). The invoice's own attributes are read from cs's
// columns and, of each invoice, only the parts of its view the query
// reads (filters, sort, search) are looked up, so a listing costs what
// its query reads and not a view of every invoice. The views share what
// the invoices share by reference (items, payment): the caller copies
// them out of its lock.
func ListViews(cs *ListColumns, scope Scope, q msgkit.ListQuery, lookup ViewLookup, today msgkit.Date) (msgkit.Page[View], error) {
	cols := cs.columns(q)
	// One row and one view for the whole query, refilled at each read:
	// ApplyAttrs reads one attribute at a time, and a row per read would
	// be an allocation per invoice.
	row := &viewRow{View: new(View)}
	shown := func(i *int32) bool { return !cs.deleted[*i] && scope.Sees(cs.partner[*i]) }
	page, err := msgkit.ApplyAttrs(cs.pos, shown, q, func(name string) (msgkit.Accessor[int32], bool) {
		if col, ok := cols[name]; ok {
			return func(i *int32) (msgkit.Value, bool) { return col[*i], true }, true
		}
		a, ok := invoiceAttrs[name]
		if !ok {
			return nil, false
		}
		parts := invoiceParts[name]
		return func(i *int32) (msgkit.Value, bool) {
			inv := cs.invs[*i]
			row.Invoice = inv
			setParts(row.View, inv, lookup(inv, parts), today, parts)
			return a.get(row), true
		}, true
	})
	if err != nil {
		return msgkit.Page[View]{}, err
	}
	out := msgkit.Page[View]{Total: page.Total, Items: make([]View, len(page.Items))}
	for i, at := range page.Items {
		inv := cs.invs[at]
		out.Items[i] = ViewOf(inv, lookup(inv, AllParts), today)
	}
	return out, nil
}

// InvoiceAttrNames are the attributes of the listing, sorted, for the
// stores.
func InvoiceAttrNames() []string { return slices.Sorted(maps.Keys(invoiceAttrs)) }
