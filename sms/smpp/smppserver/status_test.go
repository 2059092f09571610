package smppserver_test

import (
	"context"
	"errors"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// Every refusal code of the bulk SMS interface has the status of the
// package doc's table.
func TestCodeStatusTable(t *testing.T) {
	want := map[sms.Code]pdu.Status{
		101: pdu.ESME_RSYSERR, 102: pdu.ESME_RSUBMITFAIL, 103: pdu.ESME_RINVSYSID, 104: pdu.ESME_RBINDFAIL,
		105: pdu.ESME_RTHROTTLED, 106: pdu.ESME_RINVSRCADR, 107: pdu.ESME_RINVSRCADR, 108: pdu.ESME_RINVMSGLEN,
		109: pdu.ESME_RSUBMITFAIL, 110: pdu.ESME_RSUBMITFAIL, 111: pdu.ESME_RSUBMITFAIL, 112: pdu.ESME_RSUBMITFAIL,
		113: pdu.ESME_RSUBMITFAIL, 114: pdu.ESME_RINVDSTADR, 115: pdu.ESME_RINVMSGLEN,
	}
	for _, c := range sms.Codes() {
		w, ok := want[c]
		if !ok {
			t.Errorf("code %d (%s) is not in the table", c, c.Name())
			continue
		}
		if got := smppserver.CodeStatus(c); got != w {
			t.Errorf("CodeStatus(%d %s) = %s, want %s", c, c.Name(), got, w)
		}
		if got := smppserver.SubmitStatus(c.Errorf("refused")); got != w {
			t.Errorf("SubmitStatus(%d) = %s, want %s", c, got, w)
		}
	}
	if len(want) != len(sms.Codes()) {
		t.Errorf("the table has %d codes, the interface %d", len(want), len(sms.Codes()))
	}
}

// The sender's and the receiver's refusals answer the address statuses;
// the platform's failures ESME_RSYSERR.
func TestSubmitStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want pdu.Status
	}{
		{"accepted", nil, pdu.ESME_ROK},
		{"missing sender", sms.CodeMissingMandatoryParam.FieldErrorf("sender", "sender is missing"), pdu.ESME_RINVSRCADR},
		{"missing receiver", sms.CodeMissingMandatoryParam.FieldErrorf("receiver", "receiver is missing"), pdu.ESME_RINVDSTADR},
		{"bad receiver", sms.CodeBadParameterValue.FieldErrorf("receiver", "not a number"), pdu.ESME_RINVDSTADR},
		{"bad sender value", sms.CodeBadParameterValue.FieldErrorf("sender", "bad"), pdu.ESME_RINVSRCADR},
		{"validity already ended", sms.CodeBadParameterValue.FieldErrorf("validUntil", "ended"), pdu.ESME_RINVEXPIRY},
		{"missing text", sms.CodeMissingMandatoryParam.FieldErrorf("text", "text is missing"), pdu.ESME_RSUBMITFAIL},
		{"unavailable", msgkit.New(msgkit.Unavailable, "db_down", "the store is down"), pdu.ESME_RSYSERR},
		{"internal", errors.New("boom"), pdu.ESME_RSYSERR},
		{"cancelled", context.Canceled, pdu.ESME_RSYSERR},
	} {
		if got := smppserver.SubmitStatus(c.err); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// A bind's refusals, by the gateway's answer.
func TestBindStatus(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want pdu.Status
	}{
		{"bound", nil, pdu.ESME_ROK},
		{"no system_id", sms.CodeMissingMandatoryParam.FieldErrorf("auth.username", "missing"), pdu.ESME_RINVSYSID},
		{"no password", sms.CodeMissingMandatoryParam.FieldErrorf("auth.password", "missing"), pdu.ESME_RINVPASWD},
		{"no account", sms.CodeNoAccount.Errorf("credentials match no account"), pdu.ESME_RINVPASWD},
		{"network", sms.CodeIPNotAllowed.Errorf("not allowed"), pdu.ESME_RBINDFAIL},
		{"store down", msgkit.New(msgkit.Unavailable, "db_down", "down"), pdu.ESME_RSYSERR},
	} {
		if got := smppserver.BindStatus(c.err); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
