package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var (
	_ finance.ExportStore   = (*FinanceStore)(nil)
	_ finance.DocumentStore = (*FinanceStore)(nil)
)

// exportCheck collects the text of operator data that PostgreSQL cannot
// hold, every field named in one Invalid error.
type exportCheck struct{ err *msgkit.Error }

func (c *exportCheck) text(field string, vals ...string) {
	for _, v := range vals {
		if !storable(v) {
			if c.err == nil {
				c.err = msgkit.Invalidf(finance.CodeInvalidExportData, field, "%s must be valid UTF-8 without NUL characters", field)
			} else {
				c.err.WithField(field, field+" must be valid UTF-8 without NUL characters", "")
			}
			return
		}
	}
}

func (c *exportCheck) result() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// attributeDoc is a custom attribute in a jsonb column: the value is the
// JSON text it was given, in a string, so it comes back byte for byte.
type attributeDoc struct {
	CodeName string `json:"codeName"`
	Value    string `json:"value"`
}

func (c *exportCheck) attributes(field string, as []finance.CustomAttribute) []byte {
	docs := make([]attributeDoc, len(as))
	for i, a := range as {
		c.text(fmt.Sprintf("%s[%d]", field, i), a.CodeName, string(a.Value))
		docs[i] = attributeDoc{CodeName: a.CodeName, Value: string(a.Value)}
	}
	return marshalDoc(docs)
}

func readAttributes(b []byte) ([]finance.CustomAttribute, error) {
	var docs []attributeDoc
	if err := json.Unmarshal(b, &docs); err != nil {
		return nil, fmt.Errorf("custom attributes: %w", err)
	}
	out := make([]finance.CustomAttribute, len(docs))
	for i, d := range docs {
		out[i] = finance.CustomAttribute{CodeName: d.CodeName, Value: json.RawMessage(d.Value)}
	}
	return out, nil
}

// connectionDoc is a connection in a jsonb column.
type connectionDoc struct {
	ID         int64  `json:"id"`
	InstanceID int64  `json:"instanceId"`
	Name       string `json:"name"`
	AuthName   string `json:"authName"`
	Protocol   string `json:"protocol"`
}

func (c *exportCheck) connections(field string, cs []finance.Connection) []byte {
	docs := make([]connectionDoc, len(cs))
	for i, x := range cs {
		c.text(fmt.Sprintf("%s[%d]", field, i), x.Name, x.AuthName, x.Protocol)
		docs[i] = connectionDoc(x)
	}
	return marshalDoc(docs)
}

func readConnections(b []byte) ([]finance.Connection, error) {
	var docs []connectionDoc
	if err := json.Unmarshal(b, &docs); err != nil {
		return nil, fmt.Errorf("connections: %w", err)
	}
	out := make([]finance.Connection, len(docs))
	for i, d := range docs {
		out[i] = finance.Connection(d)
	}
	return out, nil
}

// currencyOf reads a currency column: the zero Currency for 0.
func currencyOf(n int32) (finance.Currency, error) {
	if n == 0 {
		return finance.Currency{}, nil
	}
	c, ok := finance.CurrencyByNumeric(int(n))
	if !ok {
		return c, fmt.Errorf("unknown currency %d", n)
	}
	return c, nil
}

// PutBillingAccount creates or replaces an account.
func (s *FinanceStore) PutBillingAccount(ctx context.Context, a finance.BillingAccount) error {
	if err := finance.CheckBillingAccount(a); err != nil {
		return err
	}
	var c exportCheck
	c.text("billingTypeCodeName", a.BillingType)
	c.text("name", a.Name)
	attrs := c.attributes("customAttributes", a.CustomAttributes)
	sms, mnp := c.connections("smsConnections", a.SMSConnections), c.connections("mnpConnections", a.MNPConnections)
	if err := c.result(); err != nil {
		return err
	}
	const q = `INSERT INTO finance_billing_accounts AS a (id, instance_id, biz_partner_id, currency, billing_type, name,
			custom_attributes, sms_connections, mnp_connections)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET (instance_id, biz_partner_id, currency, billing_type, name, custom_attributes,
			sms_connections, mnp_connections) = (excluded.instance_id, excluded.biz_partner_id, excluded.currency,
			excluded.billing_type, excluded.name, excluded.custom_attributes, excluded.sms_connections, excluded.mnp_connections)`
	_, err := s.pool.Exec(ctx, q, a.ID, a.InstanceID, a.BizPartnerID, int32(a.Currency.Numeric), a.BillingType, a.Name, attrs, sms, mnp)
	return classify(err, "billing_account", "billing account "+strconv.FormatInt(a.ID, 10))
}

// PutSourceRecord links a record to its billing account.
func (s *FinanceStore) PutSourceRecord(ctx context.Context, r finance.SourceRef, account int64) error {
	if err := finance.CheckSourceRef(r); err != nil {
		return err
	}
	const q = `INSERT INTO finance_source_records (kind, id, account_id) VALUES ($1, $2, $3)
		ON CONFLICT (kind, id) DO UPDATE SET account_id = excluded.account_id`
	_, err := s.pool.Exec(ctx, q, int16(r.Kind), r.ID, account)
	return classify(err, "source_record", "source record "+strconv.FormatInt(r.ID, 10))
}

// PutTrafficReports replaces a document's traffic reports in one
// transaction.
func (s *FinanceStore) PutTrafficReports(ctx context.Context, doc finance.InvoiceID, rows []finance.TrafficReport) error {
	if err := finance.CheckTrafficReports(rows); err != nil {
		return err
	}
	var c exportCheck
	for i, r := range rows {
		c.text(fmt.Sprintf("trafficReports[%d]", i), r.BizPartnerBriefName, r.BizPartnerExtRefID, r.BillingAccountName,
			r.CountryName, r.CountryCode2, r.OperatorName, r.MCC, r.MNC)
	}
	if err := c.result(); err != nil {
		return err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM finance_traffic_reports WHERE invoice_id = $1", int64(doc)); err != nil {
			return err
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"finance_traffic_reports"}, trafficColumns,
			pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
				r := rows[i]
				return []any{int64(doc), int32(i), r.BizPartnerID, r.BizPartnerBriefName, r.BizPartnerExtRefID, r.BillingAccountID,
					r.BillingAccountName, r.CountryID, r.CountryName, r.CountryCode2, r.OperatorID, r.OperatorName, r.MCC, r.MNC,
					nullTime(r.StartDt), nullTime(r.EndDt), r.SMSCount, int32(r.Currency.Numeric), numericPG(r.Price),
					numericPG(r.TotalAmount)}, nil
			}))
		return err
	})
	return classify(err, "traffic_report", "traffic reports of "+invoiceWhat(doc))
}

// numericPG is d as a numeric value of COPY, which encodes in binary and
// takes a pgtype.Numeric: d's coefficient and exponent, so the scale is
// kept.
func numericPG(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

var trafficColumns = []string{"invoice_id", "ord", "biz_partner_id", "biz_partner_brief_name", "biz_partner_ext_ref_id",
	"billing_account_id", "billing_account_name", "country_id", "country_name", "country_code2", "operator_id", "operator_name",
	"mcc", "mnc", "start_dt", "end_dt", "sms_count", "currency", "price", "total_amount"}

// PutPartnerExport creates or replaces a partner's export data.
func (s *FinanceStore) PutPartnerExport(ctx context.Context, p finance.PartnerExport) error {
	if err := finance.CheckPartnerExport(p); err != nil {
		return err
	}
	var c exportCheck
	c.text("externalRefId", p.ExternalRefID)
	attrs := c.attributes("customAttributes", p.CustomAttributes)
	if err := c.result(); err != nil {
		return err
	}
	const q = `INSERT INTO finance_partner_exports (partner_id, external_ref_id, custom_attributes) VALUES ($1, $2, $3)
		ON CONFLICT (partner_id) DO UPDATE SET (external_ref_id, custom_attributes) = (excluded.external_ref_id, excluded.custom_attributes)`
	_, err := s.pool.Exec(ctx, q, p.PartnerID, nullText(p.ExternalRefID), attrs)
	return classify(err, "partner_export", partnerWhat(p.PartnerID))
}

// PutDocumentType creates or replaces an invoice type's export data.
func (s *FinanceStore) PutDocumentType(ctx context.Context, t finance.DocumentType) error {
	var c exportCheck
	c.text("name", t.Name)
	if err := c.result(); err != nil {
		return err
	}
	const q = `INSERT INTO finance_document_types (id, name, self_billing) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET (name, self_billing) = (excluded.name, excluded.self_billing)`
	_, err := s.pool.Exec(ctx, q, t.ID, nullText(t.Name), t.SelfBilling)
	return classify(err, "document_type", "document type "+strconv.FormatInt(t.ID, 10))
}

// PutDomestic creates or replaces a document's domestic rate.
func (s *FinanceStore) PutDomestic(ctx context.Context, doc finance.InvoiceID, r finance.DomesticRate) error {
	if err := finance.CheckDomesticRate(r); err != nil {
		return err
	}
	const q = `INSERT INTO finance_document_domestic (invoice_id, currency, decimals, rate) VALUES ($1, $2, $3, $4::numeric)
		ON CONFLICT (invoice_id) DO UPDATE SET (currency, decimals, rate) = (excluded.currency, excluded.decimals, excluded.rate)`
	_, err := s.pool.Exec(ctx, q, int64(doc), int32(r.Currency.Numeric), r.Currency.Decimals, numericText(r.Rate))
	return classify(err, "domestic", "domestic rate of "+invoiceWhat(doc))
}

// documentJoins join to each invoice the operator data its attributes
// read: the owner (o), the partner's export data (px), the type (dt) and
// the domestic rate (dd); each at most one row, by primary key, and each
// only for a query that reads it.
var documentJoins = []listJoin{
	{"o", "LEFT JOIN finance_partners o ON o.id = i.owner_id"},
	{"px", "LEFT JOIN finance_partner_exports px ON px.partner_id = i.cust_id"},
	{"dt", "LEFT JOIN finance_document_types dt ON dt.id = i.inv_type"},
	{"dd", "LEFT JOIN finance_document_domestic dd ON dd.invoice_id = i.id"},
}

// caseOf is CASE col WHEN 'code' THEN 'text' … END over the codes of
// list, each mapped by text (a code mapped to "" is left out: NULL).
func caseOf[S ~string](col string, list []S, text func(S) string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for _, c := range list {
		if t := text(c); t != "" {
			b.WriteString(" WHEN " + sqlText(string(c)) + " THEN " + sqlText(t))
		}
	}
	b.WriteString(" END")
	return b.String()
}

// The document number's parts, as finance.NumberParts splits it: the last
// run of ASCII digits (docRun) and what follows it (docTail).
const (
	docRun  = `substring(i.inv_number_fix from '([0-9]+)[^0-9]*$')`
	docTail = `substring(i.inv_number_fix from '[0-9]([^0-9]*)$')`
)

// domesticAmount is amount col in the domestic currency, rounded to its
// decimals (halves away from zero, as numeric's round and finance do).
func domesticAmount(col string) string { return "round(" + col + " * dd.rate, dd.decimals)" }

// syncShownStatuses are the sync statuses with which a document shows its
// sync document.
var syncShownStatuses = []finance.SyncStatus{finance.SyncDone, finance.SyncError, finance.SyncMisc, finance.SyncExported, finance.SyncInvalid}

// documentAttrs maps every attribute of finance.DocumentSpec to its
// expression over finance_invoices i and documentJoins, as
// finance.DocumentValue reads it: the
// text columns that keep ” read it as NULL, ids of unknown codes are
// NULL, and the domestic attributes are NULL without a domestic rate.
var documentAttrs = map[string]listAttr{
	"amountNoVat":             {"i.amount_no_vat", msgkit.AttrNumber},
	"amountVat":               {"i.amount_vat", msgkit.AttrNumber},
	"bizPartnerAddress":       {"nullif(i.cust_address, '')", msgkit.AttrString},
	"bizPartnerAttn":          {"nullif(i.cust_attn, '')", msgkit.AttrString},
	"bizPartnerBriefName":     {"i.cust_short_name", msgkit.AttrString},
	"bizPartnerCity":          {"nullif(i.cust_city, '')", msgkit.AttrString},
	"bizPartnerCountry":       {"i.cust_country", msgkit.AttrNumber},
	"bizPartnerExternalRefId": {"px.external_ref_id", msgkit.AttrString},
	"bizPartnerId":            {"i.cust_id", msgkit.AttrNumber},
	"bizPartnerName":          {"i.cust_name", msgkit.AttrString},
	"bizPartnerPost":          {"nullif(i.cust_post, '')", msgkit.AttrString},
	"bizPartnerType":          {"i.cust_type", msgkit.AttrString},
	"bizPartnerVatNumber":     {"nullif(i.cust_vat_number, '')", msgkit.AttrString},
	"currency":                {"i.currency", msgkit.AttrNumber},
	"currencyCode":            {currencyCodeExpr("i.currency"), msgkit.AttrString},
	"dataSourceCodeName":      {"i.data_source", msgkit.AttrString},
	"dataSourceId":            {"nullif(" + codeIDExpr("i.data_source", dataSourceCodes) + ", 0)", msgkit.AttrNumber},
	"dataSourceSelector":      {"i.selector", msgkit.AttrString},
	"deliveryDate":            {"i.delivery_date", msgkit.AttrDate},
	"disputeStatus":           {"i.dispute_status", msgkit.AttrString},
	"docsDeliveryStatus":      {"i.docs_delivery_status", msgkit.AttrString},
	"docsDeliveryStatusDate":  {"i.delivery_dt", msgkit.AttrDateTime},
	"documentClassArea":       {caseOf("i.class", finance.Classes(), finance.ClassArea), msgkit.AttrString},
	"documentClassCodeName":   {"i.class", msgkit.AttrString},
	"documentClassDomain":     {caseOf("i.class", finance.Classes(), finance.ClassDomain), msgkit.AttrString},
	"documentDate":            {"i.inv_date", msgkit.AttrDate},
	"documentNumber":          {"i.inv_number_fix", msgkit.AttrString},
	"documentNumberMask": {"CASE WHEN " + docRun + " IS NULL THEN i.inv_number_fix ELSE left(i.inv_number_fix, char_length(i.inv_number_fix) - char_length(" +
		docTail + ") - char_length(" + docRun + ")) || repeat('#', char_length(" + docRun + ")) || " + docTail + " END", msgkit.AttrString},
	"documentNumberNum": {"CASE WHEN char_length(ltrim(" + docRun + ", '0')) <= 18 THEN " + docRun + "::numeric END", msgkit.AttrNumber},
	"documentSync": {"CASE WHEN i.sync_status IN (" + sqlTexts(syncShownStatuses) + ") AND octet_length(i.document_sync) > 0" +
		" THEN convert_from(i.document_sync, 'UTF8') END", msgkit.AttrString},
	"documentType":         {"i.inv_type", msgkit.AttrNumber},
	"documentTypeName":     {"dt.name", msgkit.AttrString},
	"documentUuid":         {"i.uid", msgkit.AttrString},
	"domainCodeName":       {"i.domain", msgkit.AttrString},
	"domainId":             {"nullif(" + codeIDExpr("i.domain", domainCodes) + ", 0)", msgkit.AttrNumber},
	"domesticAmountNoVat":  {domesticAmount("i.amount_no_vat"), msgkit.AttrNumber},
	"domesticAmountVat":    {domesticAmount("i.amount_vat"), msgkit.AttrNumber},
	"domesticCurrency":     {"dd.currency", msgkit.AttrNumber},
	"domesticCurrencyCode": {currencyCodeExpr("dd.currency"), msgkit.AttrString},
	"domesticCurrencyRate": {"dd.rate", msgkit.AttrNumber},
	"domesticRounding":     {domesticAmount("i.total") + " - " + domesticAmount("i.amount_vat"), msgkit.AttrNumber},
	"domesticTotal":        {domesticAmount("i.total"), msgkit.AttrNumber},
	"dueDate":              {"i.inv_due_date", msgkit.AttrDate},
	"id":                   {"i.id", msgkit.AttrNumber},
	"insertDt":             {"i.insert_dt", msgkit.AttrDateTime},
	"instanceId":           {"i.instance_id", msgkit.AttrNumber},
	"lang":                 {"nullif(i.lang, '')", msgkit.AttrString},
	"ownerBpBriefName":     {"nullif(o.short_name, '')", msgkit.AttrString},
	"ownerBpName":          {"nullif(o.name, '')", msgkit.AttrString},
	"ownerId":              {"i.owner_id", msgkit.AttrNumber},
	"paymentStatus":        {"i.payment_status", msgkit.AttrString},
	// The payment's day at 00:00 UTC; the payment keeps "" for none.
	"paymentStatusDate": {"(nullif(i.payment->>'paymentDate', '')::date)::timestamp AT TIME ZONE 'UTC'", msgkit.AttrDateTime},
	"periodEnd":         {"i.inv_period_end", msgkit.AttrDate},
	"periodStart":       {"i.inv_period_start", msgkit.AttrDate},
	"rounding":          {"i.rounding", msgkit.AttrNumber},
	"selfBilling":       {"CASE WHEN dt.self_billing THEN 'yes' ELSE 'no' END", msgkit.AttrString},
	"status":            {"i.status", msgkit.AttrString},
	"statusDt":          {"i.status_dt", msgkit.AttrDateTime},
	"syncStatus":        {"i.sync_status", msgkit.AttrString},
	"syncStatusDt":      {"i.sync_status_dt", msgkit.AttrDateTime},
	"total":             {"i.total", msgkit.AttrNumber},
	"totalPaid":         {"i.total_paid", msgkit.AttrNumber},
	"totalUnpaid":       {"i.total_unpaid", msgkit.AttrNumber},
	"vat":               {"i.vat", msgkit.AttrNumber},
	"vatPercent":        {"i.vat_percent", msgkit.AttrNumber},
}

// The documents listings: of every partner, and of the partners in $1 (a
// bigint[], compared as numeric, the expression of the partner index).
var (
	documentsAll = listTable{From: "finance_invoices i", Joins: documentJoins, Select: "i.id", Scope: notDeleted, Attrs: documentAttrs, Order: "i.id"}
	documentsOwn = listTable{From: "finance_invoices i", Joins: documentJoins, Select: "i.id",
		Scope: notDeleted + " AND i.cust_id::numeric = ANY($1::bigint[]::numeric[])", Attrs: documentAttrs, Order: "i.id"}
)

// Documents lists the documents in scope as ListInvoices lists invoices:
// the page's ids through the listing engine (the search, filters and
// sort over documentAttrs), then, in the same read-only REPEATABLE READ
// transaction, the page's invoices and their operator data in one batch,
// and each document made by finance.DocumentOf.
func (s *FinanceStore) Documents(ctx context.Context, scope finance.Scope, q finance.DocumentQuery) (msgkit.Page[finance.Document], error) {
	table, args := scoped(scope, &documentsAll, &documentsOwn)
	return listInvoicePage(ctx, s.pool, table, q.Listing(), args, "documents", &dataParts{accounts: true, traffic: q.Traffic},
		func(inv *finance.Invoice, d finance.DocumentData) finance.Document {
			return finance.DocumentOf(inv, d, q.Traffic)
		})
}

// readInvoices reads the invoices of ids, in that order, for what.
func readInvoices(ctx context.Context, tx pgx.Tx, ids []int64, what string) ([]finance.Invoice, error) {
	rows, err := tx.Query(ctx, invoicePageSQL, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	invs := make([]finance.Invoice, 0, len(ids))
	for rows.Next() {
		inv, err := scanInvoice(rows)
		if err != nil {
			return nil, err
		}
		invs = append(invs, inv)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(invs) != len(ids) { // one snapshot: the rows listed are there
		return nil, storageError(fmt.Errorf("listed %d invoices, read %d", len(ids), len(invs)), what)
	}
	return invs, nil
}

// The statements of a page's operator data, each over arrays of keys.
const (
	ownersSQL = `SELECT id, name, short_name, attn, address, address2, post, city, po_box, vat_number, country, type
		FROM finance_partners WHERE id = ANY($1::bigint[])`
	partnerExportsSQL = `SELECT partner_id, coalesce(external_ref_id, ''), custom_attributes
		FROM finance_partner_exports WHERE partner_id = ANY($1::bigint[])`
	documentTypesSQL = `SELECT id, coalesce(name, ''), self_billing FROM finance_document_types WHERE id = ANY($1::bigint[])`
	domesticSQL      = `SELECT invoice_id, currency, rate::text FROM finance_document_domestic WHERE invoice_id = ANY($1::bigint[])`
	accountsSQL      = `SELECT r.kind, r.id, a.id, a.instance_id, a.biz_partner_id, a.currency, a.billing_type, a.name,
			a.custom_attributes, a.sms_connections, a.mnp_connections
		FROM unnest($1::smallint[], $2::bigint[]) AS k(kind, id)
		JOIN finance_source_records r ON r.kind = k.kind AND r.id = k.id
		JOIN finance_billing_accounts a ON a.id = r.account_id`
	trafficSQL = `SELECT invoice_id, biz_partner_id, biz_partner_brief_name, biz_partner_ext_ref_id, billing_account_id,
			billing_account_name, country_id, country_name, country_code2, operator_id, operator_name, mcc, mnc, start_dt, end_dt,
			sms_count, currency, price::text, total_amount::text
		FROM finance_traffic_reports WHERE invoice_id = ANY($1::bigint[]) ORDER BY invoice_id, ord`
)

// relatedSQL reads the invoices views name: those of $1 (statements and
// leads) and the statements of the leads in $2.
var relatedSQL = invoiceSelectSQL + ` WHERE i.id = ANY($1::bigint[])
	OR i.id IN (SELECT l.netting_invoice_id FROM finance_invoices l WHERE l.id = ANY($2::bigint[]) AND l.netting_invoice_id <> 0)`

// dataParts are the parts of DocumentData a read looks up beside the
// operator data both documents and views read (owner, partner, type,
// domestic rate): a document's accounts and traffic reports, a view's
// related invoices.
type dataParts struct {
	accounts, traffic, related bool
}

// batchSender is a pool or a transaction: what readDocumentData sends its
// batch on.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// readDocumentData reads the operator data of invs in one batch: each
// invoice's DocumentData, in invs' order, with the parts asked for;
// traffic reports only for the invoices that have them.
func readDocumentData(ctx context.Context, tx batchSender, invs []finance.Invoice, parts dataParts) ([]finance.DocumentData, error) {
	var owners, partners, types, ids, trafficIDs, relatedIDs, leadIDs []int64
	var kinds []int16
	var recordIDs []int64
	for i := range invs {
		inv := &invs[i]
		owners, partners = append(owners, inv.OwnerID), append(partners, inv.Customer.ID)
		types, ids = append(types, inv.InvType), append(ids, int64(inv.ID))
		if parts.accounts {
			for _, ref := range finance.DocumentSources(inv) {
				kinds, recordIDs = append(kinds, int16(ref.Kind)), append(recordIDs, ref.ID)
			}
		}
		if parts.traffic && finance.TrafficEligible(inv) {
			trafficIDs = append(trafficIDs, int64(inv.ID))
		}
		if parts.related && inv.CollectionLeadID != 0 {
			leadIDs = append(leadIDs, inv.CollectionLeadID)
		}
	}
	if parts.related {
		for _, id := range finance.RelatedIDs(invs) {
			relatedIDs = append(relatedIDs, int64(id))
		}
	}
	b := &pgx.Batch{}
	b.Queue(ownersSQL, owners)
	b.Queue(partnerExportsSQL, partners)
	b.Queue(documentTypesSQL, types)
	b.Queue(domesticSQL, ids)
	if parts.accounts {
		b.Queue(accountsSQL, kinds, recordIDs)
	}
	if len(trafficIDs) > 0 {
		b.Queue(trafficSQL, trafficIDs)
	}
	if len(relatedIDs) > 0 {
		b.Queue(relatedSQL, relatedIDs, leadIDs)
	}
	br := tx.SendBatch(ctx, b)
	defer br.Close()

	var r exportRead
	r.owners, r.err = collectMap(br, func(row pgx.CollectableRow) (int64, finance.Partner, error) {
		var p finance.Partner
		var country int64
		err := row.Scan(&p.ID, &p.Name, &p.ShortName, &p.Attn, &p.Address, &p.Address2, &p.Post, &p.City, &p.POBox,
			&p.VatNumber, &country, &p.Type)
		p.Country = int(country)
		return p.ID, p, err
	})
	r.partners = collectMapThen(&r, br, func(row pgx.CollectableRow) (int64, finance.PartnerExport, error) {
		var p finance.PartnerExport
		var attrs []byte
		if err := row.Scan(&p.PartnerID, &p.ExternalRefID, &attrs); err != nil {
			return 0, p, err
		}
		var err error
		p.CustomAttributes, err = readAttributes(attrs)
		return p.PartnerID, p, err
	})
	r.types = collectMapThen(&r, br, func(row pgx.CollectableRow) (int64, finance.DocumentType, error) {
		var t finance.DocumentType
		err := row.Scan(&t.ID, &t.Name, &t.SelfBilling)
		return t.ID, t, err
	})
	r.domestic = collectMapThen(&r, br, func(row pgx.CollectableRow) (int64, finance.DomesticRate, error) {
		var id int64
		var cur int32
		var rate string
		if err := row.Scan(&id, &cur, &rate); err != nil {
			return 0, finance.DomesticRate{}, err
		}
		var d finance.DomesticRate
		var err error
		if d.Currency, err = currencyOf(cur); err != nil {
			return 0, d, err
		}
		d.Rate, err = parseNumeric(rate)
		return id, d, err
	})
	if parts.accounts {
		r.accounts = collectMapThen(&r, br, scanAccount)
	}
	if len(trafficIDs) > 0 && r.err == nil {
		r.traffic, r.err = collectTraffic(br)
	}
	if len(relatedIDs) > 0 && r.err == nil {
		r.related, r.err = collectRelated(br)
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}

	out := make([]finance.DocumentData, len(invs))
	for i := range invs {
		inv := &invs[i]
		d := finance.DocumentData{Partner: r.partners[inv.Customer.ID], Traffic: r.traffic[int64(inv.ID)]}
		if p, ok := r.owners[inv.OwnerID]; ok {
			d.Owner = &p
		}
		if t, ok := r.types[inv.InvType]; ok {
			d.Type = &t
		}
		if dom, ok := r.domestic[int64(inv.ID)]; ok {
			d.Domestic = &dom
		}
		d.Netting = r.related[finance.InvoiceID(inv.NettingInvoiceID)]
		if d.Lead = r.related[finance.InvoiceID(inv.CollectionLeadID)]; d.Lead != nil {
			d.LeadNetting = r.related[finance.InvoiceID(d.Lead.NettingInvoiceID)]
		}
		for _, ref := range finance.DocumentSources(inv) {
			if a, ok := r.accounts[ref]; ok {
				if d.Accounts == nil {
					d.Accounts = map[finance.SourceRef]finance.BillingAccount{}
				}
				d.Accounts[ref] = a
			}
		}
		out[i] = d
	}
	return out, nil
}

// exportRead is the operator data of a page, as its batch is read.
type exportRead struct {
	owners   map[int64]finance.Partner
	partners map[int64]finance.PartnerExport
	types    map[int64]finance.DocumentType
	domestic map[int64]finance.DomesticRate
	accounts map[finance.SourceRef]finance.BillingAccount
	traffic  map[int64][]finance.TrafficReport
	related  map[finance.InvoiceID]*finance.Invoice
	err      error
}

// collectRelated reads the related invoices of a batch by id.
func collectRelated(br pgx.BatchResults) (map[finance.InvoiceID]*finance.Invoice, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[finance.InvoiceID]*finance.Invoice{}
	for rows.Next() {
		inv, err := scanInvoice(rows)
		if err != nil {
			return nil, err
		}
		out[inv.ID] = &inv
	}
	return out, rows.Err()
}

// collectMap reads the next result of br into a map by the key row gives.
func collectMap[K comparable, V any](br pgx.BatchResults, row func(pgx.CollectableRow) (K, V, error)) (map[K]V, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	out := map[K]V{}
	_, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct{}, error) {
		k, v, err := row(r)
		if err != nil {
			return struct{}{}, err
		}
		out[k] = v
		return struct{}{}, nil
	})
	return out, err
}

// collectMapThen is collectMap after the reads before it succeeded.
func collectMapThen[K comparable, V any](r *exportRead, br pgx.BatchResults, row func(pgx.CollectableRow) (K, V, error)) map[K]V {
	if r.err != nil {
		return nil
	}
	m, err := collectMap(br, row)
	r.err = err
	return m
}

func scanAccount(row pgx.CollectableRow) (finance.SourceRef, finance.BillingAccount, error) {
	var ref finance.SourceRef
	var kind int16
	var a finance.BillingAccount
	var cur int32
	var attrs, sms, mnp []byte
	err := row.Scan(&kind, &ref.ID, &a.ID, &a.InstanceID, &a.BizPartnerID, &cur, &a.BillingType, &a.Name, &attrs, &sms, &mnp)
	if err != nil {
		return ref, a, err
	}
	ref.Kind = finance.RecordKind(kind)
	if a.Currency, err = currencyOf(cur); err != nil {
		return ref, a, err
	}
	if a.CustomAttributes, err = readAttributes(attrs); err != nil {
		return ref, a, err
	}
	if a.SMSConnections, err = readConnections(sms); err != nil {
		return ref, a, err
	}
	a.MNPConnections, err = readConnections(mnp)
	return ref, a, err
}

// collectTraffic reads the traffic reports of a batch, by invoice.
func collectTraffic(br pgx.BatchResults) (map[int64][]finance.TrafficReport, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	out := map[int64][]finance.TrafficReport{}
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var id int64
		var r finance.TrafficReport
		var start, end pgtype.Timestamptz
		var cur int32
		var price, total string
		if err := row.Scan(&id, &r.BizPartnerID, &r.BizPartnerBriefName, &r.BizPartnerExtRefID, &r.BillingAccountID,
			&r.BillingAccountName, &r.CountryID, &r.CountryName, &r.CountryCode2, &r.OperatorID, &r.OperatorName, &r.MCC, &r.MNC,
			&start, &end, &r.SMSCount, &cur, &price, &total); err != nil {
			return struct{}{}, err
		}
		r.StartDt, r.EndDt = fromNullTime(start), fromNullTime(end)
		var err error
		if r.Currency, err = currencyOf(cur); err != nil {
			return struct{}{}, err
		}
		if r.Price, err = parseNumeric(price); err != nil {
			return struct{}{}, err
		}
		if r.TotalAmount, err = parseNumeric(total); err != nil {
			return struct{}{}, err
		}
		out[id] = append(out[id], r)
		return struct{}{}, nil
	})
	return out, err
}
