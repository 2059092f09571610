package financeapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
)

// documentJSON is a finance document as the export lists it.
type documentJSON struct {
	ID                      finance.InvoiceID   `json:"id"`
	DocumentUUID            string              `json:"documentUuid"`
	InstanceID              int64               `json:"instanceId"`
	BizPartnerID            int64               `json:"bizPartnerId"`
	BizPartnerCountry       int                 `json:"bizPartnerCountry"`
	BizPartnerExternalRefID *string             `json:"bizPartnerExternalRefId"`
	BizPartner              bizPartnerJSON      `json:"bizPartner"`
	DocumentNumber          string              `json:"documentNumber"`
	DocumentNumberMask      string              `json:"documentNumberMask"`
	DocumentNumberNum       *int64              `json:"documentNumberNum"`
	Currency                int                 `json:"currency"`
	CurrencyCode            string              `json:"currencyCode"`
	DomesticCurrency        *int                `json:"domesticCurrency"`
	DomesticCurrencyCode    *string             `json:"domesticCurrencyCode"`
	DomesticCurrencyRate    *json.Number        `json:"domesticCurrencyRate"`
	DomesticAmountNoVat     *finance.Amount     `json:"domesticAmountNoVat"`
	DomesticAmountVat       *finance.Amount     `json:"domesticAmountVat"`
	DomesticRounding        *finance.Amount     `json:"domesticRounding"`
	DomesticTotal           *finance.Amount     `json:"domesticTotal"`
	Lang                    string              `json:"lang"`
	DocumentType            int64               `json:"documentType"`
	DocumentTypeName        *string             `json:"documentTypeName"`
	SelfBilling             string              `json:"selfBilling"`
	DomainID                *int64              `json:"domainId"`
	DomainCodeName          *string             `json:"domainCodeName"`
	DocumentClassCodeName   finance.Class       `json:"documentClassCodeName"`
	DocumentClassDomain     string              `json:"documentClassDomain"`
	DocumentClassArea       string              `json:"documentClassArea"`
	DataSourceID            *int64              `json:"dataSourceId"`
	DataSourceCodeName      *string             `json:"dataSourceCodeName"`
	DataSourceSelector      *string             `json:"dataSourceSelector"`
	Note                    *string             `json:"note"`
	OwnerID                 int64               `json:"ownerId"`
	OwnerBpName             *string             `json:"ownerBpName"`
	OwnerBpBriefName        *string             `json:"ownerBpBriefName"`
	DocumentDate            *msgkit.Date        `json:"documentDate"`
	DeliveryDate            *msgkit.Date        `json:"deliveryDate"`
	DueDate                 *msgkit.Date        `json:"dueDate"`
	PeriodStart             *msgkit.Date        `json:"periodStart"`
	PeriodEnd               *msgkit.Date        `json:"periodEnd"`
	InsertDt                *time.Time          `json:"insertDt"`
	StatusDt                *time.Time          `json:"statusDt"`
	PaymentStatusDate       *time.Time          `json:"paymentStatusDate"`
	SyncStatusDt            *time.Time          `json:"syncStatusDt"`
	DocsDeliveryStatusDate  *time.Time          `json:"docsDeliveryStatusDate"`
	AmountNoVat             finance.Amount      `json:"amountNoVat"`
	AmountVat               finance.Amount      `json:"amountVat"`
	VatPercent              json.Number         `json:"vatPercent"`
	Vat                     finance.Amount      `json:"vat"`
	Rounding                finance.Amount      `json:"rounding"`
	Total                   finance.Amount      `json:"total"`
	TotalUnpaid             finance.Amount      `json:"totalUnpaid"`
	TotalPaid               finance.Amount      `json:"totalPaid"`
	Status                  finance.Status      `json:"status"`
	PaymentStatus           string              `json:"paymentStatus"`
	SyncStatus              string              `json:"syncStatus"`
	DocsDeliveryStatus      string              `json:"docsDeliveryStatus"`
	DocumentSync            json.RawMessage     `json:"documentSync"`
	DataSource              *documentSourceJSON `json:"dataSource"`
	Items                   []documentItemJSON  `json:"items"`
	TrafficReports          []trafficJSON       `json:"trafficReports,omitempty"`
}

type bizPartnerJSON struct {
	Name             string          `json:"name"`
	BriefName        string          `json:"briefName"`
	PartnerType      string          `json:"partnerType"`
	Attn             string          `json:"attn"`
	Address          string          `json:"address"`
	Post             string          `json:"post"`
	City             string          `json:"city"`
	VatNumber        string          `json:"vatNumber"`
	CustomAttributes []attributeJSON `json:"customAttributes"`
}

type attributeJSON struct {
	CodeName string          `json:"codeName"`
	Value    json.RawMessage `json:"value"`
}

type documentSourceJSON struct {
	ID                  int64               `json:"id"`
	BillingTotalBalance *billingAccountJSON `json:"billingTotalBalance"`
}

type billingAccountJSON struct {
	ID                  int64            `json:"id"`
	InstanceID          int64            `json:"instanceId"`
	BizPartnerID        int64            `json:"bizPartnerId"`
	Currency            int              `json:"currency"`
	CurrencyCode        string           `json:"currencyCode"`
	BillingTypeCodeName string           `json:"billingTypeCodeName"`
	Name                string           `json:"name"`
	CustomAttributes    []attributeJSON  `json:"customAttributes"`
	SMSConnections      []connectionJSON `json:"smsConnections,omitempty"`
	MNPConnections      []connectionJSON `json:"mnpConnections,omitempty"`
}

// connectionJSON is a connection; a supplier connection of a
// POSTPAID-CONTROL document has only id and name (and instanceId for MNP).
type connectionJSON struct {
	ID         int64   `json:"id"`
	InstanceID *int64  `json:"instanceId,omitempty"`
	Name       string  `json:"name"`
	AuthName   *string `json:"authName,omitempty"`
	Protocol   *string `json:"protocol,omitempty"`
}

type documentItemJSON struct {
	ID                   int64             `json:"id"`
	DocumentID           finance.InvoiceID `json:"documentId"`
	OrdNum               int64             `json:"ordNum"`
	Name                 string            `json:"name"`
	Quantity             json.Number       `json:"quantity"`
	MeasureUnit          int               `json:"measureUnit"`
	Price                json.Number       `json:"price"`
	TotalNoVat           finance.Amount    `json:"totalNoVat"`
	TotalVat             finance.Amount    `json:"totalVat"`
	DataSourceID         *int64            `json:"dataSourceId"`
	DataSourceCodeName   *string           `json:"dataSourceCodeName"`
	DataSourceForeignKey *string           `json:"dataSourceForeignKey"`
	DataSourceSelector   *string           `json:"dataSourceSelector"`
	DataSource           *itemSourceJSON   `json:"dataSource"`
}

type itemSourceJSON struct {
	ID             int64               `json:"id"`
	DocumentID     finance.InvoiceID   `json:"documentId"`
	BillingAccount *billingAccountJSON `json:"billingAccount"`
}

type trafficJSON struct {
	BizPartnerID        int64          `json:"bizPartnerId"`
	BizPartnerBriefName string         `json:"bizPartnerBriefName"`
	BizPartnerExtRefID  *string        `json:"bizPartnerExtRefId"`
	BillingAccountID    int64          `json:"billingAccountId"`
	BillingAccountName  string         `json:"billingAccountName"`
	CountryID           int64          `json:"countryId"`
	CountryName         string         `json:"countryName"`
	CountryCode2        string         `json:"countryCode2"`
	OperatorID          int64          `json:"operatorId"`
	OperatorName        string         `json:"operatorName"`
	MCC                 string         `json:"mcc"`
	MNC                 string         `json:"mnc"`
	StartDt             time.Time      `json:"startDt"`
	EndDt               time.Time      `json:"endDt"`
	SMSCount            int64          `json:"smsCnt"`
	Currency            int            `json:"currency"`
	CurrencyCode        string         `json:"currencyCode"`
	Price               json.Number    `json:"price"`
	TotalAmount         finance.Amount `json:"totalAmount"`
}

func attributesOf(as []finance.CustomAttribute) []attributeJSON {
	out := make([]attributeJSON, len(as))
	for i, a := range as {
		out[i] = attributeJSON{CodeName: a.CodeName, Value: a.Value}
	}
	return out
}

func connectionsOf(cs []finance.Connection) []connectionJSON {
	if cs == nil {
		return nil
	}
	out := make([]connectionJSON, len(cs))
	for i, c := range cs {
		out[i] = connectionJSON{ID: c.ID, InstanceID: idOrNil(c.InstanceID), Name: c.Name, AuthName: strOrNil(c.AuthName), Protocol: strOrNil(c.Protocol)}
	}
	return out
}

func accountOf(a *finance.BillingAccount) *billingAccountJSON {
	if a == nil {
		return nil
	}
	return &billingAccountJSON{ID: a.ID, InstanceID: a.InstanceID, BizPartnerID: a.BizPartnerID, Currency: a.Currency.Numeric,
		CurrencyCode: a.Currency.Code, BillingTypeCodeName: a.BillingType, Name: a.Name, CustomAttributes: attributesOf(a.CustomAttributes),
		SMSConnections: connectionsOf(a.SMSConnections), MNPConnections: connectionsOf(a.MNPConnections)}
}

func documentOf(d finance.Document) documentJSON {
	c := d.Currency
	amt := func(v decimal.Decimal) finance.Amount { return c.Amount(v) }
	j := documentJSON{
		ID: d.ID, DocumentUUID: d.UUID, InstanceID: d.InstanceID, BizPartnerID: d.BizPartnerID, BizPartnerCountry: d.BizPartnerCountry,
		BizPartnerExternalRefID: strOrNil(d.BizPartnerExternalRefID),
		BizPartner: bizPartnerJSON{Name: d.BizPartner.Name, BriefName: d.BizPartner.BriefName, PartnerType: d.BizPartner.PartnerType,
			Attn: d.BizPartner.Attn, Address: d.BizPartner.Address, Post: d.BizPartner.Post, City: d.BizPartner.City,
			VatNumber: d.BizPartner.VatNumber, CustomAttributes: attributesOf(d.BizPartner.CustomAttributes)},
		DocumentNumber: d.Number, DocumentNumberMask: d.NumberMask, DocumentNumberNum: d.NumberNum,
		Currency: c.Numeric, CurrencyCode: c.Code, Lang: d.Lang,
		DocumentType: d.DocumentType, DocumentTypeName: strOrNil(d.DocumentTypeName), SelfBilling: d.SelfBilling,
		DomainID: idOrNil(d.DomainID), DomainCodeName: strOrNil(string(d.Domain)),
		DocumentClassCodeName: d.Class, DocumentClassDomain: d.ClassDomain, DocumentClassArea: d.ClassArea,
		DataSourceID: idOrNil(d.DataSourceID), DataSourceCodeName: strOrNil(string(d.DataSource)), DataSourceSelector: strOrNil(d.Selector),
		Note: strOrNil(d.Note), OwnerID: d.OwnerID, OwnerBpName: strOrNil(d.OwnerBpName), OwnerBpBriefName: strOrNil(d.OwnerBpBriefName),
		DocumentDate: dateOrNil(d.DocumentDate), DeliveryDate: dateOrNil(d.DeliveryDate), DueDate: dateOrNil(d.DueDate),
		PeriodStart: dateOrNil(d.PeriodStart), PeriodEnd: dateOrNil(d.PeriodEnd),
		InsertDt: timeOrNil(d.InsertDt), StatusDt: timeOrNil(d.StatusDt), PaymentStatusDate: timeOrNil(d.PaymentStatusDate),
		SyncStatusDt: timeOrNil(d.SyncStatusDt), DocsDeliveryStatusDate: timeOrNil(d.DocsDeliveryStatusDate),
		AmountNoVat: amt(d.AmountNoVat), AmountVat: amt(d.AmountVat), VatPercent: number(d.VatPercent), Vat: amt(d.Vat),
		Rounding: amt(d.Rounding), Total: amt(d.Total), TotalUnpaid: amt(d.TotalUnpaid), TotalPaid: amt(d.TotalPaid),
		Status: d.Status, PaymentStatus: string(d.PaymentStatus), SyncStatus: string(d.SyncStatus), DocsDeliveryStatus: string(d.DocsDeliveryStatus),
		DocumentSync: d.DocumentSync, Items: make([]documentItemJSON, len(d.Items)),
	}
	if len(j.DocumentSync) == 0 {
		j.DocumentSync = jsonNull
	}
	if dom := d.Domestic; dom != nil {
		dc := d.DomesticCurrency
		n, code, rate := dc.Numeric, dc.Code, number(dom.Rate)
		damt := func(v decimal.Decimal) *finance.Amount { a := dc.Amount(v); return &a }
		j.DomesticCurrency, j.DomesticCurrencyCode, j.DomesticCurrencyRate = &n, &code, &rate
		j.DomesticAmountNoVat, j.DomesticAmountVat, j.DomesticRounding, j.DomesticTotal =
			damt(dom.AmountNoVat), damt(dom.AmountVat), damt(dom.Rounding), damt(dom.Total)
	}
	if s := d.Source; s != nil {
		j.DataSource = &documentSourceJSON{ID: s.ID, BillingTotalBalance: accountOf(s.Account)}
	}
	for i, it := range d.Items {
		j.Items[i] = documentItemJSON{ID: it.ID, DocumentID: it.DocumentID, OrdNum: it.OrdNum, Name: it.Name,
			Quantity: number(it.Quantity), MeasureUnit: it.MeasureUnit, Price: number(it.Price),
			TotalNoVat: amt(it.TotalNoVat), TotalVat: amt(it.TotalVat),
			DataSourceID: idOrNil(it.DataSourceID), DataSourceCodeName: strOrNil(string(it.DataSourceCodeName)),
			DataSourceForeignKey: strOrNil(it.DataSourceForeignKey), DataSourceSelector: strOrNil(it.DataSourceSelector)}
		if s := it.Source; s != nil {
			j.Items[i].DataSource = &itemSourceJSON{ID: s.ID, DocumentID: s.DocumentID, BillingAccount: accountOf(s.Account)}
		}
	}
	if d.TrafficReports != nil {
		j.TrafficReports = make([]trafficJSON, len(d.TrafficReports))
		for i, t := range d.TrafficReports {
			j.TrafficReports[i] = trafficOf(t)
		}
	}
	return j
}

func trafficOf(t finance.TrafficReport) trafficJSON {
	return trafficJSON{BizPartnerID: t.BizPartnerID, BizPartnerBriefName: t.BizPartnerBriefName,
		BizPartnerExtRefID: strOrNil(t.BizPartnerExtRefID), BillingAccountID: t.BillingAccountID, BillingAccountName: t.BillingAccountName,
		CountryID: t.CountryID, CountryName: t.CountryName, CountryCode2: t.CountryCode2, OperatorID: t.OperatorID,
		OperatorName: t.OperatorName, MCC: t.MCC, MNC: t.MNC, StartDt: t.StartDt.UTC(), EndDt: t.EndDt.UTC(), SMSCount: t.SMSCount,
		Currency: t.Currency.Numeric, CurrencyCode: t.Currency.Code, Price: number(t.Price), TotalAmount: t.Currency.Amount(t.TotalAmount)}
}

// documents answers the finance documents export.
func (a *api) documents(w http.ResponseWriter, r *http.Request) error {
	q, err := finance.ParseDocumentQuery(r.URL.Query())
	if err != nil {
		return err
	}
	scope, err := a.scope(r, auth.PrivFinanceInvoicesView)
	if err != nil {
		return err
	}
	page, err := a.b.Service.Documents(r.Context(), scope, q)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.ListOf(page, q.Listing(), documentOf))
	return nil
}
