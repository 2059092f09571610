package financeapi

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// The wire shapes of the finance API: the finance package's records have
// no JSON of their own, so that the interface's spellings (custID,
// amountNoVat, domesticCurrencyAmountNoVAT, ...) stay in this package.
// Fields the platform does not keep are written as null, never left out:
// a client reading the interface's field list finds every name.

// invoiceJSON is an invoice as list, get, create, update and the status
// changes answer it: every field of the interface's invoice.
type invoiceJSON struct {
	ID                                      finance.InvoiceID `json:"id"`
	InstanceID                              int64             `json:"instanceID"`
	InvUID                                  string            `json:"invUid"`
	CustID                                  int64             `json:"custID"`
	CustName                                string            `json:"custName"`
	CustShortName                           string            `json:"custShortName"`
	CustAttn                                string            `json:"custAttn"`
	CustAddress                             string            `json:"custAddress"`
	CustAddress2                            string            `json:"custAddress2"`
	CustPost                                string            `json:"custPost"`
	CustCity                                string            `json:"custCity"`
	CustPOBox                               string            `json:"custPOBox"`
	CustCountry                             int               `json:"custCountry"`
	CustomerType                            string            `json:"customerType"`
	CustVatNumber                           string            `json:"custVatNumber"`
	InvType                                 int64             `json:"invType"`
	InvTypeName                             *string           `json:"invTypeName"`
	TemplateID                              int64             `json:"templateID"`
	Lang                                    string            `json:"lang"`
	InvNumberFix                            string            `json:"invNumberFix"`
	InvNumberNum                            *int64            `json:"invNumberNum"`
	InvNumber                               string            `json:"invNumber"`
	InvPeriod                               string            `json:"invPeriod"`
	OwnerVatNumber                          string            `json:"ownerVatNumber"`
	InvDate                                 *msgkit.Date      `json:"invDate"`
	InvoicingDate                           *msgkit.Date      `json:"invoicingDate"`
	InvDueDate                              *msgkit.Date      `json:"invDueDate"`
	DeliveryDate                            *msgkit.Date      `json:"deliveryDate"`
	InvPeriodStart                          *msgkit.Date      `json:"invPeriodStart"`
	InvPeriodEnd                            *msgkit.Date      `json:"invPeriodEnd"`
	OverDueDate                             int               `json:"overDueDate"`
	Currency                                int               `json:"currency"`
	CurrencyCode                            string            `json:"currencyCode"`
	VatInPrice                              int               `json:"vatInPrice"`
	VatInTotal                              int               `json:"vatInTotal"`
	AmountNoVat                             finance.Amount    `json:"amountNoVat"`
	AmountVat                               finance.Amount    `json:"amountVat"`
	VatPercent                              json.Number       `json:"vatPercent"`
	Vat                                     finance.Amount    `json:"vat"`
	Rounding                                finance.Amount    `json:"rounding"`
	Total                                   finance.Amount    `json:"total"`
	TotalUnpaid                             finance.Amount    `json:"totalUnpaid"`
	TotalPaid                               finance.Amount    `json:"totalPaid"`
	DomesticCurrency                        *int              `json:"domesticCurrency"`
	DomesticCurrencyCode                    *string           `json:"domesticCurrencyCode"`
	DomesticCurrencyRate                    *json.Number      `json:"domesticCurrencyRate"`
	DomesticCurrencyAmountNoVAT             *finance.Amount   `json:"domesticCurrencyAmountNoVAT"`
	DomesticCurrencyAmountVAT               *finance.Amount   `json:"domesticCurrencyAmountVAT"`
	DomesticCurrencyTotal                   *finance.Amount   `json:"domesticCurrencyTotal"`
	DomesticCurrencyRounding                *finance.Amount   `json:"domesticCurrencyRounding"`
	Status                                  finance.Status    `json:"status"`
	StatusDt                                *time.Time        `json:"statusDt"`
	PaymentStatus                           string            `json:"paymentStatus"`
	PaymentStatusDate                       *time.Time        `json:"paymentStatusDate"`
	SelfBilling                             string            `json:"selfBilling"`
	SyncStatus                              string            `json:"syncStatus"`
	SyncStatusDt                            *time.Time        `json:"syncStatusDt"`
	SyncMode                                *string           `json:"syncMode"`
	DocumentSync                            json.RawMessage   `json:"documentSync"`
	DocsDeliveryStatus                      string            `json:"docsDeliveryStatus"`
	DocsDeliveryStatusDate                  *time.Time        `json:"docsDeliveryStatusDate"`
	DocsDeliveryDlrStatus                   *string           `json:"docsDeliveryDlrStatus"`
	DocsDeliveryDlrStatusDate               *time.Time        `json:"docsDeliveryDlrStatusDate"`
	ClassCodeName                           string            `json:"classCodeName"`
	ClassDomain                             string            `json:"classDomain"`
	ClassArea                               string            `json:"classArea"`
	DataSourceID                            int64             `json:"dataSourceId"`
	DataSourceCodeName                      string            `json:"dataSourceCodeName"`
	DomainID                                int64             `json:"domainId"`
	DomainCodeName                          string            `json:"domainCodeName"`
	DomainName                              string            `json:"domainName"`
	DomainProduct                           *int64            `json:"domainProduct"`
	DtsSelectorID                           *int64            `json:"dtsSelectorId"`
	DtsSelectorCodeName                     *string           `json:"dtsSelectorCodeName"`
	InvoicingDatePolicy                     *string           `json:"invoicingDatePolicy"`
	CollectionMode                          string            `json:"collectionMode"`
	CollectionLeadID                        *int64            `json:"collectionLeadId"`
	CollectionLeadNumber                    *string           `json:"collectionLeadNumber"`
	CollectionLeadNettingInvoiceID          *int64            `json:"collectionLeadNettingInvoiceId"`
	CollectionLeadNettingInvoiceNumber      *string           `json:"collectionLeadNettingInvoiceNumber"`
	CollectionLeadNettingInvoiceStatus      *string           `json:"collectionLeadNettingInvoiceStatus"`
	CollectionLeadNettingInvoicePaymentStat *string           `json:"collectionLeadNettingInvoicePaymentStatus"`
	CollectionLeadNettingInvoiceTotal       *string           `json:"collectionLeadNettingInvoiceTotal"`
	CollectionLeadNettingInvoiceTotalPaid   *string           `json:"collectionLeadNettingInvoiceTotalPaid"`
	CollectionLeadNettingInvoiceTotalUnpaid *string           `json:"collectionLeadNettingInvoiceTotalUnpaid"`
	NettingInvoiceID                        *int64            `json:"nettingInvoiceId"`
	NettingInvoiceNumber                    *string           `json:"nettingInvoiceNumber"`
	NettingInvoiceStatus                    *string           `json:"nettingInvoiceStatus"`
	NettingPaymentStatus                    *string           `json:"nettingPaymentStatus"`
	NettingTotal                            *finance.Amount   `json:"nettingTotal"`
	NettingTotalUnpaid                      *finance.Amount   `json:"nettingTotalUnpaid"`
	NettingTotalPaid                        *finance.Amount   `json:"nettingTotalPaid"`
	ProcessingStatus                        *string           `json:"processingStatus"`
	ReminderStatus                          string            `json:"reminderStatus"`
	DisputeStatus                           *string           `json:"disputeStatus"`
	DisputeStatusDate                       *time.Time        `json:"disputeStatusDate"`
	DisputeNextID                           *int64            `json:"disputeNextId"`
	Comment                                 string            `json:"comment"`
	SitInvoiceEmailImportID                 *int64            `json:"sitInvoiceEmailImportId"`
	SmsCount                                *int64            `json:"smsCount"`
	BillingBalance                          *billingBalance   `json:"billingBalance"`
	BillingTypeName                         *string           `json:"billingTypeName"`
	IndustryName                            *string           `json:"industryName"`
	OwnerID                                 int64             `json:"ownerId"`
	OwnerName                               *string           `json:"ownerName"`
	OwnerBpName                             *string           `json:"ownerBpName"`
	OwnerBpBriefName                        *string           `json:"ownerBpBriefName"`
	InsertDt                                *time.Time        `json:"insertDt"`
	AccountManagerID                        json.RawMessage   `json:"accountManagerId,omitempty"`   // with showAccountManager=yes
	AccountManagerName                      json.RawMessage   `json:"accountManagerName,omitempty"` // with showAccountManager=yes
	Items                                   []itemJSON        `json:"items"`
}

type billingBalance struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	ResourceURL string `json:"resourceUrl"`
}

// itemJSON is an invoice line as the invoice answers it.
type itemJSON struct {
	Name                 string         `json:"name"`
	ItemType             int            `json:"itemType"`
	Quantity             json.Number    `json:"quantity"`
	QuantityMore         json.Number    `json:"quantityMore"`
	QuantityMode         int            `json:"quantityMode"`
	MeasureUnit          int            `json:"measureUnit"`
	Price                json.Number    `json:"price"`
	VatPercent           json.Number    `json:"vatPercent"`
	Status               string         `json:"status"`
	DataSourceID         int64          `json:"dataSourceId"`
	DataSourceForeignKey string         `json:"dataSourceForeignKey"`
	DtsSelectorID        int64          `json:"dtsSelectorId"`
	TotalNoVat           finance.Amount `json:"totalNoVat"`
	TotalVat             finance.Amount `json:"totalVat"`
}

var jsonNull = json.RawMessage("null")

func dateOrNil(d msgkit.Date) *msgkit.Date {
	if d.IsZero() {
		return nil
	}
	return &d
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func idOrNil(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func number(d decimal.Decimal) json.Number { return json.Number(d.String()) }

// invoiceOf is an invoice's view on the wire: the invoice, and what
// finance.ViewOf computed beside it (the type's name and self-billing,
// the owner's names, the domestic amounts, the days overdue, the netting
// statement and collection lead), as the finance documents export shows
// the same values.
func invoiceOf(v finance.View) invoiceJSON {
	inv := &v.Invoice
	c := inv.Currency
	j := invoiceJSON{
		ID: inv.ID, InstanceID: inv.InstanceID, InvUID: inv.UID,
		CustID: inv.Customer.ID, CustName: inv.Customer.Name, CustShortName: inv.Customer.ShortName,
		CustAttn: inv.Customer.Attn, CustAddress: inv.Customer.Address, CustAddress2: inv.Customer.Address2,
		CustPost: inv.Customer.Post, CustCity: inv.Customer.City, CustPOBox: inv.Customer.POBox,
		CustCountry: inv.Customer.Country, CustomerType: inv.Customer.Type, CustVatNumber: inv.Customer.VatNumber,
		InvType: inv.InvType, InvTypeName: strOrNil(v.TypeName), TemplateID: inv.TemplateID, Lang: inv.Lang,
		InvNumberFix: inv.InvNumberFix, InvNumber: inv.InvNumberFix, InvPeriod: inv.InvPeriod, OwnerVatNumber: inv.OwnerVatNumber,
		InvDate: dateOrNil(inv.InvDate), InvoicingDate: dateOrNil(inv.InvoicingDate), InvDueDate: dateOrNil(inv.InvDueDate),
		DeliveryDate: dateOrNil(inv.DeliveryDate), InvPeriodStart: dateOrNil(inv.InvPeriodStart), InvPeriodEnd: dateOrNil(inv.InvPeriodEnd),
		OverDueDate: v.OverDue,
		Currency:    c.Numeric, CurrencyCode: c.Code, VatInPrice: int(inv.VatInPrice), VatInTotal: inv.VatInTotal,
		AmountNoVat: c.Amount(inv.AmountNoVat), AmountVat: c.Amount(inv.AmountVat), VatPercent: number(inv.VatPercent),
		Vat: c.Amount(inv.Vat), Rounding: c.Amount(inv.Rounding), Total: c.Amount(inv.Total),
		TotalUnpaid: c.Amount(inv.TotalUnpaid), TotalPaid: c.Amount(inv.TotalPaid),
		Status: inv.Status, StatusDt: timeOrNil(inv.StatusDt), PaymentStatus: string(inv.PaymentStatus),
		SelfBilling: finance.YesNo(v.SelfBilling), SyncStatus: string(inv.SyncStatus), SyncStatusDt: timeOrNil(inv.SyncStatusDt),
		SyncMode: strOrNil(inv.SyncMode), DocumentSync: inv.DocumentSync,
		DocsDeliveryStatus: string(inv.DocsDeliveryStatus), DocsDeliveryStatusDate: timeOrNil(inv.DeliveryDt),
		ClassCodeName: string(inv.Class), ClassDomain: finance.ClassDomain(inv.Class), ClassArea: finance.ClassArea(inv.Class),
		DataSourceID: finance.DataSourceID(inv.DataSource), DataSourceCodeName: string(inv.DataSource),
		DomainID: finance.DomainID(inv.Domain), DomainCodeName: string(inv.Domain), DomainName: finance.DomainName(inv.Domain),
		InvoicingDatePolicy: strOrNil(inv.InvoicingDatePolicy),
		CollectionMode:      inv.CollectionMode, CollectionLeadID: idOrNil(inv.CollectionLeadID), NettingInvoiceID: idOrNil(inv.NettingInvoiceID),
		ProcessingStatus: strOrNil(inv.ProcessingStatus), ReminderStatus: inv.ReminderStatus,
		DisputeStatus: strOrNil(inv.DisputeStatus), DisputeStatusDate: timeOrNil(inv.DisputeDt), Comment: inv.Comment,
		OwnerID: inv.OwnerID, OwnerName: strOrNil(v.OwnerName), OwnerBpName: strOrNil(v.OwnerName), OwnerBpBriefName: strOrNil(v.OwnerBriefName),
		InsertDt: timeOrNil(inv.InsertDt),
		Items:    make([]itemJSON, len(inv.Items)),
	}
	if len(j.DocumentSync) == 0 {
		j.DocumentSync = json.RawMessage("null")
	}
	if inv.InvNumberFix != "" {
		_, j.InvNumberNum = finance.NumberParts(inv.InvNumberFix)
	}
	if inv.Selector != "" {
		sel := inv.Selector
		j.DtsSelectorCodeName = &sel
	}
	if id, ok := finance.InvoiceSelectorID(inv); ok {
		j.DtsSelectorID = &id
	}
	if d := v.Domestic; d != nil {
		dc := d.Currency
		rate := number(d.Rate)
		code := dc.Code
		j.DomesticCurrency, j.DomesticCurrencyCode, j.DomesticCurrencyRate = &dc.Numeric, &code, &rate
		noVat, vat, total, rounding := dc.Amount(d.AmountNoVat), dc.Amount(d.AmountVat), dc.Amount(d.Total), dc.Amount(d.Rounding)
		j.DomesticCurrencyAmountNoVAT, j.DomesticCurrencyAmountVAT, j.DomesticCurrencyTotal, j.DomesticCurrencyRounding = &noVat, &vat, &total, &rounding
	}
	if n := v.Netting; n != nil {
		status, payment := string(n.Status), string(n.PaymentStatus)
		total, paid, unpaid := n.Currency.Amount(n.Total), n.Currency.Amount(n.TotalPaid), n.Currency.Amount(n.TotalUnpaid)
		j.NettingInvoiceNumber, j.NettingInvoiceStatus, j.NettingPaymentStatus = strOrNil(n.Number), &status, &payment
		j.NettingTotal, j.NettingTotalPaid, j.NettingTotalUnpaid = &total, &paid, &unpaid
	}
	if l := v.Lead; l != nil {
		j.CollectionLeadNumber = strOrNil(l.Number)
		if n := l.Netting; n != nil {
			id, status, payment := int64(n.ID), string(n.Status), string(n.PaymentStatus)
			total, paid, unpaid := n.Total.StringFixed(n.Currency.Decimals), n.TotalPaid.StringFixed(n.Currency.Decimals), n.TotalUnpaid.StringFixed(n.Currency.Decimals)
			j.CollectionLeadNettingInvoiceID, j.CollectionLeadNettingInvoiceNumber = &id, strOrNil(n.Number)
			j.CollectionLeadNettingInvoiceStatus, j.CollectionLeadNettingInvoicePaymentStat = &status, &payment
			j.CollectionLeadNettingInvoiceTotal, j.CollectionLeadNettingInvoiceTotalPaid, j.CollectionLeadNettingInvoiceTotalUnpaid = &total, &paid, &unpaid
		}
	}
	for i, it := range inv.Items {
		j.Items[i] = itemJSON{
			Name: it.Name, ItemType: it.ItemType, Quantity: number(it.Quantity), QuantityMore: number(it.QuantityMore),
			QuantityMode: it.QuantityMode, MeasureUnit: it.MeasureUnit, Price: number(it.Price), VatPercent: number(it.VatPercent),
			Status: it.Status, DataSourceID: it.DataSourceID, DataSourceForeignKey: it.DataSourceForeignKey, DtsSelectorID: it.DtsSelectorID,
			TotalNoVat: c.Amount(it.TotalNoVat), TotalVat: c.Amount(it.TotalVat),
		}
	}
	return j
}

// inputJSON is the body of create and update. Names match as
// encoding/json matches them, without regard to case: the interface
// spells templateID in its field list and templateId in its samples, and
// both are read. Members the body does not define (an invoice's read-only
// fields sent back) are ignored.
type inputJSON struct {
	CustID              *int64          `json:"custID"`
	InstanceID          *int64          `json:"instanceID"`
	CustName            *string         `json:"custName"`
	CustAttn            *string         `json:"custAttn"`
	CustAddress         *string         `json:"custAddress"`
	CustAddress2        *string         `json:"custAddress2"`
	CustPost            *string         `json:"custPost"`
	CustCity            *string         `json:"custCity"`
	CustPOBox           *string         `json:"custPOBox"`
	CustVatNumber       *string         `json:"custVatNumber"`
	CustCountry         *int            `json:"custCountry"`
	InvType             *int64          `json:"invType"`
	TemplateID          *int64          `json:"templateID"`
	Lang                *string         `json:"lang"`
	InvDate             *msgkit.Date    `json:"invDate"`
	InvoicingDate       *msgkit.Date    `json:"invoicingDate"`
	InvPeriodStart      *msgkit.Date    `json:"invPeriodStart"`
	InvPeriodEnd        *msgkit.Date    `json:"invPeriodEnd"`
	DeliveryDate        *msgkit.Date    `json:"deliveryDate"`
	InvNumberFix        *string         `json:"invNumberFix"`
	SupplierInvNumber   *string         `json:"supplierInvNumber"`
	InvPeriod           *string         `json:"invPeriod"`
	InvDueDate          *msgkit.Date    `json:"invDueDate"`
	InvDueDateDays      *int            `json:"invDueDateDays"`
	OwnerVatNumber      *string         `json:"ownerVatNumber"`
	Currency            *int            `json:"currency"`
	VatInPrice          *int            `json:"vatInPrice"`
	VatInTotal          *int            `json:"vatInTotal"`
	AmountNoVat         *finance.Amount `json:"amountNoVat"`
	AmountVat           *finance.Amount `json:"amountVat"`
	Total               *finance.Amount `json:"total"`
	Status              *string         `json:"status"`
	DocsDeliveryStatus  *string         `json:"docsDeliveryStatus"`
	Comment             *string         `json:"comment"`
	ReminderStatus      *string         `json:"reminderStatus"`
	OwnerID             *int64          `json:"ownerId"`
	ProcessingStatus    *string         `json:"processingStatus"`
	DisputeStatus       *string         `json:"disputeStatus"`
	InvoicingDatePolicy *string         `json:"invoicingDatePolicy"`
	SyncMode            *string         `json:"syncMode"`
	DataSourceCodeName  *string         `json:"dataSourceCodeName"`
	DataSourceID        *int64          `json:"dataSourceId"`
	DomainCodeName      *string         `json:"domainCodeName"`
	DomainID            *int64          `json:"domainId"`
	DtsSelectorCodeName *string         `json:"dtsSelectorCodeName"`
	DtsSelectorID       *int64          `json:"dtsSelectorId"`
	FinDocClassCodeName *string         `json:"finDocClassCodeName"`
	FinDocClassID       *int64          `json:"finDocClassId"`
	SitInvoiceEmailImp  *int64          `json:"sitInvoiceEmailImportId"`
	Items               []itemInputJSON `json:"items"`
	Payment             *paymentJSON    `json:"payment"`
	InvoiceSourceRecord *sourceJSON     `json:"invoiceSourceRecord"`
	VatPercent          *finance.Amount `json:"vatPercent"`
}

type itemInputJSON struct {
	Name                 string          `json:"name"`
	ItemType             int             `json:"itemType"`
	Quantity             *finance.Amount `json:"quantity"`
	QuantityMore         *finance.Amount `json:"quantityMore"`
	QuantityMode         int             `json:"quantityMode"`
	MeasureUnit          int             `json:"measureUnit"`
	Price                *finance.Amount `json:"price"`
	VatPercent           *finance.Amount `json:"vatPercent"`
	Status               string          `json:"status"`
	DataSourceID         int64           `json:"dataSourceId"`
	DataSourceForeignKey string          `json:"dataSourceForeignKey"`
	DtsSelectorID        int64           `json:"dtsSelectorId"`
}

type paymentJSON struct {
	FullyPaid        bool         `json:"fullyPaid"`
	PaymentType      int          `json:"paymentType"`
	PaymentDate      *msgkit.Date `json:"paymentDate"`
	Comment          string       `json:"comment"`
	BankAccountID    int64        `json:"bankAccountId"`
	PaymentReference string       `json:"paymentReference"`
}

type sourceJSON struct {
	BillingRecordID int64 `json:"billingRecordId"`
	CreditRecordID  int64 `json:"creditRecordId"`
}

func amountOrNil(a *finance.Amount) *decimal.Decimal {
	if a == nil {
		return nil
	}
	return &a.Value
}

func amountOrZero(a *finance.Amount) decimal.Decimal {
	if a == nil {
		return decimal.Zero
	}
	return a.Value
}

// codeByID turns a classification id into its code, for bodies that send
// the id (dataSourceId, domainId, finDocClassId, dtsSelectorId) rather
// than the code; a code sent too must be the same one.
func codeByID[T ~string](field string, id *int64, code *string, codes []T) (*string, error) {
	if id == nil {
		return code, nil
	}
	if *id < 1 || *id > int64(len(codes)) {
		return nil, msgkit.Invalidf(finance.CodeInvalidInvoice, field, "%s %d is none of the ids 1 to %d", field, *id, len(codes))
	}
	c := string(codes[*id-1])
	if code != nil && *code != c {
		return nil, msgkit.Invalidf(finance.CodeInvalidInvoice, field, "%s %d is %s, not %s", field, *id, c, *code)
	}
	return &c, nil
}

// input is the body as the finance package reads it.
func (in inputJSON) input() (finance.Input, error) {
	out := finance.Input{
		CustID: in.CustID, InstanceID: in.InstanceID,
		Customer: finance.PartnerInput{Name: in.CustName, Attn: in.CustAttn, Address: in.CustAddress, Address2: in.CustAddress2,
			Post: in.CustPost, City: in.CustCity, POBox: in.CustPOBox, VatNumber: in.CustVatNumber, Country: in.CustCountry},
		InvType: in.InvType, TemplateID: in.TemplateID, Lang: in.Lang,
		InvDate: in.InvDate, InvoicingDate: in.InvoicingDate, DeliveryDate: in.DeliveryDate, InvDueDate: in.InvDueDate,
		InvDueDateDays: in.InvDueDateDays, InvPeriodStart: in.InvPeriodStart, InvPeriodEnd: in.InvPeriodEnd,
		InvNumberFix: in.InvNumberFix, SupplierInvNumber: in.SupplierInvNumber, InvPeriod: in.InvPeriod, OwnerVatNumber: in.OwnerVatNumber,
		Currency: in.Currency, VatInPrice: in.VatInPrice, VatInTotal: in.VatInTotal, VatPercent: amountOrNil(in.VatPercent),
		AmountNoVat: amountOrNil(in.AmountNoVat), AmountVat: amountOrNil(in.AmountVat), Total: amountOrNil(in.Total),
		Status: in.Status, DocsDeliveryStatus: in.DocsDeliveryStatus, Comment: in.Comment, ReminderStatus: in.ReminderStatus,
		OwnerID: in.OwnerID, ProcessingStatus: in.ProcessingStatus, DisputeStatus: in.DisputeStatus,
		InvoicingDatePolicy: in.InvoicingDatePolicy, SyncMode: in.SyncMode,
	}
	var err error
	if out.DataSource, err = codeByID("dataSourceId", in.DataSourceID, in.DataSourceCodeName, finance.DataSources()); err != nil {
		return finance.Input{}, err
	}
	if out.Domain, err = codeByID("domainId", in.DomainID, in.DomainCodeName, finance.Domains()); err != nil {
		return finance.Input{}, err
	}
	if out.Class, err = codeByID("finDocClassId", in.FinDocClassID, in.FinDocClassCodeName, finance.Classes()); err != nil {
		return finance.Input{}, err
	}
	if out.Selector, err = codeByID("dtsSelectorId", in.DtsSelectorID, in.DtsSelectorCodeName, []string{finance.PartPayment}); err != nil {
		return finance.Input{}, err
	}
	if in.Items != nil {
		out.Items = make([]finance.ItemInput, len(in.Items))
		for i, it := range in.Items {
			out.Items[i] = finance.ItemInput{
				Name: it.Name, ItemType: it.ItemType, Quantity: amountOrZero(it.Quantity), QuantityMore: amountOrZero(it.QuantityMore),
				QuantityMode: it.QuantityMode, MeasureUnit: it.MeasureUnit, Price: amountOrZero(it.Price), VatPercent: amountOrNil(it.VatPercent),
				Status: it.Status, DataSourceID: it.DataSourceID, DataSourceForeignKey: it.DataSourceForeignKey, DtsSelectorID: it.DtsSelectorID,
			}
		}
	}
	if p := in.Payment; p != nil {
		out.Payment = &finance.Payment{FullyPaid: p.FullyPaid, PaymentType: p.PaymentType, Comment: p.Comment,
			BankAccountID: p.BankAccountID, PaymentReference: p.PaymentReference}
		if p.PaymentDate != nil {
			out.Payment.PaymentDate = *p.PaymentDate
		}
	}
	if s := in.InvoiceSourceRecord; s != nil {
		out.SourceRecord = &finance.SourceRecord{BillingRecordID: s.BillingRecordID, CreditRecordID: s.CreditRecordID}
	}
	return out, nil
}

// configJSON is a default invoice configuration.
type configJSON struct {
	TypeID              int64   `json:"typeId"`
	InstanceID          int64   `json:"instanceId"`
	Name                string  `json:"name"`
	Status              string  `json:"status"`
	DataSourceID        int64   `json:"dataSourceId"`
	DataSourceCodeName  string  `json:"dataSourceCodeName"`
	DataSourceDefault   string  `json:"dataSourceDefault"`
	DomainID            int64   `json:"domainId"`
	DomainCodeName      string  `json:"domainCodeName"`
	DocClassID          int64   `json:"docClassId"`
	DocClassCodeName    string  `json:"docClassCodeName"`
	SelfBilling         string  `json:"selfBilling"`
	SelfBillingOfType   int64   `json:"selfBillingOfType"`
	DocFactoryParams    string  `json:"docFactoryParams"`
	Comment             string  `json:"comment"`
	StatusDt            string  `json:"statusDt"`
	TemplateID          *int64  `json:"templateId"`
	TemplateLang        *string `json:"templateLang"`
	TemplateName        *string `json:"templateName"`
	TemplateFileName    *string `json:"templateFileName"`
	DtsSelectorID       *int64  `json:"dtsSelectorId"`
	DtsSelectorCodeName *string `json:"dtsSelectorCodeName"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func configOf(c finance.InvoiceConfig) configJSON {
	j := configJSON{
		TypeID: c.TypeID, InstanceID: c.InstanceID, Name: c.Name, Status: c.Status,
		DataSourceID: finance.DataSourceID(c.DataSource), DataSourceCodeName: string(c.DataSource), DataSourceDefault: c.DataSourceDefault,
		DomainID: finance.DomainID(c.Domain), DomainCodeName: string(c.Domain),
		DocClassID: finance.ClassID(c.DocClass), DocClassCodeName: string(c.DocClass),
		SelfBilling: c.SelfBilling, SelfBillingOfType: c.SelfBillingOfType, DocFactoryParams: c.DocFactoryParams, Comment: c.Comment,
		TemplateID: idOrNil(c.TemplateID), TemplateLang: strOrNil(c.TemplateLang), TemplateName: strOrNil(c.TemplateName),
		TemplateFileName: strOrNil(c.TemplateFileName), DtsSelectorCodeName: strOrNil(c.Selector),
	}
	if !c.StatusDt.IsZero() {
		j.StatusDt = c.StatusDt.UTC().Format(time.RFC3339)
	}
	if c.Selector != "" {
		one := int64(1)
		j.DtsSelectorID = &one
	}
	return j
}

// fileJSON is an invoice file as the files listing lists it.
type fileJSON struct {
	ID                         finance.FileID    `json:"id"`
	InvoiceID                  finance.InvoiceID `json:"invoiceId"`
	DataSourceFileTypeID       int64             `json:"dataSourceFileTypeId"`
	DataSourceFileTypeCodeName string            `json:"dataSourceFileTypeCodeName"`
	Filename                   string            `json:"filename"`
	FileSystemFileFilename     string            `json:"fileSystemFileFilename"`
	Size                       int64             `json:"size"`
	Status                     string            `json:"status"`
	StatusInfo                 string            `json:"statusInfo"`
	StatusDt                   *time.Time        `json:"statusDt"`
	FileSystemFileStatus       string            `json:"fileSystemFileStatus"`
	FileSystemFileStatusDt     *time.Time        `json:"fileSystemFileStatusDt"`
	InsertDt                   *time.Time        `json:"insertDt"`
}

func fileOf(f finance.FileRecord) fileJSON {
	return fileJSON{ID: f.ID, InvoiceID: f.InvoiceID, DataSourceFileTypeID: f.FileTypeID, DataSourceFileTypeCodeName: f.FileTypeCode,
		Filename: f.Filename, FileSystemFileFilename: f.StoredName, Size: f.Size, Status: f.Status, StatusInfo: f.StatusInfo,
		StatusDt: timeOrNil(f.StatusDt), FileSystemFileStatus: f.StorageStatus, FileSystemFileStatusDt: timeOrNil(f.StorageDt),
		InsertDt: timeOrNil(f.InsertDt)}
}

// uploadJSON is the upload's answer, in the interface's shorter names.
type uploadJSON struct {
	ID            finance.FileID    `json:"id"`
	InvoiceID     finance.InvoiceID `json:"invoiceId"`
	Filename      string            `json:"filename"`
	FsFilename    string            `json:"fsFilename"`
	Size          int64             `json:"size"`
	Status        string            `json:"status"`
	StatusDt      *time.Time        `json:"statusDt"`
	StatusInfo    string            `json:"statusInfo"`
	InsertDt      *time.Time        `json:"insertDt"`
	DtsFileTypeID int64             `json:"dtsFileTypeId"`
	FsStatus      string            `json:"fsStatus"`
}

func uploadOf(f finance.FileRecord) uploadJSON {
	return uploadJSON{ID: f.ID, InvoiceID: f.InvoiceID, Filename: f.Filename, FsFilename: f.StoredName, Size: f.Size,
		Status: f.Status, StatusDt: timeOrNil(f.StatusDt), StatusInfo: f.StatusInfo, InsertDt: timeOrNil(f.InsertDt),
		DtsFileTypeID: f.FileTypeID, FsStatus: f.StorageStatus}
}

// partyJSON are the fields every balance and sheet row has.
type partyJSON struct {
	InstanceID          int64          `json:"instanceId"`
	BizPartnerID        int64          `json:"bizPartnerId"`
	BizPartnerName      string         `json:"bizPartnerName"`
	BizPartnerBriefName string         `json:"bizPartnerBriefName"`
	BizPartnerType      string         `json:"bizPartnerType"`
	Currency            int            `json:"currency"`
	CurrencyCode        string         `json:"currencyCode"`
	AmountNoVat         finance.Amount `json:"amountNoVat"`
	AmountVat           finance.Amount `json:"amountVat"`
	Vat                 finance.Amount `json:"vat"`
	Rounding            finance.Amount `json:"rounding"`
	Total               finance.Amount `json:"total"`
	TotalUnpaid         finance.Amount `json:"totalUnpaid"`
	TotalPaid           finance.Amount `json:"totalPaid"`
	OwnerID             int64          `json:"ownerId"`
	OwnerBpName         *string        `json:"ownerBpName"`
	OwnerBpBriefName    *string        `json:"ownerBpBriefName"`
}

func partyOf(p finance.Partner, c finance.Currency, owner int64, a finance.Amounts, places int32) partyJSON {
	amt := func(d decimal.Decimal) finance.Amount { return finance.Amount{Value: d, Places: places} }
	return partyJSON{BizPartnerID: p.ID, BizPartnerName: p.Name, BizPartnerBriefName: p.ShortName, BizPartnerType: p.Type,
		Currency: c.Numeric, CurrencyCode: c.Code, AmountNoVat: amt(a.AmountNoVat), AmountVat: amt(a.AmountVat), Vat: amt(a.Vat),
		Rounding: amt(a.Rounding), Total: amt(a.Total), TotalUnpaid: amt(a.TotalUnpaid), TotalPaid: amt(a.TotalPaid), OwnerID: owner}
}

// agingJSON splits the unpaid total by days past due, with asOf.
type agingJSON struct {
	Current     finance.Amount `json:"current"`
	Days1To30   finance.Amount `json:"days1To30"`
	Days31To60  finance.Amount `json:"days31To60"`
	Days61To90  finance.Amount `json:"days61To90"`
	Days91To120 finance.Amount `json:"days91To120"`
	Over120     finance.Amount `json:"over120"`
}

// balanceJSON is a balance: the common fields, the grouping attributes
// asked for (written by MarshalJSON beside them) and, with asOf, the
// aging buckets.
type balanceJSON struct {
	partyJSON
	Aging *agingJSON `json:"aging,omitempty"`
	group map[string]msgkit.Value
}

func (b balanceJSON) MarshalJSON() ([]byte, error) {
	type plain balanceJSON // without this method
	base, err := json.Marshal(plain(b))
	if err != nil || len(b.group) == 0 {
		return base, err
	}
	extra := make(map[string]any, len(b.group))
	for name, v := range b.group {
		switch {
		case v.IsNull():
			extra[name] = nil
		case v.Type() == msgkit.AttrNumber:
			extra[name] = json.Number(v.Number())
		default:
			extra[name] = v.Str()
		}
	}
	more, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	// {"a":1} + {"b":2} = {"a":1,"b":2}
	return append(append(base[:len(base)-1], ','), more[1:]...), nil
}

// places is how many decimals an amount of c is written with: the
// currency's, or more when a sum holds more (a document with more
// decimals than its currency).
func places(c finance.Currency, a finance.Amounts) int32 {
	p := c.Decimals
	for _, d := range []decimal.Decimal{a.AmountNoVat, a.AmountVat, a.Vat, a.Rounding, a.Total, a.TotalPaid, a.TotalUnpaid} {
		p = max(p, -d.Exponent())
	}
	return p
}

func balanceOf(b finance.Balance) balanceJSON {
	p := places(b.Currency, b.Amounts)
	j := balanceJSON{partyJSON: partyOf(b.Partner, b.Currency, b.OwnerID, b.Amounts, p), group: b.Group}
	if a := b.Aging; a != nil {
		amt := func(d decimal.Decimal) finance.Amount { return finance.Amount{Value: d, Places: p} }
		j.Aging = &agingJSON{Current: amt(a.Current), Days1To30: amt(a.Days1To30), Days31To60: amt(a.Days31To60),
			Days61To90: amt(a.Days61To90), Days91To120: amt(a.Days91To120), Over120: amt(a.Over120)}
	}
	return j
}

// sheetJSON is a document of a balance sheet.
type sheetJSON struct {
	partyJSON
	DocumentID          finance.InvoiceID `json:"documentId"`
	DocumentUUID        string            `json:"documentUuId"`
	VatPercent          json.Number       `json:"vatPercent"`
	DocumentNumber      string            `json:"documentNumber"`
	DocumentDate        *msgkit.Date      `json:"documentDate"`
	DocumentDueDate     *msgkit.Date      `json:"documentDueDate"`
	DocumentIssuingDate *msgkit.Date      `json:"documentIssuingDate"`
	PaymentStatus       string            `json:"paymentStatus"`
}

func sheetOf(r finance.SheetRow) sheetJSON {
	return sheetJSON{partyJSON: partyOf(r.Partner, r.Currency, r.OwnerID, r.Amounts, places(r.Currency, r.Amounts)),
		DocumentID: r.DocumentID, DocumentUUID: r.DocumentUUID, VatPercent: number(r.VatPercent), DocumentNumber: r.Number,
		DocumentDate: dateOrNil(r.Date), DocumentDueDate: dateOrNil(r.DueDate), DocumentIssuingDate: dateOrNil(r.IssuingDate),
		PaymentStatus: string(r.PaymentStatus)}
}
