package cdsapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/contacts"
)

// importJSON is the import result: the counters and the invalid items,
// each as sent with its problems.
type importJSON struct {
	Created      int               `json:"created"`
	Deleted      int               `json:"deleted"`
	Invalid      int               `json:"invalid"`
	Updated      int               `json:"updated"`
	Skipped      int               `json:"skipped"`
	Subscribed   int               `json:"subscribed"`
	Unsubscribed int               `json:"unsubscribed"`
	OptedIn      int               `json:"optedin"`
	OptedOut     int               `json:"optedout"`
	Errors       []importErrorJSON `json:"errors"`
}

type importErrorJSON struct {
	Contact json.RawMessage `json:"contact"`
	Errors  []itemJSON      `json:"errors"`
}

type itemJSON struct {
	Name        string `json:"name"`
	Message     string `json:"message"`
	Description string `json:"description"`
}

func importResultOf(res contacts.ImportResult) importJSON {
	out := importJSON{Created: res.Created, Deleted: res.Deleted, Invalid: res.Invalid, Updated: res.Updated, Skipped: res.Skipped,
		Subscribed: res.Subscribed, Unsubscribed: res.Unsubscribed, OptedIn: res.OptedIn, OptedOut: res.OptedOut,
		Errors: make([]importErrorJSON, 0, len(res.Errors))}
	for _, e := range res.Errors {
		items := make([]itemJSON, len(e.Errors))
		for i, f := range e.Errors {
			items[i] = itemJSON{Name: f.Name, Message: f.Message, Description: f.Description}
		}
		out.Errors = append(out.Errors, importErrorJSON{Contact: e.Contact, Errors: items})
	}
	return out
}

// readErr keeps the error a reader returned, so that a body over the
// route's limit is told from malformed JSON.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

func (a *api) importContacts(w http.ResponseWriter, r *http.Request, svc msgkit.ServiceUUID) error {
	opts, err := contacts.ParseImportQuery(r.URL.Query())
	if err != nil {
		return err
	}
	defs, err := a.importChecks(r, svc, opts)
	if err != nil {
		return err
	}
	if defs != nil {
		opts.Columns = map[int]bool{}
		for _, d := range defs {
			opts.Columns[d.Column] = true
		}
	}
	body := &readErr{r: r.Body}
	items, err := contacts.ReadImport(body, opts)
	if mb, ok := errors.AsType[*http.MaxBytesError](body.err); ok {
		return &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge,
			Err: msgkit.Errorf(msgkit.Invalid, httpapi.CodeRequestTooLarge, "the request body exceeds %d bytes", mb.Limit)}
	}
	if err != nil {
		return err
	}
	res, err := a.b.Imports.Import(r.Context(), svc, contacts.ImportBatch{Options: opts, Items: items, Now: a.now(), NewUUID: a.newUUID})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, importResultOf(res))
}

// importChecks holds the import's parameters to the catalog: the
// option_uuids, touchpoint_uuids, interest_uuids and update_option_uuids
// are records of the tenant in use, and a column_N identifier is a custom
// field declared identifier. It returns the custom fields in use by field
// name, nil without a catalog.
func (a *api) importChecks(r *http.Request, svc msgkit.ServiceUUID, opts contacts.ImportOptions) (map[string]contacts.Record, error) {
	if a.b.Catalog == nil {
		return nil, nil
	}
	var bad []msgkit.FieldError
	for _, ref := range []struct {
		param string
		kind  contacts.RecordKind
		uuids []string
	}{
		{"option_uuids", contacts.KindOption, opts.OptionUUIDs},
		{"touchpoint_uuids", contacts.KindTouchpoint, opts.TouchpointUUIDs},
		{"interest_uuids", contacts.KindInterest, opts.InterestUUIDs},
		{"update_option_uuids", contacts.KindOption, opts.UpdateOptionUUIDs},
	} {
		for _, u := range ref.uuids {
			_, err := a.b.Catalog.Record(r.Context(), svc, ref.kind, u, false)
			switch {
			case msgkit.KindOf(err) == msgkit.NotFound:
				bad = append(bad, msgkit.FieldError{Name: ref.param, Message: ref.param + " holds " + u + ", which is not a " + kindNoun(ref.kind) + " of this service in use"})
			case err != nil:
				return nil, err
			}
		}
	}
	defs, err := a.customFields(r, svc)
	if err != nil {
		return nil, err
	}
	if n := opts.IdentifierColumn(); n > 0 {
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

func kindNoun(k contacts.RecordKind) string {
	switch k {
	case contacts.KindOption:
		return "subscription option"
	}
	return string(k)
}
