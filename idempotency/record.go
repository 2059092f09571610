package idempotency

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// State is where a key's request stands.
type State uint8

// The states of a record.
const (
	// Pending: the request is running, or died before its answer was
	// recorded; it holds a lease until LeaseUntil.
	Pending State = iota + 1
	// Done: the request was answered; Answer is given to every retry.
	Done
)

// String names the state in lower case.
func (s State) String() string {
	switch s {
	case Pending:
		return "pending"
	case Done:
		return "done"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Limits of a record.
const (
	MaxScopeLen    = 1024    // bytes of a Scope
	MaxRefLen      = 64      // bytes of a Ref
	MaxAnswerBytes = 1 << 20 // bytes of an Answer's body
)

// Record is what a store keeps of one key: who sent it (Scope), the
// request's Fingerprint, where the request stands, and its answer once
// it has one.
type Record struct {
	// Scope is who the key belongs to: keys of different scopes never
	// meet (an account, an API client and its tenant).
	Scope string
	Key   Key
	// Fingerprint is the first request's; a request with another one is
	// refused (CodeKeyReused).
	Fingerprint Fingerprint
	// Ref is made when the record begins and kept while it lives, also
	// when another request takes its lease over: a request whose action
	// takes an id of the caller's choosing (a bulk SMS message id) takes
	// Ref, so that the action is done once whichever request does it.
	Ref string
	// Attempt counts the requests that held the lease: 1, and one more at
	// every take-over. A request finishes or releases only the record it
	// holds (the same Ref and Attempt), so a request whose lease was
	// taken over changes nothing.
	Attempt int
	State   State
	// Answer is the answer to give again; empty while Pending.
	Answer Answer
	// Created is when the first request began; Expires is Created plus
	// the TTL, when the key is free again (a request then starts a new
	// record); LeaseUntil is when a pending record may be taken over.
	Created, LeaseUntil, Expires time.Time
}

// Answer is the first answer of a key's request, to give again: an HTTP
// answer's status, the headers that belong to it and its body, or what
// another transport needs (the bulk SMS gateway keeps its acceptance in
// Body).
type Answer struct {
	Status int
	Header map[string][]string
	Body   []byte
}

// Clone returns a copy of r that shares no memory with it.
func (r Record) Clone() Record {
	r.Answer = r.Answer.Clone()
	return r
}

// Clone returns a copy of a that shares no memory with it. An empty body
// or header is nil.
func (a Answer) Clone() Answer {
	if len(a.Body) == 0 {
		a.Body = nil
	} else {
		a.Body = slices.Clone(a.Body)
	}
	if len(a.Header) == 0 {
		a.Header = nil
	} else {
		h := make(map[string][]string, len(a.Header))
		for k, vs := range a.Header {
			h[k] = slices.Clone(vs)
		}
		a.Header = h
	}
	return a
}

// Check refuses a record that no store keeps: Invalid (code
// idempotency_record_invalid) naming the field. Text must be valid UTF-8
// without NUL characters, as PostgreSQL's text holds; the Service makes
// only records that pass.
func (r Record) Check() error {
	bad := func(field, msg string) error { return msgkit.Invalidf(CodeInvalid, field, "%s", msg) }
	switch {
	case r.Scope == "" || len(r.Scope) > MaxScopeLen || !text(r.Scope):
		return bad("scope", "a scope has 1 to 1024 bytes of UTF-8 without NUL characters")
	case !validKey(r.Key):
		return bad("key", "a key has 1 to 255 printable ASCII characters")
	case r.Ref == "" || len(r.Ref) > MaxRefLen || !text(r.Ref):
		return bad("ref", "a ref has 1 to 64 bytes of UTF-8 without NUL characters")
	case r.Attempt < 1 || r.Attempt > 1<<30:
		return bad("attempt", "an attempt is at least 1")
	case r.State != Pending && r.State != Done:
		return bad("state", "a state is pending or done")
	case r.Created.IsZero() || r.LeaseUntil.IsZero() || r.Expires.IsZero():
		return bad("created", "a record has its times")
	case r.Answer.Status < 0 || r.Answer.Status > 999:
		return bad("answer.status", "a status is 0 to 999")
	case len(r.Answer.Body) > MaxAnswerBytes:
		return bad("answer.body", "an answer's body has at most 1 MiB")
	}
	for _, name := range slices.Sorted(maps.Keys(r.Answer.Header)) {
		if name == "" || !text(name) {
			return bad("answer.header", "a header's name is UTF-8 without NUL characters")
		}
		for _, v := range r.Answer.Header[name] {
			if !text(v) {
				return bad("answer.header", "header "+name+" has a value that is not UTF-8 without NUL characters")
			}
		}
	}
	return nil
}

func text(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// Live reports whether the record still binds its key at now: it has not
// expired.
func (r Record) Live(now time.Time) bool { return now.Before(r.Expires) }

// NotFound is the error of a scope and key without a record, which both
// stores return from their inspection.
func NotFound(scope string, key Key) error {
	return msgkit.Errorf(msgkit.NotFound, "idempotency_record_not_found", "no record of key %q in scope %q", key, scope)
}
