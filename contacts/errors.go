package contacts

import (
	"strings"

	"github.com/msgkit/msgkit"
)

// The errors of lists and contacts, worded once so that every store
// answers alike (the catalog's are in catalog_errors.go). A caller's
// value is quoted with invalid UTF-8 replaced.

func quoted(s string) string { return strings.ToValidUTF8(s, "?") }

// ListNotFound is a list the tenant does not have in use.
func ListNotFound(uuid string) error {
	return msgkit.Errorf(msgkit.NotFound, "list_not_found", "list %s not found", quoted(uuid))
}

// ContactNotFound is a contact the tenant does not have (in use, where
// the deleted are not asked for).
func ContactNotFound(uuid string) error {
	return msgkit.Errorf(msgkit.NotFound, "contact_not_found", "contact %s not found", quoted(uuid))
}

// ListExists is a list UUID the tenant has, deleted or not.
func ListExists(uuid string) error {
	return msgkit.Errorf(msgkit.Conflict, "list_exists", "list %s exists", quoted(uuid))
}

// ContactExists is a contact UUID the tenant has, deleted or not.
func ContactExists(uuid string) error {
	return msgkit.Errorf(msgkit.Conflict, "contact_exists", "contact %s exists", quoted(uuid))
}

// InvalidList is a contact, or an import, naming a list that is not one
// of the tenant's lists in use (Invalid naming list_uuid, code
// invalid_contact).
func InvalidList(uuid string) error {
	return msgkit.Invalidf(CodeInvalidContact, "list_uuid", "list %s is not a list of this service in use", quoted(uuid))
}

// BadCursor is a recipients cursor (campaign.Audience) that the store
// did not give.
func BadCursor(cursor string) error {
	return msgkit.Errorf(msgkit.Invalid, "bad_cursor", "the recipients cursor %q is not this store's", quoted(cursor))
}
