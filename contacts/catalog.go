package contacts

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/segmentation"
)

// RecordKind names a kind of catalog record: the tenant's definitions
// that contacts are described, segmented and grouped by.
type RecordKind string

// The catalog record kinds.
const (
	KindCustomField       RecordKind = "custom_field"
	KindSegmentationSet   RecordKind = "segmentation_set"
	KindSegmentationGroup RecordKind = "segmentation_group"
	KindSubscription      RecordKind = "subscription"
	KindOption            RecordKind = "subscription_option"
	KindGroup             RecordKind = "group"
	KindGroupList         RecordKind = "group_list"
	KindGroupSegmentation RecordKind = "group_segmentation"
	KindTouchpoint        RecordKind = "touchpoint"
	KindInterest          RecordKind = "interest"
)

// RecordKinds are every catalog record kind.
func RecordKinds() []RecordKind {
	return []RecordKind{KindCustomField, KindSegmentationSet, KindSegmentationGroup, KindSubscription, KindOption,
		KindGroup, KindGroupList, KindGroupSegmentation, KindTouchpoint, KindInterest}
}

// Deletable reports whether records of k may be deleted (softly): group
// lists and group segmentation have no delete.
func (k RecordKind) Deletable() bool { return k != KindGroupList && k != KindGroupSegmentation }

// hasStatus reports whether records of k carry a status.
func (k RecordKind) hasStatus() bool {
	switch k {
	case KindSubscription, KindOption, KindGroup, KindTouchpoint, KindInterest:
		return true
	}
	return false
}

// The statuses of subscriptions, options, groups, touchpoints and
// interests.
const (
	StatusActive   = "active"
	StatusInactive = "inactive"
)

// The custom field types.
const (
	FieldText   = "text"
	FieldNumber = "number"
	FieldDate   = "date"
	FieldEmail  = "email"
	FieldPhone  = "phone"
	FieldURL    = "url"
	FieldSelect = "select"
)

// FieldTypes are the field types a custom field may have.
func FieldTypes() []string {
	return []string{FieldDate, FieldEmail, FieldNumber, FieldPhone, FieldSelect, FieldText, FieldURL}
}

// MaxDescriptionLen is the most characters a description holds.
const MaxDescriptionLen = 1000

// Record is one catalog record of a tenant. Its kind says which fields
// it uses (the JSON field of each in brackets):
//   - custom field: Name (display_name), Column (field_name column_N),
//     FieldType, Mandatory, Identifier, OrderNum, Config;
//   - segmentation set and group: Name, Data (a segmentation query);
//   - subscription, group, touchpoint, interest: Name, Description,
//     Status;
//   - subscription option: Name, Parent (subscription_uuid), OrderNum,
//     Description, Status;
//   - group list: Parent (group_uuid), ListUUID (list_uuid);
//   - group segmentation: Parent (group_uuid), Data.
//
// Every kind has UUID, Created (created_dt), Updated (updated_dt) and
// Deleted (zero: in use).
type Record struct {
	Kind        RecordKind
	UUID        string
	Name        string
	Description string
	Status      string
	Data        string
	Parent      string
	ListUUID    string
	OrderNum    int
	Column      int
	FieldType   string
	Mandatory   bool
	Identifier  bool
	Config      json.RawMessage // a JSON object, compact; nil: none
	Created     time.Time
	Updated     time.Time
	Deleted     time.Time
}

// FieldName is a custom field's field_name, column_N.
func (r Record) FieldName() string {
	if r.Column == 0 {
		return ""
	}
	return segmentation.ColumnField(r.Column).String()
}

// Clone is a copy of r sharing nothing with it.
func (r Record) Clone() Record {
	r.Config = bytes.Clone(r.Config)
	return r
}

// RecordInput is the body of a create or replace of a catalog record: nil
// for a field not sent (or null). The JSON names are in the comments.
// OrderNum is the text of the integer as sent (a JSON number or a string
// holding one). Replace is whole: a field left out takes its default.
type RecordInput struct {
	Name        *string // name
	Description *string // description
	Status      *string // status
	Data        *string // data

	DisplayName *string         // display_name
	FieldType   *string         // field_type
	FieldName   *string         // field_name
	Mandatory   *string         // mandatory
	Identifier  *string         // identifier
	Config      json.RawMessage // config

	OrderNum         *string // order_num
	SubscriptionUUID *string // subscription_uuid
	GroupUUID        *string // group_uuid
	ListUUID         *string // list_uuid
}

// catalogFields are the body fields of each kind.
var catalogFields = map[RecordKind][]string{
	KindCustomField:       {"display_name", "field_type", "field_name", "mandatory", "identifier", "order_num", "config"},
	KindSegmentationSet:   {"name", "data"},
	KindSegmentationGroup: {"name", "data"},
	KindSubscription:      {"name", "description", "status"},
	KindOption:            {"name", "subscription_uuid", "order_num", "description", "status"},
	KindGroup:             {"name", "description", "status"},
	KindGroupList:         {"group_uuid", "list_uuid"},
	KindGroupSegmentation: {"group_uuid", "data"},
	KindTouchpoint:        {"name", "description", "status"},
	KindInterest:          {"name", "description", "status"},
}

// CodeInvalid is the code of a catalog body that breaks a rule
// (invalid_custom_field, invalid_subscription, ...).
func CodeInvalid(k RecordKind) string { return "invalid_" + string(k) }

// FillRecord sets the fields of r (whose Kind says what it is) from in,
// replacing all of them but the system fields, and returns every problem
// at once, each naming its JSON field, in the order of the kind's fields.
// A field the kind does not have is a problem too. A custom field's
// field_name may be sent on create to choose the column; on replace it
// must name the field's own column. r is changed only without a problem.
// Whether a named subscription, group or list exists, and whether a
// column is free, is the store's to check.
func FillRecord(r *Record, in RecordInput) error {
	fields, ok := catalogFields[r.Kind]
	if !ok {
		return msgkit.Errorf(msgkit.Internal, "unknown_record_kind", "unknown catalog record kind %q", r.Kind)
	}
	p := problems{}
	sent := map[string]bool{
		"name": in.Name != nil, "description": in.Description != nil, "status": in.Status != nil, "data": in.Data != nil,
		"display_name": in.DisplayName != nil, "field_type": in.FieldType != nil, "field_name": in.FieldName != nil,
		"mandatory": in.Mandatory != nil, "identifier": in.Identifier != nil, "config": len(bytes.TrimSpace(in.Config)) > 0,
		"order_num": in.OrderNum != nil, "subscription_uuid": in.SubscriptionUUID != nil, "group_uuid": in.GroupUUID != nil,
		"list_uuid": in.ListUUID != nil,
	}
	own := map[string]bool{}
	for _, f := range fields {
		own[f] = true
	}
	next := Record{Kind: r.Kind, UUID: r.UUID, Created: r.Created, Updated: r.Updated, Deleted: r.Deleted, Column: r.Column}
	for _, f := range fields {
		switch f {
		case "name":
			next.Name = required(in.Name, f, MaxValueLen, &p)
		case "display_name":
			next.Name = required(in.DisplayName, f, MaxValueLen, &p)
		case "description":
			next.Description = optional(in.Description, f, MaxDescriptionLen, &p)
		case "status":
			next.Status = status(in.Status, &p)
		case "data":
			next.Data = segmentationData(in.Data, &p)
		case "field_type":
			next.FieldType = fieldType(in.FieldType, &p)
		case "field_name":
			next.Column = column(in.FieldName, r.Column, &p)
		case "mandatory":
			next.Mandatory = yesNo(in.Mandatory, f, &p)
		case "identifier":
			next.Identifier = yesNo(in.Identifier, f, &p)
		case "order_num":
			next.OrderNum = orderNum(in.OrderNum, &p)
		case "config":
			next.Config = config(in.Config, &p)
		case "subscription_uuid":
			next.Parent = uuidField(in.SubscriptionUUID, f, &p)
		case "group_uuid":
			next.Parent = uuidField(in.GroupUUID, f, &p)
		case "list_uuid":
			next.ListUUID = uuidField(in.ListUUID, f, &p)
		}
	}
	if next.Kind == KindCustomField && next.FieldType == FieldSelect && !p.has("config") && !p.has("field_type") {
		if _, err := SelectOptions(next.Config); err != nil {
			p.add("config", err.Error())
		}
	}
	for _, f := range sortedKeys(sent) {
		if sent[f] && !own[f] {
			p.add(f, f+" is not a field of a "+strings.ReplaceAll(string(r.Kind), "_", " "))
		}
	}
	if len(p.list) > 0 {
		e := msgkit.New(msgkit.Invalid, CodeInvalid(r.Kind), "the "+strings.ReplaceAll(string(r.Kind), "_", " ")+" is invalid")
		e.Fields = p.list
		return e
	}
	*r = next
	return nil
}

func (p *problems) has(field string) bool {
	for _, f := range p.list {
		if f.Name == field {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// required is a text field that must have a value.
func required(raw *string, name string, maxLen int, p *problems) string {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		p.add(name, name+" is required")
		return ""
	}
	return limited(*raw, name, maxLen, p)
}

// optional is a text field, "" when not sent.
func optional(raw *string, name string, maxLen int, p *problems) string {
	if raw == nil {
		return ""
	}
	return limited(*raw, name, maxLen, p)
}

// limited is text as text checks it (valid UTF-8, no control
// characters), trimmed, of at most maxLen characters.
func limited(raw, name string, maxLen int, p *problems) string {
	v := strings.TrimSpace(raw)
	switch {
	case !utf8.ValidString(v):
		p.add(name, name+" is not valid UTF-8")
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		p.add(name, name+" holds a control character")
	case utf8.RuneCountInString(v) > maxLen:
		p.add(name, name+" is longer than "+strconv.Itoa(maxLen)+" characters")
	default:
		return v
	}
	return ""
}

func status(raw *string, p *problems) string {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return StatusActive
	}
	switch s := strings.ToLower(strings.TrimSpace(*raw)); s {
	case StatusActive, StatusInactive:
		return s
	}
	p.add("status", "status is active or inactive")
	return ""
}

func segmentationData(raw *string, p *problems) string {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		p.add("data", "data is required: a segmentation query")
		return ""
	}
	if _, err := segmentation.Parse([]byte(*raw)); err != nil {
		for _, problem := range segmentation.Problems(err) {
			p.add("data", "data is not a valid segmentation query: "+problem)
		}
		return ""
	}
	return *raw
}

func fieldType(raw *string, p *problems) string {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return FieldText
	}
	t := strings.ToLower(strings.TrimSpace(*raw))
	for _, ft := range FieldTypes() {
		if t == ft {
			return t
		}
	}
	p.add("field_type", "field_type is one of "+strings.Join(FieldTypes(), ", "))
	return ""
}

// column reads field_name: column_N, 1 <= N <= 100. A field with a column
// (replace) keeps it: another is a problem.
func column(raw *string, current int, p *problems) int {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return current
	}
	f, ok := segmentation.ParseField(strings.TrimSpace(*raw))
	if !ok || f.Column() == 0 {
		p.add("field_name", "field_name is column_N, N from 1 to "+strconv.Itoa(segmentation.MaxColumn))
		return current
	}
	if current != 0 && f.Column() != current {
		p.add("field_name", "field_name cannot change: the field is "+segmentation.ColumnField(current).String())
		return current
	}
	return f.Column()
}

func yesNo(raw *string, name string, p *problems) bool {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(*raw)) {
	case "yes":
		return true
	case "no":
		return false
	}
	p.add(name, name+" is yes or no")
	return false
}

// MaxOrderNum is the highest order_num.
const MaxOrderNum = 1_000_000_000

func orderNum(raw *string, p *problems) int {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(*raw))
	if err != nil || n < 0 || n > MaxOrderNum {
		p.add("order_num", "order_num is an integer from 0 to "+strconv.Itoa(MaxOrderNum))
		return 0
	}
	return n
}

// MaxConfigBytes is the largest config object.
const MaxConfigBytes = 16 << 10

func config(raw json.RawMessage, p *problems) json.RawMessage {
	d := bytes.TrimSpace(raw)
	if len(d) == 0 || bytes.Equal(d, []byte("null")) {
		return nil
	}
	if len(d) > MaxConfigBytes {
		p.add("config", "config is larger than "+strconv.Itoa(MaxConfigBytes)+" bytes")
		return nil
	}
	var obj map[string]json.RawMessage
	if d[0] != '{' || json.Unmarshal(d, &obj) != nil {
		p.add("config", "config must be a JSON object")
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, d); err != nil {
		p.add("config", "config must be a JSON object")
		return nil
	}
	return b.Bytes()
}

// SelectOptions are the choices of a select field's config: its
// "options", a non-empty array of distinct non-empty strings.
func SelectOptions(cfg json.RawMessage) ([]string, error) {
	var c struct {
		Options []string `json:"options"`
	}
	if len(cfg) == 0 || json.Unmarshal(cfg, &c) != nil || len(c.Options) == 0 {
		return nil, msgkit.New(msgkit.Invalid, CodeInvalid(KindCustomField),
			`a select field's config must hold "options", a non-empty array of strings`)
	}
	seen := map[string]bool{}
	for _, o := range c.Options {
		if strings.TrimSpace(o) == "" || seen[o] {
			return nil, msgkit.New(msgkit.Invalid, CodeInvalid(KindCustomField),
				"a select field's options must be distinct and not empty")
		}
		seen[o] = true
	}
	return c.Options, nil
}

func uuidField(raw *string, name string, p *problems) string {
	if raw == nil || strings.TrimSpace(*raw) == "" {
		p.add(name, name+" is required")
		return ""
	}
	u, ok := canonicalUUID(strings.TrimSpace(*raw))
	if !ok {
		p.add(name, name+" must be a UUID")
		return ""
	}
	return u
}

// RecordQuery selects catalog records of one kind: the listing engine's
// paging, sort and filters over RecordSpec(Kind), and the deleted too
// with ShowDeleted.
type RecordQuery struct {
	Kind        RecordKind
	List        msgkit.ListQuery
	ShowDeleted bool
}

// GroupTarget is what a group selects: the contacts of its lists (in
// use), narrowed by every one of its segmentation queries.
type GroupTarget struct {
	ListUUIDs    []string // sorted
	Segmentation []string // the data of its group segmentation records, in store order
}

// MemberKind is what a membership is of: a subscription option, a
// touchpoint or an interest.
type MemberKind string

// The member kinds.
const (
	MemberOption     MemberKind = "option"
	MemberTouchpoint MemberKind = "touchpoint"
	MemberInterest   MemberKind = "interest"
)

// RecordKind is the kind of record a membership of k is of.
func (k MemberKind) RecordKind() RecordKind {
	switch k {
	case MemberOption:
		return KindOption
	case MemberTouchpoint:
		return KindTouchpoint
	case MemberInterest:
		return KindInterest
	}
	return ""
}

// Field is the JSON field naming the target of a membership of k:
// option_uuid, touchpoint_uuid or interest_uuid.
func (k MemberKind) Field() string { return string(k) + "_uuid" }

// Member is a contact's membership of an option, touchpoint or interest
// (kept on the contact: Options, Touchpoints, Interests). Updated is the
// contact's updated time (updated_dt): a membership keeps no time of its
// own.
type Member struct {
	Kind        MemberKind
	ContactUUID string // contact_uuid
	TargetUUID  string // option_uuid, touchpoint_uuid or interest_uuid
	Status      MemberStatus
	Updated     time.Time
}

// MemberInput is the body of a create-or-update of a membership.
type MemberInput struct {
	ContactUUID *string // contact_uuid
	TargetUUID  *string // option_uuid, touchpoint_uuid or interest_uuid (Kind.Field())
	Status      *string // status: subscribed or unsubscribed
}

// FillMember checks a membership body of kind k and returns the
// membership, updated at at, naming every problem at once (code
// invalid_member).
func FillMember(k MemberKind, in MemberInput, at time.Time) (Member, error) {
	p := problems{}
	m := Member{Kind: k, Updated: at}
	m.ContactUUID = uuidField(in.ContactUUID, "contact_uuid", &p)
	m.TargetUUID = uuidField(in.TargetUUID, k.Field(), &p)
	if in.Status == nil || strings.TrimSpace(*in.Status) == "" {
		p.add("status", "status is required: subscribed or unsubscribed")
	} else {
		switch s := MemberStatus(strings.ToLower(strings.TrimSpace(*in.Status))); s {
		case Subscribed, Unsubscribed:
			m.Status = s
		default:
			p.add("status", "status is subscribed or unsubscribed")
		}
	}
	if k.RecordKind() == "" {
		return Member{}, UnknownMemberKind(k)
	}
	if len(p.list) > 0 {
		e := msgkit.New(msgkit.Invalid, CodeInvalidMember, "the member is invalid")
		e.Fields = p.list
		return Member{}, e
	}
	return m, nil
}

// CodeInvalidMember is the code of a membership body or reference that
// breaks a rule.
const CodeInvalidMember = "invalid_member"

// MemberQuery selects memberships of one kind of the tenant's contacts in
// use: the listing engine's paging, sort and filters over MemberSpec.
type MemberQuery struct {
	Kind MemberKind
	List msgkit.ListQuery
}

// CatalogStore keeps every tenant's catalog records and the memberships
// of its contacts, each tenant apart: another tenant's record is
// NotFound. Every method is one atomic operation.
type CatalogStore interface {
	// CreateRecord stores r under its UUID (which the caller makes);
	// a uuid the tenant has for the kind, deleted or not, is Conflict.
	// The relation rules hold: an option's subscription, a group list's
	// group and list, a group segmentation's group must be the tenant's
	// and in use (Invalid naming subscription_uuid, group_uuid or
	// list_uuid); a group names a list once only (Conflict naming
	// list_uuid). A custom field without a Column takes the lowest column
	// no custom field of the tenant has, deleted or not; a Column taken
	// is Conflict naming field_name, as is none left.
	CreateRecord(ctx context.Context, svc msgkit.ServiceUUID, r Record) (Record, error)
	// Record returns a record of kind; a deleted one is NotFound unless
	// withDeleted.
	Record(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string, withDeleted bool) (Record, error)
	// UpdateRecord runs change on a record in use and stores what it
	// returns (its kind, uuid, column, created and deleted times kept),
	// atomically, with CreateRecord's relation rules; an error from
	// change stores nothing.
	UpdateRecord(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string, change func(Record) (Record, error)) (Record, error)
	// DeleteRecord deletes a record in use softly at at. A subscription
	// with options in use is Conflict (code subscription_in_use); group
	// lists and group segmentation cannot be deleted (Invalid).
	DeleteRecord(ctx context.Context, svc msgkit.ServiceUUID, kind RecordKind, uuid string, at time.Time) error
	// Records lists the records q selects, store order created then uuid.
	Records(ctx context.Context, svc msgkit.ServiceUUID, q RecordQuery) (msgkit.Page[Record], error)
	// CustomFields are the tenant's custom fields in use, by column
	// (none: empty, not nil).
	CustomFields(ctx context.Context, svc msgkit.ServiceUUID) ([]Record, error)
	// OptionUUIDs are the UUIDs of the options in use of the given
	// subscriptions in use, sorted (none: empty, not nil).
	OptionUUIDs(ctx context.Context, svc msgkit.ServiceUUID, subscriptions []string) ([]string, error)
	// GroupTarget is the lists and segmentation of a group in use (each
	// empty, not nil, when it has none).
	GroupTarget(ctx context.Context, svc msgkit.ServiceUUID, group string) (GroupTarget, error)
	// SetMember sets contact m.ContactUUID's status in m.TargetUUID and
	// the contact's updated time to m.Updated, atomically. The contact
	// and the option, touchpoint or interest must be the tenant's and in
	// use: Invalid naming contact_uuid or the target's field.
	SetMember(ctx context.Context, svc msgkit.ServiceUUID, m Member) (Member, error)
	// Members lists the memberships of the tenant's contacts in use,
	// store order: the contacts' (created, uuid), then the target uuid.
	Members(ctx context.Context, svc msgkit.ServiceUUID, q MemberQuery) (msgkit.Page[Member], error)
}
