package finance

import (
	"context"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// CodeInvalidReference is the code of reference data (a business
// partner, an invoice configuration) that breaks a rule; its fields name
// each problem.
const CodeInvalidReference = "reference_invalid"

// PartnerRecord is a business partner as the operator keeps it: the data
// invoices copy (Partner), what the documents export adds (Export; its
// PartnerID is the partner's) and the tenant the partner is linked to
// (Service; empty: none), which -own privileges read.
type PartnerRecord struct {
	Partner
	Export  PartnerExport
	Service msgkit.ServiceUUID
}

// PartnerStore keeps business partners with their export data and tenant
// link, as one record: each method is one atomic operation.
type PartnerStore interface {
	// PutPartnerRecord creates or replaces a partner, its export data
	// and its tenant link (an empty Service unlinks it) together.
	PutPartnerRecord(ctx context.Context, r PartnerRecord) error
	// PartnerRecord returns a partner's record; an unknown partner is
	// NotFound.
	PartnerRecord(ctx context.Context, id int64) (PartnerRecord, error)
	// ListPartners lists the partners filtered, sorted and paged by q
	// over PartnerSpec (store order: id).
	ListPartners(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[PartnerRecord], error)
}

// storableText reports whether s is text every store keeps as given:
// valid UTF-8 without NUL characters (which PostgreSQL refuses).
func storableText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// CheckPartnerRecord refuses a partner without a positive id or a name,
// text a store cannot keep, a country outside 0..999 (ISO 3166 numeric;
// 0: none), a serviceUuid that is not a UUID, and custom attributes that
// CheckPartnerExport refuses. Every problem is one field of the error.
func CheckPartnerRecord(r PartnerRecord) error {
	e := &msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidReference, Message: "the business partner breaks a rule"}
	if r.ID < 1 {
		e.WithField("bizPartnerId", "a business partner's id is a positive integer", "")
	}
	if strings.TrimSpace(r.Name) == "" {
		e.WithField("name", "a business partner needs a name", "")
	}
	for _, f := range []struct{ name, value string }{
		{"name", r.Name}, {"briefName", r.ShortName}, {"partnerType", r.Type}, {"attn", r.Attn}, {"address", r.Address},
		{"address2", r.Address2}, {"post", r.Post}, {"city", r.City}, {"poBox", r.POBox}, {"vatNumber", r.VatNumber},
		{"externalRefId", r.Export.ExternalRefID},
	} {
		if !storableText(f.value) {
			e.WithField(f.name, f.name+" must be valid UTF-8 without NUL characters", "")
		}
	}
	if r.Country < 0 || r.Country > 999 {
		e.WithField("country", "country is an ISO 3166 numeric code, 1 to 999 (0: none)", "")
	}
	if r.Service != "" {
		if _, err := msgkit.ParseServiceUUID(string(r.Service)); err != nil {
			e.WithField("serviceUuid", "serviceUuid is a UUID, or empty for no tenant", "")
		}
	}
	checkAttributes(e, "customAttributes", r.Export.CustomAttributes)
	return orNil(e)
}

// partnerAttrs are the attributes a partners listing filters and sorts
// by: the partner's identity, names and where it is.
var partnerAttrs = attrs[PartnerRecord]{
	"bizPartnerId":  {msgkit.AttrNumber, func(r *PartnerRecord) msgkit.Value { return num(r.ID) }},
	"name":          {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.Name) }},
	"briefName":     {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.ShortName) }},
	"partnerType":   {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.Type) }},
	"city":          {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.City) }},
	"country":       {msgkit.AttrNumber, func(r *PartnerRecord) msgkit.Value { return num(int64(r.Country)) }},
	"vatNumber":     {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.VatNumber) }},
	"externalRefId": {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(r.Export.ExternalRefID) }},
	"serviceUuid":   {msgkit.AttrString, func(r *PartnerRecord) msgkit.Value { return str(string(r.Service)) }},
}

// PartnerSpec is the listing spec of business partners: every attribute
// of PartnerAttrNames filtered and sorted; page size default 10, at most
// 100; q searches the names, the VAT number and the external reference.
func PartnerSpec() msgkit.ListSpec {
	spec := partnerAttrs.addTo(msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100,
		Search: []string{"briefName", "externalRefId", "name", "vatNumber"}})
	slices.Sort(spec.Sort)
	return spec
}

// PartnerValue reads attribute attr of r for a listing (memory stores
// list with it; the PostgreSQL store maps the same names to columns).
func PartnerValue(r PartnerRecord, attr string) (msgkit.Value, bool) {
	return partnerAttrs.value(&r, attr)
}

// PartnerAttrNames are the attributes of the partners listing, sorted.
func PartnerAttrNames() []string { return slices.Sorted(maps.Keys(partnerAttrs)) }

// ClonePartnerRecord is a copy of r that shares no memory with it (its
// custom attributes), for the stores.
func ClonePartnerRecord(r PartnerRecord) PartnerRecord {
	r.Export.CustomAttributes = cloneAttributes(r.Export.CustomAttributes)
	return r
}
