package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/idempotency"
)

// IdempotencyKeeper keeps the idempotency keys of the routes marked
// Idempotent; *idempotency.Service satisfies it.
type IdempotencyKeeper interface {
	Begin(ctx context.Context, req idempotency.Request) (idempotency.Claim, error)
	Finish(ctx context.Context, c idempotency.Claim, a idempotency.Answer) error
	Abandon(ctx context.Context, c idempotency.Claim) error
}

var _ IdempotencyKeeper = (*idempotency.Service)(nil)

// ReplayedHeader marks an answer given again for an Idempotency-Key:
// "Idempotent-Replayed: true".
const ReplayedHeader = "Idempotent-Replayed"

// idempotencyHeader is the canonical form of idempotency.Header, as
// http.Header keys its map.
var idempotencyHeader = http.CanonicalHeaderKey(idempotency.Header)

// Idempotent makes a route that creates something act once per
// Idempotency-Key (see the package documentation): a request without the
// header passes untouched; with it, the body is read (within the route's
// limit) and fingerprinted with the method, path, query and
// Content-Type, and keys decides. A retry of an answered request gets
// the stored status, headers and body with Idempotent-Replayed: true; a
// key sent with another request is 422 (code idempotency_key_reused),
// one whose request still runs 409 (idempotency_key_in_progress) with
// Retry-After, a header that is no key 400 naming Idempotency-Key, all
// in the family's body. The answer of a request that acted is recorded
// when its status is below 400; any other answer, a panic, or an answer
// over idempotency.MaxAnswerBytes forgets the key, so that a retry runs
// again. A nil keys answers keyed requests 501. It needs the principal
// (Bearer or APIKey) in the context: the scope of a key is the client,
// user or API key, and the tenant Tenant checked.
func Idempotent(fam Family, keys IdempotencyKeeper) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			vals, ok := r.Header[idempotencyHeader]
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			serveIdempotent(w, r, fam, keys, vals, next)
		})
	}
}

func serveIdempotent(w http.ResponseWriter, r *http.Request, fam Family, keys IdempotencyKeeper, vals []string, next http.Handler) {
	if len(vals) != 1 {
		WriteError(w, r, fam, msgkit.Invalidf(idempotency.CodeInvalidKey, idempotency.Header, "send one Idempotency-Key header"))
		return
	}
	key, err := idempotency.ParseKey(vals[0])
	if err != nil {
		WriteError(w, r, fam, err)
		return
	}
	if keys == nil {
		WriteError(w, r, fam, &StatusError{Status: http.StatusNotImplemented, Err: msgkit.New(msgkit.Unavailable, CodeNotImplemented,
			"this server keeps no idempotency keys; send the request without Idempotency-Key")})
		return
	}
	scope, err := scopeOf(r.Context())
	if err != nil {
		WriteError(w, r, fam, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		WriteError(w, r, fam, err)
		return
	}
	req := idempotency.Request{Scope: scope, Key: key, Fingerprint: idempotency.FingerprintOf(
		[]byte(r.Method), []byte(r.URL.EscapedPath()), []byte(r.URL.RawQuery), []byte(r.Header.Get("Content-Type")), body)}
	c, err := keys.Begin(r.Context(), req)
	switch {
	case msgkit.CodeOf(err) == idempotency.CodeKeyReused:
		WriteError(w, r, fam, &StatusError{Status: http.StatusUnprocessableEntity, Err: err})
		return
	case msgkit.CodeOf(err) == idempotency.CodeInProgress:
		if wait, ok := idempotency.RetryAfter(err); ok {
			w.Header().Set("Retry-After", retryAfterSeconds(wait))
		}
		WriteError(w, r, fam, err)
		return
	case err != nil:
		WriteError(w, r, fam, err)
		return
	case c.Replay:
		replay(w, c.Record.Answer)
		return
	}
	rec := &answerRecorder{ResponseWriter: w}
	// The key's record outlives a client that went away: the request
	// acted all the same.
	ctx := context.WithoutCancel(r.Context())
	defer func() {
		if v := recover(); v != nil {
			abandon(ctx, r, keys, c)
			panic(v)
		}
	}()
	next.ServeHTTP(rec, r)
	status := rec.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
		rec.snapshot()
	}
	if status >= http.StatusBadRequest || rec.overflow {
		abandon(ctx, r, keys, c)
		return
	}
	a := idempotency.Answer{Status: status, Header: rec.header, Body: rec.body.Bytes()}
	if err := keys.Finish(ctx, c, a); err != nil {
		LoggerFrom(r.Context()).WarnContext(r.Context(), "the answer of an idempotency key could not be recorded; the key is forgotten",
			"err", err, "request_id", RequestIDFrom(r.Context()))
		abandon(ctx, r, keys, c)
	}
}

// abandon forgets c's key, logging a failure: the lease then frees it.
func abandon(ctx context.Context, r *http.Request, keys IdempotencyKeeper, c idempotency.Claim) {
	if err := keys.Abandon(ctx, c); err != nil {
		LoggerFrom(r.Context()).WarnContext(r.Context(), "an idempotency key could not be forgotten; it is free when its lease ends",
			"err", err, "request_id", RequestIDFrom(r.Context()))
	}
}

// scopeOf is who a key belongs to: the bearer's client or user and the
// tenant of the path, or the API key.
func scopeOf(ctx context.Context) (string, error) {
	if a := authInfoFrom(ctx); a != nil {
		s := "client:"
		if a.principal.Kind == auth.SubjectUser {
			s = "user:"
		}
		s += a.principal.Subject
		if a.service != "" {
			s += " service:" + string(a.service)
		}
		return s, nil
	}
	if k, ok := APIKeyFrom(ctx); ok {
		return "apikey:" + k.ID, nil // names may repeat; ids do not
	}
	return "", errNoPrincipal("Idempotent")
}

// readBody reads the whole body within the route's limit (LimitBody)
// and puts back a reader of it for the handler.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		if mb, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge(mb.Limit)
		}
		return nil, msgkit.Wrap(err, msgkit.Invalid, CodeInvalidJSON, "the request body could not be read")
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// replay answers a again, marked as given again.
func replay(w http.ResponseWriter, a idempotency.Answer) {
	h := w.Header()
	for name, vs := range a.Header {
		h[name] = slices.Clone(vs)
	}
	h.Set(ReplayedHeader, "true")
	w.WriteHeader(a.Status)
	w.Write(a.Body)
}

// unrecorded are the headers that belong to one exchange, not to the
// answer a key gives again: the request id is the retry's own, and the
// rest net/http writes itself.
var unrecorded = map[string]bool{
	"X-Request-Id": true, "Date": true, "Content-Length": true, "Connection": true, "Keep-Alive": true,
	"Transfer-Encoding": true, "Trailer": true, "Upgrade": true, "Set-Cookie": true, ReplayedHeader: true,
}

// answerRecorder passes an answer on and keeps its status, its headers
// as they were when it began, and its body up to
// idempotency.MaxAnswerBytes.
type answerRecorder struct {
	http.ResponseWriter
	status   int
	header   map[string][]string
	body     bytes.Buffer
	overflow bool
}

func (a *answerRecorder) snapshot() {
	for name, vs := range a.ResponseWriter.Header() {
		if unrecorded[name] {
			continue
		}
		if a.header == nil {
			a.header = map[string][]string{}
		}
		a.header[name] = slices.Clone(vs)
	}
}

func (a *answerRecorder) WriteHeader(code int) {
	if a.status == 0 && code >= 200 {
		a.status = code
		a.snapshot()
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.WriteHeader(http.StatusOK)
	}
	if !a.overflow {
		if a.body.Len()+len(b) > idempotency.MaxAnswerBytes {
			a.overflow = true
			a.body = bytes.Buffer{}
		} else {
			a.body.Write(b)
		}
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (a *answerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// Flush keeps streaming answers streaming.
func (a *answerRecorder) Flush() {
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
