package finance

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// InvoiceID identifies an invoice (the documents' integer id).
type InvoiceID int64

// Class is a document class.
type Class string

// The document classes.
const (
	CustomerInvoice  Class = "CUSTOMER_INVOICE"
	SupplierInvoice  Class = "SUPPLIER_INVOICE"
	NettingInvoice   Class = "NETTING_INVOICE"
	ControlInvoice   Class = "CONTROL_INVOICE"
	CreditDebitNote  Class = "CREDIT_DEBIT_NOTE"
	SupplierCrDbNote Class = "SUPPLIER_CR_DB_NOTE"
)

// DataSource is where a document's amounts come from.
type DataSource string

// The data sources.
const (
	Prepaid                 DataSource = "PREPAID"
	Postpaid                DataSource = "POSTPAID"
	FinanceSource           DataSource = "FINANCE"
	SupplierInvoiceSource   DataSource = "SUPPLIER-INVOICE"
	PostpaidSupplierInvoice DataSource = "POSTPAID-SUPPLIER-INVOICE"
	PostpaidControl         DataSource = "POSTPAID-CONTROL"
)

// Domain is the product a document bills.
type Domain string

// The domains.
const (
	Bulk    Domain = "BULK"     // bulk SMS
	BulkMNP Domain = "BULK-MNP" // bulk MNP
)

// PartPayment is the one data source selector: POSTPAID documents paid in
// parts.
const PartPayment = "PART-PAYMENT"

// Status is a document's status.
type Status string

// The statuses.
const (
	Draft    Status = "draft"
	Approved Status = "approved"
	Deleted  Status = "deleted"
	Rejected Status = "rejected"
	Canceled Status = "canceled"
	Archived Status = "archived"
	Imported Status = "imported"
)

// PaymentStatus is how far a document is paid.
type PaymentStatus string

// The payment statuses.
const (
	PaymentNone   PaymentStatus = "none"
	PaymentOpen   PaymentStatus = "open"
	PaymentOnHold PaymentStatus = "on-hold"
	PaymentClosed PaymentStatus = "closed"
)

// SyncStatus is a document's state in the external finance system.
type SyncStatus string

// The sync statuses.
const (
	SyncNone     SyncStatus = "none"
	SyncWaiting  SyncStatus = "waiting"
	SyncSyncing  SyncStatus = "syncing"
	SyncDone     SyncStatus = "done"
	SyncError    SyncStatus = "error"
	SyncMisc     SyncStatus = "misc"
	SyncInvalid  SyncStatus = "invalid"
	SyncExported SyncStatus = "exported"
)

// DeliveryStatus is how far a document's files have gone to the partner.
type DeliveryStatus string

// The docs delivery statuses.
const (
	DeliveryNone    DeliveryStatus = "none"
	DeliveryWaiting DeliveryStatus = "waiting"
	DeliverySending DeliveryStatus = "sending"
	DeliverySent    DeliveryStatus = "sent"
	DeliveryError   DeliveryStatus = "error"
	DeliveryMisc    DeliveryStatus = "misc"
)

// Partner is the business partner data an invoice carries: stored
// partner data, overridden field by field by what a request sends.
type Partner struct {
	ID        int64 // custID
	Name      string
	ShortName string
	Attn      string
	Address   string
	Address2  string
	Post      string
	City      string
	POBox     string
	VatNumber string
	Country   int
	Type      string // customerType
}

// Item is one line of an invoice.
type Item struct {
	Name                 string
	ItemType             int
	Quantity             decimal.Decimal
	QuantityMore         decimal.Decimal
	QuantityMode         int
	MeasureUnit          int
	Price                decimal.Decimal // net or gross, as the invoice's VatInPrice says
	VatPercent           decimal.Decimal
	Status               string
	DataSourceID         int64
	DataSourceForeignKey string
	DtsSelectorID        int64
	TotalNoVat           decimal.Decimal // computed
	TotalVat             decimal.Decimal // computed
}

// Payment is the payment a create records.
type Payment struct {
	FullyPaid        bool
	PaymentType      int
	PaymentDate      msgkit.Date
	Comment          string
	BankAccountID    int64
	PaymentReference string
}

// SourceRecord links an invoice to the billing or credit record it came
// from.
type SourceRecord struct {
	BillingRecordID int64
	CreditRecordID  int64
}

// Amounts are the amounts an invoice, a balance and a sheet row report:
// net, gross and their difference (Vat), the total payable and its
// difference from gross (Rounding), and what is paid and unpaid of it.
type Amounts struct {
	AmountNoVat decimal.Decimal
	AmountVat   decimal.Decimal
	Vat         decimal.Decimal
	Rounding    decimal.Decimal
	Total       decimal.Decimal
	TotalPaid   decimal.Decimal
	TotalUnpaid decimal.Decimal
}

// list is a's amounts in a fixed order, for code that treats them alike.
func (a *Amounts) list() [7]*decimal.Decimal {
	return [7]*decimal.Decimal{&a.AmountNoVat, &a.AmountVat, &a.Vat, &a.Rounding, &a.Total, &a.TotalPaid, &a.TotalUnpaid}
}

// Invoice is a finance document: an invoice, a note or a statement.
type Invoice struct {
	ID         InvoiceID
	InstanceID int64
	OwnerID    int64
	UID        string // invUid

	Class      Class
	DataSource DataSource
	Domain     Domain
	Selector   string // "" or PartPayment

	Customer   Partner
	InvType    int64
	TemplateID int64
	Lang       string

	InvNumberFix      string
	SupplierInvNumber string
	InvNumber         string
	InvPeriod         string
	OwnerVatNumber    string

	InvDate        msgkit.Date
	InvoicingDate  msgkit.Date
	DeliveryDate   msgkit.Date
	InvDueDate     msgkit.Date
	InvPeriodStart msgkit.Date
	InvPeriodEnd   msgkit.Date

	Currency   Currency
	VatInPrice Entry
	VatInTotal int
	VatPercent decimal.Decimal // for items added without their own rate
	CashRound  bool            // total rounded to the currency's cash step

	Amounts

	Status             Status
	PaymentStatus      PaymentStatus
	SyncStatus         SyncStatus
	DocsDeliveryStatus DeliveryStatus
	CollectionMode     string // "none" or "member", …
	CollectionLeadID   int64
	NettingInvoiceID   int64
	ReminderStatus     string
	Comment            string
	DocumentSync       json.RawMessage

	// The workflow values the documents list and filter by, kept as the
	// requests set them (ProcessingStatuses and the other lists give the
	// values): ProcessingStatus is "none" until set, the others "" (null
	// on the wire) until set.
	ProcessingStatus    string
	DisputeStatus       string
	DisputeDt           time.Time // when DisputeStatus last changed; zero: never
	InvoicingDatePolicy string
	SyncMode            string

	Items        []Item
	Payment      *Payment
	SourceRecord *SourceRecord

	InsertDt     time.Time
	StatusDt     time.Time
	SyncStatusDt time.Time
	DeliveryDt   time.Time // docsDeliveryStatusDate
}

// CollectionMember reports whether the invoice is a member of a
// collection (a credit or debit note collected into another document),
// which may be neither updated nor deleted.
func (inv *Invoice) CollectionMember() bool { return inv.CollectionMode == "member" }
