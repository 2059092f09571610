package sms

import (
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
)

// Code is a submission error code of the bulk SMS interface
// (its submission error codes). It travels as a JSON string ("102") because the client
// libraries customers already use parse it from a string.
type Code int

// The submission error codes.
const (
	CodeApplicationError      Code = 101 // internal failure
	CodeEncodingError         Code = 102 // encoding unsupported or text does not fit it
	CodeNoAccount             Code = 103 // credentials match no account
	CodeIPNotAllowed          Code = 104 // client IP not allowed
	CodeThrottling            Code = 105 // too many submissions; resend after one second
	CodeBlacklistedSender     Code = 106 // sender holds a word blacklisted at the destination
	CodeInvalidSender         Code = 107 // sender has illegal characters
	CodeMessageTooLong        Code = 108 // customer-split message too long
	CodeBadContentFormat      Code = 109 // text or content has the wrong format
	CodeMissingMandatoryParam Code = 110 // a mandatory parameter is missing
	CodeUnknownMessageType    Code = 111 // message type unknown
	CodeBadParameterValue     Code = 112 // a parameter has the wrong format
	CodeNoCredit              Code = 113 // balance has no credit
	CodeNoRoute               Code = 114 // no route to the destination
	CodeConcatError           Code = 115 // message cannot be split (too many parts)
	firstCode, lastCode       Code = CodeApplicationError, CodeConcatError
)

type codeInfo struct {
	name    string
	meaning string
	kind    msgkit.Kind
}

var codeTable = [...]codeInfo{
	CodeApplicationError - firstCode:      {"RC_APPLICATION_ERROR", "internal failure", msgkit.Internal},
	CodeEncodingError - firstCode:         {"RC_ENCODING_ERROR", "encoding unsupported, or text does not fit the encoding", msgkit.Invalid},
	CodeNoAccount - firstCode:             {"RC_NO_ACCOUNT", "credentials match no account", msgkit.Unauthorized},
	CodeIPNotAllowed - firstCode:          {"RC_IP_NOT_ALLOWED", "client IP not allowed", msgkit.Forbidden},
	CodeThrottling - firstCode:            {"RC_THROTTLING_ERROR", "too many submissions in a short time; wait one second, then resend", msgkit.RateLimited},
	CodeBlacklistedSender - firstCode:     {"RC_BLACKLISTED_SENDER", "sender holds a word blacklisted at the destination", msgkit.Forbidden},
	CodeInvalidSender - firstCode:         {"RC_INVALID_SENDER", "sender has illegal characters", msgkit.Invalid},
	CodeMessageTooLong - firstCode:        {"RC_MESSAGE_TOO_LONG", "customer-split message is too long", msgkit.Invalid},
	CodeBadContentFormat - firstCode:      {"RC_BAD_CONTENT_FORMAT", "text or content has the wrong format", msgkit.Invalid},
	CodeMissingMandatoryParam - firstCode: {"RC_MISSING_MANDATORY_PARAMETER", "a mandatory parameter is missing", msgkit.Invalid},
	CodeUnknownMessageType - firstCode:    {"RC_UNKNOWN_MESSAGE_TYPE", "message type unknown", msgkit.Invalid},
	CodeBadParameterValue - firstCode:     {"RC_BAD_PARAMETER_VALUE", "a parameter has the wrong format", msgkit.Invalid},
	CodeNoCredit - firstCode:              {"RC_NO_CREDIT", "balance has no credit", msgkit.PaymentRequired},
	CodeNoRoute - firstCode:               {"RC_NO_ROUTE", "no route to the destination", msgkit.Invalid},
	CodeConcatError - firstCode:           {"RC_CONCAT_ERROR", "message cannot be split into parts (for example too many parts)", msgkit.Invalid},
}

// Codes lists every submission error code in ascending order.
func Codes() []Code {
	out := make([]Code, 0, len(codeTable))
	for c := firstCode; c <= lastCode; c++ {
		out = append(out, c)
	}
	return out
}

// Valid reports whether c is one of the interface's submission error codes.
func (c Code) Valid() bool { return c >= firstCode && c <= lastCode }

// Name is the code's symbolic name, e.g. "RC_ENCODING_ERROR".
func (c Code) Name() string {
	if !c.Valid() {
		return ""
	}
	return codeTable[c-firstCode].name
}

// Meaning is the code's meaning as the interface states it.
func (c Code) Meaning() string {
	if !c.Valid() {
		return ""
	}
	return codeTable[c-firstCode].meaning
}

// Kind is the msgkit error kind that a rejection with this code carries.
// Unknown codes are Internal.
func (c Code) Kind() msgkit.Kind {
	if !c.Valid() {
		return msgkit.Internal
	}
	return codeTable[c-firstCode].kind
}

// Retryable reports whether the customer may resend after this rejection.
// The submission codes rule: never retried after a 420, except for code 105.
func (c Code) Retryable() bool { return c == CodeThrottling }

// String is the code in decimal, as it travels on the wire.
func (c Code) String() string { return strconv.Itoa(int(c)) }

// Errorf returns a *msgkit.Error carrying c as its Code and c's kind.
func (c Code) Errorf(format string, args ...any) *msgkit.Error {
	return msgkit.Errorf(c.Kind(), c.String(), format, args...)
}

// FieldErrorf is Errorf naming the field at fault.
func (c Code) FieldErrorf(field, format string, args ...any) *msgkit.Error {
	e := c.Errorf(format, args...)
	return e.WithField(field, e.Message, "")
}

// CodeOf returns the submission code carried by err. An error of package
// sms/gsm gets the code the interface has for its failure (encodingCodes).
// An error without one is RC_BAD_PARAMETER_VALUE (112) when it is Invalid
// (a store refusing a value: bad input is never 101) and
// CodeApplicationError (101) otherwise: anything unclassified is an
// internal failure.
func CodeOf(err error) Code {
	code := msgkit.CodeOf(err)
	if c, ok := encodingCodes[code]; ok {
		return c
	}
	n, convErr := strconv.Atoi(code)
	if convErr != nil || !Code(n).Valid() {
		if msgkit.KindOf(err) == msgkit.Invalid {
			return CodeBadParameterValue
		}
		return CodeApplicationError
	}
	return Code(n)
}

// encodingCodes gives the submission code of each failure of package
// sms/gsm, whose errors the gateway passes on as they are.
var encodingCodes = map[string]Code{
	gsm.CodeMissing:       CodeMissingMandatoryParam,
	gsm.CodeBadContent:    CodeBadContentFormat,
	gsm.CodeNotInAlphabet: CodeEncodingError,
	gsm.CodeTooManyParts:  CodeConcatError,
	gsm.CodeBadValue:      CodeBadParameterValue,
}
