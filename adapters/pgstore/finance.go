package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var _ finance.Store = (*FinanceStore)(nil)

// FinanceStore keeps business partners and invoices (see the package
// doc's Finance section and 0008_finance.sql).
type FinanceStore struct {
	pool *pgxpool.Pool
	log  *storeLog
}

// Finance is the store of business partners and invoices. It holds
// nothing but the DB's pool and logger, so every call returns a view of
// the same tables.
func (db *DB) Finance() *FinanceStore { return &FinanceStore{pool: db.pool, log: db.log} }

func partnerWhat(id int64) string { return "business partner " + strconv.FormatInt(id, 10) }

func invoiceWhat(id finance.InvoiceID) string { return "invoice " + strconv.FormatInt(int64(id), 10) }

// PutPartner creates or replaces a partner's stored data. Text PostgreSQL
// cannot hold is Invalid.
func (s *FinanceStore) PutPartner(ctx context.Context, p finance.Partner) error {
	var c fieldCheck
	c.partnerText("partner", "", p)
	if c.err != nil {
		return c.err
	}
	const q = `INSERT INTO finance_partners AS p (id, name, short_name, attn, address, address2, post, city, po_box,
			vat_number, country, type)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (id) DO UPDATE SET (name, short_name, attn, address, address2, post, city, po_box, vat_number,
			country, type) = (excluded.name, excluded.short_name, excluded.attn, excluded.address, excluded.address2,
			excluded.post, excluded.city, excluded.po_box, excluded.vat_number, excluded.country, excluded.type)`
	_, err := s.pool.Exec(ctx, q, p.ID, p.Name, p.ShortName, p.Attn, p.Address, p.Address2, p.Post, p.City, p.POBox,
		p.VatNumber, int64(p.Country), p.Type)
	return classify(err, "partner", partnerWhat(p.ID))
}

// Partner returns a partner, or NotFound.
func (s *FinanceStore) Partner(ctx context.Context, id int64) (finance.Partner, error) {
	const q = `SELECT name, short_name, attn, address, address2, post, city, po_box, vat_number, country, type
		FROM finance_partners WHERE id = $1`
	p := finance.Partner{ID: id}
	var country int64
	err := s.pool.QueryRow(ctx, q, id).Scan(&p.Name, &p.ShortName, &p.Attn, &p.Address, &p.Address2, &p.Post,
		&p.City, &p.POBox, &p.VatNumber, &country, &p.Type)
	if err != nil {
		return finance.Partner{}, classify(err, "partner", partnerWhat(id))
	}
	if int64(int(country)) != country {
		return finance.Partner{}, storageError(fmt.Errorf("country %d out of range", country), partnerWhat(id))
	}
	p.Country = int(country)
	return p, nil
}

// CreateInvoice stores inv under the next id of the table's identity, so
// ids ascend, and returns the invoice as stored (inv's ID is ignored).
// An empty UID, text PostgreSQL cannot hold, a date that does not exist and a currency
// other than one of finance.Currencies (or the zero Currency) are Invalid,
// every such field named; a UID another invoice has is Conflict
// (finance_invoices_uid_key). Times are kept to the microsecond, in UTC.
func (s *FinanceStore) CreateInvoice(ctx context.Context, inv finance.Invoice) (finance.Invoice, error) {
	args, err := invoiceArgs(inv)
	if err != nil {
		return finance.Invoice{}, err
	}
	got, err := scanInvoice(s.pool.QueryRow(ctx, invoiceInsertSQL, args...))
	if err != nil {
		return finance.Invoice{}, readError(err, "invoice", "invoice")
	}
	return got, nil
}

// Invoice returns an invoice, deleted ones included, or NotFound.
func (s *FinanceStore) Invoice(ctx context.Context, id finance.InvoiceID) (finance.Invoice, error) {
	inv, err := scanInvoice(s.pool.QueryRow(ctx, invoiceSelectSQL+" WHERE i.id = $1", int64(id)))
	if err != nil {
		return finance.Invoice{}, readError(err, "invoice", invoiceWhat(id))
	}
	return inv, nil
}

// UpdateInvoice locks the invoice's row (SELECT … FOR UPDATE), runs change
// on it and writes what change returns, with the id and UID unchanged, in one
// transaction; concurrent updates of one invoice therefore run one after
// the other, each seeing the one before. An error from change is returned
// as it is and nothing is written, as is an Invalid record (see
// CreateInvoice). An unknown id is NotFound. A serialization failure or a
// deadlock (which READ COMMITTED does not raise here) runs the whole
// transaction again, change included, as inTx does.
func (s *FinanceStore) UpdateInvoice(ctx context.Context, id finance.InvoiceID, change func(finance.Invoice) (finance.Invoice, error)) (finance.Invoice, error) {
	var out finance.Invoice
	err := inTx(ctx, s.pool, s.log, "invoice update", func(tx pgx.Tx) error {
		stored, err := scanInvoice(tx.QueryRow(ctx, invoiceSelectSQL+" WHERE i.id = $1 FOR UPDATE", int64(id)))
		if err != nil {
			return finalIfMsgkit(err)
		}
		next, err := change(stored)
		if err != nil {
			return final{err}
		}
		next.ID, next.UID = id, stored.UID
		args, err := invoiceArgs(next)
		if err != nil {
			return final{err}
		}
		out, err = scanInvoice(tx.QueryRow(ctx, invoiceUpdateSQL, append(args, int64(id))...))
		return finalIfMsgkit(err)
	})
	if f, ok := errors.AsType[final](err); ok {
		return finance.Invoice{}, f.err
	}
	if err != nil {
		return finance.Invoice{}, classify(err, "invoice", invoiceWhat(id))
	}
	return out, nil
}

// finalIfMsgkit marks a *msgkit.Error (a corrupt row, already worded) as
// final; database errors stay as they are, for inTx to retry or the caller
// to classify.
func finalIfMsgkit(err error) error {
	if _, ok := errors.AsType[*msgkit.Error](err); ok {
		return final{err}
	}
	return err
}

// readError returns a *msgkit.Error as it is (a corrupt row) and
// classifies anything else.
func readError(err error, thing, what string) error {
	if _, ok := errors.AsType[*msgkit.Error](err); ok {
		return err
	}
	return classify(err, thing, what)
}

// ListInvoices lists the views of the invoices that are not deleted of
// the partners in scope, filtered, sorted and paged by q in the database
// (listPage), in two steps in one read-only REPEATABLE READ transaction,
// so both see the same snapshot: the listing selects the page's ids only,
// which an index-only scan can answer however many rows the total counts,
// and the page's invoices and what their views read are then read by id.
func (s *FinanceStore) ListInvoices(ctx context.Context, q msgkit.ListQuery, scope finance.Scope, today msgkit.Date) (msgkit.Page[finance.View], error) {
	table, args := scoped(scope, &invoicesAll, &invoicesOwn, pgtype.Date{Time: today.In(time.UTC), Valid: true})
	return listInvoicePage(ctx, s.pool, table, q, args, "invoice listing", &dataParts{related: true},
		func(inv *finance.Invoice, d finance.DocumentData) finance.View { return finance.ViewOf(inv, d, today) })
}

// scoped is the listing of scope, all's or own's, and its arguments:
// first, then for own the partners in scope (an empty array, not NULL,
// for none).
func scoped(scope finance.Scope, all, own *listTable, first ...any) (*listTable, []any) {
	if scope.All {
		return all, first
	}
	partners := scope.Partners
	if partners == nil {
		partners = []int64{}
	}
	return own, append(first, partners)
}

// InvoiceData reads what the views of invs read beside them, in one
// batch.
func (s *FinanceStore) InvoiceData(ctx context.Context, invs []finance.Invoice) ([]finance.DocumentData, error) {
	if len(invs) == 0 {
		return nil, nil
	}
	data, err := readDocumentData(ctx, s.pool, invs, dataParts{related: true})
	if err != nil {
		return nil, readError(err, "invoice", "invoice data")
	}
	return data, nil
}

// listInvoicePage lists invoice ids through the engine (table, q, args),
// then reads those invoices by id, with the parts of their data when
// parts is not nil (readDocumentData), and turns each into a T, all in
// one read-only REPEATABLE READ transaction, so the later steps find
// every row the first listed.
func listInvoicePage[T any](ctx context.Context, pool *pgxpool.Pool, table *listTable, q msgkit.ListQuery, args []any,
	what string, parts *dataParts, row func(*finance.Invoice, finance.DocumentData) T) (msgkit.Page[T], error) {
	var page msgkit.Page[T]
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, pool, opts, func(tx pgx.Tx) error {
		ids, err := listPage(ctx, tx, table, q, pgx.RowTo[int64], args...)
		if err != nil {
			return err
		}
		page.Total = ids.Total
		page.Items = make([]T, 0, len(ids.Items))
		if len(ids.Items) == 0 {
			return nil
		}
		invs, err := readInvoices(ctx, tx, ids.Items, what)
		if err != nil {
			return err
		}
		data := make([]finance.DocumentData, len(invs))
		if parts != nil {
			if data, err = readDocumentData(ctx, tx, invs, *parts); err != nil {
				return err
			}
		}
		for i := range invs {
			page.Items = append(page.Items, row(&invs[i], data[i]))
		}
		return nil
	})
	if err != nil {
		return msgkit.Page[T]{}, readError(err, "listing", "listing")
	}
	return page, nil
}

// invoiceJoins join to each invoice what its view reads: the operator
// data the documents export joins (documentJoins) and the invoices it is
// a member of, its netting statement (n) and its collection lead (l);
// each at most one row, by primary key, and each only for a query that
// reads it.
var invoiceJoins = append(slices.Clone(documentJoins),
	listJoin{"n", "LEFT JOIN finance_invoices n ON n.id = i.netting_invoice_id"},
	listJoin{"l", "LEFT JOIN finance_invoices l ON l.id = i.collection_lead_id"})

// invoiceAttrs maps every attribute of finance.InvoiceSpec to its
// expression over finance_invoices i and invoiceJoins, as
// finance.InvoiceValue reads the view.
// The text columns are NULL for an empty string, as finance reads an
// empty attribute as null, so most attributes are a plain column that an
// index can serve. custID is compared as numeric, as the listing binds
// numbers, and finance_invoices_cust_idx is on that expression.
// overDueDate counts to the listing's day, $1.
var invoiceAttrs = map[string]listAttr{
	"id":                  {"i.id", msgkit.AttrNumber},
	"custID":              {"i.cust_id", msgkit.AttrNumber},
	"custName":            {"i.cust_name", msgkit.AttrString},
	"custShortName":       {"i.cust_short_name", msgkit.AttrString},
	"customerShortName":   {"i.cust_short_name", msgkit.AttrString},
	"custPOBox":           {"i.cust_po_box", msgkit.AttrString},
	"custCountry":         {"i.cust_country", msgkit.AttrNumber},
	"customerType":        {"i.cust_type", msgkit.AttrString},
	"externalRefId":       {"px.external_ref_id", msgkit.AttrString},
	"classCodeName":       {"i.class", msgkit.AttrString},
	"dataSourceCodeName":  {"i.data_source", msgkit.AttrString},
	"domainCodeName":      {"i.domain", msgkit.AttrString},
	"domainName":          {caseOf("i.domain", finance.Domains(), finance.DomainName), msgkit.AttrString},
	"dtsSelectorCodeName": {"i.selector", msgkit.AttrString},
	"dtsSelectorId": {"CASE WHEN i.selector = " + sqlText(finance.PartPayment) + " THEN 1 WHEN i.selector IS NOT NULL THEN 0" +
		" WHEN i.data_source = " + sqlText(string(finance.Postpaid)) + " THEN 0 END", msgkit.AttrNumber},
	"currency":        {"i.currency", msgkit.AttrNumber},
	"invType":         {"i.inv_type", msgkit.AttrNumber},
	"invoiceType":     {"i.inv_type", msgkit.AttrNumber},
	"invTypeName":     {"dt.name", msgkit.AttrString},
	"invoiceTypeName": {"dt.name", msgkit.AttrString},
	"selfBilling":     {"CASE WHEN dt.self_billing THEN 'yes' ELSE 'no' END", msgkit.AttrString},
	"invUid":          {"i.uid", msgkit.AttrString},
	"invNumber":       {"i.inv_number_fix", msgkit.AttrString},
	"invPeriod":       {"i.inv_period", msgkit.AttrString},
	"invDate":         {"i.inv_date", msgkit.AttrDate},
	"invDueDate":      {"i.inv_due_date", msgkit.AttrDate},
	"invoicingDate":   {"i.invoicing_date", msgkit.AttrDate},
	"deliveryDate":    {"i.delivery_date", msgkit.AttrDate},
	"invPeriodStart":  {"i.inv_period_start", msgkit.AttrDate},
	"invPeriodEnd":    {"i.inv_period_end", msgkit.AttrDate},
	"overDueDate": {"CASE WHEN i.payment_status IN (" + sqlTexts([]finance.PaymentStatus{finance.PaymentOpen, finance.PaymentOnHold}) +
		") AND i.inv_due_date < $1::date THEN $1::date - i.inv_due_date ELSE 0 END", msgkit.AttrNumber},
	"amountNoVat":                 {"i.amount_no_vat", msgkit.AttrNumber},
	"amountVat":                   {"i.amount_vat", msgkit.AttrNumber},
	"vat":                         {"i.vat", msgkit.AttrNumber},
	"rounding":                    {"i.rounding", msgkit.AttrNumber},
	"total":                       {"i.total", msgkit.AttrNumber},
	"totalPaid":                   {"i.total_paid", msgkit.AttrNumber},
	"totalUnpaid":                 {"i.total_unpaid", msgkit.AttrNumber},
	"status":                      {"i.status", msgkit.AttrString},
	"statusDt":                    {"i.status_dt", msgkit.AttrDateTime},
	"paymentStatus":               {"i.payment_status", msgkit.AttrString},
	"syncStatus":                  {"i.sync_status", msgkit.AttrString},
	"syncStatusDt":                {"i.sync_status_dt", msgkit.AttrDateTime},
	"syncMode":                    {"i.sync_mode", msgkit.AttrString},
	"documentSync":                {"CASE WHEN octet_length(i.document_sync) > 0 THEN convert_from(i.document_sync, 'UTF8') END", msgkit.AttrString},
	"docsDeliveryStatus":          {"i.docs_delivery_status", msgkit.AttrString},
	"processingStatus":            {"i.processing_status", msgkit.AttrString},
	"disputeStatus":               {"i.dispute_status", msgkit.AttrString},
	"invoicingDatePolicy":         {"i.invoicing_date_policy", msgkit.AttrString},
	"collectionMode":              {"i.collection_mode", msgkit.AttrString},
	"collectionLeadId":            {"nullif(i.collection_lead_id, 0)", msgkit.AttrNumber},
	"collectionLeadNumber":        {"l.inv_number_fix", msgkit.AttrString},
	"nettingInvoiceId":            {"nullif(i.netting_invoice_id, 0)", msgkit.AttrNumber},
	"nettingInvoiceStatus":        {"n.status", msgkit.AttrString},
	"nettingInvoicePaymentStatus": {"n.payment_status", msgkit.AttrString},
	"ownerId":                     {"i.owner_id", msgkit.AttrNumber},
	"ownerBpName":                 {"nullif(o.name, '')", msgkit.AttrString},
	"ownerBpBriefName":            {"nullif(o.short_name, '')", msgkit.AttrString},
}

// notDeleted is the listing's condition on every row. IS DISTINCT FROM,
// as an invoice without a status (NULL) is listed, as memstore lists it.
const notDeleted = "i.status IS DISTINCT FROM 'deleted'"

// The invoice listings: of every partner, and of the partners in $2 (a
// bigint[]; compared as numeric, the expression of the partner index).
// Both take the listing's day as $1, which overDueDate reads; the scope
// names it so that its type is known whether or not an attribute reads it.
var (
	invoicesAll = listTable{From: "finance_invoices i", Joins: invoiceJoins, Select: "i.id", Scope: "$1::date IS NOT NULL AND " + notDeleted,
		Attrs: invoiceAttrs, Order: "i.id"}
	invoicesOwn = listTable{From: "finance_invoices i", Joins: invoiceJoins, Select: "i.id",
		Scope: "$1::date IS NOT NULL AND " + notDeleted + " AND i.cust_id::numeric = ANY($2::bigint[]::numeric[])",
		Attrs: invoiceAttrs, Order: "i.id"}
)

// invoiceWriteColumns are the columns an insert or update writes, in the
// order of invoiceArgs.
var invoiceWriteColumns = []string{
	"instance_id", "owner_id", "uid",
	"class", "data_source", "domain", "selector",
	"cust_id", "cust_name", "cust_short_name", "cust_attn", "cust_address", "cust_address2", "cust_post", "cust_city",
	"cust_po_box", "cust_vat_number", "cust_country", "cust_type",
	"inv_type", "template_id", "lang", "inv_number_fix", "supplier_inv_number", "inv_number", "inv_period",
	"owner_vat_number",
	"inv_date", "invoicing_date", "delivery_date", "inv_due_date", "inv_period_start", "inv_period_end",
	"currency", "vat_in_price", "vat_in_total", "vat_percent", "cash_round",
	"amount_no_vat", "amount_vat", "vat", "rounding", "total", "total_paid", "total_unpaid",
	"status", "payment_status", "sync_status", "docs_delivery_status", "collection_mode", "collection_lead_id",
	"netting_invoice_id", "reminder_status", "comment", "document_sync",
	"items", "payment", "source_billing_id", "source_credit_id",
	"insert_dt", "status_dt", "sync_status_dt", "delivery_dt",
	"processing_status", "dispute_status", "dispute_status_dt", "invoicing_date_policy", "sync_mode",
}

// numericColumns are the columns of invoiceWriteColumns bound as decimal
// text.
var numericColumns = map[string]bool{
	"vat_percent": true, "amount_no_vat": true, "amount_vat": true, "vat": true, "rounding": true, "total": true,
	"total_paid": true, "total_unpaid": true,
}

// invoiceColumns is the select list of an invoice, in the order of
// invoiceRow.dest; the text columns that hold NULL for "" read as "".
const invoiceColumns = `i.id, i.instance_id, i.owner_id, i.uid,
	coalesce(i.class, ''), coalesce(i.data_source, ''), coalesce(i.domain, ''), coalesce(i.selector, ''),
	i.cust_id, coalesce(i.cust_name, ''), coalesce(i.cust_short_name, ''), i.cust_attn, i.cust_address,
	i.cust_address2, i.cust_post, i.cust_city, coalesce(i.cust_po_box, ''), i.cust_vat_number, i.cust_country,
	coalesce(i.cust_type, ''),
	i.inv_type, i.template_id, i.lang, coalesce(i.inv_number_fix, ''), i.supplier_inv_number, i.inv_number,
	coalesce(i.inv_period, ''), i.owner_vat_number,
	i.inv_date, i.invoicing_date, i.delivery_date, i.inv_due_date, i.inv_period_start, i.inv_period_end,
	i.currency, i.vat_in_price, i.vat_in_total, i.vat_percent::text, i.cash_round,
	i.amount_no_vat::text, i.amount_vat::text, i.vat::text, i.rounding::text, i.total::text, i.total_paid::text,
	i.total_unpaid::text,
	coalesce(i.status, ''), coalesce(i.payment_status, ''), coalesce(i.sync_status, ''),
	coalesce(i.docs_delivery_status, ''), coalesce(i.collection_mode, ''), i.collection_lead_id,
	i.netting_invoice_id, i.reminder_status, i.comment, i.document_sync,
	i.items, i.payment, i.source_billing_id, i.source_credit_id,
	i.insert_dt, i.status_dt, i.sync_status_dt, i.delivery_dt,
	coalesce(i.processing_status, ''), coalesce(i.dispute_status, ''), i.dispute_status_dt,
	coalesce(i.invoicing_date_policy, ''), coalesce(i.sync_mode, '')`

// The invoice statements. The insert and the update return the row as
// stored, read by the same code as a select.
var (
	invoiceSelectSQL = "SELECT " + invoiceColumns + " FROM finance_invoices i"
	invoiceInsertSQL = "INSERT INTO finance_invoices AS i (" + strings.Join(invoiceWriteColumns, ", ") +
		") VALUES (" + invoicePlaceholders(invoiceWriteColumns, 1) + ") RETURNING " + invoiceColumns
	invoiceUpdateSQL = "UPDATE finance_invoices AS i SET (" + strings.Join(invoiceWriteColumns, ", ") + ") = ROW(" +
		invoicePlaceholders(invoiceWriteColumns, 1) + ") WHERE i.id = $" + strconv.Itoa(len(invoiceWriteColumns)+1) +
		" RETURNING " + invoiceColumns
	// invoicePageSQL reads a listing's page: the invoices with the ids in
	// $1, in that order.
	invoicePageSQL = "SELECT " + invoiceColumns + ` FROM unnest($1::bigint[]) WITH ORDINALITY AS p(id, n)
		JOIN finance_invoices i ON i.id = p.id ORDER BY p.n`
)

// invoicePlaceholders returns "$from, $from+1, …", one per column, numeric
// columns cast from their decimal text.
func invoicePlaceholders(columns []string, from int) string {
	var b strings.Builder
	for i, c := range columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
		if numericColumns[c] {
			b.WriteString("::numeric")
		}
	}
	return b.String()
}

// invoiceArgs checks inv and returns the values of invoiceWriteColumns.
func invoiceArgs(inv finance.Invoice) ([]any, error) {
	var c fieldCheck
	if inv.UID == "" {
		c.fail("invoice_invalid", "invUid", "invUid must not be empty")
	}
	c.text("invUid", inv.UID)
	c.text("classCodeName", string(inv.Class))
	c.text("dataSourceCodeName", string(inv.DataSource))
	c.text("domainCodeName", string(inv.Domain))
	c.text("dtsSelectorCodeName", inv.Selector)
	c.partnerText("invoice", "customer.", inv.Customer)
	c.text("lang", inv.Lang)
	c.text("invNumberFix", inv.InvNumberFix)
	c.text("supplierInvNumber", inv.SupplierInvNumber)
	c.text("invNumber", inv.InvNumber)
	c.text("invPeriod", inv.InvPeriod)
	c.text("ownerVatNumber", inv.OwnerVatNumber)
	c.text("status", string(inv.Status))
	c.text("paymentStatus", string(inv.PaymentStatus))
	c.text("syncStatus", string(inv.SyncStatus))
	c.text("docsDeliveryStatus", string(inv.DocsDeliveryStatus))
	c.text("collectionMode", inv.CollectionMode)
	c.text("reminderStatus", inv.ReminderStatus)
	c.text("comment", inv.Comment)
	c.text("processingStatus", inv.ProcessingStatus)
	c.text("disputeStatus", inv.DisputeStatus)
	c.text("invoicingDatePolicy", inv.InvoicingDatePolicy)
	c.text("syncMode", inv.SyncMode)
	dates := [...]any{
		c.date("invDate", inv.InvDate), c.date("invoicingDate", inv.InvoicingDate),
		c.date("deliveryDate", inv.DeliveryDate), c.date("invDueDate", inv.InvDueDate),
		c.date("invPeriodStart", inv.InvPeriodStart), c.date("invPeriodEnd", inv.InvPeriodEnd),
	}
	c.currency(inv.Currency)
	items := c.items(inv.Items)
	payment := c.payment(inv.Payment)
	if c.err != nil {
		return nil, c.err
	}
	var billing, credit any // nil: no source record
	if r := inv.SourceRecord; r != nil {
		billing, credit = r.BillingRecordID, r.CreditRecordID
	}
	return []any{
		inv.InstanceID, inv.OwnerID, nullText(inv.UID),
		nullText(string(inv.Class)), nullText(string(inv.DataSource)), nullText(string(inv.Domain)), nullText(inv.Selector),
		inv.Customer.ID, nullText(inv.Customer.Name), nullText(inv.Customer.ShortName), inv.Customer.Attn,
		inv.Customer.Address, inv.Customer.Address2, inv.Customer.Post, inv.Customer.City, nullText(inv.Customer.POBox),
		inv.Customer.VatNumber, int64(inv.Customer.Country), nullText(inv.Customer.Type),
		inv.InvType, inv.TemplateID, inv.Lang, nullText(inv.InvNumberFix), inv.SupplierInvNumber, inv.InvNumber,
		nullText(inv.InvPeriod), inv.OwnerVatNumber,
		dates[0], dates[1], dates[2], dates[3], dates[4], dates[5],
		int32(inv.Currency.Numeric), int16(inv.VatInPrice), int64(inv.VatInTotal), numericText(inv.VatPercent), inv.CashRound,
		numericText(inv.AmountNoVat), numericText(inv.AmountVat), numericText(inv.Vat), numericText(inv.Rounding),
		numericText(inv.Total), numericText(inv.TotalPaid), numericText(inv.TotalUnpaid),
		nullText(string(inv.Status)), nullText(string(inv.PaymentStatus)), nullText(string(inv.SyncStatus)),
		nullText(string(inv.DocsDeliveryStatus)), nullText(inv.CollectionMode), inv.CollectionLeadID,
		inv.NettingInvoiceID, inv.ReminderStatus, inv.Comment, []byte(inv.DocumentSync),
		items, payment, billing, credit,
		dbTime(inv.InsertDt), dbTime(inv.StatusDt), nullTime(inv.SyncStatusDt), nullTime(inv.DeliveryDt),
		nullText(inv.ProcessingStatus), nullText(inv.DisputeStatus), nullTime(inv.DisputeDt),
		nullText(inv.InvoicingDatePolicy), nullText(inv.SyncMode),
	}, nil
}

// nullText is s for a text column that holds NULL for "".
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullTime is t to the microsecond in UTC for a nullable timestamptz, nil
// (NULL) for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return dbTime(t)
}

// fieldCheck collects the fields of a record that the tables cannot hold,
// every one of them named in one Invalid error.
type fieldCheck struct{ err *msgkit.Error }

func (c *fieldCheck) fail(code, field, format string, args ...any) {
	if c.err == nil {
		c.err = msgkit.Invalidf(code, field, format, args...)
		return
	}
	c.err.WithField(field, fmt.Sprintf(format, args...), "")
}

func (c *fieldCheck) text(field, s string) {
	if !storable(s) {
		c.fail("invoice_invalid", field, "%s must be valid UTF-8 without NUL characters", field)
	}
}

// partnerText checks p's text for a partner (thing "partner") or an
// invoice's customer (prefix "customer.").
func (c *fieldCheck) partnerText(thing, prefix string, p finance.Partner) {
	for _, f := range []struct{ name, value string }{
		{"name", p.Name}, {"shortName", p.ShortName}, {"attn", p.Attn}, {"address", p.Address},
		{"address2", p.Address2}, {"post", p.Post}, {"city", p.City}, {"poBox", p.POBox},
		{"vatNumber", p.VatNumber}, {"type", p.Type},
	} {
		if !storable(f.value) {
			c.fail(thing+"_invalid", prefix+f.name, "%s%s must be valid UTF-8 without NUL characters", prefix, f.name)
		}
	}
}

// date is d for a date column: NULL for the zero Date. A date that does
// not exist is refused, as time.Date would move it to another day.
func (c *fieldCheck) date(field string, d msgkit.Date) any {
	if d.IsZero() {
		return nil
	}
	if !d.IsValid() {
		c.fail("invoice_invalid", field, "%s %s is not a date", field, d)
		return nil
	}
	return pgtype.Date{Time: d.In(time.UTC), Valid: true}
}

// currency refuses a currency the store could not read back: one that is
// not exactly finance.CurrencyByNumeric's for its code, except the zero
// Currency (none).
func (c *fieldCheck) currency(cur finance.Currency) {
	if cur.Numeric == 0 && cur.Code == "" && cur.Decimals == 0 && cur.Cash.IsZero() {
		return
	}
	known, ok := finance.CurrencyByNumeric(cur.Numeric)
	if !ok || known.Code != cur.Code || known.Decimals != cur.Decimals || !known.Cash.Equal(cur.Cash) {
		c.fail("invoice_invalid", "currency", "currency %s is not one of the known currencies", cur)
	}
}

// itemDoc is an item in the items column. Decimals are JSON strings in
// numericText's form, so they keep their scale; a JSON number would not.
type itemDoc struct {
	Name                 string `json:"name"`
	ItemType             int    `json:"itemType"`
	Quantity             string `json:"quantity"`
	QuantityMore         string `json:"quantityMore"`
	QuantityMode         int    `json:"quantityMode"`
	MeasureUnit          int    `json:"measureUnit"`
	Price                string `json:"price"`
	VatPercent           string `json:"vatPercent"`
	Status               string `json:"status"`
	DataSourceID         int64  `json:"dataSourceId"`
	DataSourceForeignKey string `json:"dataSourceForeignKey"`
	DtsSelectorID        int64  `json:"dtsSelectorId"`
	TotalNoVat           string `json:"totalNoVat"`
	TotalVat             string `json:"totalVat"`
}

// items is the items column: NULL for nil, an array otherwise (empty for
// an empty slice).
func (c *fieldCheck) items(items []finance.Item) any {
	if items == nil {
		return nil
	}
	docs := make([]itemDoc, len(items))
	for i, it := range items {
		// encoding/json would replace invalid UTF-8 silently, and jsonb
		// refuses \u0000.
		if !storable(it.Name) || !storable(it.Status) || !storable(it.DataSourceForeignKey) {
			c.fail("invoice_invalid", "items", "items[%d] has text that is not valid UTF-8 or holds NUL characters", i)
		}
		docs[i] = itemDoc{
			Name: it.Name, ItemType: it.ItemType, Quantity: numericText(it.Quantity),
			QuantityMore: numericText(it.QuantityMore), QuantityMode: it.QuantityMode, MeasureUnit: it.MeasureUnit,
			Price: numericText(it.Price), VatPercent: numericText(it.VatPercent), Status: it.Status,
			DataSourceID: it.DataSourceID, DataSourceForeignKey: it.DataSourceForeignKey, DtsSelectorID: it.DtsSelectorID,
			TotalNoVat: numericText(it.TotalNoVat), TotalVat: numericText(it.TotalVat),
		}
	}
	return marshalDoc(docs)
}

// paymentDoc is the payment column. The date is YYYY-MM-DD, "" for none.
type paymentDoc struct {
	FullyPaid        bool   `json:"fullyPaid"`
	PaymentType      int    `json:"paymentType"`
	PaymentDate      string `json:"paymentDate"`
	Comment          string `json:"comment"`
	BankAccountID    int64  `json:"bankAccountId"`
	PaymentReference string `json:"paymentReference"`
}

// payment is the payment column: NULL for none.
func (c *fieldCheck) payment(p *finance.Payment) any {
	if p == nil {
		return nil
	}
	if !storable(p.Comment) || !storable(p.PaymentReference) {
		c.fail("invoice_invalid", "payment", "payment has text that is not valid UTF-8 or holds NUL characters")
	}
	var date string
	if !p.PaymentDate.IsZero() {
		if !p.PaymentDate.IsValid() {
			c.fail("invoice_invalid", "payment.paymentDate", "payment.paymentDate %s is not a date", p.PaymentDate)
		}
		date = p.PaymentDate.String()
	}
	return marshalDoc(paymentDoc{
		FullyPaid: p.FullyPaid, PaymentType: p.PaymentType, PaymentDate: date, Comment: p.Comment,
		BankAccountID: p.BankAccountID, PaymentReference: p.PaymentReference,
	})
}

// marshalDoc marshals v, a struct of strings, numbers and booleans only,
// which cannot fail.
func marshalDoc(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// invoiceRow is a row of invoiceColumns as it is scanned.
type invoiceRow struct {
	inv                                         finance.Invoice
	id, country, vatInTotal                     int64
	dates                                       [6]pgtype.Date
	currency                                    int32
	vatInPrice                                  int16
	vatPercent                                  string
	amounts                                     [7]string
	items, payment                              []byte
	billing, credit                             pgtype.Int8
	syncStatusDt, deliveryDt, disputeDt         pgtype.Timestamptz
	class, dataSource, domain                   string
	status, paymentStatus, syncStatus, delivery string
}

func (r *invoiceRow) dest() []any {
	inv, cu := &r.inv, &r.inv.Customer
	return []any{
		&r.id, &inv.InstanceID, &inv.OwnerID, &inv.UID,
		&r.class, &r.dataSource, &r.domain, &inv.Selector,
		&cu.ID, &cu.Name, &cu.ShortName, &cu.Attn, &cu.Address, &cu.Address2, &cu.Post, &cu.City, &cu.POBox,
		&cu.VatNumber, &r.country, &cu.Type,
		&inv.InvType, &inv.TemplateID, &inv.Lang, &inv.InvNumberFix, &inv.SupplierInvNumber, &inv.InvNumber,
		&inv.InvPeriod, &inv.OwnerVatNumber,
		&r.dates[0], &r.dates[1], &r.dates[2], &r.dates[3], &r.dates[4], &r.dates[5],
		&r.currency, &r.vatInPrice, &r.vatInTotal, &r.vatPercent, &inv.CashRound,
		&r.amounts[0], &r.amounts[1], &r.amounts[2], &r.amounts[3], &r.amounts[4], &r.amounts[5], &r.amounts[6],
		&r.status, &r.paymentStatus, &r.syncStatus, &r.delivery, &inv.CollectionMode, &inv.CollectionLeadID,
		&inv.NettingInvoiceID, &inv.ReminderStatus, &inv.Comment, &inv.DocumentSync,
		&r.items, &r.payment, &r.billing, &r.credit,
		&inv.InsertDt, &inv.StatusDt, &r.syncStatusDt, &r.deliveryDt,
		&inv.ProcessingStatus, &inv.DisputeStatus, &r.disputeDt, &inv.InvoicingDatePolicy, &inv.SyncMode,
	}
}

// scanInvoice reads one row of invoiceColumns. A row it cannot convert is
// an Internal *msgkit.Error; database errors come back as they are.
func scanInvoice(row pgx.Row) (finance.Invoice, error) {
	var r invoiceRow
	if err := row.Scan(r.dest()...); err != nil {
		return finance.Invoice{}, err
	}
	inv, err := r.invoice()
	if err != nil {
		return finance.Invoice{}, storageError(err, invoiceWhat(finance.InvoiceID(r.id)))
	}
	return inv, nil
}

// invoice converts the scanned row.
func (r *invoiceRow) invoice() (finance.Invoice, error) {
	inv := r.inv
	inv.ID = finance.InvoiceID(r.id)
	inv.Class, inv.DataSource, inv.Domain = finance.Class(r.class), finance.DataSource(r.dataSource), finance.Domain(r.domain)
	inv.Status, inv.PaymentStatus = finance.Status(r.status), finance.PaymentStatus(r.paymentStatus)
	inv.SyncStatus, inv.DocsDeliveryStatus = finance.SyncStatus(r.syncStatus), finance.DeliveryStatus(r.delivery)
	if int64(int(r.country)) != r.country || int64(int(r.vatInTotal)) != r.vatInTotal {
		return inv, errors.New("cust_country or vat_in_total out of range")
	}
	inv.Customer.Country, inv.VatInTotal = int(r.country), int(r.vatInTotal)
	if r.vatInPrice < 0 || r.vatInPrice > math.MaxUint8 {
		return inv, fmt.Errorf("vat_in_price %d out of range", r.vatInPrice)
	}
	inv.VatInPrice = finance.Entry(r.vatInPrice)
	if r.currency != 0 {
		cur, ok := finance.CurrencyByNumeric(int(r.currency))
		if !ok {
			return inv, fmt.Errorf("unknown currency %d", r.currency)
		}
		inv.Currency = cur
	}
	var err error
	dates := [...]*msgkit.Date{&inv.InvDate, &inv.InvoicingDate, &inv.DeliveryDate, &inv.InvDueDate,
		&inv.InvPeriodStart, &inv.InvPeriodEnd}
	for i, d := range dates {
		if *d, err = fromDate(r.dates[i]); err != nil {
			return inv, err
		}
	}
	if inv.VatPercent, err = parseNumeric(r.vatPercent); err != nil {
		return inv, fmt.Errorf("vat_percent: %w", err)
	}
	amounts := [...]*decimal.Decimal{&inv.AmountNoVat, &inv.AmountVat, &inv.Vat, &inv.Rounding, &inv.Total,
		&inv.TotalPaid, &inv.TotalUnpaid}
	for i, a := range amounts {
		if *a, err = parseNumeric(r.amounts[i]); err != nil {
			return inv, fmt.Errorf("amount %d: %w", i, err)
		}
	}
	if inv.Items, err = readItems(r.items); err != nil {
		return inv, err
	}
	if inv.Payment, err = readPayment(r.payment); err != nil {
		return inv, err
	}
	if r.billing.Valid != r.credit.Valid { // the table's check makes this impossible
		return inv, errors.New("half a source record")
	}
	if r.billing.Valid {
		inv.SourceRecord = &finance.SourceRecord{BillingRecordID: r.billing.Int64, CreditRecordID: r.credit.Int64}
	}
	inv.InsertDt, inv.StatusDt = inv.InsertDt.UTC(), inv.StatusDt.UTC()
	inv.SyncStatusDt, inv.DeliveryDt = fromNullTime(r.syncStatusDt), fromNullTime(r.deliveryDt)
	inv.DisputeDt = fromNullTime(r.disputeDt)
	return inv, nil
}

// fromDate reads a nullable date column: the zero Date for NULL.
func fromDate(d pgtype.Date) (msgkit.Date, error) {
	if !d.Valid {
		return msgkit.Date{}, nil
	}
	if d.InfinityModifier != pgtype.Finite {
		return msgkit.Date{}, errors.New("infinite date")
	}
	return msgkit.DateOf(d.Time.UTC()), nil
}

func readItems(b []byte) ([]finance.Item, error) {
	if b == nil {
		return nil, nil
	}
	var docs []itemDoc
	if err := json.Unmarshal(b, &docs); err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	items := make([]finance.Item, len(docs))
	for i, d := range docs {
		it := finance.Item{Name: d.Name, ItemType: d.ItemType, QuantityMode: d.QuantityMode, MeasureUnit: d.MeasureUnit,
			Status: d.Status, DataSourceID: d.DataSourceID, DataSourceForeignKey: d.DataSourceForeignKey,
			DtsSelectorID: d.DtsSelectorID}
		for _, f := range []struct {
			to   *decimal.Decimal
			text string
		}{
			{&it.Quantity, d.Quantity}, {&it.QuantityMore, d.QuantityMore}, {&it.Price, d.Price},
			{&it.VatPercent, d.VatPercent}, {&it.TotalNoVat, d.TotalNoVat}, {&it.TotalVat, d.TotalVat},
		} {
			v, err := parseNumeric(f.text)
			if err != nil {
				return nil, fmt.Errorf("items[%d]: %w", i, err)
			}
			*f.to = v
		}
		items[i] = it
	}
	return items, nil
}

func readPayment(b []byte) (*finance.Payment, error) {
	if b == nil {
		return nil, nil
	}
	var d paymentDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("payment: %w", err)
	}
	p := &finance.Payment{FullyPaid: d.FullyPaid, PaymentType: d.PaymentType, Comment: d.Comment,
		BankAccountID: d.BankAccountID, PaymentReference: d.PaymentReference}
	if d.PaymentDate != "" {
		date, err := msgkit.ParseDate(d.PaymentDate)
		if err != nil {
			return nil, fmt.Errorf("payment date: %w", err)
		}
		p.PaymentDate = date
	}
	return p, nil
}
