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

// repeatable are the parameters that may be given more than once, their
// values joined: the lists of values.
var repeatable = []string{ParamRequired, ParamFields, "list_uuids", "uuids", "subscription_uuids", "touchpoint_uuids", "interest_uuids"}

// requirable are the fields the required parameter takes.
var requirable = []segmentation.Field{segmentation.Mobile, segmentation.Email, segmentation.Birthday, segmentation.FirstName, segmentation.LastName}

// ParseContactQuery reads the query parameters of a contact listing:
// fields (lists, channels, show_deleted, count_only), list_uuids, uuids,
// subscription_uuids, touchpoint_uuids and interest_uuids
// (comma-separated UUIDs, also repeated), member_status,
// subscription_status, opt_status, opt_status_webpush, gender, mobile (any
// form E164 reads), email, first_name, last_name, age (whole years on
// today), query (a segmentation query), group_uuid, channel_name,
// channel_identifier, channel_opt_status, webpush_subscription, required
// (comma-separated: mobile, email, birthday, first_name, last_name), and
// the listing engine's paging, sort and filters over ContactSpec. Every
// problem is named at once (an Invalid error with code
// msgkit.CodeInvalidQuery).
//
// subscription_uuids and group_uuid are kept as given
// (SubscriptionUUIDs, GroupUUID): Service.Contacts resolves them with
// ResolveSubscriptions and ResolveGroup before calling a store.
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
		if len(vals) > 1 && !slices.Contains(repeatable, key) {
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
		case "list_uuids", "uuids", "subscription_uuids", "touchpoint_uuids", "interest_uuids":
			ids, ok := uuidList(key, vals, &p)
			if !ok || len(ids) == 0 {
				continue
			}
			switch key {
			case "uuids":
				q.UUIDs = ids
			case "list_uuids":
				q.ListUUIDs = ids
			case "subscription_uuids":
				q.SubscriptionUUIDs = ids
			case "touchpoint_uuids":
				q.Touchpoints = &MembershipFilter{UUIDs: ids}
			case "interest_uuids":
				q.Interests = &MembershipFilter{UUIDs: ids}
			}
		case "subscription_status":
			if raw != string(Subscribed) && raw != string(Unsubscribed) {
				p.add(key, "subscription_status is subscribed or unsubscribed")
				continue
			}
			if len(splitList(v["subscription_uuids"])) == 0 {
				p.add(key, "subscription_status is the status in the subscriptions of subscription_uuids, which are not given")
				continue
			}
			q.SubscriptionStatus = MemberStatus(raw)
		case "group_uuid":
			u, ok := canonicalUUID(raw)
			if !ok {
				p.add(key, "group_uuid is a UUID")
				continue
			}
			q.GroupUUID = u
		case "channel_name":
			if slices.Contains(unkeptChannels, raw) {
				p.add(key, "contacts keep no "+quoteName(raw)+" channel: channel_name is telegram, whatsapp or webpush")
				continue
			}
			if !slices.Contains(channelNames, raw) {
				p.add(key, "channel_name is telegram, whatsapp or webpush, not "+quoteName(raw))
				continue
			}
			q.Channel.Name = raw
		case "channel_identifier":
			if raw == "" {
				p.add(key, "channel_identifier is empty")
				continue
			}
			q.Channel.Identifier = raw
		case "channel_opt_status":
			if raw != string(OptIn) && raw != string(OptOut) {
				p.add(key, "channel_opt_status is in or out")
				continue
			}
			q.Channel.OptStatus = OptStatus(raw)
		case "webpush_subscription":
			if raw == "" {
				p.add(key, "webpush_subscription is empty: test for none with isnull(webpush_subscription)")
				continue
			}
			filters = append(filters, eq(key, raw))
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
				for _, problem := range segmentation.Problems(err) {
					p.add(key, problem)
				}
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

// uuidList reads comma-separated UUIDs, also given as repeated
// parameters, canonical (lower case), each once; false (a problem added)
// when one is not a UUID. None given (list_uuids=) is no filter.
func uuidList(key string, vals []string, p *problems) ([]string, bool) {
	var ids []string
	seen := map[string]bool{}
	for _, s := range splitList(vals) {
		u, ok := canonicalUUID(s)
		if !ok {
			p.add(key, key+" holds "+quoteName(s)+", which is not a UUID")
			return nil, false
		}
		if !seen[u] {
			seen[u] = true
			ids = append(ids, u)
		}
	}
	return ids, true
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
