package msgkit_test

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
)

func TestErrorKindsWithErrorsIs(t *testing.T) {
	err := fmt.Errorf("saving: %w", msgkit.New(msgkit.NotFound, "contact_not_found", "contact 7 not found"))
	if !errors.Is(err, msgkit.NotFound) {
		t.Error("errors.Is does not see the kind through wrapping")
	}
	if errors.Is(err, msgkit.Conflict) || errors.Is(err, msgkit.Internal) {
		t.Error("errors.Is matches another kind")
	}
	if !errors.Is(err, msgkit.New(msgkit.NotFound, "contact_not_found", "other text")) {
		t.Error("errors.Is does not match an *Error of the same kind and code")
	}
	if errors.Is(err, msgkit.New(msgkit.NotFound, "list_not_found", "")) {
		t.Error("errors.Is matches another code")
	}
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || e.Code != "contact_not_found" {
		t.Fatalf("errors.As: %v, %v", e, ok)
	}
}

func TestErrorAccessors(t *testing.T) {
	cause := io.ErrUnexpectedEOF
	tests := []struct {
		name    string
		err     error
		kind    msgkit.Kind
		code    string
		message string
	}{
		{"nil", nil, msgkit.Internal, "", "internal error"},
		{"plain error is internal", errors.New("db down: password=secret"), msgkit.Internal, "", "internal error"},
		{"internal never shows its message", msgkit.Wrap(cause, msgkit.Internal, "x", "query failed on table t"), msgkit.Internal, "x", "internal error"},
		{"invalid", msgkit.Invalidf("bad", "email", "email %q is malformed", "a@"), msgkit.Invalid, "bad", `email "a@" is malformed`},
		{"wrapped", fmt.Errorf("ctx: %w", msgkit.Errorf(msgkit.RateLimited, "slow", "wait %ds", 1)), msgkit.RateLimited, "slow", "wait 1s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := msgkit.KindOf(tc.err); got != tc.kind {
				t.Errorf("KindOf = %v, want %v", got, tc.kind)
			}
			if got := msgkit.CodeOf(tc.err); got != tc.code {
				t.Errorf("CodeOf = %q, want %q", got, tc.code)
			}
			if got := msgkit.MessageOf(tc.err); got != tc.message {
				t.Errorf("MessageOf = %q, want %q", got, tc.message)
			}
		})
	}
}

func TestErrorFieldsAndCause(t *testing.T) {
	cause := io.ErrUnexpectedEOF
	e := msgkit.Wrap(cause, msgkit.Invalid, "invalid_body", "body is invalid").
		WithField("name", "is required", "a contact needs a name").
		WithField("age", "must be a number", "")
	want := []msgkit.FieldError{
		{Name: "name", Message: "is required", Description: "a contact needs a name"},
		{Name: "age", Message: "must be a number"},
	}
	if diff := cmp.Diff(want, e.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if !errors.Is(e, cause) {
		t.Error("the cause is not reachable with errors.Is")
	}
	const text = "invalid [invalid_body]: body is invalid; name: is required; age: must be a number: unexpected EOF"
	if e.Error() != text {
		t.Errorf("Error() = %q, want %q", e.Error(), text)
	}
	if f := msgkit.Invalidf("c", "page_size", "too big").Fields; len(f) != 1 || f[0].Name != "page_size" {
		t.Errorf("Invalidf fields %+v", f)
	}
}

func TestKindNames(t *testing.T) {
	want := map[msgkit.Kind]string{
		msgkit.Internal: "internal", msgkit.Invalid: "invalid", msgkit.NotFound: "not found",
		msgkit.Conflict: "conflict", msgkit.Unauthorized: "unauthorized", msgkit.Forbidden: "forbidden",
		msgkit.RateLimited: "rate limited", msgkit.PaymentRequired: "payment required", msgkit.Unavailable: "unavailable",
		msgkit.Kind(200): "kind(200)",
	}
	for k, s := range want {
		if k.String() != s || k.Error() != s {
			t.Errorf("Kind %d: %q, want %q", k, k.String(), s)
		}
	}
	var zero msgkit.Error
	if zero.Kind != msgkit.Internal {
		t.Error("the zero Kind must be Internal, so unclassified errors stay internal")
	}
}

func TestClock(t *testing.T) {
	fixed := msgkit.Clock(func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) })
	if !fixed.Now().Equal(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) {
		t.Error("a Clock does not tell its time")
	}
	var system msgkit.Clock
	if d := time.Since(system.Now()); d < 0 || d > time.Minute {
		t.Errorf("nil Clock is %v away from the system clock", d)
	}
}
