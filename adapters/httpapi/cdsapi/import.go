package cdsapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

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
	body := &readErr{r: r.Body}
	res, err := a.b.Contacts.Import(r.Context(), svc, opts, body)
	if mb, ok := errors.AsType[*http.MaxBytesError](body.err); ok {
		return &httpapi.StatusError{Status: http.StatusRequestEntityTooLarge,
			Err: msgkit.Errorf(msgkit.Invalid, httpapi.CodeRequestTooLarge, "the request body exceeds %d bytes", mb.Limit)}
	}
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, importResultOf(res))
}
