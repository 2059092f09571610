package cdsapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

// timeJSON is a time as the CDS interface writes it: RFC 3339 in UTC.
func timeJSON(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return timeJSON(t)
}

func textOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// contactJSON is a contact as the CDS interface answers it: every
// standard field (null without a value), the custom columns it has, the
// opt statuses, the Telegram fields, the web push subscription and
// channels; lists when embedded (not nil).
func contactJSON(c *contacts.Contact, lists []contacts.ListRef) map[string]any {
	m := map[string]any{
		"uuid": c.UUID, "list_uuid": c.ListUUID, "member_status": string(c.Member),
		"created_dt": timeJSON(c.Created), "updated_dt": timeJSON(c.Updated), "deleted_dt": timeOrNil(c.Deleted),
		"opt_status": textOrNil(string(c.OptStatus)), "opt_status_webpush": textOrNil(string(c.OptStatusWebpush)),
		"webpush_subscription":        textOrNil(c.WebpushSubscription),
		"channel_telegram_identifier": textOrNil(c.Telegram.Identifier),
		"channel_telegram_opt_status": textOrNil(string(c.Telegram.OptStatus)),
		"channel_telegram_data":       nil,
	}
	if len(c.Telegram.Data) > 0 {
		m["channel_telegram_data"] = json.RawMessage(c.Telegram.Data)
	}
	for _, name := range contacts.FieldNames() {
		f, _ := segmentation.ParseField(name)
		m[name] = textOrNil(c.Value(f))
	}
	for n, v := range c.Custom {
		m["column_"+strconv.Itoa(n)] = v
	}
	channels := []map[string]any{}
	for _, ch := range c.Channels() {
		data := json.RawMessage("{}")
		if len(ch.Data) > 0 {
			data = ch.Data
		}
		channels = append(channels, map[string]any{"channel_name": ch.Name, "identifier": ch.Identifier,
			"opt_status": textOrNil(string(ch.OptStatus)), "data": data})
	}
	m["channels"] = channels
	if lists != nil {
		refs := make([]listRef, len(lists))
		for i, l := range lists {
			refs[i] = listRef(l)
		}
		m["lists"] = refs
	}
	return m
}

// listRef is a list embedded in a contact (fields=lists).
type listRef struct {
	UUID string `json:"uuid"`
	Name string `json:"name"`
}

// listJSON is a contact list with its counts.
type listJSON struct {
	UUID          string  `json:"uuid"`
	Name          string  `json:"name"`
	ListStatus    string  `json:"list_status"`
	CreatedDt     string  `json:"created_dt"`
	UpdatedDt     string  `json:"updated_dt"`
	DeletedDt     *string `json:"deleted_dt"`
	Subscribed    int     `json:"subscribed"`
	Unsubscribed  int     `json:"unsubscribed"`
	ContactsCount int     `json:"contacts_count"`
}

func listOf(l contacts.List) listJSON {
	j := listJSON{UUID: l.UUID, Name: l.Name, ListStatus: l.Status, CreatedDt: timeJSON(l.Created), UpdatedDt: timeJSON(l.Updated),
		Subscribed: l.Subscribed, Unsubscribed: l.Unsubscribed, ContactsCount: l.ContactsCount}
	if !l.Deleted.IsZero() {
		d := timeJSON(l.Deleted)
		j.DeletedDt = &d
	}
	return j
}

// envelope is the CDS collection answer: data and meta.pagination with
// links to the first, last, previous and next pages (null where there is
// no such page).
type envelope[T any] struct {
	Data []T `json:"data"`
	Meta struct {
		Pagination pagination `json:"pagination"`
	} `json:"meta"`
}

type pagination struct {
	Total       int   `json:"total"`
	Count       int   `json:"count"`
	PerPage     int   `json:"perPage"`
	CurrentPage int   `json:"currentPage"`
	TotalPages  int   `json:"totalPages"`
	Links       links `json:"links"`
}

type links struct {
	First *string `json:"first"`
	Last  *string `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// envelopeOf wraps a page: its links are the request's path and query with
// page_number set (the last page of an empty listing is page 1).
func envelopeOf[T, W any](r *http.Request, page msgkit.Page[T], q msgkit.ListQuery, wire func(T) W) envelope[W] {
	out := envelope[W]{Data: msgkit.MapItems(page, wire)}
	in := page.Info(q)
	link := func(n int) *string {
		v := r.URL.Query()
		v.Set(msgkit.ParamPageNumber, strconv.Itoa(n))
		s := (&url.URL{Path: r.URL.Path, RawQuery: v.Encode()}).String()
		return &s
	}
	p := pagination{Total: in.Total, Count: in.Count, PerPage: in.PerPage, CurrentPage: in.Number, TotalPages: in.Pages}
	p.Links.First, p.Links.Last = link(1), link(max(in.Pages, 1))
	if in.Number > 1 {
		p.Links.Prev = link(min(in.Number-1, max(in.Pages, 1)))
	}
	if in.Number < in.Pages {
		p.Links.Next = link(in.Number + 1)
	}
	out.Meta.Pagination = p
	return out
}

// contactInput reads a create or replace body (contacts.BodyInput); a
// member of the wrong type is named, the rules of the values are Fill's.
func contactInput(body map[string]json.RawMessage) (contacts.Input, error) {
	in, _, bad := contacts.BodyInput(body)
	if len(bad) > 0 {
		return contacts.Input{}, typeError(bad)
	}
	return in, nil
}

// patchInput reads a status change body: opt_status, opt_status_webpush,
// channel_telegram_identifier and channel_telegram_opt_status, strings or
// null; any other member is named.
func patchInput(body map[string]json.RawMessage) (contacts.Patch, error) {
	var in contacts.Patch
	var bad []msgkit.FieldError
	for name, raw := range body {
		var to **string
		switch name {
		case "opt_status":
			to = &in.OptStatus
		case "opt_status_webpush":
			to = &in.OptStatusWebpush
		case "channel_telegram_identifier":
			to = &in.TelegramIdentifier
		case "channel_telegram_opt_status":
			to = &in.TelegramOptStatus
		case "webpush_subscription":
			to = &in.WebpushSubscription
		default:
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " cannot be changed by PATCH: it takes opt_status, opt_status_webpush, " +
				"channel_telegram_identifier, channel_telegram_opt_status and webpush_subscription"})
			continue
		}
		s, ok := contacts.StringOrNull(raw)
		if !ok {
			bad = append(bad, msgkit.FieldError{Name: name, Message: name + " must be a string or null"})
			continue
		}
		if s == nil {
			s = new(string) // null clears
		}
		*to = s
	}
	if len(bad) > 0 {
		return contacts.Patch{}, typeError(bad)
	}
	if in.Nothing() {
		return in, msgkit.Invalidf(contacts.CodeInvalidContact, "body", "the body changes nothing: give opt_status, opt_status_webpush, "+
			"channel_telegram_identifier, channel_telegram_opt_status or webpush_subscription")
	}
	return in, nil
}

// listInput reads a list body: name and list_status, strings; other
// members are ignored (read-only fields sent back).
func listInput(body map[string]json.RawMessage) (contacts.ListInput, error) {
	var in contacts.ListInput
	var bad []msgkit.FieldError
	for name, to := range map[string]**string{"name": &in.Name, "list_status": &in.Status} {
		raw, ok := body[name]
		if !ok {
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
		return contacts.ListInput{}, typeError(bad)
	}
	return in, nil
}

// typeError is the 400 of members of the wrong JSON type, sorted by name.
func typeError(bad []msgkit.FieldError) error {
	sortFields(bad)
	e := msgkit.New(msgkit.Invalid, httpapi.CodeInvalidJSON, "the body has members of the wrong type")
	e.Fields = bad
	return e
}
