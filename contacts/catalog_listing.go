package contacts

import (
	"github.com/msgkit/msgkit"
)

// recordAttrs are the listing attributes of catalog records, by JSON
// name, and how a record gives each. RecordSpec says which a kind has.
var recordAttrs = map[string]struct {
	typ msgkit.AttrType
	get func(*Record) msgkit.Value
}{
	"uuid":              {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.UUID) }},
	"name":              {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Name) }},
	"display_name":      {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Name) }},
	"description":       {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Description) }},
	"status":            {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Status) }},
	"subscription_uuid": {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Parent) }},
	"group_uuid":        {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.Parent) }},
	"list_uuid":         {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.ListUUID) }},
	"order_num":         {msgkit.AttrNumber, func(r *Record) msgkit.Value { return msgkit.IntValue(int64(r.OrderNum)) }},
	"field_name":        {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.FieldName()) }},
	"field_type":        {msgkit.AttrString, func(r *Record) msgkit.Value { return msgkit.StringValue(r.FieldType) }},
	"created_dt":        {msgkit.AttrDateTime, func(r *Record) msgkit.Value { return msgkit.TimeValue(r.Created) }},
	"updated_dt":        {msgkit.AttrDateTime, func(r *Record) msgkit.Value { return msgkit.TimeValue(r.Updated) }},
}

// RecordAttrs are the names of every attribute a RecordSpec may hold.
func RecordAttrs() []string { return sortedKeys(mapKeys(recordAttrs)) }

func mapKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// RecordSpec is the listing spec of records of kind k: filters by uuid,
// the times (at ShownTime) and the kind's own fields (name, status,
// subscription_uuid, ...); sorts by the name, order_num and the times; q
// searches the name.
func RecordSpec(k RecordKind) msgkit.ListSpec {
	attrs := []string{"uuid", "created_dt", "updated_dt"}
	sort := []string{"created_dt", "updated_dt"}
	var search []string
	switch k {
	case KindCustomField:
		attrs = append(attrs, "display_name", "field_name", "field_type", "order_num")
		sort = append(sort, "display_name", "field_name", "order_num")
		search = []string{"display_name"}
	case KindSegmentationSet, KindSegmentationGroup:
		attrs = append(attrs, "name")
		sort = append(sort, "name")
		search = []string{"name"}
	case KindSubscription, KindGroup, KindTouchpoint, KindInterest:
		attrs = append(attrs, "name", "description", "status")
		sort = append(sort, "name", "status")
		search = []string{"name"}
	case KindOption:
		attrs = append(attrs, "name", "description", "status", "subscription_uuid", "order_num")
		sort = append(sort, "name", "status", "order_num")
		search = []string{"name"}
	case KindGroupList:
		attrs = append(attrs, "group_uuid", "list_uuid")
	case KindGroupSegmentation:
		attrs = append(attrs, "group_uuid")
	}
	spec := msgkit.ListSpec{Filter: map[string]msgkit.AttrType{}, Sort: sort, Search: search, MaxPageSize: 100, TimePrecision: ShownTime}
	for _, a := range attrs {
		spec.Filter[a] = recordAttrs[a].typ
	}
	return spec
}

// RecordValue reads attribute attr of r for a listing.
func RecordValue(r Record, attr string) (msgkit.Value, bool) {
	a, ok := recordAttrs[attr]
	if !ok {
		return msgkit.Value{}, false
	}
	return a.get(&r), true
}

// MemberSpec is the listing spec of memberships of kind k: filters by
// contact_uuid, the target's field (option_uuid, touchpoint_uuid or
// interest_uuid), status and updated_dt (at ShownTime); sorts by
// updated_dt.
func MemberSpec(k MemberKind) msgkit.ListSpec {
	return msgkit.ListSpec{
		Filter: map[string]msgkit.AttrType{"contact_uuid": msgkit.AttrString, k.Field(): msgkit.AttrString,
			"status": msgkit.AttrString, "updated_dt": msgkit.AttrDateTime},
		Sort: []string{"updated_dt"}, MaxPageSize: 100, TimePrecision: ShownTime,
	}
}

// MemberValue reads attribute attr of m for a listing.
func MemberValue(m Member, attr string) (msgkit.Value, bool) {
	switch attr {
	case "contact_uuid":
		return msgkit.StringValue(m.ContactUUID), true
	case m.Kind.Field():
		return msgkit.StringValue(m.TargetUUID), true
	case "status":
		return msgkit.StringValue(string(m.Status)), true
	case "updated_dt":
		return msgkit.TimeValue(m.Updated), true
	}
	return msgkit.Value{}, false
}
