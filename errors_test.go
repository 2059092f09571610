package msgkit_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"pgregory.net/rapid"
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

// errChain is a generated error and what its chain holds.
type errChain struct {
	err    error
	hasEOF bool // io.EOF is somewhere in the chain
}

func genErrChain(depth int) *rapid.Generator[errChain] {
	kinds := rapid.SampledFrom([]msgkit.Kind{msgkit.Internal, msgkit.Invalid, msgkit.NotFound, msgkit.Conflict, msgkit.Unavailable})
	codes := rapid.SampledFrom([]string{"", "a", "b"})
	return rapid.Custom(func(t *rapid.T) errChain {
		if depth == 0 || rapid.IntRange(0, 3).Draw(t, "leaf") == 0 {
			switch rapid.IntRange(0, 3).Draw(t, "leafKind") {
			case 0:
				return errChain{err: io.EOF, hasEOF: true}
			case 1:
				return errChain{err: errors.New("plain")}
			case 2:
				return errChain{err: kinds.Draw(t, "bareKind")}
			default:
				return errChain{err: msgkit.New(kinds.Draw(t, "kind"), codes.Draw(t, "code"), "m")}
			}
		}
		inner := genErrChain(depth-1).Draw(t, "inner")
		switch rapid.IntRange(0, 2).Draw(t, "wrapper") {
		case 0:
			inner.err = msgkit.Wrap(inner.err, kinds.Draw(t, "kind"), codes.Draw(t, "code"), "m")
		case 1:
			inner.err = fmt.Errorf("context: %w", inner.err)
		default:
			inner.err = &msgkit.Error{Kind: kinds.Draw(t, "kind"), Code: codes.Draw(t, "code"), Message: "m", Err: inner.err}
		}
		return inner
	})
}

// One rule classifies: the outermost *Error or bare Kind. errors.Is with a
// Kind or an *Error target never disagrees with KindOf and CodeOf, however
// classified errors are nested, and the rest of the chain stays reachable.
func TestErrorsIsAgreesWithKindOf(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genErrChain(4).Draw(t, "chain")
		kind, code := msgkit.KindOf(c.err), msgkit.CodeOf(c.err)
		_, isError := errors.AsType[*msgkit.Error](c.err)
		_, isKind := errors.AsType[msgkit.Kind](c.err)
		classified := isError || isKind
		for _, k := range []msgkit.Kind{msgkit.Internal, msgkit.Invalid, msgkit.NotFound, msgkit.Conflict, msgkit.Unavailable} {
			if got, want := errors.Is(c.err, k), classified && kind == k; got != want {
				t.Fatalf("errors.Is(%v, %v) = %v; KindOf says %v (classified %v)", c.err, k, got, kind, classified)
			}
			for _, cd := range []string{"", "a", "b"} {
				target := msgkit.New(k, cd, "")
				if got, want := errors.Is(c.err, target), classified && kind == k && code == cd; got != want {
					t.Fatalf("errors.Is(%v, %v/%q) = %v; KindOf %v, CodeOf %q", c.err, k, cd, got, kind, code)
				}
			}
		}
		if got := errors.Is(c.err, io.EOF); got != c.hasEOF {
			t.Fatalf("errors.Is(%v, io.EOF) = %v, want %v: the cause chain is lost", c.err, got, c.hasEOF)
		}
		if e, ok := errors.AsType[*msgkit.Error](c.err); ok && (e.Kind != kind || e.Code != code) {
			t.Fatalf("errors.As gives %v/%q; KindOf and CodeOf %v/%q", e.Kind, e.Code, kind, code)
		}
	})
}

func TestWrapReclassifies(t *testing.T) {
	inner := msgkit.New(msgkit.NotFound, "row_not_found", "row not found")
	err := msgkit.Wrap(fmt.Errorf("query: %w", inner), msgkit.Internal, "storage_error", "storage error")
	if errors.Is(err, msgkit.NotFound) || msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("Wrap(NotFound, Internal): errors.Is NotFound %v, KindOf %v; the outer kind must win",
			errors.Is(err, msgkit.NotFound), msgkit.KindOf(err))
	}
	if !errors.Is(err, msgkit.Internal) {
		t.Error("errors.Is(err, Internal) is false for an explicit Internal")
	}
	if got := msgkit.KindOf(fmt.Errorf("x: %w", msgkit.Conflict)); got != msgkit.Conflict {
		t.Errorf("KindOf(bare Conflict) = %v", got)
	}
	if got := msgkit.MessageOf(msgkit.Conflict); got != "conflict" {
		t.Errorf("MessageOf(bare Conflict) = %q", got)
	}
	if !strings.Contains(err.Error(), "row not found") {
		t.Errorf("the cause is lost from the log text: %s", err)
	}
}

func TestShort(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"GSM", "GSM"},
		{strings.Repeat("x", msgkit.MaxQuoted), strings.Repeat("x", msgkit.MaxQuoted)},
		{strings.Repeat("x", msgkit.MaxQuoted+1), strings.Repeat("x", msgkit.MaxQuoted) + "…"},
		{strings.Repeat("é", msgkit.MaxQuoted), strings.Repeat("é", msgkit.MaxQuoted)},
		{strings.Repeat("é", 100_000), strings.Repeat("é", msgkit.MaxQuoted) + "…"},
	} {
		if got := msgkit.Short(tt.in); got != tt.want {
			t.Errorf("Short(%.20q…) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A message quotes at most MaxQuoted characters of a value formatted with
// %q, and keeps values formatted otherwise whole.
func TestSprintfShortensQuotedValues(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	list := strings.Repeat("a, ", 30)
	for _, tt := range []struct {
		got, want string
	}{
		{msgkit.Sprintf("dcs must be GSM or UCS, got %q", long), `dcs must be GSM or UCS, got "` + strings.Repeat("x", msgkit.MaxQuoted) + `…"`},
		{msgkit.Sprintf("%q is none of %s", long, list), `"` + strings.Repeat("x", msgkit.MaxQuoted) + `…" is none of ` + list},
		{msgkit.Sprintf("%5.2f%% and %-8q", 1.5, "ok"), " 1.50% and \"ok\"    "},
		{msgkit.Sprintf("%*d %q", 3, 7, []byte(long)), `  7 "` + strings.Repeat("x", msgkit.MaxQuoted) + `…"`},
		{msgkit.Sprintf("%q", 'x'), `'x'`},
		{msgkit.Invalidf("c", "f", "unknown %q", long).Message, `unknown "` + strings.Repeat("x", msgkit.MaxQuoted) + `…"`},
		{msgkit.Errorf(msgkit.Invalid, "c", "unknown %q", long).Message, `unknown "` + strings.Repeat("x", msgkit.MaxQuoted) + `…"`},
	} {
		if tt.got != tt.want {
			t.Errorf("got %.120q, want %.120q", tt.got, tt.want)
		}
	}
}
