package contacts

import (
	"fmt"
	"slices"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// contactAttrs are the attributes the contact listing filters and sorts
// by through the listing engine, and how a contact gives each.
var contactAttrs = map[string]struct {
	typ msgkit.AttrType
	get func(*Contact) msgkit.Value
}{
	"uuid":                 {msgkit.AttrString, func(c *Contact) msgkit.Value { return msgkit.StringValue(c.UUID) }},
	"list_uuid":            {msgkit.AttrString, func(c *Contact) msgkit.Value { return msgkit.StringValue(c.ListUUID) }},
	"member_status":        {msgkit.AttrString, func(c *Contact) msgkit.Value { return msgkit.StringValue(string(c.Member)) }},
	"opt_status":           {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(string(c.OptStatus)) }},
	"opt_status_webpush":   {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(string(c.OptStatusWebpush)) }},
	"webpush_subscription": {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.WebpushSubscription) }},
	"gender":               {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.Value(segmentation.Gender)) }},
	"mobile":               {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.Value(segmentation.Mobile)) }},
	"email":                {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.Value(segmentation.Email)) }},
	"first_name":           {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.Value(segmentation.FirstName)) }},
	"last_name":            {msgkit.AttrString, func(c *Contact) msgkit.Value { return textValue(c.Value(segmentation.LastName)) }},
	"birthday": {msgkit.AttrDate, func(c *Contact) msgkit.Value {
		if c.Birthday.IsZero() {
			return msgkit.Null()
		}
		return msgkit.DateValue(c.Birthday)
	}},
	"created_dt": {msgkit.AttrDateTime, func(c *Contact) msgkit.Value { return msgkit.TimeValue(c.Created) }},
	"updated_dt": {msgkit.AttrDateTime, func(c *Contact) msgkit.Value { return msgkit.TimeValue(c.Updated) }},
}

// textValue is s, null when empty: a contact without a value has none.
func textValue(s string) msgkit.Value {
	if s == "" {
		return msgkit.Null()
	}
	return msgkit.StringValue(s)
}

// ShownTime is the precision the CDS family shows its date-times at
// (RFC 3339 in whole seconds), and so the precision its listings compare
// them at: gt(updated_dt)=T leaves out a contact shown with updated_dt T,
// whatever fraction of that second it keeps.
const ShownTime = time.Second

// ContactSpec is the listing spec of contacts: the sort attributes of the
// interface (birthday, created_dt, first_name, gender, last_name, mobile,
// updated_dt) and the attributes the contact filters compare, created_dt
// and updated_dt at ShownTime.
func ContactSpec() msgkit.ListSpec {
	spec := msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, MaxPageSize: 100, TimePrecision: ShownTime,
		Sort: []string{"birthday", "created_dt", "first_name", "gender", "last_name", "mobile", "updated_dt"}}
	for name, a := range contactAttrs {
		spec.Filter[name] = a.typ
	}
	return spec
}

// ContactValue reads attribute attr of c for a listing (msgkit.Apply over
// pointers: a contact is too big to copy for every attribute read).
func ContactValue(c *Contact, attr string) (msgkit.Value, bool) {
	// The common ones without the map: a listing reads one or two
	// attributes of every contact.
	switch attr {
	case "gender":
		return textValue(c.values[segmentation.Gender]), true
	case "last_name":
		return textValue(c.values[segmentation.LastName]), true
	case "first_name":
		return textValue(c.values[segmentation.FirstName]), true
	}
	a, ok := contactAttrs[attr]
	if !ok {
		return msgkit.Value{}, false
	}
	return a.get(c), true
}

// ContactAttr resolves attribute attr of the listing to what reads it of
// a contact, as msgkit.ApplyAttrs wants (once per query, where
// ContactValue looks the name up for every read).
func ContactAttr(attr string) (msgkit.Accessor[*Contact], bool) {
	a, ok := contactAttrs[attr]
	if !ok {
		return nil, false
	}
	return func(c **Contact) (msgkit.Value, bool) { return a.get(*c), true }, true
}

// SelectionKey names what Selects keeps for q when that depends on
// nothing but each contact (no segmentation query, no group, which read
// the day and compiled queries): two queries of one key keep the same
// contacts of a store that has not changed, so a store may keep which
// those are. ok is false for other queries. It names every condition
// Selects holds.
func (q *ContactQuery) SelectionKey() (key string, ok bool) {
	if q.Segment != nil || q.Group != nil {
		return "", false
	}
	member := func(f *MembershipFilter) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprintf("%q %q", f.UUIDs, f.Status)
	}
	return fmt.Sprintf("%t|%q|%q|%d|%s|%s|%s|%+v", q.ShowDeleted, q.ListUUIDs, q.UUIDs, q.Required,
		member(q.Options), member(q.Touchpoints), member(q.Interests), q.Channel), true
}

// Selects reports whether c is one q selects beyond q.List (which the
// listing engine applies): lists, uuids, required fields, the
// segmentation query, memberships, group, channel and deletion, with m
// from q.Matcher. q must be Resolved. A memory store filters with it; the
// PostgreSQL store says the same in SQL.
func (q *ContactQuery) Selects(c *Contact, m Matchers) bool {
	if !c.Deleted.IsZero() && !q.ShowDeleted {
		return false
	}
	if len(q.ListUUIDs) > 0 && !slices.Contains(q.ListUUIDs, c.ListUUID) {
		return false
	}
	if len(q.UUIDs) > 0 && !slices.Contains(q.UUIDs, c.UUID) {
		return false
	}
	for _, f := range q.Required {
		if !c.Has(f) {
			return false
		}
	}
	if q.Options != nil && !q.Options.Selects(c.Options) ||
		q.Touchpoints != nil && !q.Touchpoints.Selects(c.Touchpoints) ||
		q.Interests != nil && !q.Interests.Selects(c.Interests) {
		return false
	}
	if !q.Channel.IsZero() && !q.Channel.Selects(c) {
		return false
	}
	if q.Group != nil {
		if !slices.Contains(q.Group.ListUUIDs, c.ListUUID) {
			return false
		}
		for _, g := range m.Group {
			if !g.Match(c) {
				return false
			}
		}
	}
	return m.Segment == nil || m.Segment.Match(c)
}

// Matcher is q's segmentation queries compiled for q.Today (its own and
// its group's); each nil without one.
func (q *ContactQuery) Matcher() Matchers {
	var m Matchers
	if q.Segment != nil {
		m.Segment = segmentation.Compile(q.Segment, q.Today)
	}
	if q.Group != nil {
		for _, s := range q.Group.Segments {
			m.Group = append(m.Group, segmentation.Compile(s, q.Today))
		}
	}
	return m
}

// ListSpec is the listing spec of lists: by name, status and the times
// (at ShownTime).
func ListSpec() msgkit.ListSpec {
	return msgkit.ListSpec{TimePrecision: ShownTime,
		Filter: map[string]msgkit.AttrType{"uuid": msgkit.AttrString, "name": msgkit.AttrString, "list_status": msgkit.AttrString,
			"created_dt": msgkit.AttrDateTime, "updated_dt": msgkit.AttrDateTime},
		Sort: []string{"name", "created_dt", "updated_dt"}, Search: []string{"name"}, MaxPageSize: 100,
	}
}

// ListValue reads attribute attr of l for a listing.
func ListValue(l List, attr string) (msgkit.Value, bool) {
	switch attr {
	case "uuid":
		return msgkit.StringValue(l.UUID), true
	case "name":
		return msgkit.StringValue(l.Name), true
	case "list_status":
		return msgkit.StringValue(l.Status), true
	case "created_dt":
		return msgkit.TimeValue(l.Created), true
	case "updated_dt":
		return msgkit.TimeValue(l.Updated), true
	}
	return msgkit.Value{}, false
}
