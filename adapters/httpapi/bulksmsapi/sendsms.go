package bulksmsapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/sms"
)

// StatusBusinessError is the status of every bulk SMS rejection.
const StatusBusinessError = 420

// Submitter accepts bulk SMS submissions; *sms.Gateway satisfies it.
type Submitter interface {
	Submit(ctx context.Context, sub sms.Submission) (sms.Accepted, error)
}

// refusalCounter is a Submitter that counts the submissions the handler
// refuses before handing them over (a body too big or that does not
// decode), so that its metrics count every submission answered;
// *sms.Gateway satisfies it.
type refusalCounter interface {
	Refused(err error)
}

type sendSMS struct {
	gateway Submitter
	counter refusalCounter // gateway, when it counts refusals; else nil
	opts    Options
}

// refuse answers a refusal of the handler's own with code, counted.
func (h *sendSMS) refuse(w http.ResponseWriter, code sms.Code, msg string) {
	if h.counter != nil {
		h.counter.Refused(code.Errorf("%s", msg))
	}
	writeBulkError(w, code, msg)
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

// idempotencyHeader is the canonical form of idempotency.Header, as
// http.Header keys its map.
var idempotencyHeader = http.CanonicalHeaderKey(idempotency.Header)

func (h *sendSMS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var key idempotency.Key
	if vals, ok := r.Header[idempotencyHeader]; ok {
		var err error
		if key, err = readKey(vals); err != nil {
			writeError(w, http.StatusBadRequest, idempotency.CodeInvalidKey, msgkit.MessageOf(err))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			h.refuse(w, sms.CodeBadContentFormat, "the request body exceeds "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes")
			return
		}
		h.refuse(w, sms.CodeBadContentFormat, "the request body could not be read")
		return
	}
	sub, err := decodeSubmission(body)
	if err != nil {
		h.refuse(w, sms.CodeOf(err), msgkit.MessageOf(err))
		return
	}
	sub.ClientIP = httpapi.ClientIP(r, h.opts.TrustedProxies)
	sub.IdempotencyKey = key
	acc, err := h.gateway.Submit(r.Context(), sub)
	if err != nil {
		switch code := msgkit.CodeOf(err); {
		case code == idempotency.CodeKeyReused:
			writeError(w, http.StatusUnprocessableEntity, code, msgkit.MessageOf(err))
			return
		case code == idempotency.CodeInProgress:
			if wait, ok := idempotency.RetryAfter(err); ok {
				w.Header().Set("Retry-After", strconv.FormatInt(int64(max(time.Second, wait+time.Second-1)/time.Second), 10))
			}
			writeError(w, http.StatusConflict, code, msgkit.MessageOf(err))
			return
		}
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
	if acc.Replayed {
		w.Header().Set(httpapi.ReplayedHeader, "true")
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
	writeError(w, StatusBusinessError, code.String(), msg)
}

// writeError answers the family's error body {"error":{"code","message"}}
// with status.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b bulkError
	b.Error.Code, b.Error.Message = code, msg
	httpapi.WriteJSON(w, status, b)
}

// readKey reads the one Idempotency-Key header.
func readKey(vals []string) (idempotency.Key, error) {
	if len(vals) != 1 {
		return "", msgkit.Invalidf(idempotency.CodeInvalidKey, idempotency.Header, "send one Idempotency-Key header")
	}
	return idempotency.ParseKey(vals[0])
}
