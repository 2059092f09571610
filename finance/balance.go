package finance

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// Side is which documents a balance sums: those of customers or those of
// suppliers.
type Side uint8

// The sides.
const (
	Customers Side = iota
	Suppliers
)

// Side tells whose documents a class holds.
func (c Class) Side() Side {
	if c == SupplierInvoice || c == SupplierCrDbNote {
		return Suppliers
	}
	return Customers
}

// InBalance reports whether a document of status s counts in balances:
// issued documents do (approved, archived, imported); drafts, rejected,
// canceled and deleted ones do not.
func InBalance(s Status) bool { return s == Approved || s == Archived || s == Imported }

// Domains are the domains in the order of their ids: a code's id, for
// the grouping attributes that name codes by id, is its place in the
// documents' list, from 1. Classes and DataSources likewise.
func Domains() []Domain { return []Domain{Bulk, BulkMNP} }

// Classes are the document classes in the order of their ids.
func Classes() []Class {
	return []Class{CustomerInvoice, SupplierInvoice, NettingInvoice, ControlInvoice, CreditDebitNote, SupplierCrDbNote}
}

// DataSources are the data sources in the order of their ids.
func DataSources() []DataSource {
	return []DataSource{Prepaid, Postpaid, FinanceSource, SupplierInvoiceSource, PostpaidSupplierInvoice, PostpaidControl}
}

// The ids of the codes (read-only lookup tables).
var (
	domainIDs     = idsOf(Domains())
	classIDs      = idsOf(Classes())
	dataSourceIDs = idsOf(DataSources())
)

// DomainID, ClassID and DataSourceID are the ids of the codes (1, 2, …
// in the order of Domains, Classes and DataSources); 0 for an unknown code.
func DomainID(d Domain) int64 { return domainIDs[d] }

// ClassID: see DomainID.
func ClassID(c Class) int64 { return classIDs[c] }

// DataSourceID: see DomainID.
func DataSourceID(s DataSource) int64 { return dataSourceIDs[s] }

func idsOf[T comparable](codes []T) map[T]int64 {
	ids := make(map[T]int64, len(codes))
	for i, c := range codes {
		ids[c] = int64(i + 1)
	}
	return ids
}

// groupAttrs are the grouping attributes a balance may be asked for, and
// the value each takes from an invoice and its document type (the zero
// DocumentType, with its ID, for a type the store does not know).
var groupAttrs = map[string]func(*Invoice, DocumentType) msgkit.Value{
	"domainId":                        func(i *Invoice, _ DocumentType) msgkit.Value { return idValue(domainIDs[i.Domain]) },
	"domainCodeName":                  func(i *Invoice, _ DocumentType) msgkit.Value { return str(string(i.Domain)) },
	"docClassId":                      func(i *Invoice, _ DocumentType) msgkit.Value { return idValue(classIDs[i.Class]) },
	"docClassCodeName":                func(i *Invoice, _ DocumentType) msgkit.Value { return str(string(i.Class)) },
	"docClassDomain":                  func(i *Invoice, _ DocumentType) msgkit.Value { return str(ClassDomain(i.Class)) },
	"docClassArea":                    func(i *Invoice, _ DocumentType) msgkit.Value { return str(ClassArea(i.Class)) },
	"dataSourceId":                    func(i *Invoice, _ DocumentType) msgkit.Value { return idValue(dataSourceIDs[i.DataSource]) },
	"dataSourceCodeName":              func(i *Invoice, _ DocumentType) msgkit.Value { return str(string(i.DataSource)) },
	"documentTypeId":                  func(i *Invoice, _ DocumentType) msgkit.Value { return idValue(i.InvType) },
	"documentTypeName":                func(_ *Invoice, t DocumentType) msgkit.Value { return str(t.Name) },
	"documentTypeSelfBilling":         func(_ *Invoice, t DocumentType) msgkit.Value { return str(YesNo(t.SelfBilling)) },
	"documentTypeDtsSelectorId":       func(i *Invoice, _ DocumentType) msgkit.Value { return idValue(SelectorID(i.Selector)) },
	"documentTypeDtsSelectorCodeName": func(i *Invoice, _ DocumentType) msgkit.Value { return str(i.Selector) },
}

// ClassAreas are the areas of the classes (ClassArea) in the order
// balances sort them by.
func ClassAreas() []string { return []string{"invoice", "note", "netting", "control"} }

// SelectorID is the id of a data source selector: 1 for PART-PAYMENT, the
// one selector, and 0 (null) for none.
func SelectorID(selector string) int64 {
	if selector == PartPayment {
		return 1
	}
	return 0
}

// YesNo is b as the documents write booleans: yes or no.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func idValue(id int64) msgkit.Value {
	if id == 0 {
		return msgkit.Null()
	}
	return msgkit.IntValue(id)
}

// GroupAttrNames are the grouping attributes, sorted.
func GroupAttrNames() []string { return slices.Sorted(maps.Keys(groupAttrs)) }

// Aging splits unpaid amounts by how long past their due date they are on
// the balance's asOf date: not yet due (Current), 1-30, 31-60, 61-90,
// 91-120 and more than 120 days. Every day falls in exactly one bucket.
type Aging struct {
	Current, Days1To30, Days31To60, Days61To90, Days91To120, Over120 decimal.Decimal
}

// add puts amount into the bucket of a document due on due, seen on asOf.
func (a *Aging) add(due, asOf msgkit.Date, amount decimal.Decimal) {
	b := [...]*decimal.Decimal{&a.Current, &a.Days1To30, &a.Days31To60, &a.Days61To90, &a.Days91To120, &a.Over120}[agingBucket(int64(DaysBetween(due, asOf)))]
	*b = b.Add(amount)
}

// Sum is the total of the buckets.
func (a Aging) Sum() decimal.Decimal {
	return a.Current.Add(a.Days1To30).Add(a.Days31To60).Add(a.Days61To90).Add(a.Days91To120).Add(a.Over120)
}

// DaysBetween is to - from in days.
func DaysBetween(from, to msgkit.Date) int {
	return int(to.In(nil).Sub(from.In(nil)).Hours() / 24)
}

// Balance is what one partner owes or is owed in one currency (and one
// group, when grouping was asked for): sums over its documents.
type Balance struct {
	Partner   Partner // as its most recent document names it
	Currency  Currency
	OwnerID   int64
	Group     map[string]msgkit.Value // the requested grouping attributes
	Amounts                           // sums over the documents
	Aging     *Aging                  // with an asOf date
	Documents int
}

// BalanceOptions say what to sum.
type BalanceOptions struct {
	Side  Side
	Group []string     // grouping attributes, beyond partner and currency
	AsOf  *msgkit.Date // the day of the aging buckets; none without it
	// Types, set by a store, looks up the document types it keeps
	// (PutDocumentType) for documentTypeName and documentTypeSelfBilling;
	// nil, or a type it does not find, has no name and is not self-billing.
	Types func(id int64) (DocumentType, bool)
}

// typeOf is the document type of id as o.Types knows it, the zero type
// with the id otherwise.
func (o BalanceOptions) typeOf(id int64) DocumentType {
	if o.Types != nil {
		if t, ok := o.Types(id); ok {
			return t
		}
	}
	return DocumentType{ID: id}
}

// CheckGroup refuses grouping attributes this package does not know,
// naming the parameter group.
func CheckGroup(group []string) error {
	for _, g := range group {
		if _, ok := groupAttrs[g]; !ok {
			return msgkit.Invalidf(CodeInvalidInvoice, "group", "unknown grouping attribute %q; one of %s", g, strings.Join(GroupAttrNames(), ", "))
		}
	}
	return nil
}

// Balances sums invs into balances: one per partner, currency and group,
// over the documents of the side that count (InBalance), never mixing
// currencies. The result is ordered by partner, currency and group.
func Balances(invs []Invoice, o BalanceOptions) ([]Balance, error) {
	return BalancesOf(func(yield func(*Invoice) bool) {
		for i := range invs {
			if !yield(&invs[i]) {
				return
			}
		}
	}, o)
}

// BalancesOf is Balances over a sequence of invoices, which it reads and
// does not keep.
func BalancesOf(invs iter.Seq[*Invoice], o BalanceOptions) ([]Balance, error) {
	return SumEntries(func(yield func(*LedgerEntry) bool) {
		for inv := range invs {
			e := LedgerEntryOf(inv)
			if !yield(&e) {
				return
			}
		}
	}, o)
}

// LedgerEntry is an invoice as balances read it, small and without pointers to
// follow for the common case, so that a store can keep one per invoice
// and sum a million of them in one pass over memory (SumEntries). It
// refers to its invoice for what it does not copy; the invoice must not
// change while the entry is in use.
type LedgerEntry struct {
	inv        *Invoice
	partner    int64
	invType    int64
	due        int64 // the due date, days since 1970-01-01
	currency   int32
	side       Side
	counted    bool
	exact      bool // every amount is in units below
	domain     int8
	class      int8
	dataSource int8
	partPay    bool
	units      [7]int64 // amountNoVat, amountVat, vat, rounding, total, totalPaid, totalUnpaid in 10^-4
	places     [7]int8  // their decimals
}

// LedgerEntryOf is inv's entry; it keeps a reference to inv.
func LedgerEntryOf(inv *Invoice) LedgerEntry {
	e := LedgerEntry{inv: inv, partner: inv.Customer.ID, invType: inv.InvType, currency: int32(inv.Currency.Numeric),
		side: inv.Class.Side(), counted: InBalance(inv.Status), domain: int8(domainIDs[inv.Domain]), class: int8(classIDs[inv.Class]),
		dataSource: int8(dataSourceIDs[inv.DataSource]), partPay: inv.Selector == PartPayment, exact: true}
	if !inv.InvDueDate.IsZero() {
		e.due = inv.InvDueDate.In(nil).Unix() / 86400
	}
	for i, a := range inv.Amounts.list() {
		u, places, ok := fixed(*a)
		e.units[i], e.places[i] = u, int8(places)
		e.exact = e.exact && ok
	}
	return e
}

// Partner is the entry's business partner.
func (e *LedgerEntry) Partner() int64 { return e.partner }

// fixed is d in units of 10^-4 and its decimals, when it has at most 4
// decimals and at most 9 digits, which keeps any sum of them far from
// overflowing an int64 by the time overflow is checked.
func fixed(d decimal.Decimal) (units int64, places int32, ok bool) {
	exp := d.Exponent()
	if exp < -sumScale || exp+sumScale >= int32(len(pow10)) || d.NumDigits() > 9 {
		return 0, 0, false
	}
	return d.CoefficientInt64() * pow10[exp+sumScale], max(-exp, 0), true
}

// balanceKey is what a balance is one of: partner, currency and the
// grouping attributes asked for (the others zero).
type balanceKey struct {
	partner     int64
	invType     int64
	typeName    string
	currency    int32
	domain      int8
	class       int8
	classDomain int8 // 1 customer, 2 supplier, 0 an unknown class
	area        int8 // the place of the class's area in ClassAreas, from 1
	dataSource  int8
	selfBilling bool
	partPay     bool
}

// groupMask says which of a balance key's parts the grouping asks for.
type groupMask struct {
	domain, class, classDomain, area, dataSource, invType, typeName, selfBilling, partPay bool
}

// classDomainIDs and classAreaIDs are, by class id, the keys of the
// class's domain and area (0 for an unknown class).
var classDomainIDs, classAreaIDs = func() (domains, areas []int8) {
	domains, areas = make([]int8, len(Classes())+1), make([]int8, len(Classes())+1)
	for i, c := range Classes() {
		domains[i+1] = int8(c.Side()) + 1
		areas[i+1] = int8(slices.Index(ClassAreas(), ClassArea(c)) + 1)
	}
	return domains, areas
}()

// maskOf reads group (checked by CheckGroup) once per sum.
func maskOf(group []string) groupMask {
	var m groupMask
	for _, g := range group {
		switch g {
		case "domainId", "domainCodeName":
			m.domain = true
		case "docClassId", "docClassCodeName":
			m.class = true
		case "dataSourceId", "dataSourceCodeName":
			m.dataSource = true
		case "docClassDomain":
			m.classDomain = true
		case "docClassArea":
			m.area = true
		case "documentTypeId":
			m.invType = true
		case "documentTypeName":
			m.typeName = true
		case "documentTypeSelfBilling":
			m.selfBilling = true
		case "documentTypeDtsSelectorId", "documentTypeDtsSelectorCodeName":
			m.partPay = true
		}
	}
	return m
}

// keyOf is e's balance key under m, its document type from o.
func keyOf(e *LedgerEntry, m groupMask, o *BalanceOptions) balanceKey {
	k := balanceKey{partner: e.partner, currency: e.currency}
	if m.domain {
		k.domain = e.domain
	}
	if m.class {
		k.class = e.class
	}
	if m.classDomain {
		k.classDomain = classDomainIDs[e.class]
	}
	if m.area {
		k.area = classAreaIDs[e.class]
	}
	if m.dataSource {
		k.dataSource = e.dataSource
	}
	if m.typeName || m.selfBilling {
		t := o.typeOf(e.invType)
		k.typeName = t.Name
		k.selfBilling = m.selfBilling && t.SelfBilling
		if !m.typeName {
			k.typeName = ""
		}
	}
	if m.invType {
		k.invType = e.invType
	}
	if m.partPay {
		k.partPay = e.partPay
	}
	return k
}

// tally is a balance being summed.
type tally struct {
	first, latest *Invoice
	documents     int
	sums          [7]sum
	aging         [6]sum
}

// SumEntries is Balances over ledger entries (see LedgerEntry).
func SumEntries(entries iter.Seq[*LedgerEntry], o BalanceOptions) ([]Balance, error) {
	if err := CheckGroup(o.Group); err != nil {
		return nil, err
	}
	var asOf int64
	if o.AsOf != nil {
		asOf = o.AsOf.In(nil).Unix() / 86400
	}
	mask := maskOf(o.Group)
	byKey := map[balanceKey]*tally{}
	var last *tally
	var lastKey balanceKey
	for e := range entries {
		if e.side != o.Side || !e.counted {
			continue
		}
		k := keyOf(e, mask, &o)
		t := last
		if t == nil || k != lastKey {
			if t = byKey[k]; t == nil {
				t = &tally{first: e.inv}
				byKey[k] = t
			}
			last, lastKey = t, k
		}
		if t.latest == nil || e.inv.ID >= t.latest.ID {
			t.latest = e.inv
		}
		t.documents++
		if e.exact {
			for i := range t.sums {
				t.sums[i].addUnits(e.units[i], int32(e.places[i]))
			}
		} else {
			for i, a := range e.inv.Amounts.list() {
				t.sums[i].add(*a)
			}
		}
		if o.AsOf != nil {
			b := agingBucket(asOf - e.due)
			if e.exact {
				t.aging[b].addUnits(e.units[6], int32(e.places[6]))
			} else {
				t.aging[b].add(e.inv.TotalUnpaid)
			}
		}
	}
	keys := make([]balanceKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b balanceKey) int {
		return cmp.Or(cmp.Compare(a.partner, b.partner), cmp.Compare(a.currency, b.currency), cmp.Compare(a.domain, b.domain),
			cmp.Compare(a.class, b.class), cmp.Compare(a.classDomain, b.classDomain), cmp.Compare(a.area, b.area),
			cmp.Compare(a.dataSource, b.dataSource), cmp.Compare(a.invType, b.invType), strings.Compare(a.typeName, b.typeName),
			cmp.Compare(boolInt(a.selfBilling), boolInt(b.selfBilling)), cmp.Compare(boolInt(a.partPay), boolInt(b.partPay)))
	})
	out := make([]Balance, 0, len(byKey))
	for _, k := range keys {
		t := byKey[k]
		b := Balance{Partner: t.latest.Customer, OwnerID: t.latest.OwnerID, Currency: t.first.Currency, Documents: t.documents}
		if len(o.Group) > 0 {
			b.Group = make(map[string]msgkit.Value, len(o.Group))
			typ := o.typeOf(t.first.InvType)
			for _, g := range o.Group {
				b.Group[g] = groupAttrs[g](t.first, typ)
			}
		}
		for i, a := range b.Amounts.list() {
			*a = t.sums[i].value()
		}
		if o.AsOf != nil {
			b.Aging = &Aging{Current: t.aging[0].value(), Days1To30: t.aging[1].value(), Days31To60: t.aging[2].value(),
				Days61To90: t.aging[3].value(), Days91To120: t.aging[4].value(), Over120: t.aging[5].value()}
		}
		out = append(out, b)
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sumScale is the scale of sum's fast path: amounts of up to 4 decimals
// add as int64s, with no allocation.
const sumScale = 4

var pow10 = [...]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000}

// sum adds decimals exactly: as int64 units of 10^-4 while they fit, as
// decimals beyond. Its value has as many decimals as the input with most
// (as decimal.Add and PostgreSQL's sum of numeric give).
type sum struct {
	units  int64
	places int32
	slow   decimal.Decimal
}

func (s *sum) add(d decimal.Decimal) {
	if u, places, ok := fixed(d); ok {
		s.addUnits(u, places)
		return
	}
	s.places = max(s.places, -d.Exponent())
	s.slow = s.slow.Add(d)
}

// addUnits adds u units of 10^-4 of an amount with places decimals.
func (s *sum) addUnits(u int64, places int32) {
	s.places = max(s.places, places)
	if n := s.units + u; (u >= 0) == (n >= s.units) {
		s.units = n
		return
	}
	s.slow = s.slow.Add(decimal.New(u, -sumScale))
}

func (s *sum) value() decimal.Decimal {
	v := decimal.New(s.units, -sumScale)
	if !s.slow.IsZero() {
		v = v.Add(s.slow)
	}
	return v.Round(s.places)
}

// agingBucket is the index of the Aging bucket of an amount late days
// past its due date: 0 not yet due, then 1-30, 31-60, 61-90, 91-120, over
// 120 days late.
func agingBucket(late int64) int {
	switch {
	case late <= 0:
		return 0
	case late <= 30:
		return 1
	case late <= 60:
		return 2
	case late <= 90:
		return 3
	case late <= 120:
		return 4
	}
	return 5
}

// balanceAttrs are the filter and sort attributes of balance records: the
// record's fields, amounts spelled as the documents spell them
// (amountNovat), and the grouping attributes.
var balanceAttrs = attrs[Balance]{
	"bizPartnerId":        {msgkit.AttrNumber, func(b *Balance) msgkit.Value { return num(b.Partner.ID) }},
	"bizPartnerName":      {msgkit.AttrString, func(b *Balance) msgkit.Value { return str(b.Partner.Name) }},
	"bizPartnerBriefName": {msgkit.AttrString, func(b *Balance) msgkit.Value { return str(b.Partner.ShortName) }},
	"bizPartnerType":      {msgkit.AttrString, func(b *Balance) msgkit.Value { return str(b.Partner.Type) }},
	"currency":            {msgkit.AttrNumber, func(b *Balance) msgkit.Value { return num(int64(b.Currency.Numeric)) }},
	"currencyCode":        {msgkit.AttrString, func(b *Balance) msgkit.Value { return str(b.Currency.Code) }},
	"ownerId":             {msgkit.AttrNumber, func(b *Balance) msgkit.Value { return num(b.OwnerID) }},
}

// amountAttrs are the amounts as balance and sheet listings name them
// (amountNovat as the documents spell it); numbers.
var amountAttrs = map[string]func(*Amounts) decimal.Decimal{
	"amountNovat": func(a *Amounts) decimal.Decimal { return a.AmountNoVat },
	"amountVat":   func(a *Amounts) decimal.Decimal { return a.AmountVat },
	"vat":         func(a *Amounts) decimal.Decimal { return a.Vat },
	"rounding":    func(a *Amounts) decimal.Decimal { return a.Rounding },
	"total":       func(a *Amounts) decimal.Decimal { return a.Total },
	"totalUnpaid": func(a *Amounts) decimal.Decimal { return a.TotalUnpaid },
	"totalPaid":   func(a *Amounts) decimal.Decimal { return a.TotalPaid },
}

// withAmounts adds the amount attributes to a listing spec.
func withAmounts(spec msgkit.ListSpec) msgkit.ListSpec {
	for name := range amountAttrs {
		spec.Filter[name] = msgkit.AttrNumber
		spec.Sort = append(spec.Sort, name)
	}
	return spec
}

// amountValue reads amount attribute attr of a.
func amountValue(a *Amounts, attr string) (msgkit.Value, bool) {
	get, ok := amountAttrs[attr]
	if !ok {
		return msgkit.Value{}, false
	}
	return amount(get(a)), true
}

// noEquality are the amounts the documents say equality does not apply
// to; eq and in on them are refused.
var noEquality = []string{"amountNovat", "amountVat", "total", "totalUnpaid", "totalPaid"}

// BalanceSpec is the listing spec of balances, grouping attributes
// included; see CheckBalanceQuery for what it cannot say.
func BalanceSpec() msgkit.ListSpec {
	spec := balanceAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100, Ignore: []string{"group", "asOf"}})
	for name := range groupAttrs {
		t := msgkit.AttrString
		if strings.HasSuffix(name, "Id") {
			t = msgkit.AttrNumber
		}
		spec.Filter[name] = t
		spec.Sort = append(spec.Sort, name)
	}
	return withAmounts(spec)
}

// CheckBalanceQuery refuses equality (eq, in) on the amounts, and filters
// or sorts on grouping attributes that group does not ask for.
func CheckBalanceQuery(q msgkit.ListQuery, group []string) error {
	for _, f := range q.Filters {
		if slices.Contains(noEquality, f.Attr) && (f.Op == msgkit.OpEq || f.Op == msgkit.OpIn) {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, f.Attr, "%s does not take equality (eq, in): compare it with lt, lte, gt, gte or between", f.Attr)
		}
		if _, grouping := groupAttrs[f.Attr]; grouping && !slices.Contains(group, f.Attr) {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, f.Attr, "%s filters only balances grouped by it: add it to group", f.Attr)
		}
	}
	for _, k := range q.Sort {
		if _, grouping := groupAttrs[k.Attr]; grouping && !slices.Contains(group, k.Attr) {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, "sort", "%s sorts only balances grouped by it: add it to group", k.Attr)
		}
	}
	return nil
}

// BalanceValue reads attribute attr of b for a listing.
func BalanceValue(b Balance, attr string) (msgkit.Value, bool) {
	if v, ok := balanceAttrs.value(&b, attr); ok {
		return v, true
	}
	if v, ok := amountValue(&b.Amounts, attr); ok {
		return v, true
	}
	if _, ok := groupAttrs[attr]; ok {
		if v, ok := b.Group[attr]; ok {
			return v, true
		}
		return msgkit.Null(), true
	}
	return msgkit.Value{}, false
}

// BalanceStore sums balances; the memory store computes them from its
// invoices, the PostgreSQL store in SQL, both as Balances does.
type BalanceStore interface {
	// Balances lists the balances of the partners in scope (see
	// Balances), filtered, sorted and paged by q over BalanceSpec (store
	// order: partner, currency, group).
	Balances(ctx context.Context, scope Scope, o BalanceOptions, q msgkit.ListQuery) (msgkit.Page[Balance], error)
}
