package bulksmsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/sms"
)

// StatusBusinessError is the status of every bulk SMS rejection.
const StatusBusinessError = 420

// Submitter accepts bulk SMS submissions; *sms.Gateway satisfies it.
type Submitter interface {
	Submit(ctx context.Context, sub sms.Submission) (sms.Accepted, error)
}

type sendSMS struct {
	gateway Submitter
	opts    Options
}

// sendSMSRequest is the submission body of the bulk SMS interface.
// Unknown fields are ignored: client libraries send extra ones. sender and
// receiver may come as JSON numbers, and dlrMask as a numeric string, as
// some clients send them.
type sendSMSRequest struct {
	Type string `json:"type"`
	Auth struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"auth"`
	Sender   lenientString   `json:"sender"`
	Receiver lenientString   `json:"receiver"`
	DCS      string          `json:"dcs"`
	Text     string          `json:"text"`
	URL      string          `json:"url"`
	Title    string          `json:"title"`
	DLRMask  *lenientInt     `json:"dlrMask"`
	DLRURL   string          `json:"dlrUrl"`
	Flash    bool            `json:"flash"`
	Custom   json.RawMessage `json:"custom"`
}

type sendSMSAccepted struct {
	MsgID    sms.MessageID `json:"msgId"`
	NumParts int           `json:"numParts"`
}

type bulkError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (h *sendSMS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			writeBulkError(w, sms.CodeBadContentFormat, "the request body exceeds "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes")
			return
		}
		writeBulkError(w, sms.CodeBadContentFormat, "the request body could not be read")
		return
	}
	sub, err := decodeSubmission(body)
	if err != nil {
		writeBulkError(w, sms.CodeOf(err), msgkit.MessageOf(err))
		return
	}
	sub.ClientIP = httpapi.ClientIP(r, h.opts.TrustedProxies)
	acc, err := h.gateway.Submit(r.Context(), sub)
	if err != nil {
		switch msgkit.KindOf(err) {
		case msgkit.Internal:
			httpapi.LoggerFrom(r.Context()).ErrorContext(r.Context(), "bulk SMS submission failed", "err", err, "request_id", httpapi.RequestIDFrom(r.Context()))
			w.WriteHeader(http.StatusInternalServerError)
		case msgkit.Unavailable:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			writeBulkError(w, sms.CodeOf(err), msgkit.MessageOf(err))
		}
		return
	}
	httpapi.WriteJSON(w, http.StatusAccepted, sendSMSAccepted{MsgID: acc.MsgID, NumParts: acc.NumParts})
}

// decodeSubmission reads a body: empty is 110 (a common client retries
// after 105 without one); malformed JSON, a body that is not one object,
// bad bytes in a string and a key given twice 109 (see checkJSON); a field
// of the wrong type 112 naming it.
func decodeSubmission(body []byte) (sms.Submission, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return sms.Submission{}, sms.CodeMissingMandatoryParam.Errorf("the request body is empty")
	}
	if err := checkJSON(body); err != nil {
		return sms.Submission{}, err
	}
	var req sendSMSRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
			return sms.Submission{}, sms.CodeBadParameterValue.FieldErrorf(te.Field, "%s has the wrong type", te.Field)
		}
		if fe, ok := errors.AsType[*fieldError](err); ok {
			return sms.Submission{}, sms.CodeBadParameterValue.FieldErrorf(fe.field, "%s", fe.msg)
		}
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body is not a JSON object")
	}
	if dec.More() {
		return sms.Submission{}, sms.CodeBadContentFormat.Errorf("the request body holds more than one JSON value")
	}
	sub := sms.Submission{
		Type: req.Type, Username: req.Auth.Username, Password: req.Auth.Password,
		Sender: string(req.Sender), Receiver: string(req.Receiver), DCS: req.DCS,
		Text: req.Text, URL: req.URL, Title: req.Title, DLRURL: req.DLRURL, Flash: req.Flash,
	}
	if req.DLRMask != nil {
		n := int64(*req.DLRMask)
		sub.DLRMask = &n
	}
	if len(req.Custom) > 0 && !bytes.Equal(bytes.TrimSpace(req.Custom), []byte("null")) {
		sub.Custom = req.Custom
	}
	return sub, nil
}

func writeBulkError(w http.ResponseWriter, code sms.Code, msg string) {
	var b bulkError
	b.Error.Code, b.Error.Message = code.String(), msg
	httpapi.WriteJSON(w, StatusBusinessError, b)
}

// fieldError is a decoding problem of one field.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// lenientString takes a JSON string or number, as text.
type lenientString string

func (s *lenientString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = lenientString(v)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil || bytes.ContainsAny(b, ".eE-+") {
		return &json.UnmarshalTypeError{Value: "non-string", Type: reflect.TypeFor[string]()}
	}
	*s = lenientString(n.String())
	return nil
}

// lenientInt takes a JSON integer or a string holding one.
type lenientInt int64

func (n *lenientInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return &fieldError{field: "dlrMask", msg: "dlrMask must be an integer"}
	}
	*n = lenientInt(v)
	return nil
}
