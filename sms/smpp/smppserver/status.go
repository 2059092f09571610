package smppserver

import (
	"errors"
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// codeStatus is the command_status of each bulk SMS refusal code in a
// submit_sm_resp or data_sm_resp (the package doc's table).
var codeStatus = map[sms.Code]pdu.Status{
	sms.CodeApplicationError:      pdu.ESME_RSYSERR,
	sms.CodeEncodingError:         pdu.ESME_RSUBMITFAIL,
	sms.CodeNoAccount:             pdu.ESME_RINVSYSID,
	sms.CodeIPNotAllowed:          pdu.ESME_RBINDFAIL,
	sms.CodeThrottling:            pdu.ESME_RTHROTTLED,
	sms.CodeBlacklistedSender:     pdu.ESME_RINVSRCADR,
	sms.CodeInvalidSender:         pdu.ESME_RINVSRCADR,
	sms.CodeMessageTooLong:        pdu.ESME_RINVMSGLEN,
	sms.CodeBadContentFormat:      pdu.ESME_RSUBMITFAIL,
	sms.CodeMissingMandatoryParam: pdu.ESME_RSUBMITFAIL,
	sms.CodeUnknownMessageType:    pdu.ESME_RSUBMITFAIL,
	sms.CodeBadParameterValue:     pdu.ESME_RSUBMITFAIL,
	sms.CodeNoCredit:              pdu.ESME_RSUBMITFAIL,
	sms.CodeNoRoute:               pdu.ESME_RINVDSTADR,
	sms.CodeConcatError:           pdu.ESME_RINVMSGLEN,
}

// CodeStatus is the command_status that answers a submission the gateway
// refused with code c; a code it does not know is ESME_RSYSERR.
func CodeStatus(c sms.Code) pdu.Status {
	if st, ok := codeStatus[c]; ok {
		return st
	}
	return pdu.ESME_RSYSERR
}

// SubmitStatus is the command_status that answers a submit_sm or data_sm
// whose submission ended with err: ESME_ROK for nil, the table's status
// for the refusal's code, with the address statuses for a refusal of the
// sender or the receiver field (110, 112) and ESME_RINVEXPIRY for one of
// validUntil (112), and ESME_RSYSERR for a failure of the platform
// (Internal, Unavailable, a context's end).
func SubmitStatus(err error) pdu.Status {
	if err == nil {
		return pdu.ESME_ROK
	}
	code := sms.CodeOf(err)
	switch code {
	case sms.CodeMissingMandatoryParam, sms.CodeBadParameterValue:
		switch field(err) {
		case "sender":
			return pdu.ESME_RINVSRCADR
		case "receiver":
			return pdu.ESME_RINVDSTADR
		case "validUntil":
			return pdu.ESME_RINVEXPIRY
		}
	}
	return CodeStatus(code)
}

// BindStatus is the command_status of a bind_*_resp refused for err, the
// answer of Gateway.Authenticate: a missing system_id ESME_RINVSYSID, a
// missing password ESME_RINVPASWD, credentials that match no enabled
// account (103) ESME_RINVPASWD (the gateway does not tell an unknown
// account from a wrong password, and neither does the bind), a network
// the account does not allow (104) ESME_RBINDFAIL, anything else
// ESME_RSYSERR.
func BindStatus(err error) pdu.Status {
	if err == nil {
		return pdu.ESME_ROK
	}
	switch sms.CodeOf(err) {
	case sms.CodeMissingMandatoryParam:
		if field(err) == "auth.username" {
			return pdu.ESME_RINVSYSID
		}
		return pdu.ESME_RINVPASWD
	case sms.CodeNoAccount:
		return pdu.ESME_RINVPASWD
	case sms.CodeIPNotAllowed:
		return pdu.ESME_RBINDFAIL
	}
	return pdu.ESME_RSYSERR
}

// field is the first field a refusal names, "" for none.
func field(err error) string {
	var e *msgkit.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		return e.Fields[0].Name
	}
	return ""
}

// statusLabel is a status as a metric label: its name, bounded by the
// specification's list (vendor statuses by number).
func statusLabel(st pdu.Status) string {
	if st.Named() {
		return st.String()
	}
	return "0x" + strconv.FormatUint(uint64(st), 16)
}
