package contacts

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// CodeInvalidContact is the code of a contact body that breaks a rule;
// its fields name each problem.
const CodeInvalidContact = "invalid_contact"

// MaxValueLen is the most characters a contact field holds.
const MaxValueLen = 255

// Input is the body of a create or replace: the contact's fields by name
// (standard fields and column_n), nil for a field given as null or not at
// all. Replace is whole: a field the body leaves out is cleared.
type Input struct {
	ListUUID *string
	Values   map[string]*string

	OptStatus          *string
	OptStatusWebpush   *string // not in create or replace bodies: PATCH only
	TelegramIdentifier *string
	TelegramOptStatus  *string
	TelegramData       json.RawMessage // a JSON object, or nil
}

// problems collects the field problems of one body.
type problems struct{ list []msgkit.FieldError }

func (p *problems) add(field, message string) {
	p.list = append(p.list, msgkit.FieldError{Name: field, Message: message})
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	e := msgkit.New(msgkit.Invalid, CodeInvalidContact, "the contact is invalid")
	e.Fields = p.list
	return e
}

// Fill sets the fields of c from in, replacing all of them (system fields,
// memberships and the webpush channel aside), and returns every problem at
// once, each naming its field. listRequired says whether list_uuid must be
// given (create and import need a list; replace keeps the contact's when
// the body has none). c is changed only when there is no problem.
func Fill(c *Contact, in Input, listRequired bool) error {
	var p problems
	next := Contact{UUID: c.UUID, ListUUID: c.ListUUID, Member: c.Member, Created: c.Created, Updated: c.Updated, Deleted: c.Deleted,
		OptStatusWebpush: c.OptStatusWebpush, WebpushSubscription: c.WebpushSubscription, Options: c.Options}
	if next.Member == "" {
		next.Member = Subscribed
	}
	switch {
	case in.ListUUID != nil:
		if u, ok := canonicalUUID(*in.ListUUID); ok {
			next.ListUUID = u
		} else {
			p.add("list_uuid", "list_uuid must be a UUID")
		}
	case listRequired:
		p.add("list_uuid", "list_uuid is required: the list the contact belongs to")
	}
	for _, name := range sortedNames(in.Values) {
		raw := in.Values[name]
		f, ok := segmentation.ParseField(name)
		if !ok || f == segmentation.SubscriptionOptionsIn || f == segmentation.SubscriptionOptionsOut {
			p.add(name, "unknown contact field "+quoteName(name))
			continue
		}
		if raw == nil {
			continue
		}
		setField(&next, f, name, *raw, &p)
	}
	next.OptStatus = optStatus(in.OptStatus, "opt_status", &p)
	if in.OptStatusWebpush != nil {
		next.OptStatusWebpush = optStatus(in.OptStatusWebpush, "opt_status_webpush", &p)
	}
	if in.TelegramIdentifier != nil {
		next.Telegram.Identifier = text(*in.TelegramIdentifier, "channel_telegram_identifier", &p)
	}
	next.Telegram.OptStatus = optStatus(in.TelegramOptStatus, "channel_telegram_opt_status", &p)
	if d := bytes.TrimSpace(in.TelegramData); len(d) > 0 && !bytes.Equal(d, []byte("null")) {
		if d[0] != '{' || !json.Valid(d) {
			p.add("channel_telegram_data", "channel_telegram_data must be a JSON object")
		} else {
			next.Telegram.Data = bytes.Clone(d)
		}
	}
	if err := p.err(); err != nil {
		return err
	}
	*c = next
	return nil
}

// setField checks raw for field f (named name) and stores it in c.
func setField(c *Contact, f segmentation.Field, name, raw string, p *problems) {
	v := text(raw, name, p)
	if v == "" {
		return
	}
	switch f {
	case segmentation.Mobile, segmentation.BMobile:
		e, ok := E164(v)
		if !ok {
			p.add(name, name+" must be a valid phone number in international form (E.164, such as +38640123456)")
			return
		}
		if f == segmentation.Mobile {
			c.MobileRaw = raw
		} else {
			c.BMobileRaw = raw
		}
		v = e
	case segmentation.Gender:
		v = strings.ToLower(v)
		if v != "male" && v != "female" {
			p.add(name, "gender is male or female")
			return
		}
	case segmentation.Birthday:
		d, err := msgkit.ParseDate(v)
		if err != nil {
			p.add(name, "birthday must be a date YYYY-MM-DD")
			return
		}
		c.Birthday = d
		return
	case segmentation.Email, segmentation.BEmail:
		if !plausibleEmail(v) {
			p.add(name, name+" must be an e-mail address (local@domain)")
			return
		}
	}
	c.setValue(f, v)
}

// text is raw trimmed, or "" with a problem when it is not text a
// contact field holds: valid UTF-8 without control characters, at most
// MaxValueLen characters.
func text(raw, name string, p *problems) string { return textOf(raw, name, MaxValueLen, p) }

// textOf is raw trimmed, when it is valid UTF-8 without control
// characters and of at most maxLen characters; else a problem of name.
func textOf(raw, name string, maxLen int, p *problems) string {
	v := strings.TrimSpace(raw)
	switch {
	case !utf8.ValidString(v):
		p.add(name, name+" is not valid UTF-8")
		return ""
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		p.add(name, name+" holds a control character")
		return ""
	case utf8.RuneCountInString(v) > maxLen:
		p.add(name, name+" is longer than "+strconv.Itoa(maxLen)+" characters")
		return ""
	}
	return v
}

func optStatus(raw *string, name string, p *problems) OptStatus {
	if raw == nil || *raw == "" {
		return ""
	}
	switch s := OptStatus(strings.ToLower(strings.TrimSpace(*raw))); s {
	case OptIn, OptOut:
		return s
	}
	p.add(name, name+" is in or out")
	return ""
}

// plausibleEmail is the shape of an address: one @ between a local part
// and a domain with a dot, no spaces. Whether it takes mail is the
// mail system's to say.
func plausibleEmail(v string) bool {
	local, domain, ok := strings.Cut(v, "@")
	return ok && local != "" && !strings.Contains(domain, "@") && strings.Contains(domain, ".") &&
		!strings.HasPrefix(domain, ".") && !strings.HasSuffix(domain, ".") && !strings.ContainsAny(v, " \t")
}

func canonicalUUID(s string) (string, bool) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", false
	}
	return u.String(), true
}

func quoteName(name string) string {
	if len(name) > 64 {
		name = name[:64] + "…"
	}
	return `"` + strings.ToValidUTF8(name, "?") + `"`
}
