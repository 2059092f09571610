package financeapi

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// partnerJSON is a business partner as the reference routes read and
// write it: the data invoices copy, the export's data and the tenant.
// bizPartnerId is read-only (the path names the partner).
type partnerJSON struct {
	BizPartnerID     int64           `json:"bizPartnerId"`
	Name             string          `json:"name"`
	BriefName        string          `json:"briefName"`
	PartnerType      string          `json:"partnerType"`
	Attn             string          `json:"attn"`
	Address          string          `json:"address"`
	Address2         string          `json:"address2"`
	Post             string          `json:"post"`
	City             string          `json:"city"`
	POBox            string          `json:"poBox"`
	VatNumber        string          `json:"vatNumber"`
	Country          int             `json:"country"`
	ExternalRefID    *string         `json:"externalRefId"`
	CustomAttributes []attributeJSON `json:"customAttributes"`
	ServiceUUID      *string         `json:"serviceUuid"`
}

func partnerOf(r finance.PartnerRecord) partnerJSON {
	return partnerJSON{BizPartnerID: r.ID, Name: r.Name, BriefName: r.ShortName, PartnerType: r.Type, Attn: r.Attn,
		Address: r.Address, Address2: r.Address2, Post: r.Post, City: r.City, POBox: r.POBox, VatNumber: r.VatNumber,
		Country: r.Country, ExternalRefID: strOrNil(r.Export.ExternalRefID), CustomAttributes: attributesOf(r.Export.CustomAttributes),
		ServiceUUID: strOrNil(string(r.Service))}
}

func (p partnerJSON) record(id int64) finance.PartnerRecord {
	r := finance.PartnerRecord{Partner: finance.Partner{ID: id, Name: p.Name, ShortName: p.BriefName, Type: p.PartnerType, Attn: p.Attn,
		Address: p.Address, Address2: p.Address2, Post: p.Post, City: p.City, POBox: p.POBox, VatNumber: p.VatNumber, Country: p.Country},
		Export: finance.PartnerExport{PartnerID: id, CustomAttributes: attributesIn(p.CustomAttributes)}}
	if p.ExternalRefID != nil {
		r.Export.ExternalRefID = *p.ExternalRefID
	}
	if p.ServiceUUID != nil {
		r.Service = msgkit.ServiceUUID(*p.ServiceUUID)
	}
	return r
}

func attributesIn(as []attributeJSON) []finance.CustomAttribute {
	if as == nil {
		return nil
	}
	out := make([]finance.CustomAttribute, len(as))
	for i, a := range as {
		out[i] = finance.CustomAttribute{CodeName: a.CodeName, Value: a.Value}
	}
	return out
}

// currencyIn is the currency of ISO 4217 numeric code n; 0 is none when
// optional, and an unknown code is Invalid naming field.
func currencyIn(field string, n int, optional bool) (finance.Currency, error) {
	if n == 0 && optional {
		return finance.Currency{}, nil
	}
	c, ok := finance.CurrencyByNumeric(n)
	if !ok {
		return finance.Currency{}, msgkit.Invalidf(finance.CodeInvalidExportData, field, "%s %d is not one of the known currencies (ISO 4217 numeric)", field, n)
	}
	return c, nil
}

// accountInputJSON is the body of a billing account's put; id is read-only.
type accountInputJSON struct {
	ID                  int64                 `json:"id"`
	InstanceID          int64                 `json:"instanceId"`
	BizPartnerID        int64                 `json:"bizPartnerId"`
	Currency            int                   `json:"currency"`
	CurrencyCode        string                `json:"currencyCode"`
	BillingTypeCodeName string                `json:"billingTypeCodeName"`
	Name                string                `json:"name"`
	CustomAttributes    []attributeJSON       `json:"customAttributes"`
	SMSConnections      []connectionInputJSON `json:"smsConnections"`
	MNPConnections      []connectionInputJSON `json:"mnpConnections"`
}

type connectionInputJSON struct {
	ID         int64  `json:"id"`
	InstanceID int64  `json:"instanceId"`
	Name       string `json:"name"`
	AuthName   string `json:"authName"`
	Protocol   string `json:"protocol"`
}

func connectionsIn(cs []connectionInputJSON) []finance.Connection {
	if cs == nil {
		return nil
	}
	out := make([]finance.Connection, len(cs))
	for i, c := range cs {
		out[i] = finance.Connection{ID: c.ID, InstanceID: c.InstanceID, Name: c.Name, AuthName: c.AuthName, Protocol: c.Protocol}
	}
	return out
}

func (a accountInputJSON) account(id int64) (finance.BillingAccount, error) {
	c, err := currencyIn("currency", a.Currency, true)
	if err != nil {
		return finance.BillingAccount{}, err
	}
	return finance.BillingAccount{ID: id, InstanceID: a.InstanceID, BizPartnerID: a.BizPartnerID, Currency: c,
		BillingType: a.BillingTypeCodeName, Name: a.Name, CustomAttributes: attributesIn(a.CustomAttributes),
		SMSConnections: connectionsIn(a.SMSConnections), MNPConnections: connectionsIn(a.MNPConnections)}, nil
}

// sourceRecordJSON says which billing account a billing or credit record
// belongs to; kind and recordId are read-only (the path names them).
type sourceRecordJSON struct {
	Kind             string `json:"kind"`
	RecordID         int64  `json:"recordId"`
	BillingAccountID int64  `json:"billingAccountId"`
}

// The kinds of source record in paths.
var recordKinds = map[string]finance.RecordKind{"billing": finance.BillingRecord, "credit": finance.CreditRecord}

// documentTypeJSON is an invoice type as the export names it; typeId is
// read-only.
type documentTypeJSON struct {
	TypeID      int64  `json:"typeId"`
	Name        string `json:"name"`
	SelfBilling string `json:"selfBilling"`
}

// configInputJSON is the body of a configuration's put; typeId and
// templateLang are read-only (the path names them), as are the ids the
// codes give (dataSourceId, domainId, docClassId, dtsSelectorId) and
// statusDt.
type configInputJSON struct {
	TypeID              int64   `json:"typeId"`
	TemplateLang        *string `json:"templateLang"`
	InstanceID          int64   `json:"instanceId"`
	Name                string  `json:"name"`
	Status              string  `json:"status"`
	DomainID            *int64  `json:"domainId"`
	DomainCodeName      string  `json:"domainCodeName"`
	DataSourceID        *int64  `json:"dataSourceId"`
	DataSourceCodeName  string  `json:"dataSourceCodeName"`
	DataSourceDefault   string  `json:"dataSourceDefault"`
	DocClassID          *int64  `json:"docClassId"`
	DocClassCodeName    string  `json:"docClassCodeName"`
	SelfBilling         string  `json:"selfBilling"`
	SelfBillingOfType   int64   `json:"selfBillingOfType"`
	CollectionCode      string  `json:"collectionCode"`
	DtsSelectorID       *int64  `json:"dtsSelectorId"`
	DtsSelectorCodeName *string `json:"dtsSelectorCodeName"`
	CoOwnerID           int64   `json:"coOwnerId"`
	TemplateID          *int64  `json:"templateId"`
	TemplateName        *string `json:"templateName"`
	TemplateFileName    *string `json:"templateFileName"`
	DocFactoryParams    string  `json:"docFactoryParams"`
	Comment             string  `json:"comment"`
	StatusDt            *string `json:"statusDt"`
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (c configInputJSON) config(typeID int64, lang string) finance.InvoiceConfig {
	return finance.InvoiceConfig{TypeID: typeID, TemplateLang: lang, InstanceID: c.InstanceID, Name: c.Name, Status: c.Status,
		Domain: finance.Domain(c.DomainCodeName), DataSource: finance.DataSource(c.DataSourceCodeName), DataSourceDefault: c.DataSourceDefault,
		DocClass: finance.Class(c.DocClassCodeName), SelfBilling: c.SelfBilling, SelfBillingOfType: c.SelfBillingOfType,
		CollectionCode: c.CollectionCode, Selector: deref(c.DtsSelectorCodeName), CoOwnerID: c.CoOwnerID,
		TemplateID: deref(c.TemplateID), TemplateName: deref(c.TemplateName), TemplateFileName: deref(c.TemplateFileName),
		DocFactoryParams: c.DocFactoryParams, Comment: c.Comment}
}

// domesticRateJSON is a document's domestic currency and rate; invoiceId
// and domesticCurrencyCode are read-only.
type domesticRateJSON struct {
	InvoiceID            finance.InvoiceID `json:"invoiceId"`
	DomesticCurrency     int               `json:"domesticCurrency"`
	DomesticCurrencyCode string            `json:"domesticCurrencyCode"`
	DomesticCurrencyRate *decimal.Decimal  `json:"domesticCurrencyRate"`
}

// domesticRateOut is domesticRateJSON as answered, the rate as given.
type domesticRateOut struct {
	InvoiceID            finance.InvoiceID `json:"invoiceId"`
	DomesticCurrency     int               `json:"domesticCurrency"`
	DomesticCurrencyCode string            `json:"domesticCurrencyCode"`
	DomesticCurrencyRate json.Number       `json:"domesticCurrencyRate"`
}

// trafficInputJSON is one traffic report row of a put; currencyCode is
// read-only (currency names it).
type trafficInputJSON struct {
	BizPartnerID        int64           `json:"bizPartnerId"`
	BizPartnerBriefName string          `json:"bizPartnerBriefName"`
	BizPartnerExtRefID  string          `json:"bizPartnerExtRefId"`
	BillingAccountID    int64           `json:"billingAccountId"`
	BillingAccountName  string          `json:"billingAccountName"`
	CountryID           int64           `json:"countryId"`
	CountryName         string          `json:"countryName"`
	CountryCode2        string          `json:"countryCode2"`
	OperatorID          int64           `json:"operatorId"`
	OperatorName        string          `json:"operatorName"`
	MCC                 string          `json:"mcc"`
	MNC                 string          `json:"mnc"`
	StartDt             string          `json:"startDt"`
	EndDt               string          `json:"endDt"`
	SMSCount            int64           `json:"smsCnt"`
	Currency            int             `json:"currency"`
	CurrencyCode        string          `json:"currencyCode"`
	Price               decimal.Decimal `json:"price"`
	TotalAmount         decimal.Decimal `json:"totalAmount"`
}

// trafficBody is the body and answer of a document's traffic reports.
type trafficBody[T any] struct {
	TrafficReports []T `json:"trafficReports"`
}

func trafficIn(rows []trafficInputJSON) ([]finance.TrafficReport, error) {
	out := make([]finance.TrafficReport, len(rows))
	for i, t := range rows {
		at := "trafficReports[" + strconv.Itoa(i) + "]."
		c, err := currencyIn(at+"currency", t.Currency, true)
		if err != nil {
			return nil, err
		}
		var span [2]time.Time
		for j, raw := range []string{t.StartDt, t.EndDt} {
			name := at + [2]string{"startDt", "endDt"}[j]
			if span[j], err = time.Parse(time.RFC3339, raw); err != nil {
				return nil, msgkit.Invalidf(finance.CodeInvalidExportData, name, "%s must be a date-time (RFC 3339), not %q", name, raw)
			}
		}
		out[i] = finance.TrafficReport{BizPartnerID: t.BizPartnerID, BizPartnerBriefName: t.BizPartnerBriefName,
			BizPartnerExtRefID: t.BizPartnerExtRefID, BillingAccountID: t.BillingAccountID, BillingAccountName: t.BillingAccountName,
			CountryID: t.CountryID, CountryName: t.CountryName, CountryCode2: t.CountryCode2, OperatorID: t.OperatorID,
			OperatorName: t.OperatorName, MCC: t.MCC, MNC: t.MNC, StartDt: span[0], EndDt: span[1], SMSCount: t.SMSCount,
			Currency: c, Price: t.Price, TotalAmount: t.TotalAmount}
	}
	return out, nil
}
