package contacts

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// The list-contacts parameters read by ParseContactQuery beside the
// listing engine's (page_number, page_size, paging, sort and filters on
// the attributes of ContactSpec, such as gt(updated_dt)=…).
const (
	ParamFields   = "fields"
	ParamQuery    = "query"
	ParamRequired = "required"
)

// Later parameters of the list-contacts table: they filter by memberships
// and channels that are not kept yet, and are refused by name rather than
// ignored.
var notYet = []string{"subscription_uuids", "subscription_status", "interest_uuids", "touchpoint_uuids", "group_uuid",
	"channel_name", "channel_identifier", "channel_opt_status", "webpush_subscription"}

// requirable are the fields the required parameter takes.
var requirable = []segmentation.Field{segmentation.Mobile, segmentation.Email, segmentation.Birthday, segmentation.FirstName, segmentation.LastName}

// ParseContactQuery reads the query parameters of a contact listing:
// fields (lists, channels, show_deleted, count_only), list_uuids and
// uuids (comma-separated UUIDs), member_status, opt_status,
// opt_status_webpush, gender, mobile (any form E164 reads), email,
// first_name, last_name, age (whole years on today), query (a
// segmentation query), required (comma-separated: mobile, email,
// birthday, first_name, last_name), and the listing engine's paging, sort
// and filters over ContactSpec. Every problem is named at once (an
// Invalid error with code msgkit.CodeInvalidQuery).
func ParseContactQuery(v url.Values, today msgkit.Date) (ContactQuery, Embed, error) {
	q := ContactQuery{Today: today}
	var embed Embed
	var p problems
	engine := url.Values{}
	var filters []msgkit.Filter
	for _, key := range slices.Sorted(maps.Keys(v)) {
		vals := v[key]
		if len(vals) == 0 {
			continue
		}
		if len(vals) > 1 && key != ParamRequired && key != ParamFields {
			p.add(key, key+" is given more than once")
			continue
		}
		raw := strings.TrimSpace(vals[0])
		switch key {
		case ParamFields:
			for _, f := range splitList(vals) {
				switch f {
				case "lists":
					embed.Lists = true
				case "channels":
					embed.Channels = true
				case "show_deleted":
					q.ShowDeleted = true
				case "count_only":
					q.CountOnly = true
				default:
					p.add(key, "fields takes lists, channels, show_deleted and count_only, not "+strconv.Quote(f))
				}
			}
		case "list_uuids", "uuids":
			ids := uuidList(key, raw, &p)
			if key == "uuids" {
				q.UUIDs = ids
			} else {
				q.ListUUIDs = ids
			}
		case "member_status":
			if raw != string(Subscribed) && raw != string(Unsubscribed) {
				p.add(key, "member_status is subscribed or unsubscribed")
				continue
			}
			filters = append(filters, eq(key, raw))
		case "opt_status", "opt_status_webpush":
			if raw != string(OptIn) && raw != string(OptOut) {
				p.add(key, key+" is in or out")
				continue
			}
			filters = append(filters, eq(key, raw))
		case "gender":
			g := strings.ToLower(raw)
			if g != "male" && g != "female" {
				p.add(key, "gender is male or female")
				continue
			}
			filters = append(filters, eq(key, g))
		case "mobile":
			e, ok := E164(raw)
			if !ok {
				p.add(key, "mobile must be a phone number in international form (E.164; a + is %2B in a URL)")
				continue
			}
			filters = append(filters, eq(key, e))
		case "email", "first_name", "last_name":
			filters = append(filters, eq(key, raw))
		case "age":
			n, err := strconv.Atoi(raw)
			if err != nil || n < 0 || n > 150 {
				p.add(key, "age is whole years, 0 to 150")
				continue
			}
			// Born after today minus n+1 years, and on or before today
			// minus n years (a 29 February birthday counts on 28 February
			// in common years, as ann_in_days does).
			lo, hi := yearsBefore(today, n+1).AddDays(1), yearsBefore(today, n)
			filters = append(filters, msgkit.Filter{Op: msgkit.OpBetween, Attr: "birthday", Values: []msgkit.Value{msgkit.DateValue(lo), msgkit.DateValue(hi)}})
		case ParamQuery:
			seg, err := segmentation.Parse([]byte(raw))
			if err != nil {
				p.add(key, msgkit.MessageOf(err))
				continue
			}
			q.Segment = seg
		case ParamRequired:
			for _, name := range splitList(vals) {
				f, ok := segmentation.ParseField(name)
				if !ok || !slices.Contains(requirable, f) {
					p.add(key, "required takes mobile, email, birthday, first_name and last_name, not "+strconv.Quote(name))
					continue
				}
				if !slices.Contains(q.Required, f) {
					q.Required = append(q.Required, f)
				}
			}
		default:
			if slices.Contains(notYet, key) {
				p.add(key, key+" filters by memberships or channels this platform does not keep yet")
				continue
			}
			engine[key] = vals // paging, sort, and the operator forms
		}
	}
	lq, err := msgkit.ParseListQuery(engine, ContactSpec())
	if err != nil {
		if e, ok := err.(*msgkit.Error); ok && e.Kind == msgkit.Invalid {
			p.list = append(p.list, e.Fields...)
		} else {
			return ContactQuery{}, Embed{}, err
		}
	}
	if len(p.list) > 0 {
		e := msgkit.New(msgkit.Invalid, msgkit.CodeInvalidQuery, "the contact listing's parameters are invalid")
		e.Fields = p.list
		return ContactQuery{}, Embed{}, e
	}
	lq.Filters = append(lq.Filters, filters...)
	q.List = lq
	return q, embed, nil
}

// Embed says what a contact listing adds to each contact (fields=lists,
// channels).
type Embed struct {
	Lists, Channels bool
}

func eq(attr, v string) msgkit.Filter {
	return msgkit.Filter{Op: msgkit.OpEq, Attr: attr, Values: []msgkit.Value{msgkit.StringValue(v)}}
}

// splitList reads comma-separated values, also given as repeated
// parameters, without empty ones.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// uuidList reads comma-separated UUIDs, canonical (lower case).
func uuidList(key, raw string, p *problems) []string {
	var ids []string
	for _, s := range splitList([]string{raw}) {
		u, ok := canonicalUUID(s)
		if !ok {
			p.add(key, key+" holds "+quoteName(s)+", which is not a UUID")
			return nil
		}
		ids = append(ids, u)
	}
	return ids
}

// yearsBefore is d n years earlier; 29 February becomes 28 February in a
// common year.
func yearsBefore(d msgkit.Date, n int) msgkit.Date {
	y := msgkit.Date{Year: d.Year - n, Month: d.Month, Day: d.Day}
	if !y.IsValid() {
		y.Day--
	}
	return y
}
