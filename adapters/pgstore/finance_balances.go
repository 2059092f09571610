package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var (
	_ finance.BalanceStore = (*FinanceStore)(nil)
	_ finance.SheetStore   = (*FinanceStore)(nil)
)

// The fixed ids finance gives the codes of the grouping attributes
// (domainId, docClassId, dataSourceId): a code's id is its place in
// finance's list plus one, and any other value (NULL included) is 0, which
// finance reads as null.
var (
	domainCodes     = codes(finance.Domains())
	classCodes      = codes(finance.Classes())
	dataSourceCodes = codes(finance.DataSources())
)

// classDomainKeyExpr is the key of the domain of the class in col, as
// finance keys docClassDomain: 1 customer, 2 supplier, 0 an unknown class.
func classDomainKeyExpr(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, c := range finance.Classes() {
		b.WriteString(" WHEN " + sqlText(string(c)) + " THEN " + strconv.Itoa(int(c.Side())+1))
	}
	b.WriteString(" ELSE 0 END")
	return b.String()
}

// classAreaKeyExpr is the key of the area of the class in col, as finance
// keys docClassArea: its place in finance.ClassAreas from 1, 0 an unknown
// class.
func classAreaKeyExpr(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, c := range finance.Classes() {
		b.WriteString(" WHEN " + sqlText(string(c)) + " THEN " + strconv.Itoa(slices.Index(finance.ClassAreas(), finance.ClassArea(c))+1))
	}
	b.WriteString(" ELSE 0 END")
	return b.String()
}

// classDomainText and classAreaText are the texts of the keys of
// classDomainKeyExpr and classAreaKeyExpr; "" for 0 or another key.
func classDomainText(key int32) string {
	for _, c := range finance.Classes() {
		if int32(c.Side())+1 == key {
			return finance.ClassDomain(c)
		}
	}
	return ""
}

func classAreaText(key int32) string {
	if areas := finance.ClassAreas(); key >= 1 && int(key) <= len(areas) {
		return areas[key-1]
	}
	return ""
}

// keyTextExpr is the text of the key in col, by text (as classDomainText
// and classAreaText give it), NULL for other keys.
func keyTextExpr(col string, text func(int32) string, keys int32) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for k := int32(1); k <= keys; k++ {
		b.WriteString(" WHEN " + strconv.Itoa(int(k)) + " THEN " + sqlText(text(k)))
	}
	b.WriteString(" END")
	return b.String()
}

// countedStatuses are the statuses finance.InBalance counts.
var countedStatuses = []finance.Status{finance.Approved, finance.Archived, finance.Imported}

// codes are the texts of a list of codes, in its order.
func codes[S ~string](list []S) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = string(c)
	}
	return out
}

// sqlText quotes s as an SQL string literal. Only for the package's own
// constants, never for a request's values, which are always bound.
func sqlText(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlTexts is ss as a list of literals, for IN (…).
func sqlTexts[S ~string](ss []S) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = sqlText(string(s))
	}
	return strings.Join(q, ", ")
}

// codeIDExpr is the id of the code in column col: CASE col WHEN 'BULK'
// THEN 1 … ELSE 0 END.
func codeIDExpr(col string, codes []string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, c := range codes {
		b.WriteString(" WHEN " + sqlText(c) + " THEN " + strconv.Itoa(i+1))
	}
	b.WriteString(" ELSE 0 END")
	return b.String()
}

// currencyCodeExpr is the ISO 4217 code of the numeric currency in col,
// NULL for none (0) as finance reads an empty code.
func currencyCodeExpr(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, c := range finance.Currencies() {
		b.WriteString(" WHEN " + strconv.Itoa(c.Numeric) + " THEN " + sqlText(c.Code))
	}
	b.WriteString(" END")
	return b.String()
}

// sideCondition selects the documents of a side: the supplier classes, or
// every other class (NULL included), as finance.Class.Side has it.
func sideCondition(side finance.Side) string {
	var suppliers []string
	for _, c := range classCodes {
		if finance.Class(c).Side() == finance.Suppliers {
			suppliers = append(suppliers, c)
		}
	}
	if side == finance.Suppliers {
		return "i.class IN (" + sqlTexts(suppliers) + ")"
	}
	return "(i.class IS NULL OR i.class NOT IN (" + sqlTexts(suppliers) + "))"
}

// countedCondition selects the documents that count in balances.
var countedCondition = "i.status IN (" + sqlTexts(countedStatuses) + ")"

// balanceAttrs maps the attributes of finance.BalanceSpec to the columns
// of the grouped subquery b (balanceTable). A grouping attribute that the
// balance is not grouped by is a constant there (0, NULL), but
// finance.CheckBalanceQuery refuses queries on it anyway.
var balanceAttrs = map[string]listAttr{
	"bizPartnerId":        {"b.cust_id", msgkit.AttrNumber},
	"bizPartnerName":      {"b.cust_name", msgkit.AttrString},
	"bizPartnerBriefName": {"b.cust_short_name", msgkit.AttrString},
	"bizPartnerType":      {"b.cust_type", msgkit.AttrString},
	"currency":            {"b.currency", msgkit.AttrNumber},
	"currencyCode":        {currencyCodeExpr("b.currency"), msgkit.AttrString},
	"ownerId":             {"b.owner_id", msgkit.AttrNumber},
	"amountNovat":         {"b.amount_no_vat", msgkit.AttrNumber},
	"amountVat":           {"b.amount_vat", msgkit.AttrNumber},
	"vat":                 {"b.vat", msgkit.AttrNumber},
	"rounding":            {"b.rounding", msgkit.AttrNumber},
	"total":               {"b.total", msgkit.AttrNumber},
	"totalUnpaid":         {"b.total_unpaid", msgkit.AttrNumber},
	"totalPaid":           {"b.total_paid", msgkit.AttrNumber},

	"domainId":                        {"nullif(b.domain_id, 0)", msgkit.AttrNumber},
	"domainCodeName":                  {"b.domain", msgkit.AttrString},
	"docClassId":                      {"nullif(b.class_id, 0)", msgkit.AttrNumber},
	"docClassCodeName":                {"b.class", msgkit.AttrString},
	"dataSourceId":                    {"nullif(b.data_source_id, 0)", msgkit.AttrNumber},
	"dataSourceCodeName":              {"b.data_source", msgkit.AttrString},
	"documentTypeId":                  {"nullif(b.inv_type, 0)", msgkit.AttrNumber},
	"documentTypeDtsSelectorCodeName": {"b.selector", msgkit.AttrString},
	"docClassDomain":                  {keyTextExpr("b.class_domain", classDomainText, 2), msgkit.AttrString},
	"docClassArea":                    {keyTextExpr("b.area", classAreaText, int32(len(finance.ClassAreas()))), msgkit.AttrString},
	"documentTypeName":                {"nullif(b.type_name, '')", msgkit.AttrString},
	"documentTypeSelfBilling":         {"CASE WHEN b.self_billing THEN 'yes' ELSE 'no' END", msgkit.AttrString},
	"documentTypeDtsSelectorId":       {"CASE WHEN b.part_pay THEN " + strconv.Itoa(int(finance.SelectorID(finance.PartPayment))) + " END", msgkit.AttrNumber},
}

// balanceOrder is the store's order of balances, finance.SumEntries's:
// partner, currency, then the group's keys (codes by id, not by text,
// type names byte by byte as Go compares strings).
const balanceOrder = "b.cust_id, b.currency, b.domain_id, b.class_id, b.class_domain, b.area, b.data_source_id, b.inv_type," +
	` b.type_name COLLATE "C", b.self_billing, b.part_pay`

// agingBuckets are the conditions on days late of finance's aging
// buckets, in Aging's order: not yet due, 1-30, 31-60, 61-90, 91-120 and
// more than 120 days.
var agingBuckets = [...]string{"<= 0", "BETWEEN 1 AND 30", "BETWEEN 31 AND 60", "BETWEEN 61 AND 90", "BETWEEN 91 AND 120", "> 120"}

// balanceTable is the listing of the balances o asks for. Its FROM clause
// is a subquery b with one row per balance:
//
//   - g sums, in one pass over the counted documents of the side (and of
//     the partners in $1 without scope.All), per partner, currency and
//     the group's keys: the key of a code is its id (unknown codes share
//     0, as in finance), of the class's domain and area the class's
//     (classDomainKeyExpr, classAreaKeyExpr), of the selector whether it
//     is PART-PAYMENT, of the document type's name (” for none) and
//     self-billing (false for none) those of finance_document_types,
//     joined only when asked for;
//     numeric's sum keeps the largest scale of its inputs, as finance's
//     sums do, and an aging bucket nothing fell in is 0 (scale 0), as
//     finance's empty sum is. It also keeps the first and last document's
//     id (min and max), plain aggregates that need no sort per group;
//   - the last document (l, by primary key) names the partner and the
//     owner, the first (f, only when a code's text is asked for) gives
//     the group's texts, as finance takes them.
//
// The keys the group does not ask for are constants (0, false, NULL), so
// that the attributes and the order are the same for every balance. The
// scope's partners and asOf are the arguments it returns, in the order of
// their placeholders.
func balanceTable(scope finance.Scope, o finance.BalanceOptions) (*listTable, []any) {
	grouped := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return slices.Contains(o.Group, n) })
	}
	keys := []string{"i.cust_id", "i.currency"}
	cols := "i.cust_id, i.currency"
	for _, k := range [...]struct {
		col, expr, none string
		on              bool
	}{
		{"domain_id", codeIDExpr("i.domain", domainCodes), "0", grouped("domainId", "domainCodeName")},
		{"class_id", codeIDExpr("i.class", classCodes), "0", grouped("docClassId", "docClassCodeName")},
		{"class_domain", classDomainKeyExpr("i.class"), "0", grouped("docClassDomain")},
		{"area", classAreaKeyExpr("i.class"), "0", grouped("docClassArea")},
		{"data_source_id", codeIDExpr("i.data_source", dataSourceCodes), "0", grouped("dataSourceId", "dataSourceCodeName")},
		{"inv_type", "i.inv_type", "0", grouped("documentTypeId")},
		// The type's name and self-billing are read after summing by type
		// (byTypeName): a join and a text key over every document cost more.
		{"type_name", "", "''::text", false},
		{"self_billing", "", "false", false},
		{"part_pay", "(i.selector = " + sqlText(finance.PartPayment) + ") IS TRUE", "false", grouped("documentTypeDtsSelectorId", "documentTypeDtsSelectorCodeName")},
	} {
		if k.on {
			keys = append(keys, k.expr)
			cols += ", " + k.expr + " AS " + k.col
		} else {
			cols += ", " + k.none + " AS " + k.col
		}
	}
	first := false // whether a text of the first document is asked for
	texts := ""
	for _, t := range [...]struct{ col, attr string }{
		{"domain", "domainCodeName"}, {"class", "docClassCodeName"}, {"data_source", "dataSourceCodeName"},
		{"selector", "documentTypeDtsSelectorCodeName"},
	} {
		if grouped(t.attr) {
			first = true
			texts += ", f." + t.col
		} else {
			texts += ", NULL::text AS " + t.col
		}
	}

	byType := grouped("documentTypeName", "documentTypeSelfBilling")
	if byType {
		keys = append(keys, "i.inv_type")
		cols += ", i.inv_type AS type_key"
	}
	var args []any
	where := sideCondition(o.Side) + " AND " + countedCondition
	if !scope.All {
		partners := scope.Partners
		if partners == nil {
			partners = []int64{} // an empty array, not NULL
		}
		args = append(args, partners)
		// As numeric, the expression of finance_invoices_cust_idx.
		where += " AND i.cust_id::numeric = ANY($" + strconv.Itoa(len(args)) + "::bigint[]::numeric[])"
	}
	aging := ""
	if o.AsOf != nil {
		// finance counts the days late of a document without a due date
		// from 1970-01-01, and normalises an asOf that is not a date as
		// time.Date does; so does this.
		args = append(args, pgtype.Date{Time: o.AsOf.In(time.UTC), Valid: true})
		late := "($" + strconv.Itoa(len(args)) + "::date - coalesce(i.inv_due_date, date '1970-01-01'))"
		for b, cond := range agingBuckets {
			aging += fmt.Sprintf(", coalesce(sum(i.total_unpaid) FILTER (WHERE %s %s), 0) AS aging%d", late, cond, b)
		}
	}

	grouping := "SELECT " + cols + ", count(*) AS documents, sum(i.amount_no_vat) AS amount_no_vat," +
		" sum(i.amount_vat) AS amount_vat, sum(i.vat) AS vat, sum(i.rounding) AS rounding, sum(i.total) AS total," +
		" sum(i.total_paid) AS total_paid, sum(i.total_unpaid) AS total_unpaid, min(i.id) AS first_id," +
		" max(i.id) AS last_id" + aging +
		" FROM finance_invoices i WHERE " + where + " GROUP BY " + strings.Join(keys, ", ")
	if byType {
		grouping = byTypeName(grouping, grouped("documentTypeName"), grouped("documentTypeSelfBilling"), o.AsOf != nil)
	}
	from := "(SELECT g.*, l.cust_name, l.cust_short_name, l.cust_attn, l.cust_address, l.cust_address2, l.cust_post," +
		" l.cust_city, l.cust_po_box, l.cust_vat_number, l.cust_country, l.cust_type, l.owner_id" + texts +
		" FROM (" + grouping + ") g" +
		" JOIN finance_invoices l ON l.id = g.last_id"
	if first {
		from += " JOIN finance_invoices f ON f.id = g.first_id"
	}
	from += ") b"

	sel := "b.cust_id, b.currency, b.domain_id, b.class_id, b.class_domain, b.area, b.data_source_id, b.inv_type," +
		" b.type_name, b.self_billing, b.part_pay, b.documents," +
		" b.amount_no_vat::text, b.amount_vat::text, b.vat::text, b.rounding::text, b.total::text, b.total_paid::text," +
		" b.total_unpaid::text, coalesce(b.cust_name, ''), coalesce(b.cust_short_name, ''), b.cust_attn, b.cust_address," +
		" b.cust_address2, b.cust_post, b.cust_city, coalesce(b.cust_po_box, ''), b.cust_vat_number, b.cust_country," +
		" coalesce(b.cust_type, ''), b.owner_id, coalesce(b.domain, ''), coalesce(b.class, ''), coalesce(b.data_source, '')," +
		" coalesce(b.selector, '')"
	if o.AsOf != nil {
		sel += ", b.aging0::text, b.aging1::text, b.aging2::text, b.aging3::text, b.aging4::text, b.aging5::text"
	}
	return &listTable{From: from, Select: sel, Scope: "TRUE", Attrs: balanceAttrs, Order: balanceOrder}, args
}

// byTypeName sums the rows of grouping, which are summed by document type
// (its column type_key), again by what the types are grouped by: their
// name (types of one name are one group) and whether they are
// self-billing, a type the platform does not keep having no name and
// being none. Summing a few rows a type is cheaper than joining the types
// to every document.
func byTypeName(grouping string, name, selfBilling, aging bool) string {
	same := "t.cust_id, t.currency, t.domain_id, t.class_id, t.class_domain, t.area, t.data_source_id, t.inv_type, t.part_pay"
	keys := same
	typeName, billing := "''::text", "false"
	if name {
		typeName = "coalesce(dt.name, '')"
		keys += ", " + typeName
	}
	if selfBilling {
		billing = "coalesce(dt.self_billing, false)"
		keys += ", " + billing
	}
	sums := ", sum(t.documents) AS documents, sum(t.amount_no_vat) AS amount_no_vat, sum(t.amount_vat) AS amount_vat," +
		" sum(t.vat) AS vat, sum(t.rounding) AS rounding, sum(t.total) AS total, sum(t.total_paid) AS total_paid," +
		" sum(t.total_unpaid) AS total_unpaid, min(t.first_id) AS first_id, max(t.last_id) AS last_id"
	if aging {
		for b := range agingBuckets {
			sums += fmt.Sprintf(", sum(t.aging%d) AS aging%d", b, b)
		}
	}
	return "SELECT " + same + ", " + typeName + " AS type_name, " + billing + " AS self_billing" + sums +
		" FROM (" + grouping + ") t LEFT JOIN finance_document_types dt ON dt.id = t.type_key" +
		" GROUP BY " + keys
}

// Balances sums the balances of the partners in scope in the database, in
// one statement: the grouped subquery of balanceTable, filtered, sorted
// and paged by q through the listing engine over finance.BalanceSpec,
// in finance's store order (partner, currency, group).
func (s *FinanceStore) Balances(ctx context.Context, scope finance.Scope, o finance.BalanceOptions, q msgkit.ListQuery) (msgkit.Page[finance.Balance], error) {
	if err := finance.CheckGroup(o.Group); err != nil {
		return msgkit.Page[finance.Balance]{}, err
	}
	if err := finance.CheckBalanceQuery(q, o.Group); err != nil {
		return msgkit.Page[finance.Balance]{}, err
	}
	table, args := balanceTable(scope, o)
	page, err := listPage(ctx, s.pool, table, q, func(row pgx.CollectableRow) (finance.Balance, error) {
		var r balanceRow
		if err := row.Scan(r.dest(o.AsOf != nil)...); err != nil {
			return finance.Balance{}, err
		}
		b, err := r.balance(o)
		if err != nil {
			return finance.Balance{}, storageError(err, "balance of ", partnerWhat(r.b.Partner.ID))
		}
		return b, nil
	}, args...)
	if err != nil {
		return msgkit.Page[finance.Balance]{}, readError(err, "listing", "listing")
	}
	return page, nil
}

// balanceRow is a row of balanceTable's Select as it is scanned.
type balanceRow struct {
	b                                   finance.Balance
	currency                            int32
	domainID, classID, dataSourceID     int32
	classDomain, area                   int32
	typeName                            string
	selfBilling, partPay                bool
	invType, documents, country         int64
	sums                                [7]string
	aging                               [6]string
	domain, class, dataSource, selector string
}

func (r *balanceRow) dest(aging bool) []any {
	p := &r.b.Partner
	dest := []any{&p.ID, &r.currency, &r.domainID, &r.classID, &r.classDomain, &r.area, &r.dataSourceID, &r.invType,
		&r.typeName, &r.selfBilling, &r.partPay, &r.documents,
		&r.sums[0], &r.sums[1], &r.sums[2], &r.sums[3], &r.sums[4], &r.sums[5], &r.sums[6],
		&p.Name, &p.ShortName, &p.Attn, &p.Address, &p.Address2, &p.Post, &p.City, &p.POBox, &p.VatNumber, &r.country,
		&p.Type, &r.b.OwnerID, &r.domain, &r.class, &r.dataSource, &r.selector}
	if aging {
		dest = append(dest, &r.aging[0], &r.aging[1], &r.aging[2], &r.aging[3], &r.aging[4], &r.aging[5])
	}
	return dest
}

// balance converts the scanned row, with the group values as finance
// gives them: an id of 0 and an empty text are null.
func (r *balanceRow) balance(o finance.BalanceOptions) (finance.Balance, error) {
	b := r.b
	if int64(int(r.country)) != r.country || int64(int(r.documents)) != r.documents {
		return b, fmt.Errorf("cust_country %d or count %d out of range", r.country, r.documents)
	}
	b.Partner.Country, b.Documents = int(r.country), int(r.documents)
	if r.currency != 0 {
		cur, ok := finance.CurrencyByNumeric(int(r.currency))
		if !ok {
			return b, fmt.Errorf("unknown currency %d", r.currency)
		}
		b.Currency = cur
	}
	var err error
	for i, a := range [...]*decimal.Decimal{&b.AmountNoVat, &b.AmountVat, &b.Vat, &b.Rounding, &b.Total, &b.TotalPaid, &b.TotalUnpaid} {
		if *a, err = parseNumeric(r.sums[i]); err != nil {
			return b, fmt.Errorf("sum %d: %w", i, err)
		}
	}
	if o.AsOf != nil {
		b.Aging = &finance.Aging{}
		a := b.Aging
		for i, d := range [...]*decimal.Decimal{&a.Current, &a.Days1To30, &a.Days31To60, &a.Days61To90, &a.Days91To120, &a.Over120} {
			if *d, err = parseNumeric(r.aging[i]); err != nil {
				return b, fmt.Errorf("aging %d: %w", i, err)
			}
		}
	}
	if len(o.Group) == 0 {
		return b, nil
	}
	id := func(n int64) msgkit.Value {
		if n == 0 {
			return msgkit.Null()
		}
		return msgkit.IntValue(n)
	}
	text := func(s string) msgkit.Value {
		if s == "" {
			return msgkit.Null()
		}
		return msgkit.StringValue(s)
	}
	b.Group = make(map[string]msgkit.Value, len(o.Group))
	for _, g := range o.Group {
		switch g {
		case "domainId":
			b.Group[g] = id(int64(r.domainID))
		case "docClassId":
			b.Group[g] = id(int64(r.classID))
		case "dataSourceId":
			b.Group[g] = id(int64(r.dataSourceID))
		case "documentTypeId":
			b.Group[g] = id(r.invType)
		case "domainCodeName":
			b.Group[g] = text(r.domain)
		case "docClassCodeName":
			b.Group[g] = text(r.class)
		case "dataSourceCodeName":
			b.Group[g] = text(r.dataSource)
		case "documentTypeDtsSelectorCodeName":
			b.Group[g] = text(r.selector)
		case "docClassDomain":
			b.Group[g] = text(classDomainText(r.classDomain))
		case "docClassArea":
			b.Group[g] = text(classAreaText(r.area))
		case "documentTypeName":
			b.Group[g] = text(r.typeName)
		case "documentTypeSelfBilling":
			b.Group[g] = text(finance.YesNo(r.selfBilling))
		case "documentTypeDtsSelectorId":
			var sel string
			if r.partPay {
				sel = finance.PartPayment
			}
			b.Group[g] = id(finance.SelectorID(sel))
		}
	}
	return b, nil
}

// sheetAttrs maps the attributes of finance.SheetSpec to the columns of
// finance_invoices.
var sheetAttrs = map[string]listAttr{
	"bizPartnerId":        {"i.cust_id", msgkit.AttrNumber},
	"bizPartnerName":      {"i.cust_name", msgkit.AttrString},
	"bizPartnerBriefName": {"i.cust_short_name", msgkit.AttrString},
	"currency":            {"i.currency", msgkit.AttrNumber},
	"currencyCode":        {currencyCodeExpr("i.currency"), msgkit.AttrString},
	"ownerId":             {"i.owner_id", msgkit.AttrNumber},
	"documentId":          {"i.id", msgkit.AttrNumber},
	"documentUuId":        {"i.uid", msgkit.AttrString},
	"documentNumber":      {"i.inv_number_fix", msgkit.AttrString},
	"documentDate":        {"i.inv_date", msgkit.AttrDate},
	"documentDueDate":     {"i.inv_due_date", msgkit.AttrDate},
	"documentIssuingDate": {"i.invoicing_date", msgkit.AttrDate},
	"vatPercent":          {"i.vat_percent", msgkit.AttrNumber},
	"paymentStatus":       {"i.payment_status", msgkit.AttrString},
	"amountNovat":         {"i.amount_no_vat", msgkit.AttrNumber},
	"amountVat":           {"i.amount_vat", msgkit.AttrNumber},
	"vat":                 {"i.vat", msgkit.AttrNumber},
	"rounding":            {"i.rounding", msgkit.AttrNumber},
	"total":               {"i.total", msgkit.AttrNumber},
	"totalUnpaid":         {"i.total_unpaid", msgkit.AttrNumber},
	"totalPaid":           {"i.total_paid", msgkit.AttrNumber},
}

// The sheet's own orders: by document date then id, a document without a
// date (NULL, finance's zero Date) before every date, as Date.Compare
// has it.
const (
	sheetOrderAsc  = "i.inv_date ASC NULLS FIRST, i.id"
	sheetOrderDesc = "i.inv_date DESC NULLS LAST, i.id DESC"
)

// sheetTable is the listing of the sheet o selects, with its arguments:
// the partner (as numeric, the expression of finance_invoices_cust_idx),
// then Start and End. Start leaves out documents without a date, End
// keeps them, as finance.SheetOptions.InSheet compares the zero Date. A
// bound that is not a date is Invalid: no date column can hold it.
func sheetTable(o finance.SheetOptions) (*listTable, []any, error) {
	args := []any{o.Partner}
	scope := "i.cust_id::numeric = $1::bigint::numeric AND " + sideCondition(o.Side) + " AND " + countedCondition
	for _, bound := range []struct {
		name string
		d    *msgkit.Date
		cond string
	}{
		{"startDate", o.Start, "i.inv_date >= $%d::date"},
		{"endDate", o.End, "(i.inv_date <= $%d::date OR i.inv_date IS NULL)"},
	} {
		if bound.d == nil {
			continue
		}
		if !bound.d.IsValid() {
			return nil, nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, bound.name, "%s %s is not a date", bound.name, *bound.d)
		}
		args = append(args, pgtype.Date{Time: bound.d.In(time.UTC), Valid: true})
		scope += " AND " + fmt.Sprintf(bound.cond, len(args))
	}
	order := sheetOrderAsc
	if o.Desc {
		order = sheetOrderDesc
	}
	return &listTable{From: "finance_invoices i", Select: "i.id", Scope: scope, Attrs: sheetAttrs, Order: order}, args, nil
}

// Sheet lists a partner's balance sheet, as ListInvoices lists: the page's
// ids through the listing engine (the sheet's order breaking the ties of
// q's sort keys, as msgkit.Apply's stable sort keeps it), then its
// invoices by id, in one read-only REPEATABLE READ transaction. A partner
// out of scope has an empty sheet, and the query is checked as memstore
// checks it.
func (s *FinanceStore) Sheet(ctx context.Context, scope finance.Scope, o finance.SheetOptions, q msgkit.ListQuery) (msgkit.Page[finance.SheetRow], error) {
	if err := finance.CheckBalanceQuery(q, nil); err != nil {
		return msgkit.Page[finance.SheetRow]{}, err
	}
	if !scope.Sees(o.Partner) {
		return msgkit.Apply([]finance.SheetRow(nil), q, finance.SheetValue)
	}
	table, args, err := sheetTable(o)
	if err != nil {
		return msgkit.Page[finance.SheetRow]{}, err
	}
	return listInvoicePage(ctx, s.pool, table, q, args, "sheet", nil,
		func(inv *finance.Invoice, _ finance.DocumentData) finance.SheetRow { return finance.SheetRowOf(inv) })
}
