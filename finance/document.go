package finance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// Document is an invoice as the finance documents export shows it to an
// external finance system: the invoice's own data,
// renamed, with what the operator's billing data adds (see DocumentOf).
// It has no JSON tags: the HTTP layer maps it to the wire.
type Document struct {
	ID         InvoiceID
	UUID       string // documentUuid
	InstanceID int64
	OwnerID    int64
	// OwnerBpName and OwnerBpBriefName name the stored partner of id
	// OwnerID; empty when none is stored.
	OwnerBpName      string
	OwnerBpBriefName string

	BizPartnerID            int64
	BizPartnerCountry       int
	BizPartnerExternalRefID string
	BizPartner              BizPartner

	Number     string // documentNumber
	NumberMask string // documentNumberMask
	NumberNum  *int64 // documentNumberNum; nil when the number has no digits that fit

	Currency         Currency  // currency and currencyCode
	DomesticCurrency Currency  // zero without domestic amounts
	Domestic         *Domestic // the domestic rate and amounts; nil: none

	Lang             string
	DocumentType     int64
	DocumentTypeName string
	SelfBilling      string // yes or no

	Domain      Domain
	DomainID    int64 // 0: a code without an id
	Class       Class // documentClassCodeName
	ClassDomain string
	ClassArea   string

	DataSource   DataSource // dataSourceCodeName
	DataSourceID int64      // 0: a code without an id
	Selector     string     // dataSourceSelector

	Note string

	DocumentDate msgkit.Date
	DeliveryDate msgkit.Date
	DueDate      msgkit.Date
	PeriodStart  msgkit.Date
	PeriodEnd    msgkit.Date

	InsertDt               time.Time
	StatusDt               time.Time
	PaymentStatusDate      time.Time // zero: none
	SyncStatusDt           time.Time // zero: none
	DocsDeliveryStatusDate time.Time // zero: none

	Amounts
	VatPercent decimal.Decimal

	Status             Status
	PaymentStatus      PaymentStatus
	SyncStatus         SyncStatus
	DocsDeliveryStatus DeliveryStatus
	// DisputeStatus is the invoice's (Invoice.DisputeStatus): the export
	// filters and sorts by it, and shows no field of it.
	DisputeStatus string
	// DocumentSync is the sync document, only when SyncStatus is done,
	// error, misc, exported or invalid; nil otherwise.
	DocumentSync json.RawMessage

	// Source is the record the document's amounts come from (dataSource),
	// nil when the data source names none (see RecordKindOf).
	Source *DocumentSource
	Items  []DocumentItem
	// TrafficReports are embedded when asked, for the documents that
	// have them (TrafficEligible): nil when not embedded, empty when
	// embedded without rows.
	TrafficReports []TrafficReport
}

// BizPartner is a document's business partner as the invoice names it,
// with the partner's custom attributes.
type BizPartner struct {
	Name             string
	BriefName        string
	PartnerType      string
	Attn             string
	Address          string
	Post             string
	City             string
	VatNumber        string
	CustomAttributes []CustomAttribute
}

// CustomAttribute is an operator-defined attribute of a partner or a
// billing account. Value is a JSON string or a JSON object, kept byte for
// byte as given.
type CustomAttribute struct {
	CodeName string
	Value    json.RawMessage
}

// DocumentSource is the billing record or credit record a document comes
// from, with its billing account (billingTotalBalance; nil when the
// record's account is not known), which shows no connections.
type DocumentSource struct {
	ID      int64
	Account *BillingAccount
}

// DocumentItem is one line of a document.
type DocumentItem struct {
	// ID is the item's ordNum: items have no id of their own, and a
	// document's items are numbered 1, 2, … (documentId, id) names one.
	ID                   int64
	DocumentID           InvoiceID
	OrdNum               int64
	Name                 string
	Quantity             decimal.Decimal
	MeasureUnit          int
	Price                decimal.Decimal
	TotalNoVat           decimal.Decimal
	TotalVat             decimal.Decimal
	DataSourceID         int64      // the item's data source, the document's when the item gives none
	DataSourceCodeName   DataSource // its code; empty for an id without one
	DataSourceForeignKey string
	DataSourceSelector   string // the document's selector
	// Source is the record the item's foreign key names, nil when it
	// names none (see DocumentOf).
	Source *ItemSource
}

// ItemSource is the record an item comes from and its billing account,
// with the connections of the document's domain (nil when the record's
// account is not known).
type ItemSource struct {
	ID         int64
	DocumentID InvoiceID
	Account    *BillingAccount
}

// BillingAccount is a partner's billing account: operator data, kept by
// an ExportStore. SMSConnections are its bulk SMS connections,
// MNPConnections its bulk MNP ones; a document shows those of its domain.
type BillingAccount struct {
	ID               int64
	InstanceID       int64
	BizPartnerID     int64
	Currency         Currency
	BillingType      string // billingTypeCodeName
	Name             string
	CustomAttributes []CustomAttribute
	SMSConnections   []Connection
	MNPConnections   []Connection
}

// Connection is an SMS or MNP connection of a billing account.
type Connection struct {
	ID         int64
	InstanceID int64
	Name       string
	AuthName   string
	Protocol   string
}

// TrafficReport is one row of a document's traffic: the messages sent to
// one operator network in a period, and their price. MCC and MNC are
// strings, as their leading zeros matter (MNC 01 is not 001).
type TrafficReport struct {
	BizPartnerID        int64
	BizPartnerBriefName string
	BizPartnerExtRefID  string
	BillingAccountID    int64
	BillingAccountName  string
	CountryID           int64
	CountryName         string
	CountryCode2        string
	OperatorID          int64
	OperatorName        string
	MCC                 string
	MNC                 string
	StartDt             time.Time
	EndDt               time.Time
	SMSCount            int64
	Currency            Currency
	Price               decimal.Decimal
	TotalAmount         decimal.Decimal
}

// PartnerExport is what the export adds to a business partner: its
// reference in the external finance system and its custom attributes.
type PartnerExport struct {
	PartnerID        int64
	ExternalRefID    string
	CustomAttributes []CustomAttribute
}

// DocumentType is an invoice type as the export names it (the invType of
// an invoice; InvoiceConfig.TypeID and its Name and SelfBilling).
type DocumentType struct {
	ID          int64
	Name        string
	SelfBilling bool // money flows opposite to regular documents of the class
}

// DomesticRate is a document's domestic (accounting) currency and the
// rate of one unit of the document's currency in it.
type DomesticRate struct {
	Currency Currency
	Rate     decimal.Decimal
}

// RecordKind is the kind of record a document's amounts come from.
type RecordKind uint8

// The record kinds.
const (
	NoRecord      RecordKind = iota
	BillingRecord            // a postpaid billing record
	CreditRecord             // a credit (prepaid or part-payment) record
)

// SourceRef names a billing or credit record.
type SourceRef struct {
	Kind RecordKind
	ID   int64
}

// RecordKindOf is the kind of record a document of data source ds and
// selector names: a billing record for POSTPAID without a selector
// and for POSTPAID-CONTROL, a credit record for POSTPAID with
// PART-PAYMENT and for PREPAID, and none otherwise.
func RecordKindOf(ds DataSource, selector string) RecordKind {
	switch {
	case ds == Postpaid && selector == "", ds == PostpaidControl:
		return BillingRecord
	case ds == Postpaid && selector == PartPayment, ds == Prepaid:
		return CreditRecord
	}
	return NoRecord
}

// TrafficEligible reports whether traffic reports belong to inv: customer
// invoices of POSTPAID and control invoices of POSTPAID-CONTROL.
func TrafficEligible(inv *Invoice) bool {
	return inv.Class == CustomerInvoice && inv.DataSource == Postpaid ||
		inv.Class == ControlInvoice && inv.DataSource == PostpaidControl
}

// syncShown are the sync statuses with which a document shows its sync
// document.
var syncShown = []SyncStatus{SyncDone, SyncError, SyncMisc, SyncExported, SyncInvalid}

// ClassDomain is the side a class's documents are on: customer or
// supplier (as Class.Side); "" for a class this package does not know.
func ClassDomain(c Class) string {
	switch {
	case !slices.Contains(Classes(), c):
		return ""
	case c.Side() == Suppliers:
		return "supplier"
	}
	return "customer"
}

// ClassArea is what a class's documents are: invoice, note, netting or
// control; "" for a class this package does not know.
func ClassArea(c Class) string {
	switch c {
	case CustomerInvoice, SupplierInvoice:
		return "invoice"
	case CreditDebitNote, SupplierCrDbNote:
		return "note"
	case NettingInvoice:
		return "netting"
	case ControlInvoice:
		return "control"
	}
	return ""
}

// NumberParts splits a document number into its mask and its sequence
// number: the last run of ASCII digits is the number (leading zeros
// dropped; none when it would not fit in 18 digits), and the mask is the
// number with that run's digits replaced by #. INV-2026/000123 has mask
// INV-2026/###### and number 123; a number without digits is its own mask.
func NumberParts(number string) (mask string, num *int64) {
	end := len(number)
	for end > 0 && !isDigit(number[end-1]) {
		end--
	}
	if end == 0 {
		return number, nil
	}
	start := end
	for start > 0 && isDigit(number[start-1]) {
		start--
	}
	run := number[start:end]
	mask = number[:start] + strings.Repeat("#", len(run)) + number[end:]
	digits := strings.TrimLeft(run, "0")
	if len(digits) > 18 {
		return mask, nil
	}
	var n int64
	if digits != "" {
		n, _ = strconv.ParseInt(digits, 10, 64) // at most 18 digits: fits
	}
	return mask, &n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// codeOf is the code of id in list, "" when none.
func codeOf[T ~string](list []T, id int64) T {
	if id < 1 || id > int64(len(list)) {
		return ""
	}
	return list[id-1]
}

// DocumentData is the operator data DocumentOf makes a document with,
// looked up by a store for one invoice. Zero parts are data the store
// does not have.
type DocumentData struct {
	Owner    *Partner                     // the stored partner of the invoice's OwnerID
	Partner  PartnerExport                // the customer's export data
	Type     *DocumentType                // the invoice's type (InvType)
	Domestic *DomesticRate                // the document's domestic rate
	Accounts map[SourceRef]BillingAccount // the billing accounts of the records DocumentSources names
	Traffic  []TrafficReport              // the document's traffic reports

	// The invoices an invoice answer names (ViewOf): the netting
	// statement of NettingInvoiceID, the lead of CollectionLeadID and
	// the lead's statement; the export reads none of them.
	Netting, Lead, LeadNetting *Invoice
}

// DocumentSources are the records inv and its items name, which a store
// looks up the billing accounts of: the invoice's source record of the
// kind RecordKindOf gives, and each item's foreign key that is a record
// id (a positive decimal integer), of the kind its data source gives.
func DocumentSources(inv *Invoice) []SourceRef {
	var refs []SourceRef
	if ref, ok := documentRef(inv); ok {
		refs = append(refs, ref)
	}
	for i := range inv.Items {
		if ref, ok := itemRef(inv, &inv.Items[i]); ok && !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	return refs
}

func documentRef(inv *Invoice) (SourceRef, bool) {
	if inv.SourceRecord == nil {
		return SourceRef{}, false
	}
	switch kind := RecordKindOf(inv.DataSource, inv.Selector); {
	case kind == BillingRecord && inv.SourceRecord.BillingRecordID != 0:
		return SourceRef{BillingRecord, inv.SourceRecord.BillingRecordID}, true
	case kind == CreditRecord && inv.SourceRecord.CreditRecordID != 0:
		return SourceRef{CreditRecord, inv.SourceRecord.CreditRecordID}, true
	}
	return SourceRef{}, false
}

// itemSource is an item's data source id: its own, else the document's.
func itemSource(inv *Invoice, it *Item) int64 {
	if it.DataSourceID != 0 {
		return it.DataSourceID
	}
	return dataSourceIDs[inv.DataSource]
}

func itemRef(inv *Invoice, it *Item) (SourceRef, bool) {
	kind := RecordKindOf(codeOf(DataSources(), itemSource(inv, it)), inv.Selector)
	id, err := strconv.ParseInt(it.DataSourceForeignKey, 10, 64)
	if kind == NoRecord || err != nil || id <= 0 || strconv.FormatInt(id, 10) != it.DataSourceForeignKey {
		return SourceRef{}, false
	}
	return SourceRef{kind, id}, true
}

// DocumentOf makes inv's document from it and the operator data d, with
// traffic reports when traffic is asked and inv has them
// (TrafficEligible). The document shares no memory with inv or d. See
// the package documentation for where each field comes from.
func DocumentOf(inv *Invoice, d DocumentData, traffic bool) Document {
	doc := Document{
		ID: inv.ID, UUID: inv.UID, InstanceID: inv.InstanceID, OwnerID: inv.OwnerID,
		BizPartnerID: inv.Customer.ID, BizPartnerCountry: inv.Customer.Country, BizPartnerExternalRefID: d.Partner.ExternalRefID,
		BizPartner: BizPartner{Name: inv.Customer.Name, BriefName: inv.Customer.ShortName, PartnerType: inv.Customer.Type,
			Attn: inv.Customer.Attn, Address: inv.Customer.Address, Post: inv.Customer.Post, City: inv.Customer.City,
			VatNumber: inv.Customer.VatNumber, CustomAttributes: cloneAttributes(d.Partner.CustomAttributes)},
		Number: inv.InvNumberFix, Currency: inv.Currency, Lang: inv.Lang, DocumentType: inv.InvType,
		Domain: inv.Domain, DomainID: domainIDs[inv.Domain],
		Class: inv.Class, ClassDomain: ClassDomain(inv.Class), ClassArea: ClassArea(inv.Class),
		DataSource: inv.DataSource, DataSourceID: dataSourceIDs[inv.DataSource], Selector: inv.Selector,
		Note:         inv.Comment,
		DocumentDate: inv.InvDate, DeliveryDate: inv.DeliveryDate, DueDate: inv.InvDueDate,
		PeriodStart: inv.InvPeriodStart, PeriodEnd: inv.InvPeriodEnd,
		InsertDt: inv.InsertDt, StatusDt: inv.StatusDt, SyncStatusDt: inv.SyncStatusDt, DocsDeliveryStatusDate: inv.DeliveryDt,
		Amounts: inv.Amounts, VatPercent: inv.VatPercent,
		Status: inv.Status, PaymentStatus: inv.PaymentStatus, SyncStatus: inv.SyncStatus, DocsDeliveryStatus: inv.DocsDeliveryStatus,
		DisputeStatus: inv.DisputeStatus,
		Items:         make([]DocumentItem, 0, len(inv.Items)),
	}
	if inv.InvNumberFix != "" {
		doc.NumberMask, doc.NumberNum = NumberParts(inv.InvNumberFix)
	}
	v := ViewOf(inv, d, msgkit.Date{}) // the values an invoice answer shows too
	doc.OwnerBpName, doc.OwnerBpBriefName = v.OwnerName, v.OwnerBriefName
	doc.DocumentTypeName, doc.SelfBilling = v.TypeName, YesNo(v.SelfBilling)
	if v.Domestic != nil {
		doc.DomesticCurrency, doc.Domestic = v.Domestic.Currency, &v.Domestic.Domestic
	}
	if p := inv.Payment; p != nil && !p.PaymentDate.IsZero() {
		doc.PaymentStatusDate = p.PaymentDate.In(time.UTC)
	}
	if slices.Contains(syncShown, inv.SyncStatus) && len(inv.DocumentSync) > 0 {
		doc.DocumentSync = slices.Clone(inv.DocumentSync)
	}
	if ref, ok := documentRef(inv); ok {
		doc.Source = &DocumentSource{ID: ref.ID}
		if a, ok := d.Accounts[ref]; ok {
			a = accountOf(a, inv)
			a.SMSConnections, a.MNPConnections = nil, nil
			doc.Source.Account = &a
		}
	}
	for i := range inv.Items {
		it := &inv.Items[i]
		src := itemSource(inv, it)
		di := DocumentItem{ID: int64(i + 1), DocumentID: inv.ID, OrdNum: int64(i + 1), Name: it.Name, Quantity: it.Quantity,
			MeasureUnit: it.MeasureUnit, Price: it.Price, TotalNoVat: it.TotalNoVat, TotalVat: it.TotalVat,
			DataSourceID: src, DataSourceCodeName: codeOf(DataSources(), src), DataSourceForeignKey: it.DataSourceForeignKey,
			DataSourceSelector: inv.Selector}
		if ref, ok := itemRef(inv, it); ok {
			di.Source = &ItemSource{ID: ref.ID, DocumentID: inv.ID}
			if a, ok := d.Accounts[ref]; ok {
				a = accountOf(a, inv)
				di.Source.Account = &a
			}
		}
		doc.Items = append(doc.Items, di)
	}
	if traffic && TrafficEligible(inv) {
		doc.TrafficReports = append(make([]TrafficReport, 0, len(d.Traffic)), d.Traffic...)
	}
	return doc
}

// accountOf is a copy of a as a document of inv shows it: the
// connections of its domain only (none for another domain), and of a
// POSTPAID-CONTROL document, whose connections are the supplier's, only
// their id and name (and instance for MNP).
func accountOf(a BillingAccount, inv *Invoice) BillingAccount {
	a.CustomAttributes = cloneAttributes(a.CustomAttributes)
	sms, mnp := connectionsOf(a.SMSConnections), connectionsOf(a.MNPConnections)
	a.SMSConnections, a.MNPConnections = nil, nil
	switch inv.Domain {
	case Bulk:
		a.SMSConnections = sms
	case BulkMNP:
		a.MNPConnections = mnp
	}
	if inv.DataSource == PostpaidControl {
		for i, c := range a.SMSConnections {
			a.SMSConnections[i] = Connection{ID: c.ID, Name: c.Name}
		}
		for i, c := range a.MNPConnections {
			a.MNPConnections[i] = Connection{ID: c.ID, InstanceID: c.InstanceID, Name: c.Name}
		}
	}
	return a
}

func connectionsOf(cs []Connection) []Connection {
	return append(make([]Connection, 0, len(cs)), cs...)
}

// cloneAttributes copies attributes, values included; never nil.
func cloneAttributes(as []CustomAttribute) []CustomAttribute {
	out := make([]CustomAttribute, len(as))
	for i, a := range as {
		out[i] = CustomAttribute{CodeName: a.CodeName, Value: slices.Clone(a.Value)}
	}
	return out
}

// CodeInvalidExportData is the code of operator data for the export that
// breaks a rule (CheckBillingAccount and the others).
const CodeInvalidExportData = "invalid_export_data"

// checkAttributes refuses a custom attribute whose value is not a JSON
// string or object, or that has no code name, naming the field.
func checkAttributes(e *msgkit.Error, field string, as []CustomAttribute) {
	for i, a := range as {
		name := field + "[" + strconv.Itoa(i) + "]"
		if a.CodeName == "" {
			e.WithField(name+".codeName", "a custom attribute needs a code name", "")
		}
		v := bytes.TrimSpace(a.Value)
		if !json.Valid(v) || len(v) == 0 || (v[0] != '"' && v[0] != '{') {
			e.WithField(name+".value", "the value of a custom attribute is a JSON string or a JSON object", "")
		}
	}
}

func exportError(what string) *msgkit.Error {
	return &msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidExportData, Message: what + " breaks a rule of the export's data"}
}

func orNil(e *msgkit.Error) error {
	if len(e.Fields) == 0 {
		return nil
	}
	e.Message += ": " + e.Fields[0].Name + ": " + e.Fields[0].Message
	return e
}

// checkCurrency refuses a currency that is not one of Currencies
// (optional: the zero Currency passes).
func checkCurrency(e *msgkit.Error, field string, c Currency, optional bool) {
	if optional && c == (Currency{}) {
		return
	}
	known, ok := CurrencyByNumeric(c.Numeric)
	if !ok || known.Code != c.Code || known.Decimals != c.Decimals || !known.Cash.Equal(c.Cash) {
		e.WithField(field, "currency "+c.String()+" is not one of the known currencies", "")
	}
}

// CheckBillingAccount refuses an account the stores cannot keep: custom
// attributes that are not JSON strings or objects and a currency that is
// not one of Currencies (the zero Currency passes), every field named.
func CheckBillingAccount(a BillingAccount) error {
	e := exportError("billing account " + strconv.FormatInt(a.ID, 10))
	checkCurrency(e, "currency", a.Currency, true)
	checkAttributes(e, "customAttributes", a.CustomAttributes)
	return orNil(e)
}

// CheckPartnerExport refuses custom attributes that are not JSON strings
// or objects.
func CheckPartnerExport(p PartnerExport) error {
	e := exportError("partner " + strconv.FormatInt(p.PartnerID, 10))
	checkAttributes(e, "customAttributes", p.CustomAttributes)
	return orNil(e)
}

// CheckDomesticRate refuses a rate that is not positive and a currency
// that is not one of Currencies.
func CheckDomesticRate(r DomesticRate) error {
	e := exportError("domestic rate")
	checkCurrency(e, "domesticCurrency", r.Currency, false)
	if r.Rate.Sign() <= 0 {
		e.WithField("domesticCurrencyRate", "the rate must be positive", "")
	}
	return orNil(e)
}

// CheckSourceRef refuses a record that is neither a billing nor a credit
// record.
func CheckSourceRef(r SourceRef) error {
	if r.Kind != BillingRecord && r.Kind != CreditRecord {
		return msgkit.Invalidf(CodeInvalidExportData, "kind", "a source record is a billing record or a credit record, not kind %d", r.Kind)
	}
	return nil
}

// CheckTrafficReports refuses rows with a currency that is not one of
// Currencies (the zero Currency passes).
func CheckTrafficReports(rows []TrafficReport) error {
	e := exportError("traffic reports")
	for i, r := range rows {
		checkCurrency(e, "trafficReports["+strconv.Itoa(i)+"].currency", r.Currency, true)
	}
	return orNil(e)
}

// ExportStore keeps the operator data the export adds to invoices. Each
// Put creates or replaces; the data may arrive in any order (a record's
// account before the account, a document's rows before the invoice).
type ExportStore interface {
	// PutBillingAccount stores an account (CheckBillingAccount).
	PutBillingAccount(ctx context.Context, a BillingAccount) error
	// PutSourceRecord says which billing account a billing or credit
	// record belongs to (CheckSourceRef).
	PutSourceRecord(ctx context.Context, r SourceRef, account int64) error
	// PutTrafficReports replaces a document's traffic reports, kept in
	// the order given (CheckTrafficReports).
	PutTrafficReports(ctx context.Context, doc InvoiceID, rows []TrafficReport) error
	// PutPartnerExport stores a partner's export data (CheckPartnerExport).
	PutPartnerExport(ctx context.Context, p PartnerExport) error
	// PutDocumentType stores an invoice type's name and self-billing.
	PutDocumentType(ctx context.Context, t DocumentType) error
	// PutDomestic stores a document's domestic rate (CheckDomesticRate).
	PutDomestic(ctx context.Context, doc InvoiceID, r DomesticRate) error
}

// DocumentQuery is a finance documents listing: the listing over
// DocumentSpec, the q search, and whether traffic reports are embedded.
type DocumentQuery struct {
	List    msgkit.ListQuery
	Search  string // q; "" searches nothing
	Traffic bool   // embed=trafficReports
}

// DocumentStore lists finance documents.
type DocumentStore interface {
	// Documents lists the documents of the invoices that are not
	// deleted, of the partners in scope, searched (DocumentSearchAttrs
	// contain q.Search, case-insensitively), filtered, sorted and paged
	// over
	// DocumentSpec (store order: id): q.Listing(). Each is made by
	// DocumentOf.
	Documents(ctx context.Context, scope Scope, q DocumentQuery) (msgkit.Page[Document], error)
}

// ParamEmbed is the query parameter that names the parts to embed, and
// EmbedTrafficReports the one part there is.
const (
	ParamEmbed          = "embed"
	EmbedTrafficReports = "trafficReports"
)

// MaxDocumentPageSize is the largest page of the documents listing.
const MaxDocumentPageSize = 50

// ParseDocumentQuery reads a documents listing from URL query v: the
// listing parameters over DocumentSpec (q among them), and embed
// (comma-separated, only trafficReports; an empty embed embeds nothing).
// Every problem is reported in one Invalid error (msgkit.CodeInvalidQuery)
// naming its parameter.
func ParseDocumentQuery(v url.Values) (DocumentQuery, error) {
	list, err := msgkit.ParseListQuery(v, DocumentSpec())
	e, _ := errors.AsType[*msgkit.Error](err)
	if err != nil && (e == nil || e.Kind != msgkit.Invalid) {
		return DocumentQuery{}, err
	}
	var bad []msgkit.FieldError
	q := DocumentQuery{List: list, Search: list.Search.Text}
	for _, raw := range v[ParamEmbed] {
		if raw == "" {
			continue
		}
		for part := range strings.SplitSeq(raw, ",") {
			if part != EmbedTrafficReports {
				bad = append(bad, msgkit.FieldError{Name: ParamEmbed, Message: "cannot embed " + strconv.Quote(part),
					Description: "embeddable: " + EmbedTrafficReports})
				continue
			}
			q.Traffic = true
		}
	}
	switch {
	case e != nil:
		e.Fields = append(e.Fields, bad...)
		return DocumentQuery{}, e
	case len(bad) > 0:
		e = msgkit.Invalidf(msgkit.CodeInvalidQuery, ParamEmbed, "invalid list query: embed: %s", bad[0].Message)
		e.Fields = bad
		return DocumentQuery{}, e
	}
	return q, nil
}

// Listing is q's listing with its search: q.List, searching q.Search in
// DocumentSearchAttrs.
func (q DocumentQuery) Listing() msgkit.ListQuery {
	l := q.List
	l.Search = msgkit.Search{}
	if q.Search != "" {
		l.Search = msgkit.Search{Text: q.Search, Attrs: DocumentSearchAttrs()}
	}
	return l
}

// timeV is t, null for the zero time.
func timeV(t time.Time) msgkit.Value {
	if t.IsZero() {
		return msgkit.Null()
	}
	return msgkit.TimeValue(t)
}

// domestic reads a domestic amount, null without domestic amounts.
func domestic(d *Document, get func(*Domestic) decimal.Decimal) msgkit.Value {
	if d.Domestic == nil {
		return msgkit.Null()
	}
	return amount(get(d.Domestic))
}

// documentAttrs are the filter and sort attributes of the export, every
// one the interface names.
var documentAttrs = attrs[Document]{
	"amountNoVat":             {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.AmountNoVat) }},
	"amountVat":               {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.AmountVat) }},
	"bizPartnerAddress":       {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.Address) }},
	"bizPartnerAttn":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.Attn) }},
	"bizPartnerBriefName":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.BriefName) }},
	"bizPartnerCity":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.City) }},
	"bizPartnerCountry":       {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(int64(d.BizPartnerCountry)) }},
	"bizPartnerExternalRefId": {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartnerExternalRefID) }},
	"bizPartnerId":            {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(d.BizPartnerID) }},
	"bizPartnerName":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.Name) }},
	"bizPartnerPost":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.Post) }},
	"bizPartnerType":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.PartnerType) }},
	"bizPartnerVatNumber":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.BizPartner.VatNumber) }},
	"currency":                {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(int64(d.Currency.Numeric)) }},
	"currencyCode":            {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.Currency.Code) }},
	"dataSourceCodeName":      {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.DataSource)) }},
	"dataSourceId":            {msgkit.AttrNumber, func(d *Document) msgkit.Value { return idValue(d.DataSourceID) }},
	"dataSourceSelector":      {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.Selector) }},
	"deliveryDate":            {msgkit.AttrDate, func(d *Document) msgkit.Value { return dateV(d.DeliveryDate) }},
	"disputeStatus":           {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.DisputeStatus) }},
	"docsDeliveryStatus":      {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.DocsDeliveryStatus)) }},
	"docsDeliveryStatusDate":  {msgkit.AttrDateTime, func(d *Document) msgkit.Value { return timeV(d.DocsDeliveryStatusDate) }},
	"documentClassArea":       {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.ClassArea) }},
	"documentClassCodeName":   {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.Class)) }},
	"documentClassDomain":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.ClassDomain) }},
	"documentDate":            {msgkit.AttrDate, func(d *Document) msgkit.Value { return dateV(d.DocumentDate) }},
	"documentNumber":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.Number) }},
	"documentNumberMask":      {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.NumberMask) }},
	"documentNumberNum": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		if d.NumberNum == nil {
			return msgkit.Null()
		}
		return num(*d.NumberNum)
	}},
	"documentSync":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.DocumentSync)) }},
	"documentType":     {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(d.DocumentType) }},
	"documentTypeName": {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.DocumentTypeName) }},
	"documentUuid":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.UUID) }},
	"domainCodeName":   {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.Domain)) }},
	"domainId":         {msgkit.AttrNumber, func(d *Document) msgkit.Value { return idValue(d.DomainID) }},
	"domesticAmountNoVat": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		return domestic(d, func(x *Domestic) decimal.Decimal { return x.AmountNoVat })
	}},
	"domesticAmountVat": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		return domestic(d, func(x *Domestic) decimal.Decimal { return x.AmountVat })
	}},
	"domesticCurrencyRate": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		return domestic(d, func(x *Domestic) decimal.Decimal { return x.Rate })
	}},
	"domesticRounding": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		return domestic(d, func(x *Domestic) decimal.Decimal { return x.Rounding })
	}},
	"domesticTotal": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		return domestic(d, func(x *Domestic) decimal.Decimal { return x.Total })
	}},
	"domesticCurrency": {msgkit.AttrNumber, func(d *Document) msgkit.Value {
		if d.Domestic == nil {
			return msgkit.Null()
		}
		return num(int64(d.DomesticCurrency.Numeric))
	}},
	"domesticCurrencyCode": {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.DomesticCurrency.Code) }},
	"dueDate":              {msgkit.AttrDate, func(d *Document) msgkit.Value { return dateV(d.DueDate) }},
	"id":                   {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(int64(d.ID)) }},
	"insertDt":             {msgkit.AttrDateTime, func(d *Document) msgkit.Value { return msgkit.TimeValue(d.InsertDt) }},
	"instanceId":           {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(d.InstanceID) }},
	"lang":                 {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.Lang) }},
	"ownerBpBriefName":     {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.OwnerBpBriefName) }},
	"ownerBpName":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.OwnerBpName) }},
	"ownerId":              {msgkit.AttrNumber, func(d *Document) msgkit.Value { return num(d.OwnerID) }},
	"paymentStatus":        {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.PaymentStatus)) }},
	"paymentStatusDate":    {msgkit.AttrDateTime, func(d *Document) msgkit.Value { return timeV(d.PaymentStatusDate) }},
	"periodEnd":            {msgkit.AttrDate, func(d *Document) msgkit.Value { return dateV(d.PeriodEnd) }},
	"periodStart":          {msgkit.AttrDate, func(d *Document) msgkit.Value { return dateV(d.PeriodStart) }},
	"rounding":             {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.Rounding) }},
	"selfBilling":          {msgkit.AttrString, func(d *Document) msgkit.Value { return str(d.SelfBilling) }},
	"status":               {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.Status)) }},
	"statusDt":             {msgkit.AttrDateTime, func(d *Document) msgkit.Value { return msgkit.TimeValue(d.StatusDt) }},
	"syncStatus":           {msgkit.AttrString, func(d *Document) msgkit.Value { return str(string(d.SyncStatus)) }},
	"syncStatusDt":         {msgkit.AttrDateTime, func(d *Document) msgkit.Value { return timeV(d.SyncStatusDt) }},
	"total":                {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.Total) }},
	"totalPaid":            {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.TotalPaid) }},
	"totalUnpaid":          {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.TotalUnpaid) }},
	"vat":                  {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.Vat) }},
	"vatPercent":           {msgkit.AttrNumber, func(d *Document) msgkit.Value { return amount(d.VatPercent) }},
}

// documentSearch are the attributes q searches: the document's and its
// partners' names and numbers, and its status.
var documentSearch = []string{"bizPartnerBriefName", "bizPartnerExternalRefId", "bizPartnerName", "bizPartnerVatNumber",
	"documentNumber", "documentUuid", "ownerBpBriefName", "ownerBpName", "status"}

// DocumentSpec is the listing spec of finance documents: every attribute
// of the export, filtered and sorted; page size default 10, at
// most 50; q searches DocumentSearchAttrs; embed is read by
// ParseDocumentQuery.
func DocumentSpec() msgkit.ListSpec {
	spec := documentAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: MaxDocumentPageSize,
		DefaultPageSize: msgkit.DefaultPageSize, Search: DocumentSearchAttrs(), Ignore: []string{ParamEmbed}})
	slices.Sort(spec.Sort)
	return spec
}

// DocumentValue reads attribute attr of d for a listing.
func DocumentValue(d Document, attr string) (msgkit.Value, bool) {
	return documentAttrs.value(&d, attr)
}

// DocumentAttrNames are the attributes of the listing, sorted.
func DocumentAttrNames() []string { return slices.Sorted(maps.Keys(documentAttrs)) }

// DocumentSearchAttrs are the attributes q searches, sorted.
func DocumentSearchAttrs() []string { return slices.Clone(documentSearch) }
