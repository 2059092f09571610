package cdsapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// Backend is what the CDS API serves from. A store left nil answers its
// routes 501.
type Backend struct {
	// Contacts keeps the lists and contacts.
	Contacts contacts.Store
	// Catalog keeps custom fields, segmentation sets and groups,
	// subscriptions and options, groups, touchpoints, interests and the
	// memberships; with it, contact bodies may hold only the custom
	// columns it defines.
	Catalog contacts.CatalogStore
	// Imports runs the batch import (POST /cds/imports).
	Imports contacts.ImportStore
	// Campaigns keeps the campaigns; the campaign routes answer 501
	// while it is nil. It has a clock and UUIDs of its own.
	Campaigns *campaign.Service
	// Runs reads campaigns' tasks and messages (fields tasks and
	// messages); without it those fields are refused (400).
	Runs campaign.Runs
	// Clock stamps created and updated times and dates the age filter;
	// time.Now when nil.
	Clock msgkit.Clock
	// NewUUID makes the UUIDs of created records; a random (version 4)
	// UUID when nil.
	NewUUID func() string
}

type api struct {
	b Backend
}

func (a *api) now() time.Time {
	if a.b.Clock != nil {
		return a.b.Clock().UTC()
	}
	return time.Now().UTC()
}

func (a *api) newUUID() string {
	if a.b.NewUUID != nil {
		return a.b.NewUUID()
	}
	return uuid.NewString()
}

// validation turns the rule violations of a PUT or PATCH body (Invalid
// errors from the domain, not malformed JSON) into the interface's 405
// "validation exception".
func validation(err error) error {
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Kind != msgkit.Invalid || e.Code == httpapi.CodeInvalidJSON {
		return err
	}
	return &httpapi.StatusError{Status: http.StatusMethodNotAllowed, Err: err}
}

// readObject decodes a body that must be a JSON object.
// readInput reads the body as a JSON object and hands it to input, the
// reader of one record's members.
func readInput[T any](w http.ResponseWriter, r *http.Request, input func(map[string]json.RawMessage) (T, error)) (T, error) {
	body, err := readObject(w, r)
	if err != nil {
		var zero T
		return zero, err
	}
	return input(body)
}

// longStrings are the members of CDS bodies that take more than
// httpapi.DefaultMaxString characters: a campaign's template, its list of
// lists and its web push addresses, segmentation queries (data of sets
// and groups, a campaign's query) and a contact's web push subscription. Every other string is at most
// httpapi.DefaultMaxString characters (and contact values at most
// contacts.MaxValueLen).
var longStrings = map[string]int{
	"template":             campaign.MaxTemplateLen,
	"recipient_lists":      campaign.MaxLists * 40,
	"webpush_target_url":   campaign.MaxURLLen,
	"webpush_icon":         campaign.MaxURLLen,
	"webpush_image":        campaign.MaxURLLen,
	"query":                segmentation.MaxQueryBytes,
	"data":                 segmentation.MaxQueryBytes,
	"webpush_subscription": contacts.MaxSubscriptionLen,
}

func readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, error) {
	var body map[string]json.RawMessage
	if err := httpapi.DecodeJSON(w, r, &body, httpapi.DecodeOptions{LongStrings: longStrings}); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, msgkit.Invalidf(httpapi.CodeInvalidJSON, "body", "the body must be a JSON object")
	}
	return body, nil
}

// onlyParams refuses query parameters other than names.
func onlyParams(v url.Values, names ...string) error {
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}) {
		if !slices.Contains(names, key) {
			if len(names) == 0 {
				return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes none", key)
			}
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes %s", key, strings.Join(names, ", "))
		}
	}
	return nil
}

// pathUUID reads a UUID path segment; a malformed one is NotFound, as no
// record has it.
func pathUUID(r *http.Request, name, what string) (string, error) {
	raw := r.PathValue(name)
	u, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", msgkit.Errorf(msgkit.NotFound, what+"_not_found", "%s %q not found", strings.ReplaceAll(what, "_", " "), raw)
	}
	return u.String(), nil
}

// fieldsParam reads the fields parameter (comma separated, or repeated)
// and refuses values outside allowed.
func fieldsParam(v url.Values, allowed ...string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, raw := range v["fields"] {
		for f := range strings.SplitSeq(raw, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			if !slices.Contains(allowed, f) {
				return nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, "fields", "fields takes %s, not %q", strings.Join(allowed, ", "), f)
			}
			out[f] = true
		}
	}
	return out, nil
}

func sortFields(fs []msgkit.FieldError) {
	slices.SortStableFunc(fs, func(a, b msgkit.FieldError) int { return cmp.Compare(a.Name, b.Name) })
}

// --- lists

func (a *api) listLists(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	v := r.URL.Query()
	fields, err := fieldsParam(v, "totals", "status", "show_deleted", "contacts_count")
	if err != nil {
		return err
	}
	spec := contacts.ListSpec()
	spec.Ignore = append(spec.Ignore, "fields")
	q, err := msgkit.ParseListQuery(v, spec)
	if err != nil {
		return err
	}
	page, err := a.b.Contacts.Lists(r.Context(), svc, q, fields["show_deleted"])
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(r, page, q, listOf))
}

func (a *api) createList(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	if err := onlyParams(r.URL.Query()); err != nil {
		return err
	}
	in, err := readInput(w, r, listInput)
	if err != nil {
		return err
	}
	now := a.now()
	l := contacts.List{UUID: a.newUUID(), Created: now, Updated: now}
	if err := contacts.FillList(&l, in); err != nil {
		return err
	}
	l, err = a.b.Contacts.CreateList(r.Context(), svc, l)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, listOf(l))
}

func (a *api) getList(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "listId", "list")
	if err != nil {
		return err
	}
	l, err := a.b.Contacts.List(r.Context(), svc, id)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, listOf(l))
}

func (a *api) updateList(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "listId", "list")
	if err != nil {
		return err
	}
	in, err := readInput(w, r, listInput)
	if err != nil {
		return err
	}
	now := a.now()
	l, err := a.b.Contacts.UpdateList(r.Context(), svc, id, func(l contacts.List) (contacts.List, error) {
		if err := contacts.FillList(&l, in); err != nil {
			return l, validation(err)
		}
		l.Updated = now
		return l, nil
	})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, listOf(l))
}

func (a *api) deleteList(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "listId", "list")
	if err != nil {
		return err
	}
	if err := a.b.Contacts.DeleteList(r.Context(), svc, id, a.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// --- contacts

// listRefs are the names of the lists of cs, for fields=lists.
func (a *api) listRefs(r *http.Request, svc msgkit.ServiceUUID, cs ...contacts.Contact) (map[string]listRef, error) {
	refs := map[string]listRef{}
	for _, c := range cs {
		if _, ok := refs[c.ListUUID]; ok {
			continue
		}
		l, err := a.b.Contacts.List(r.Context(), svc, c.ListUUID)
		switch {
		case msgkit.KindOf(err) == msgkit.NotFound:
			refs[c.ListUUID] = listRef{UUID: c.ListUUID} // a deleted list: no name
		case err != nil:
			return nil, err
		default:
			refs[c.ListUUID] = listRef{UUID: l.UUID, Name: l.Name}
		}
	}
	return refs, nil
}

func (a *api) listContacts(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	q, embed, err := contacts.ParseContactQuery(r.URL.Query(), msgkit.DateOf(a.now()))
	if err != nil {
		return err
	}
	if err := a.resolve(r, svc, &q); err != nil {
		return err
	}
	page, err := a.b.Contacts.Contacts(r.Context(), svc, q)
	if err != nil {
		return err
	}
	var refs map[string]listRef
	if embed.Lists {
		if refs, err = a.listRefs(r, svc, page.Items...); err != nil {
			return err
		}
	}
	if q.CountOnly {
		page.Items = nil
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(r, page, q.List, func(c contacts.Contact) map[string]any {
		return contactJSON(&c, refs)
	}))
}

// resolve turns the subscription_uuids and group_uuid of q into what the
// catalog knows of them: the subscriptions' options in use, and the
// group's lists and segmentation queries. A group that is not the
// tenant's in use is 400 naming group_uuid; unknown subscriptions have no
// options, and select no contact.
func (a *api) resolve(r *http.Request, svc msgkit.ServiceUUID, q *contacts.ContactQuery) error {
	if len(q.SubscriptionUUIDs) == 0 && q.GroupUUID == "" {
		return nil
	}
	if a.b.Catalog == nil {
		param := "group_uuid"
		if len(q.SubscriptionUUIDs) > 0 {
			param = "subscription_uuids"
		}
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, param, "%s filters by records this platform does not keep", param)
	}
	if len(q.SubscriptionUUIDs) > 0 {
		opts, err := a.b.Catalog.OptionUUIDs(r.Context(), svc, q.SubscriptionUUIDs)
		if err != nil {
			return err
		}
		q.ResolveSubscriptions(opts)
	}
	if q.GroupUUID != "" {
		g, err := a.b.Catalog.GroupTarget(r.Context(), svc, q.GroupUUID)
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

// answerContact writes c with the lists embedded when asked.
func (a *api) answerContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID, status int, c contacts.Contact, lists bool) error {
	var refs map[string]listRef
	if lists {
		var err error
		if refs, err = a.listRefs(r, svc, c); err != nil {
			return err
		}
	}
	return httpapi.WriteJSON(w, status, contactJSON(&c, refs))
}

func (a *api) createContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	if err := onlyParams(r.URL.Query()); err != nil {
		return err
	}
	in, err := readInput(w, r, contactInput)
	if err != nil {
		return err
	}
	if err := a.checkCustom(r, svc, in); err != nil {
		return err
	}
	now := a.now()
	c := contacts.Contact{UUID: a.newUUID(), Created: now, Updated: now}
	if err := contacts.Fill(&c, in, true); err != nil {
		return err
	}
	if c, err = a.b.Contacts.CreateContact(r.Context(), svc, c); err != nil {
		return err
	}
	return a.answerContact(w, r, svc, http.StatusCreated, c, false)
}

// itemAt reads the record id of the path's parameter param (a record of
// what: "contact", "list", a catalog kind) and, when fields are given, the
// fields parameter with those values; the operation takes no other query
// parameter.
func itemAt(r *http.Request, param, what string, fields ...string) (string, map[string]bool, error) {
	id, err := pathUUID(r, param, what)
	if err != nil {
		return "", nil, err
	}
	names := []string{}
	if len(fields) > 0 {
		names = append(names, "fields")
	}
	if err := onlyParams(r.URL.Query(), names...); err != nil {
		return "", nil, err
	}
	f, err := fieldsParam(r.URL.Query(), fields...)
	return id, f, err
}

func (a *api) getContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, fields, err := itemAt(r, "contactId", "contact", "lists", "channels", "show_deleted")
	if err != nil {
		return err
	}
	c, err := a.b.Contacts.Contact(r.Context(), svc, id, fields["show_deleted"])
	if err != nil {
		return err
	}
	return a.answerContact(w, r, svc, http.StatusOK, c, fields["lists"])
}

func (a *api) replaceContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "contactId", "contact")
	if err != nil {
		return err
	}
	in, err := readInput(w, r, contactInput)
	if err != nil {
		return err
	}
	if err := a.checkCustom(r, svc, in); err != nil {
		return validation(err)
	}
	now := a.now()
	c, err := a.b.Contacts.UpdateContact(r.Context(), svc, id, func(c contacts.Contact) (contacts.Contact, error) {
		if err := contacts.Fill(&c, in, false); err != nil {
			return c, validation(err)
		}
		c.Updated = now
		return c, nil
	})
	if err != nil {
		return validation(err) // the store's list rule is a validation too
	}
	return a.answerContact(w, r, svc, http.StatusOK, c, false)
}

func (a *api) patchContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "contactId", "contact")
	if err != nil {
		return err
	}
	in, err := readInput(w, r, patchInput)
	if err != nil {
		return err
	}
	now := a.now()
	c, err := a.b.Contacts.UpdateContact(r.Context(), svc, id, func(c contacts.Contact) (contacts.Contact, error) {
		if err := contacts.ApplyPatch(&c, in); err != nil {
			return c, validation(err)
		}
		c.Updated = now
		return c, nil
	})
	if err != nil {
		return err
	}
	return a.answerContact(w, r, svc, http.StatusOK, c, false)
}

func (a *api) deleteContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, err := pathUUID(r, "contactId", "contact")
	if err != nil {
		return err
	}
	v := r.URL.Query()
	if err := onlyParams(v, "gdpr"); err != nil {
		return err
	}
	erase := false
	switch g := v["gdpr"]; {
	case len(g) > 1:
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "gdpr", "gdpr is given more than once")
	case len(g) == 0 || g[0] == "no":
	case g[0] == "yes":
		erase = true
	default:
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "gdpr", "gdpr is yes or no, not %q", g[0])
	}
	if err := a.b.Contacts.DeleteContact(r.Context(), svc, id, erase, a.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
