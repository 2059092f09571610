package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// bootstrapFinanceFile is the bootstrap section finance: the reference
// data invoices and the finance documents export read, which a server
// started without the demo has none of. Every record is put as the API's
// PUTs put it (create or replace), so the section may be given at every
// start.
type bootstrapFinanceFile struct {
	Partners        []bootstrapPartner      `json:"partners"`
	BillingAccounts []bootstrapAccount      `json:"billingAccounts"`
	SourceRecords   []bootstrapSourceRecord `json:"sourceRecords"`
	DocumentTypes   []bootstrapDocumentType `json:"documentTypes"`
	Configs         []bootstrapConfig       `json:"configs"`
}

type (
	bootstrapAttribute struct {
		CodeName string          `json:"codeName"`
		Value    json.RawMessage `json:"value"`
	}
	// bootstrapPartner is a business partner with its export data and
	// the tenant (serviceUuid) it is the messaging account of.
	bootstrapPartner struct {
		ID               int64                `json:"id"`
		Name             string               `json:"name"`
		BriefName        string               `json:"briefName"`
		PartnerType      string               `json:"partnerType"`
		Attn             string               `json:"attn"`
		Address          string               `json:"address"`
		Address2         string               `json:"address2"`
		Post             string               `json:"post"`
		City             string               `json:"city"`
		POBox            string               `json:"poBox"`
		VatNumber        string               `json:"vatNumber"`
		Country          int                  `json:"country"`
		ExternalRefID    string               `json:"externalRefId"`
		CustomAttributes []bootstrapAttribute `json:"customAttributes"`
		ServiceUUID      string               `json:"serviceUuid"`
	}
	bootstrapConnection struct {
		ID         int64  `json:"id"`
		InstanceID int64  `json:"instanceId"`
		Name       string `json:"name"`
		AuthName   string `json:"authName"`
		Protocol   string `json:"protocol"`
	}
	// bootstrapAccount is a billing account; currency is an ISO 4217
	// code (EUR), as the bulk SMS accounts give theirs.
	bootstrapAccount struct {
		ID                  int64                 `json:"id"`
		InstanceID          int64                 `json:"instanceId"`
		BizPartnerID        int64                 `json:"bizPartnerId"`
		Currency            string                `json:"currency"`
		BillingTypeCodeName string                `json:"billingTypeCodeName"`
		Name                string                `json:"name"`
		CustomAttributes    []bootstrapAttribute  `json:"customAttributes"`
		SMSConnections      []bootstrapConnection `json:"smsConnections"`
		MNPConnections      []bootstrapConnection `json:"mnpConnections"`
	}
	// bootstrapSourceRecord says which account a billing or credit
	// record belongs to.
	bootstrapSourceRecord struct {
		Kind             string `json:"kind"` // billing or credit
		ID               int64  `json:"id"`
		BillingAccountID int64  `json:"billingAccountId"`
	}
	bootstrapDocumentType struct {
		ID          int64  `json:"id"`
		Name        string `json:"name"`
		SelfBilling string `json:"selfBilling"` // yes or no (default)
	}
	// bootstrapConfig is a default invoice configuration of a type and
	// template language.
	bootstrapConfig struct {
		TypeID              int64  `json:"typeId"`
		TemplateLang        string `json:"templateLang"`
		InstanceID          int64  `json:"instanceId"`
		Name                string `json:"name"`
		Status              string `json:"status"`
		DomainCodeName      string `json:"domainCodeName"`
		DataSourceCodeName  string `json:"dataSourceCodeName"`
		DocClassCodeName    string `json:"docClassCodeName"`
		SelfBilling         string `json:"selfBilling"`
		CollectionCode      string `json:"collectionCode"`
		DtsSelectorCodeName string `json:"dtsSelectorCodeName"`
		CoOwnerID           int64  `json:"coOwnerId"`
		TemplateID          int64  `json:"templateId"`
		TemplateName        string `json:"templateName"`
		TemplateFileName    string `json:"templateFileName"`
		Comment             string `json:"comment"`
	}
)

func attributes(in []bootstrapAttribute) []finance.CustomAttribute {
	out := make([]finance.CustomAttribute, len(in))
	for i, a := range in {
		out[i] = finance.CustomAttribute{CodeName: a.CodeName, Value: a.Value}
	}
	return out
}

func connections(in []bootstrapConnection) []finance.Connection {
	out := make([]finance.Connection, len(in))
	for i, c := range in {
		out[i] = finance.Connection(c)
	}
	return out
}

// bootstrapFinance puts the section's records through svc, partners
// first, and returns how many it put; an error names the record
// ("finance.partners[1]").
func bootstrapFinance(ctx context.Context, svc *finance.Service, raw json.RawMessage) (int, error) {
	var f bootstrapFinanceFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return 0, fmt.Errorf("finance: %w", err)
	}
	n := 0
	put := func(list string, i int, err error) error {
		if err != nil {
			return fmt.Errorf("finance.%s[%d]: %w", list, i, err)
		}
		n++
		return nil
	}
	for i, p := range f.Partners {
		_, err := svc.PutPartner(ctx, finance.PartnerRecord{
			Partner: finance.Partner{ID: p.ID, Name: p.Name, ShortName: p.BriefName, Type: p.PartnerType, Attn: p.Attn, Address: p.Address,
				Address2: p.Address2, Post: p.Post, City: p.City, POBox: p.POBox, VatNumber: p.VatNumber, Country: p.Country},
			Export:  finance.PartnerExport{ExternalRefID: p.ExternalRefID, CustomAttributes: attributes(p.CustomAttributes)},
			Service: msgkit.ServiceUUID(p.ServiceUUID)})
		if err := put("partners", i, err); err != nil {
			return n, err
		}
	}
	for i, a := range f.BillingAccounts {
		var cur finance.Currency
		var err error
		if a.Currency != "" {
			var ok bool
			if cur, ok = finance.CurrencyByCode(a.Currency); !ok {
				err = fmt.Errorf("unknown currency %q", a.Currency)
			}
		}
		if err == nil {
			err = svc.PutBillingAccount(ctx, finance.BillingAccount{ID: a.ID, InstanceID: a.InstanceID, BizPartnerID: a.BizPartnerID,
				Currency: cur, BillingType: a.BillingTypeCodeName, Name: a.Name, CustomAttributes: attributes(a.CustomAttributes),
				SMSConnections: connections(a.SMSConnections), MNPConnections: connections(a.MNPConnections)})
		}
		if err := put("billingAccounts", i, err); err != nil {
			return n, err
		}
	}
	for i, r := range f.SourceRecords {
		kinds := map[string]finance.RecordKind{"billing": finance.BillingRecord, "credit": finance.CreditRecord}
		err := fmt.Errorf("kind is billing or credit, not %q", r.Kind)
		if kind, ok := kinds[r.Kind]; ok {
			err = svc.PutSourceRecord(ctx, finance.SourceRef{Kind: kind, ID: r.ID}, r.BillingAccountID)
		}
		if err := put("sourceRecords", i, err); err != nil {
			return n, err
		}
	}
	for i, t := range f.DocumentTypes {
		err := fmt.Errorf("selfBilling is yes or no, not %q", t.SelfBilling)
		if t.SelfBilling == "" || t.SelfBilling == "yes" || t.SelfBilling == "no" {
			err = svc.PutDocumentType(ctx, finance.DocumentType{ID: t.ID, Name: t.Name, SelfBilling: t.SelfBilling == "yes"})
		}
		if err := put("documentTypes", i, err); err != nil {
			return n, err
		}
	}
	for i, c := range f.Configs {
		_, err := svc.PutConfig(ctx, finance.InvoiceConfig{TypeID: c.TypeID, TemplateLang: c.TemplateLang, InstanceID: c.InstanceID,
			Name: c.Name, Status: c.Status, Domain: finance.Domain(c.DomainCodeName), DataSource: finance.DataSource(c.DataSourceCodeName),
			DocClass: finance.Class(c.DocClassCodeName), SelfBilling: c.SelfBilling, CollectionCode: c.CollectionCode,
			Selector: c.DtsSelectorCodeName, CoOwnerID: c.CoOwnerID, TemplateID: c.TemplateID, TemplateName: c.TemplateName,
			TemplateFileName: c.TemplateFileName, Comment: c.Comment})
		if err := put("configs", i, err); err != nil {
			return n, err
		}
	}
	return n, nil
}
