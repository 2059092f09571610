package sms

import (
	"strings"

	"github.com/msgkit/msgkit/sms/gsm"
)

// ParseDCS reads a dcs request parameter. It is case-insensitive because
// clients send "gsm" and "ucs"; the empty string and "auto" mean
// gsm.DCSAuto. Anything else is RC_BAD_PARAMETER_VALUE naming the field dcs.
func ParseDCS(s string) (gsm.DCS, error) {
	switch {
	case s == "" || strings.EqualFold(s, "auto"):
		return gsm.DCSAuto, nil
	case strings.EqualFold(s, "GSM"):
		return gsm.DCSGSM, nil
	case strings.EqualFold(s, "UCS"):
		return gsm.DCSUCS, nil
	}
	return gsm.DCSAuto, CodeBadParameterValue.FieldErrorf("dcs", "dcs must be GSM or UCS, got %q", s)
}
