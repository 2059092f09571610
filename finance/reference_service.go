package finance

import (
	"context"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
)

// HasPartners reports whether the Service keeps business partners as
// operator data (Options.Partners).
func (s *Service) HasPartners() bool { return s != nil && s.partners != nil }

// HasExport reports whether the Service keeps the export's operator data
// (Options.Export).
func (s *Service) HasExport() bool { return s != nil && s.export != nil }

// HasConfigStore reports whether operators may add configurations at run
// time (Options.ConfigStore).
func (s *Service) HasConfigStore() bool { return s != nil && s.stored != nil }

// PutPartner creates or replaces a business partner with its export data
// and tenant link (CheckPartnerRecord), in one step, and returns it as
// stored. An owner (an invoice's ownerId) is a partner too.
func (s *Service) PutPartner(ctx context.Context, r PartnerRecord) (PartnerRecord, error) {
	if s.partners == nil {
		return PartnerRecord{}, notServed("business partners")
	}
	if err := CheckPartnerRecord(r); err != nil {
		return PartnerRecord{}, err
	}
	if r.Service != "" {
		r.Service, _ = msgkit.ParseServiceUUID(string(r.Service)) // checked: canonical form
	}
	r.Export.PartnerID = r.ID
	if err := s.partners.PutPartnerRecord(ctx, r); err != nil {
		return PartnerRecord{}, err
	}
	return s.partners.PartnerRecord(ctx, r.ID)
}

// Partner returns a business partner's record; an unknown one is
// NotFound.
func (s *Service) Partner(ctx context.Context, id int64) (PartnerRecord, error) {
	if s.partners == nil {
		return PartnerRecord{}, notServed("business partners")
	}
	return s.partners.PartnerRecord(ctx, id)
}

// Partners lists business partners as q says, over PartnerSpec.
func (s *Service) Partners(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[PartnerRecord], error) {
	if s.partners == nil {
		return msgkit.Page[PartnerRecord]{}, notServed("business partners")
	}
	return s.partners.ListPartners(ctx, q)
}

// positive adds a problem to e when id is not a positive integer.
func positive(e *msgkit.Error, field string, id int64) {
	if id < 1 {
		e.WithField(field, field+" is a positive integer", "")
	}
}

// PutBillingAccount creates or replaces a billing account
// (CheckBillingAccount; its id and partner positive, each connection with
// a positive id and a name, as the export shows them).
func (s *Service) PutBillingAccount(ctx context.Context, a BillingAccount) error {
	if s.export == nil {
		return notServed("the export's operator data")
	}
	e := exportError("billing account")
	positive(e, "id", a.ID)
	positive(e, "bizPartnerId", a.BizPartnerID)
	for _, list := range []struct {
		name string
		cs   []Connection
	}{{"smsConnections", a.SMSConnections}, {"mnpConnections", a.MNPConnections}} {
		for i, c := range list.cs {
			at := list.name + "[" + strconv.Itoa(i) + "]."
			positive(e, at+"id", c.ID)
			if strings.TrimSpace(c.Name) == "" {
				e.WithField(at+"name", "a connection needs a name", "")
			}
		}
	}
	if err := orNil(e); err != nil {
		return err
	}
	if err := CheckBillingAccount(a); err != nil {
		return err
	}
	return s.export.PutBillingAccount(ctx, a)
}

// PutSourceRecord says which billing account a billing or credit record
// belongs to (CheckSourceRef; both ids positive).
func (s *Service) PutSourceRecord(ctx context.Context, r SourceRef, account int64) error {
	if s.export == nil {
		return notServed("the export's operator data")
	}
	if err := CheckSourceRef(r); err != nil {
		return err
	}
	e := exportError("source record")
	positive(e, "recordId", r.ID)
	positive(e, "billingAccountId", account)
	if err := orNil(e); err != nil {
		return err
	}
	return s.export.PutSourceRecord(ctx, r, account)
}

// PutDocumentType creates or replaces an invoice type's name and
// self-billing, which the export and the balances' groupings show.
func (s *Service) PutDocumentType(ctx context.Context, t DocumentType) error {
	if s.export == nil {
		return notServed("the export's operator data")
	}
	e := exportError("document type")
	positive(e, "typeId", t.ID)
	if strings.TrimSpace(t.Name) == "" || !storableText(t.Name) {
		e.WithField("name", "a document type needs a name of valid UTF-8 without NUL characters", "")
	}
	if err := orNil(e); err != nil {
		return err
	}
	return s.export.PutDocumentType(ctx, t)
}

// PutConfig creates or replaces a default invoice configuration
// (CheckConfig, after the defaults: status active, selfBilling no,
// collection code none, data source default yes) and its document type
// (ConfigType), stamped now, and returns it as stored.
func (s *Service) PutConfig(ctx context.Context, c InvoiceConfig) (InvoiceConfig, error) {
	if s.stored == nil {
		return InvoiceConfig{}, notServed("stored invoice configurations")
	}
	for _, d := range []struct {
		field *string
		value string
	}{{&c.Status, "active"}, {&c.SelfBilling, "no"}, {&c.CollectionCode, "none"}, {&c.DataSourceDefault, "yes"}} {
		if *d.field == "" {
			*d.field = d.value
		}
	}
	if err := CheckConfig(c); err != nil {
		return InvoiceConfig{}, err
	}
	_, c.StatusDt = s.clock()
	if err := s.stored.PutConfig(ctx, c); err != nil {
		return InvoiceConfig{}, err
	}
	return c, nil
}

// SetDomesticRate stores the domestic rate of an invoice that exists and
// is not deleted (CheckDomesticRate), which its document shows.
func (s *Service) SetDomesticRate(ctx context.Context, id InvoiceID, r DomesticRate) error {
	if s.export == nil {
		return notServed("the export's operator data")
	}
	if err := CheckDomesticRate(r); err != nil {
		return err
	}
	if _, err := s.Get(ctx, Scope{All: true}, id); err != nil {
		return err
	}
	return s.export.PutDomestic(ctx, id, r)
}

// SetTrafficReports replaces the traffic reports of an invoice that
// exists and is not deleted (CheckTrafficReports).
func (s *Service) SetTrafficReports(ctx context.Context, id InvoiceID, rows []TrafficReport) error {
	if s.export == nil {
		return notServed("the export's operator data")
	}
	if err := CheckTrafficReports(rows); err != nil {
		return err
	}
	if _, err := s.Get(ctx, Scope{All: true}, id); err != nil {
		return err
	}
	return s.export.PutTrafficReports(ctx, id, rows)
}
