package contacts

import (
	"cmp"
	"context"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// Stores are what a Service keeps its records in. Contacts is required.
// Catalog and Imports may be nil on a platform that keeps no catalog or
// runs no import: their methods then fail (Unavailable, code
// CodeNotKept), a contact may hold any custom column, and the
// subscription and group filters are refused.
type Stores struct {
	Contacts Store
	Catalog  CatalogStore
	Imports  ImportStore
}

// CodeNotKept is the code of a call for records the Service's Stores do
// not keep (a catalog, an import).
const CodeNotKept = "not_kept"

// Service keeps a tenant's customer data by the rules of this package:
// it picks the UUIDs and times of what it creates and changes, holds
// contact bodies to the tenant's custom fields, resolves the filters of a
// contact listing that only the catalog can answer, embeds contacts'
// lists, and runs imports. The HTTP family (adapters/httpapi/cdsapi) is
// a translation of its calls.
type Service struct {
	st      Stores
	clock   msgkit.Clock
	newUUID func() string
	imports *importMetrics // nil: none
}

// NewService returns a service over st, telling the time by clock (nil:
// the system clock). newUUID nil draws random UUIDs.
func NewService(st Stores, clock msgkit.Clock, newUUID func() string) *Service {
	if newUUID == nil {
		newUUID = uuid.NewString
	}
	return &Service{st: st, clock: clock, newUUID: newUUID}
}

// HasCatalog reports whether the service keeps a catalog (custom fields,
// subscriptions, groups, ...) and memberships.
func (s *Service) HasCatalog() bool { return s.st.Catalog != nil }

// HasImports reports whether the service runs imports.
func (s *Service) HasImports() bool { return s.st.Imports != nil }

func (s *Service) now() time.Time { return s.clock.Now().UTC() }

func notKept(what string) error {
	return msgkit.Errorf(msgkit.Unavailable, CodeNotKept, "this platform keeps no %s", what)
}

func (s *Service) catalog() (CatalogStore, error) {
	if s.st.Catalog == nil {
		return nil, notKept("catalog")
	}
	return s.st.Catalog, nil
}

// --- lists

// CreateList makes a list from in (FillList) under a new UUID.
func (s *Service) CreateList(ctx context.Context, svc msgkit.ServiceUUID, in ListInput) (List, error) {
	now := s.now()
	l := List{UUID: s.newUUID(), Created: now, Updated: now}
	if err := FillList(&l, in); err != nil {
		return List{}, err
	}
	return s.st.Contacts.CreateList(ctx, svc, l)
}

// List returns a list in use with its counts.
func (s *Service) List(ctx context.Context, svc msgkit.ServiceUUID, uuid string) (List, error) {
	return s.st.Contacts.List(ctx, svc, uuid)
}

// Lists lists the tenant's lists (the deleted too with showDeleted) over
// ListSpec.
func (s *Service) Lists(ctx context.Context, svc msgkit.ServiceUUID, q msgkit.ListQuery, showDeleted bool) (msgkit.Page[List], error) {
	return s.st.Contacts.Lists(ctx, svc, q, showDeleted)
}

// UpdateList sets a list's name and status from in (FillList).
func (s *Service) UpdateList(ctx context.Context, svc msgkit.ServiceUUID, uuid string, in ListInput) (List, error) {
	now := s.now()
	return s.st.Contacts.UpdateList(ctx, svc, uuid, func(l List) (List, error) {
		if err := FillList(&l, in); err != nil {
			return l, err
		}
		l.Updated = now
		return l, nil
	})
}

// DeleteList deletes a list softly; its contacts stay.
func (s *Service) DeleteList(ctx context.Context, svc msgkit.ServiceUUID, uuid string) error {
	return s.st.Contacts.DeleteList(ctx, svc, uuid, s.now())
}

// --- contacts

// ListRef is a list as a contact embeds it (fields=lists): its UUID and,
// while the list is in use, its name ("" for a deleted list).
type ListRef struct {
	UUID string
	Name string
}

// Shown is a contact as a read shows it: with its list in Lists (one
// ListRef) when Embed.Lists asks for it, Lists nil otherwise.
type Shown struct {
	Contact
	Lists []ListRef
}

// ParseContactQuery reads the parameters of a contact listing
// (ParseContactQuery, the package function) with today's date of the
// service's clock, which the age filter counts from.
func (s *Service) ParseContactQuery(v url.Values) (ContactQuery, Embed, error) {
	return ParseContactQuery(v, msgkit.DateOf(s.now()))
}

// Contacts lists the contacts q selects, with what embed asks for. The
// subscription_uuids and group_uuid of q are resolved here (the catalog
// knows them): a group that is not the tenant's in use is Invalid naming
// group_uuid; a subscription unknown or without options selects no
// contact. The lists of a page's contacts are read in one store call. A
// count_only query's page has no items.
func (s *Service) Contacts(ctx context.Context, svc msgkit.ServiceUUID, q ContactQuery, embed Embed) (msgkit.Page[Shown], error) {
	if err := s.resolve(ctx, svc, &q); err != nil {
		return msgkit.Page[Shown]{}, err
	}
	page, err := s.st.Contacts.Contacts(ctx, svc, q)
	if err != nil {
		return msgkit.Page[Shown]{}, err
	}
	out := msgkit.Page[Shown]{Total: page.Total, Items: []Shown{}}
	if q.CountOnly {
		return out, nil
	}
	out.Items = make([]Shown, len(page.Items))
	for i, c := range page.Items {
		out.Items[i].Contact = c
	}
	if embed.Lists {
		if err := s.embedLists(ctx, svc, out.Items); err != nil {
			return msgkit.Page[Shown]{}, err
		}
	}
	return out, nil
}

// Contact returns a contact (a deleted one NotFound unless withDeleted),
// with what embed asks for.
func (s *Service) Contact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, withDeleted bool, embed Embed) (Shown, error) {
	c, err := s.st.Contacts.Contact(ctx, svc, uuid, withDeleted)
	if err != nil {
		return Shown{}, err
	}
	out := []Shown{{Contact: c}}
	if embed.Lists {
		if err := s.embedLists(ctx, svc, out); err != nil {
			return Shown{}, err
		}
	}
	return out[0], nil
}

// embedLists sets the Lists of cs, reading the names of their lists in
// one store call.
func (s *Service) embedLists(ctx context.Context, svc msgkit.ServiceUUID, cs []Shown) error {
	ids := make([]string, 0, len(cs))
	for i := range cs {
		if !slices.Contains(ids, cs[i].ListUUID) {
			ids = append(ids, cs[i].ListUUID)
		}
	}
	names, err := s.st.Contacts.ListNames(ctx, svc, ids)
	if err != nil {
		return err
	}
	for i := range cs {
		cs[i].Lists = []ListRef{{UUID: cs[i].ListUUID, Name: names[cs[i].ListUUID]}}
	}
	return nil
}

// CreateContact makes a contact from in (Fill, the list required) under
// a new UUID. With a catalog, in may hold only the tenant's custom
// fields in use and must give each mandatory one (CheckCustom).
func (s *Service) CreateContact(ctx context.Context, svc msgkit.ServiceUUID, in Input) (Contact, error) {
	if err := s.CheckCustom(ctx, svc, in); err != nil {
		return Contact{}, err
	}
	now := s.now()
	c := Contact{UUID: s.newUUID(), Created: now, Updated: now}
	if err := Fill(&c, in, true); err != nil {
		return Contact{}, err
	}
	return s.st.Contacts.CreateContact(ctx, svc, c)
}

// ReplaceContact replaces a contact in use by in, as CreateContact reads
// it; without a list it keeps its own. The custom fields are checked
// before the contact is looked up.
func (s *Service) ReplaceContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, in Input) (Contact, error) {
	if err := s.CheckCustom(ctx, svc, in); err != nil {
		return Contact{}, err
	}
	now := s.now()
	return s.st.Contacts.UpdateContact(ctx, svc, uuid, func(c Contact) (Contact, error) {
		if err := Fill(&c, in, false); err != nil {
			return c, err
		}
		c.Updated = now
		return c, nil
	})
}

// PatchContact changes a contact's statuses (ApplyPatch).
func (s *Service) PatchContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, in Patch) (Contact, error) {
	now := s.now()
	return s.st.Contacts.UpdateContact(ctx, svc, uuid, func(c Contact) (Contact, error) {
		if err := ApplyPatch(&c, in); err != nil {
			return c, err
		}
		c.Updated = now
		return c, nil
	})
}

// DeleteContact deletes a contact softly (restorable), or with erase
// removes it and every value stored about it.
func (s *Service) DeleteContact(ctx context.Context, svc msgkit.ServiceUUID, uuid string, erase bool) error {
	return s.st.Contacts.DeleteContact(ctx, svc, uuid, erase, s.now())
}

// CheckCustom refuses the custom columns of in that are not custom fields
// of the tenant in use, and a mandatory custom field without a value,
// naming each (Invalid, code invalid_contact, by field name). Without a
// catalog every column is taken.
func (s *Service) CheckCustom(ctx context.Context, svc msgkit.ServiceUUID, in Input) error {
	if s.st.Catalog == nil {
		return nil
	}
	defined, err := s.customFields(ctx, svc)
	if err != nil {
		return err
	}
	var bad []msgkit.FieldError
	for name, v := range in.Values {
		if !strings.HasPrefix(name, "column_") {
			continue
		}
		if _, ok := defined[name]; !ok && v != nil {
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " is not a custom field of this service"})
		}
	}
	for name, d := range defined {
		if v := in.Values[name]; d.Mandatory && (v == nil || strings.TrimSpace(*v) == "") {
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " (" + d.Name + ") is mandatory"})
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.SortStableFunc(bad, func(a, b msgkit.FieldError) int { return cmp.Compare(a.Name, b.Name) })
	e := msgkit.New(msgkit.Invalid, CodeInvalidContact, "the contact is invalid")
	e.Fields = bad
	return e
}

// customFields are the tenant's custom fields in use, by field name
// (column_N).
func (s *Service) customFields(ctx context.Context, svc msgkit.ServiceUUID) (map[string]Record, error) {
	custom, err := s.st.Catalog.CustomFields(ctx, svc)
	if err != nil {
		return nil, err
	}
	defs := make(map[string]Record, len(custom))
	for _, d := range custom {
		defs[d.FieldName()] = d
	}
	return defs, nil
}

// resolve turns the subscription_uuids and group_uuid of q into what the
// catalog knows of them: the subscriptions' options in use, and the
// group's lists and segmentation queries.
func (s *Service) resolve(ctx context.Context, svc msgkit.ServiceUUID, q *ContactQuery) error {
	if len(q.SubscriptionUUIDs) == 0 && q.GroupUUID == "" {
		return nil
	}
	if s.st.Catalog == nil {
		param := "group_uuid"
		if len(q.SubscriptionUUIDs) > 0 {
			param = "subscription_uuids"
		}
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, param, "%s filters by records this platform does not keep", param)
	}
	if len(q.SubscriptionUUIDs) > 0 {
		opts, err := s.st.Catalog.OptionUUIDs(ctx, svc, q.SubscriptionUUIDs)
		if err != nil {
			return err
		}
		q.ResolveSubscriptions(opts)
	}
	if q.GroupUUID != "" {
		g, err := s.st.Catalog.GroupTarget(ctx, svc, q.GroupUUID)
		if msgkit.KindOf(err) == msgkit.NotFound {
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, "group_uuid", "group_uuid %s is not a group of this service in use", q.GroupUUID)
		}
		if err != nil {
			return err
		}
		segs := make([]*segmentation.Query, 0, len(g.Segmentation))
		for _, data := range g.Segmentation {
			seg, err := segmentation.Parse([]byte(data))
			if err != nil {
				// Stored data was valid when stored; the rules may have
				// grown stricter since.
				return msgkit.Wrap(err, msgkit.Internal, segmentation.CodeInvalidSegmentation, "a segmentation query of the group no longer parses")
			}
			segs = append(segs, seg)
		}
		q.ResolveGroup(g.ListUUIDs, segs)
	}
	return nil
}

// --- the catalog

// CreateRecord makes a catalog record of kind from in (FillRecord) under
// a new UUID; the store holds it to the relation rules.
func (s *Service) CreateRecord(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, in RecordInput) (Record, error) {
	cat, err := s.catalog()
	if err != nil {
		return Record{}, err
	}
	now := s.now()
	r := Record{Kind: kind, UUID: s.newUUID(), Created: now, Updated: now}
	if err := FillRecord(&r, in); err != nil {
		return Record{}, err
	}
	return cat.CreateRecord(ctx, svc, r)
}

// Record returns a record of kind; a deleted one is NotFound unless
// withDeleted.
func (s *Service) Record(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string, withDeleted bool) (Record, error) {
	cat, err := s.catalog()
	if err != nil {
		return Record{}, err
	}
	return cat.Record(ctx, svc, kind, uuid, withDeleted)
}

// Records lists the records q selects.
func (s *Service) Records(ctx context.Context, svc msgkit.ServiceUUID, q RecordQuery) (msgkit.Page[Record], error) {
	cat, err := s.catalog()
	if err != nil {
		return msgkit.Page[Record]{}, err
	}
	return cat.Records(ctx, svc, q)
}

// UpdateRecord replaces a record in use by in (FillRecord); the store
// holds it to the relation rules.
func (s *Service) UpdateRecord(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string, in RecordInput) (Record, error) {
	cat, err := s.catalog()
	if err != nil {
		return Record{}, err
	}
	now := s.now()
	return cat.UpdateRecord(ctx, svc, kind, uuid, func(r Record) (Record, error) {
		if err := FillRecord(&r, in); err != nil {
			return r, err
		}
		r.Updated = now
		return r, nil
	})
}

// DeleteRecord deletes a record in use softly.
func (s *Service) DeleteRecord(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string) error {
	cat, err := s.catalog()
	if err != nil {
		return err
	}
	return cat.DeleteRecord(ctx, svc, kind, uuid, s.now())
}

// Fields are the definitions of the contact fields: the standard fields
// (StandardFields), then the tenant's custom fields in use.
func (s *Service) Fields(ctx context.Context, svc msgkit.ServiceUUID) ([]FieldDefinition, error) {
	cat, err := s.catalog()
	if err != nil {
		return nil, err
	}
	custom, err := cat.CustomFields(ctx, svc)
	if err != nil {
		return nil, err
	}
	defs := StandardFields()
	for _, c := range custom {
		defs = append(defs, c.Definition())
	}
	return defs, nil
}

// SetMember sets a contact's membership of kind from in (FillMember),
// with the contact's updated time now.
func (s *Service) SetMember(ctx context.Context, svc msgkit.ServiceUUID, kind MemberKind, in MemberInput) (Member, error) {
	cat, err := s.catalog()
	if err != nil {
		return Member{}, err
	}
	m, err := FillMember(kind, in, s.now())
	if err != nil {
		return Member{}, err
	}
	return cat.SetMember(ctx, svc, m)
}

// Members lists the memberships q selects.
func (s *Service) Members(ctx context.Context, svc msgkit.ServiceUUID, q MemberQuery) (msgkit.Page[Member], error) {
	cat, err := s.catalog()
	if err != nil {
		return msgkit.Page[Member]{}, err
	}
	return cat.Members(ctx, svc, q)
}

// --- the import

// Import imports the contacts of body (a JSON array, ReadImport) into
// o's list, as ParseImportQuery read o. With a catalog, o's options,
// touchpoints, interests and update options must be records of the
// tenant in use, a column_N identifier a custom field declared
// identifier (every problem named at once, code msgkit.CodeInvalidQuery),
// and items may hold only the tenant's custom fields; these are checked
// before body is read. Created contacts take new UUIDs, changed ones the
// time now.
func (s *Service) Import(ctx context.Context, svc msgkit.ServiceUUID, o ImportOptions, body io.Reader) (ImportResult, error) {
	if s.st.Imports == nil {
		return ImportResult{}, notKept("import")
	}
	defs, err := s.importChecks(ctx, svc, o)
	if err != nil {
		return ImportResult{}, err
	}
	if defs != nil {
		o.Columns = map[int]bool{}
		for _, d := range defs {
			o.Columns[d.Column] = true
		}
	}
	items, err := ReadImport(body, o)
	if err != nil {
		return ImportResult{}, err
	}
	res, err := s.st.Imports.Import(ctx, svc, ImportBatch{Options: o, Items: items, Now: s.now(), NewUUID: s.newUUID})
	if err == nil {
		s.imports.count(res)
	}
	return res, err
}

// importChecks holds the import's parameters to the catalog and returns
// the custom fields in use by field name, nil without a catalog.
func (s *Service) importChecks(ctx context.Context, svc msgkit.ServiceUUID, o ImportOptions) (map[string]Record, error) {
	if s.st.Catalog == nil {
		return nil, nil
	}
	var bad []msgkit.FieldError
	for _, ref := range []struct {
		param string
		kind  RecordKind
		uuids []string
	}{
		{"option_uuids", KindOption, o.OptionUUIDs},
		{"touchpoint_uuids", KindTouchpoint, o.TouchpointUUIDs},
		{"interest_uuids", KindInterest, o.InterestUUIDs},
		{"update_option_uuids", KindOption, o.UpdateOptionUUIDs},
	} {
		for _, u := range ref.uuids {
			_, err := s.st.Catalog.Record(ctx, svc, ref.kind, u, false)
			switch {
			case msgkit.KindOf(err) == msgkit.NotFound:
				bad = append(bad, msgkit.FieldError{Name: ref.param, Message: ref.param + " holds " + u + ", which is not a " + importNoun(ref.kind) + " of this service in use"})
			case err != nil:
				return nil, err
			}
		}
	}
	defs, err := s.customFields(ctx, svc)
	if err != nil {
		return nil, err
	}
	if n := o.IdentifierColumn(); n > 0 {
		name := "column_" + strconv.Itoa(n)
		if d, ok := defs[name]; !ok || !d.Identifier {
			bad = append(bad, msgkit.FieldError{Name: "identifier", Message: name + " is not a custom field of this service declared as identifier"})
		}
	}
	if len(bad) > 0 {
		e := msgkit.New(msgkit.Invalid, msgkit.CodeInvalidQuery, "the import's parameters are invalid")
		e.Fields = bad
		return nil, e
	}
	return defs, nil
}

func importNoun(k RecordKind) string {
	if k == KindOption {
		return "subscription option"
	}
	return string(k)
}
