package cdsapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// Backend is what the CDS API serves from: the services of the domains.
// A service left nil answers its routes 501.
type Backend struct {
	// Contacts serves the lists and contacts, the catalog (custom fields,
	// segmentation sets and groups, subscriptions and options, groups,
	// touchpoints, interests) with the memberships, and the import. It
	// has a clock and UUIDs of its own. The catalog's routes answer 501
	// while it keeps no catalog (HasCatalog), the import's while it runs
	// none (HasImports).
	Contacts *contacts.Service
	// Campaigns keeps the campaigns; the campaign routes answer 501
	// while it is nil. It has a clock and UUIDs of its own. Without runs
	// (campaign.Service.WithRuns) the fields tasks and messages are
	// refused (400).
	Campaigns *campaign.Service
}

type api struct {
	b Backend
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
	l, err := a.b.Contacts.CreateList(r.Context(), svc, in)
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
	l, err := a.b.Contacts.UpdateList(r.Context(), svc, id, in)
	if err != nil {
		return validation(err)
	}
	return httpapi.WriteJSON(w, http.StatusOK, listOf(l))
}

func (a *api) deleteList(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	id, _, err := itemAt(r, "listId", "list")
	if err != nil {
		return err
	}
	if err := a.b.Contacts.DeleteList(r.Context(), svc, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// --- contacts

func (a *api) listContacts(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	q, embed, err := a.b.Contacts.ParseContactQuery(r.URL.Query())
	if err != nil {
		return err
	}
	page, err := a.b.Contacts.Contacts(r.Context(), svc, q, embed)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(r, page, q.List, func(c contacts.Shown) map[string]any {
		return contactJSON(&c.Contact, c.Lists)
	}))
}

func (a *api) createContact(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	if err := onlyParams(r.URL.Query()); err != nil {
		return err
	}
	in, err := readInput(w, r, contactInput)
	if err != nil {
		return err
	}
	c, err := a.b.Contacts.CreateContact(r.Context(), svc, in)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusCreated, contactJSON(&c, nil))
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
	c, err := a.b.Contacts.Contact(r.Context(), svc, id, fields["show_deleted"], contacts.Embed{Lists: fields["lists"], Channels: fields["channels"]})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, contactJSON(&c.Contact, c.Lists))
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
	c, err := a.b.Contacts.ReplaceContact(r.Context(), svc, id, in)
	if err != nil {
		return validation(err) // the body's rules, the custom fields and the store's list rule
	}
	return httpapi.WriteJSON(w, http.StatusOK, contactJSON(&c, nil))
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
	c, err := a.b.Contacts.PatchContact(r.Context(), svc, id, in)
	if err != nil {
		return validation(err)
	}
	return httpapi.WriteJSON(w, http.StatusOK, contactJSON(&c, nil))
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
	if err := a.b.Contacts.DeleteContact(r.Context(), svc, id, erase); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
