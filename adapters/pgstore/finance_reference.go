package pgstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var (
	_ finance.PartnerStore = (*FinanceStore)(nil)
	_ finance.ConfigStore  = (*FinanceStore)(nil)
)

// PutPartnerRecord stores a partner, its export data and its tenant link
// in one transaction, so no reader sees one without the others.
func (s *FinanceStore) PutPartnerRecord(ctx context.Context, r finance.PartnerRecord) error {
	if err := finance.CheckPartnerRecord(r); err != nil {
		return err
	}
	var c exportCheck
	attrs := c.attributes("customAttributes", r.Export.CustomAttributes)
	if err := c.result(); err != nil {
		return err
	}
	p := r.Partner
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		const partner = `INSERT INTO finance_partners (id, name, short_name, attn, address, address2, post, city, po_box,
				vat_number, country, type)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			ON CONFLICT (id) DO UPDATE SET (name, short_name, attn, address, address2, post, city, po_box, vat_number,
				country, type) = (excluded.name, excluded.short_name, excluded.attn, excluded.address, excluded.address2,
				excluded.post, excluded.city, excluded.po_box, excluded.vat_number, excluded.country, excluded.type)`
		if _, err := tx.Exec(ctx, partner, p.ID, p.Name, p.ShortName, p.Attn, p.Address, p.Address2, p.Post, p.City, p.POBox,
			p.VatNumber, int64(p.Country), p.Type); err != nil {
			return err
		}
		const export = `INSERT INTO finance_partner_exports (partner_id, external_ref_id, custom_attributes) VALUES ($1, $2, $3)
			ON CONFLICT (partner_id) DO UPDATE SET (external_ref_id, custom_attributes) = (excluded.external_ref_id, excluded.custom_attributes)`
		if _, err := tx.Exec(ctx, export, p.ID, nullText(r.Export.ExternalRefID), attrs); err != nil {
			return err
		}
		if r.Service == "" {
			_, err := tx.Exec(ctx, `DELETE FROM finance_partner_tenants WHERE partner = $1`, p.ID)
			return err
		}
		const tenant = `INSERT INTO finance_partner_tenants (partner, service_uuid) VALUES ($1, $2)
			ON CONFLICT (partner) DO UPDATE SET service_uuid = excluded.service_uuid`
		_, err := tx.Exec(ctx, tenant, p.ID, string(r.Service))
		return err
	})
	return classify(err, "partner", partnerWhat(p.ID))
}

// partnerColumns are a partner record's columns, as scanPartnerRecord
// reads them, over partnersFrom.
const (
	partnerColumns = `p.id, p.name, p.short_name, p.attn, p.address, p.address2, p.post, p.city, p.po_box, p.vat_number,
		p.country, p.type, px.external_ref_id, px.custom_attributes, pt.service_uuid`
	partnersFrom = `finance_partners p
		LEFT JOIN finance_partner_exports px ON px.partner_id = p.id
		LEFT JOIN finance_partner_tenants pt ON pt.partner = p.id`
)

func scanPartnerRecord(row pgx.CollectableRow) (finance.PartnerRecord, error) {
	var (
		r       finance.PartnerRecord
		country int64
		ref     *string
		attrs   []byte
		svc     *string
	)
	p := &r.Partner
	if err := row.Scan(&p.ID, &p.Name, &p.ShortName, &p.Attn, &p.Address, &p.Address2, &p.Post, &p.City, &p.POBox,
		&p.VatNumber, &country, &p.Type, &ref, &attrs, &svc); err != nil {
		return r, err
	}
	if int64(int(country)) != country {
		return r, fmt.Errorf("country %d out of range", country)
	}
	p.Country = int(country)
	r.Export.PartnerID = p.ID
	if ref != nil {
		r.Export.ExternalRefID = *ref
	}
	if attrs != nil {
		as, err := readAttributes(attrs)
		if err != nil {
			return r, err
		}
		r.Export.CustomAttributes = as
	}
	if svc != nil {
		r.Service = msgkit.ServiceUUID(*svc)
	}
	return r, nil
}

// PartnerRecord returns a partner's record, or NotFound.
func (s *FinanceStore) PartnerRecord(ctx context.Context, id int64) (finance.PartnerRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+partnerColumns+` FROM `+partnersFrom+` WHERE p.id = $1`, id)
	if err != nil {
		return finance.PartnerRecord{}, classify(err, "partner", partnerWhat(id))
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanPartnerRecord)
	if err != nil {
		return finance.PartnerRecord{}, classify(err, "partner", partnerWhat(id))
	}
	return r, nil
}

// partnerAttrs maps every attribute of finance.PartnerSpec to its
// expression: empty text is NULL, as finance reads an empty attribute.
var partnerAttrs = map[string]listAttr{
	"bizPartnerId":  {"p.id", msgkit.AttrNumber},
	"name":          {"NULLIF(p.name, '')", msgkit.AttrString},
	"briefName":     {"NULLIF(p.short_name, '')", msgkit.AttrString},
	"partnerType":   {"NULLIF(p.type, '')", msgkit.AttrString},
	"city":          {"NULLIF(p.city, '')", msgkit.AttrString},
	"country":       {"p.country", msgkit.AttrNumber},
	"vatNumber":     {"NULLIF(p.vat_number, '')", msgkit.AttrString},
	"externalRefId": {"px.external_ref_id", msgkit.AttrString},
	"serviceUuid":   {"pt.service_uuid", msgkit.AttrString},
}

// partnersListing lists every partner: partners are operator data, not a
// tenant's, so the scope is TRUE.
var partnersListing = listTable{From: partnersFrom, Select: partnerColumns, Scope: "TRUE", Attrs: partnerAttrs, Order: "p.id"}

// ListPartners lists partners through the listing engine.
func (s *FinanceStore) ListPartners(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[finance.PartnerRecord], error) {
	return listPage(ctx, s.pool, &partnersListing, q, scanPartnerRecord)
}

// PutConfig stores a configuration and its document type in one
// transaction.
func (s *FinanceStore) PutConfig(ctx context.Context, c finance.InvoiceConfig) error {
	if err := finance.CheckConfig(c); err != nil {
		return err
	}
	t := finance.ConfigType(c)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		const q = `INSERT INTO finance_configs (type_id, template_lang, instance_id, name, status, domain, data_source,
				data_source_default, doc_class, self_billing, self_billing_of_type, collection_code, selector, co_owner_id,
				template_id, template_name, template_file_name, doc_factory_params, comment, status_dt)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
			ON CONFLICT (type_id, template_lang) DO UPDATE SET (instance_id, name, status, domain, data_source,
				data_source_default, doc_class, self_billing, self_billing_of_type, collection_code, selector, co_owner_id,
				template_id, template_name, template_file_name, doc_factory_params, comment, status_dt) =
				(excluded.instance_id, excluded.name, excluded.status, excluded.domain, excluded.data_source,
				excluded.data_source_default, excluded.doc_class, excluded.self_billing, excluded.self_billing_of_type,
				excluded.collection_code, excluded.selector, excluded.co_owner_id, excluded.template_id, excluded.template_name,
				excluded.template_file_name, excluded.doc_factory_params, excluded.comment, excluded.status_dt)`
		if _, err := tx.Exec(ctx, q, c.TypeID, c.TemplateLang, c.InstanceID, c.Name, c.Status, string(c.Domain), string(c.DataSource),
			c.DataSourceDefault, string(c.DocClass), c.SelfBilling, c.SelfBillingOfType, c.CollectionCode, c.Selector, c.CoOwnerID,
			c.TemplateID, c.TemplateName, c.TemplateFileName, c.DocFactoryParams, c.Comment, c.StatusDt); err != nil {
			return err
		}
		const types = `INSERT INTO finance_document_types (id, name, self_billing) VALUES ($1, $2, $3)
			ON CONFLICT (id) DO UPDATE SET (name, self_billing) = (excluded.name, excluded.self_billing)`
		_, err := tx.Exec(ctx, types, t.ID, nullText(t.Name), t.SelfBilling)
		return err
	})
	return classify(err, "config", "invoice configuration "+strconv.FormatInt(c.TypeID, 10)+" "+c.TemplateLang)
}

// Configs lists the stored configurations by type, then language.
func (s *FinanceStore) Configs(ctx context.Context) ([]finance.InvoiceConfig, error) {
	const q = `SELECT type_id, template_lang, instance_id, name, status, domain, data_source, data_source_default, doc_class,
			self_billing, self_billing_of_type, collection_code, selector, co_owner_id, template_id, template_name,
			template_file_name, doc_factory_params, comment, status_dt
		FROM finance_configs ORDER BY type_id, template_lang`
	rows, err := s.pool.Query(ctx, q)
	if err != nil {
		return nil, classify(err, "config", "invoice configurations")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.InvoiceConfig, error) {
		var c finance.InvoiceConfig
		var domain, source, class string
		err := row.Scan(&c.TypeID, &c.TemplateLang, &c.InstanceID, &c.Name, &c.Status, &domain, &source, &c.DataSourceDefault,
			&class, &c.SelfBilling, &c.SelfBillingOfType, &c.CollectionCode, &c.Selector, &c.CoOwnerID, &c.TemplateID,
			&c.TemplateName, &c.TemplateFileName, &c.DocFactoryParams, &c.Comment, &c.StatusDt)
		c.Domain, c.DataSource, c.DocClass = finance.Domain(domain), finance.DataSource(source), finance.Class(class)
		c.StatusDt = c.StatusDt.UTC()
		return c, err
	})
	if err != nil {
		return nil, classify(err, "config", "invoice configurations")
	}
	return out, nil
}
