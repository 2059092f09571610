package cdsapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/contacts"
)

type handlerFunc = func(http.ResponseWriter, *http.Request, msgkit.ServiceUUID) error

// recordJSON is a catalog record with the fields of its kind.
func recordJSON(r contacts.Record) map[string]any {
	m := map[string]any{"uuid": r.UUID, "created_dt": timeJSON(r.Created), "updated_dt": timeJSON(r.Updated), "deleted_dt": timeOrNil(r.Deleted)}
	switch r.Kind {
	case contacts.KindCustomField:
		d := r.Definition()
		for k, v := range definitionJSON(d) {
			m[k] = v
		}
	case contacts.KindSegmentationSet, contacts.KindSegmentationGroup:
		m["name"], m["data"] = r.Name, r.Data
	case contacts.KindSubscription, contacts.KindGroup, contacts.KindTouchpoint, contacts.KindInterest:
		m["name"], m["description"], m["status"] = r.Name, r.Description, r.Status
	case contacts.KindOption:
		// Every field of an option is a string in the interface.
		m["name"], m["description"], m["status"] = r.Name, r.Description, r.Status
		m["subscription_uuid"], m["order_num"] = r.Parent, strconv.Itoa(r.OrderNum)
	case contacts.KindGroupList:
		m["group_uuid"], m["list_uuid"] = r.Parent, r.ListUUID
	case contacts.KindGroupSegmentation:
		m["group_uuid"], m["data"] = r.Parent, r.Data
	}
	return m
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// definitionJSON is a field definition as GET /cds/fields and the custom
// fields answer it.
func definitionJSON(d contacts.FieldDefinition) map[string]any {
	cfg := json.RawMessage("{}")
	if len(d.Config) > 0 {
		cfg = d.Config
	}
	return map[string]any{"display_name": d.DisplayName, "field_type": d.FieldType, "field_name": d.FieldName,
		"mandatory": yesNo(d.Mandatory), "identifier": yesNo(d.Identifier), "order_num": d.OrderNum, "config": cfg}
}

// recordFields are the members of a catalog body and where each goes; a
// member of another name is refused, but the read-only ones of an answer.
var recordFields = map[string]func(*contacts.RecordInput) **string{
	"name":              func(in *contacts.RecordInput) **string { return &in.Name },
	"description":       func(in *contacts.RecordInput) **string { return &in.Description },
	"status":            func(in *contacts.RecordInput) **string { return &in.Status },
	"data":              func(in *contacts.RecordInput) **string { return &in.Data },
	"display_name":      func(in *contacts.RecordInput) **string { return &in.DisplayName },
	"field_type":        func(in *contacts.RecordInput) **string { return &in.FieldType },
	"field_name":        func(in *contacts.RecordInput) **string { return &in.FieldName },
	"mandatory":         func(in *contacts.RecordInput) **string { return &in.Mandatory },
	"identifier":        func(in *contacts.RecordInput) **string { return &in.Identifier },
	"subscription_uuid": func(in *contacts.RecordInput) **string { return &in.SubscriptionUUID },
	"group_uuid":        func(in *contacts.RecordInput) **string { return &in.GroupUUID },
	"list_uuid":         func(in *contacts.RecordInput) **string { return &in.ListUUID },
}

var recordReadOnly = map[string]bool{"uuid": true, "created_dt": true, "updated_dt": true, "deleted_dt": true}

// recordInput reads a catalog body: strings or null, order_num a number
// or a string holding one, config an object.
func recordInput(body map[string]json.RawMessage) (contacts.RecordInput, error) {
	var in contacts.RecordInput
	var bad []msgkit.FieldError
	for name, raw := range body {
		switch {
		case recordReadOnly[name]:
		case name == "config":
			in.Config = raw
		case name == "order_num":
			t := bytes.TrimSpace(raw)
			switch {
			case bytes.Equal(t, []byte("null")):
			case len(t) > 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')):
				s := string(t)
				in.OrderNum = &s
			default:
				s, ok := contacts.StringOrNull(raw)
				if !ok {
					bad = append(bad, msgkit.FieldError{Name: name, Message: "order_num must be an integer (a number or a string holding one)"})
					continue
				}
				in.OrderNum = s
			}
		case recordFields[name] != nil:
			s, ok := contacts.StringOrNull(raw)
			if !ok {
				bad = append(bad, msgkit.FieldError{Name: name, Message: name + " must be a string or null"})
				continue
			}
			*recordFields[name](&in) = s
		default:
			bad = append(bad, msgkit.FieldError{Name: name, Message: "unknown field " + strconv.Quote(name)})
		}
	}
	if len(bad) > 0 {
		return contacts.RecordInput{}, typeError(bad)
	}
	return in, nil
}

func (a *api) listRecords(kind contacts.RecordKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		v := r.URL.Query()
		allowed := []string{"show_deleted"}
		if kind == contacts.KindOption {
			allowed = []string{"totals", "status", "show_deleted"}
		}
		fields, err := fieldsParam(v, allowed...)
		if err != nil {
			return err
		}
		spec := contacts.RecordSpec(kind)
		spec.Ignore = append(spec.Ignore, "fields")
		q, err := msgkit.ParseListQuery(v, spec)
		if err != nil {
			return err
		}
		page, err := a.b.Contacts.Records(r.Context(), svc, contacts.RecordQuery{Kind: kind, List: q, ShowDeleted: fields["show_deleted"]})
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(r, page, q, recordJSON))
	}
}

func (a *api) createRecord(kind contacts.RecordKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		if err := onlyParams(r.URL.Query()); err != nil {
			return err
		}
		in, err := readInput(w, r, recordInput)
		if err != nil {
			return err
		}
		rec, err := a.b.Contacts.CreateRecord(r.Context(), svc, kind, in)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusCreated, recordJSON(rec))
	}
}

func (a *api) getRecord(kind contacts.RecordKind, param string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		id, fields, err := itemAt(r, param, string(kind), "show_deleted")
		if err != nil {
			return err
		}
		rec, err := a.b.Contacts.Record(r.Context(), svc, kind, id, fields["show_deleted"])
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, recordJSON(rec))
	}
}

func (a *api) updateRecord(kind contacts.RecordKind, param string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		id, _, err := itemAt(r, param, string(kind))
		if err != nil {
			return err
		}
		in, err := readInput(w, r, recordInput)
		if err != nil {
			return err
		}
		rec, err := a.b.Contacts.UpdateRecord(r.Context(), svc, kind, id, in)
		if err != nil {
			return validation(err) // the rules of the body and the store's relation rules
		}
		return httpapi.WriteJSON(w, http.StatusOK, recordJSON(rec))
	}
}

func (a *api) deleteRecord(kind contacts.RecordKind, param string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		id, _, err := itemAt(r, param, string(kind))
		if err != nil {
			return err
		}
		if err := a.b.Contacts.DeleteRecord(r.Context(), svc, kind, id); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// memberJSON is a membership: contact_uuid, the target's field, status,
// updated_dt.
func memberJSON(m contacts.Member) map[string]any {
	return map[string]any{"contact_uuid": m.ContactUUID, m.Kind.Field(): m.TargetUUID, "status": string(m.Status), "updated_dt": timeJSON(m.Updated)}
}

func (a *api) listMembers(kind contacts.MemberKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		q, err := msgkit.ParseListQuery(r.URL.Query(), contacts.MemberSpec(kind))
		if err != nil {
			return err
		}
		page, err := a.b.Contacts.Members(r.Context(), svc, contacts.MemberQuery{Kind: kind, List: q})
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, envelopeOf(r, page, q, memberJSON))
	}
}

func (a *api) setMember(kind contacts.MemberKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
		if err := onlyParams(r.URL.Query()); err != nil {
			return err
		}
		body, err := readObject(w, r)
		if err != nil {
			return err
		}
		var in contacts.MemberInput
		var bad []msgkit.FieldError
		for name, raw := range body {
			var to **string
			switch name {
			case "contact_uuid":
				to = &in.ContactUUID
			case kind.Field():
				to = &in.TargetUUID
			case "status":
				to = &in.Status
			case "updated_dt":
				continue
			default:
				bad = append(bad, msgkit.FieldError{Name: name, Message: "unknown field " + strconv.Quote(name) + "; a member has contact_uuid, " + kind.Field() + " and status"})
				continue
			}
			s, ok := contacts.StringOrNull(raw)
			if !ok {
				bad = append(bad, msgkit.FieldError{Name: name, Message: name + " must be a string"})
				continue
			}
			*to = s
		}
		if len(bad) > 0 {
			return typeError(bad)
		}
		m, err := a.b.Contacts.SetMember(r.Context(), svc, kind, in)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, memberJSON(m))
	}
}

// fields answers the contact fields: with include_all=1 (the default) the
// definitions of the standard fields and the tenant's custom fields in
// use; with include_all=0 the standard fields' names.
func (a *api) fields(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	v := r.URL.Query()
	if err := onlyParams(v, "include_all"); err != nil {
		return err
	}
	all := true
	switch inc := v["include_all"]; {
	case len(inc) > 1:
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "include_all", "include_all is given more than once")
	case len(inc) == 0 || strings.TrimSpace(inc[0]) == "1":
	case strings.TrimSpace(inc[0]) == "0":
		all = false
	default:
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "include_all", "include_all is 1 or 0, not %q", inc[0])
	}
	if !all {
		std := contacts.StandardFields()
		names := make([]string, len(std))
		for i, d := range std {
			names[i] = d.FieldName
		}
		return httpapi.WriteJSON(w, http.StatusOK, names)
	}
	defs, err := a.b.Contacts.Fields(r.Context(), svc)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(defs))
	for i, d := range defs {
		out[i] = definitionJSON(d)
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}
