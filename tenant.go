package msgkit

import (
	"github.com/google/uuid"
)

// ServiceUUID identifies a tenant: the messaging account that appears as
// {serviceUuid} in API paths. It is kept in canonical lower-case form so that
// equal tenants compare equal.
type ServiceUUID string

// CodeInvalidServiceUUID is the error code of a malformed service UUID.
const CodeInvalidServiceUUID = "invalid_service_uuid"

// ParseServiceUUID validates s as a UUID and returns its canonical form.
// A malformed value is Invalid naming the field serviceUuid.
func ParseServiceUUID(s string) (ServiceUUID, error) {
	u, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return "", Invalidf(CodeInvalidServiceUUID, "serviceUuid", "serviceUuid %q is not a UUID", s)
	}
	return ServiceUUID(u.String()), nil
}
