package contacts

import (
	"strings"

	"github.com/msgkit/msgkit"
)

// The errors of the catalog rules, worded once so that every store
// answers alike.

// noun is a kind as words: "subscription option".
func noun(k RecordKind) string { return strings.ReplaceAll(string(k), "_", " ") }

// InvalidReference is a record naming, in field, a record (value) the
// tenant does not have in use.
func InvalidReference(k RecordKind, field, value string) error {
	what := strings.TrimSuffix(field, "_uuid")
	return msgkit.Invalidf(CodeInvalid(k), field, "%s %s is not a %s of this service in use", what, strings.ToValidUTF8(value, "?"), what)
}

// GroupListTaken is a group list pairing a group and a list already
// paired.
func GroupListTaken(group, list string) error {
	return msgkit.Errorf(msgkit.Conflict, "group_list_exists", "group %s has list %s already",
		strings.ToValidUTF8(group, "?"), strings.ToValidUTF8(list, "?")).
		WithField("list_uuid", "the group has this list already", "")
}

// RecordExists is a record uuid the tenant has.
func RecordExists(k RecordKind, uuid string) error {
	return msgkit.Errorf(msgkit.Conflict, string(k)+"_exists", "%s %s exists", noun(k), strings.ToValidUTF8(uuid, "?"))
}

// ColumnTaken is a custom field column another custom field has (deleted
// or not); column 0: every column is taken.
func ColumnTaken(column int) error {
	if column == 0 {
		return msgkit.New(msgkit.Conflict, "custom_field_columns_exhausted", "every custom field column is taken").
			WithField("field_name", "every column from column_1 to column_100 is taken", "")
	}
	name := Record{Column: column}.FieldName()
	return msgkit.Errorf(msgkit.Conflict, "custom_field_column_taken", "%s is taken", name).
		WithField("field_name", name+" is taken by another custom field", "")
}

// NotDeletable is a delete of a kind that has none.
func NotDeletable(k RecordKind) error {
	return msgkit.Errorf(msgkit.Invalid, "not_deletable", "a %s cannot be deleted", noun(k))
}

// SubscriptionInUse is the delete of a subscription with options in use.
func SubscriptionInUse(uuid string) error {
	return msgkit.Errorf(msgkit.Conflict, "subscription_in_use",
		"subscription %s has options in use: delete them first", strings.ToValidUTF8(uuid, "?"))
}

// InvalidMember is a membership naming, in field, a contact or target the
// tenant does not have in use.
func InvalidMember(field, what, value string) error {
	return msgkit.Invalidf(CodeInvalidMember, field, "%s %s is not a %s of this service in use", what, strings.ToValidUTF8(value, "?"), what)
}

// RecordNotFound is a record of kind the tenant does not have (in use,
// where the deleted are not asked for).
func RecordNotFound(k RecordKind, uuid string) error {
	return msgkit.Errorf(msgkit.NotFound, string(k)+"_not_found", "%s %s not found", noun(k), quoted(uuid))
}

// UnknownMemberKind is a member kind this package does not have: the
// caller's mistake, not the client's.
func UnknownMemberKind(k MemberKind) error {
	return msgkit.Errorf(msgkit.Internal, "unknown_member_kind", "unknown member kind %q", k)
}
