package sms

import (
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/msgkit/msgkit/phoneplan"
)

// Sender limits. The bulk SMS interface leaves the maximum length open; these are the
// limits of the originating address in 3GPP TS 23.040 9.1.2.5: 11 GSM
// characters alphanumeric, 15 digits numeric.
const (
	MaxAlphanumericSender = 11
	MaxNumericSender      = 15
)

// Sender is a validated originating address.
type Sender struct {
	Value   string // as sent, without a leading '+' for numeric senders
	Numeric bool   // digits only (an international number); else alphanumeric
}

// senderAllowed marks the ASCII characters an alphanumeric sender may hold
// (the interface's sender alphabet): digits, letters, space and ! " # % & ' ( ) * +
// , - . / : ; < = > ?. Not $ @ [ \ ] ^ _ ` { | } ~.
var senderAllowed = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range " !\"#%&'()*+,-./:;<=>?" {
		t[c] = true
	}
	return t
}()

// ParseSender validates a sender. A sender of digits only (optionally led by
// '+', which is dropped) is numeric and may have 1 to 15 digits; any other
// sender is alphanumeric, may hold only the characters of the sender alphabet and at
// most 11 of them, and must not be blank. An empty sender is 110; any other
// violation is 107 (RC_INVALID_SENDER).
func ParseSender(s string) (Sender, error) {
	if s == "" {
		return Sender{}, CodeMissingMandatoryParam.FieldErrorf("sender", "sender is missing")
	}
	if digits, ok := strings.CutPrefix(s, "+"); ok || allDigits(s) {
		if !allDigits(digits) || digits == "" {
			return Sender{}, CodeInvalidSender.FieldErrorf("sender", "a numeric sender holds digits only")
		}
		if len(digits) > MaxNumericSender {
			return Sender{}, CodeInvalidSender.FieldErrorf("sender", "a numeric sender has at most %d digits", MaxNumericSender)
		}
		return Sender{Value: digits, Numeric: true}, nil
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 128 || !senderAllowed[c] {
			r := []rune(s[i:])[0]
			return Sender{}, CodeInvalidSender.FieldErrorf("sender", "sender must not contain %q", r)
		}
	}
	if len(s) > MaxAlphanumericSender {
		return Sender{}, CodeInvalidSender.FieldErrorf("sender", "an alphanumeric sender has at most %d characters", MaxAlphanumericSender)
	}
	if strings.TrimSpace(s) == "" {
		return Sender{}, CodeInvalidSender.FieldErrorf("sender", "sender is blank")
	}
	return Sender{Value: s}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MSISDN is a subscriber number in E.164 form with its leading '+'
// (for example "+4915112345678").
type MSISDN string

// Digits is the number without the '+', as networks and price lists use it.
func (m MSISDN) Digits() string { return strings.TrimPrefix(string(m), "+") }

// ParseReceiver validates a destination number: digits with the country code,
// optionally led by '+' (no spaces, dashes or national prefixes), that
// libphonenumber's metadata accepts as a valid number. An empty receiver is
// 110, anything else wrong is 112 (RC_BAD_PARAMETER_VALUE) naming receiver.
func ParseReceiver(s string) (MSISDN, error) {
	m, _, err := parseReceiver(s)
	return m, err
}

// parseReceiver is ParseReceiver that also tells the number's region
// (ISO 3166-1 alpha-2), which per-country rules need.
func parseReceiver(s string) (MSISDN, string, error) {
	if s == "" {
		return "", "", CodeMissingMandatoryParam.FieldErrorf("receiver", "receiver is missing")
	}
	digits := strings.TrimPrefix(s, "+")
	if !allDigits(digits) || len(digits) < 3 || len(digits) > 15 {
		return "", "", CodeBadParameterValue.FieldErrorf("receiver", "receiver must be 3 to 15 digits with the country code")
	}
	// Read directly, the number is its digits (the library's E.164 form
	// of it).
	if cc, nsn, ok := phoneplan.SplitCallingCode([]byte(digits)); ok {
		if r := phoneplan.Load().ForNumber(cc, nsn); r != nil && r.CC == cc && r.Valid(nsn) {
			return MSISDN("+" + digits), r.Code, nil
		}
	}
	// The general parser also strips national prefixes written after the
	// country code; it is slow (regular expressions), so it only sees what
	// the direct reading refused.
	num, err := phonenumbers.Parse("+"+digits, "")
	if err != nil || !phonenumbers.IsValidNumber(num) {
		return "", "", CodeBadParameterValue.FieldErrorf("receiver", "receiver %s is not a valid number", s)
	}
	return MSISDN(phonenumbers.Format(num, phonenumbers.E164)), phonenumbers.GetRegionCodeForNumber(num), nil
}

// splitCallingCode is phoneplan.SplitCallingCode over a string: digits
// that start with 0 are a national number, never read as "0" and a code
// ("061…" is not +61).
func splitCallingCode(digits string) (cc int, national string, ok bool) {
	cc, nsn, ok := phoneplan.SplitCallingCode([]byte(digits))
	return cc, string(nsn), ok
}
