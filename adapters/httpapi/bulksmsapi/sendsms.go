package bulksmsapi

import (
	"context"
	"errors"
	"io"
	"net/http"
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
			if httpapi.Ended(r) { // the client went away: see httpapi.Ended
				httpapi.LoggerFrom(r.Context()).InfoContext(r.Context(), "bulk SMS submission ended with its request", "err", err, "request_id", httpapi.RequestIDFrom(r.Context()))
				unavailable(w)
				return
			}
			httpapi.LoggerFrom(r.Context()).ErrorContext(r.Context(), "bulk SMS submission failed", "err", err, "request_id", httpapi.RequestIDFrom(r.Context()))
			w.WriteHeader(http.StatusInternalServerError)
		case msgkit.Unavailable:
			httpapi.LoggerFrom(r.Context()).WarnContext(r.Context(), "bulk SMS submission: unavailable", "err", err, "request_id", httpapi.RequestIDFrom(r.Context()))
			unavailable(w)
		default:
			writeBulkError(w, sms.CodeOf(err), msgkit.MessageOf(err))
		}
		return
	}
	httpapi.WriteJSON(w, http.StatusAccepted, sendSMSAccepted{MsgID: acc.MsgID, NumParts: acc.NumParts})
}

// unavailable answers 503 without a body, as every bulk SMS 5xx, with
// Retry-After: a store that cannot be reached is back soon.
func unavailable(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
}

func writeBulkError(w http.ResponseWriter, code sms.Code, msg string) {
	var b bulkError
	b.Error.Code, b.Error.Message = code.String(), msg
	httpapi.WriteJSON(w, StatusBusinessError, b)
}
