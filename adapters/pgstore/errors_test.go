package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/msgkit/msgkit"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	pgErr := func(code string) error {
		return fmt.Errorf("insert: %w", &pgconn.PgError{
			Code: code, Message: "duplicate key value violates unique constraint \"auth_clients_pkey\"",
			Detail: "Key (id)=(secret-id) already exists.",
		})
	}
	tests := []struct {
		name      string
		err       error
		wantKind  msgkit.Kind
		wantCode  string
		wantCause bool // the cause is kept for logs
	}{
		{"no rows", pgx.ErrNoRows, msgkit.NotFound, "client_not_found", false},
		{"wrapped no rows", fmt.Errorf("scan: %w", pgx.ErrNoRows), msgkit.NotFound, "client_not_found", false},
		{"unique violation", pgErr("23505"), msgkit.Conflict, "client_exists", true},
		{"foreign key violation", pgErr("23503"), msgkit.Invalid, "client_invalid_reference", true},
		{"syntax error", pgErr("42601"), msgkit.Internal, CodeStorage, true},
		{"serialization failure", pgErr("40001"), msgkit.Internal, CodeStorage, true},
		{"not a database error", errors.New("something broke"), msgkit.Internal, CodeStorage, true},
		// The database out of reach: Unavailable, which the HTTP families
		// answer 503 with Retry-After.
		{"connection closed under a query", errors.New("conn closed"), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"connection refused", &pgconn.ConnectError{}, msgkit.Unavailable, msgkit.CodeUnavailable, false},
		{"network error", fmt.Errorf("read: %w", &net.OpError{Op: "read", Err: syscall.ECONNRESET}), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"connection ended", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"administrator shutdown", pgErr("57P01"), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"starting up", pgErr("57P03"), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"connection exception", pgErr("08006"), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"too many connections", pgErr("53300"), msgkit.Unavailable, msgkit.CodeUnavailable, true},
		{"the caller went away", fmt.Errorf("query: %w", context.Canceled), msgkit.Internal, CodeStorage, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := classify(tc.err, "client", "client c1")
			e, ok := errors.AsType[*msgkit.Error](err)
			if !ok {
				t.Fatalf("classify returned %T %v, want *msgkit.Error", err, err)
			}
			if e.Kind != tc.wantKind || e.Code != tc.wantCode {
				t.Errorf("got %v %q, want %v %q", e.Kind, e.Code, tc.wantKind, tc.wantCode)
			}
			for _, leak := range []string{"duplicate", "constraint", "secret-id", "conn closed"} {
				if strings.Contains(e.Message, leak) {
					t.Errorf("message %q shows %q", e.Message, leak)
				}
			}
			if tc.wantCause && !errors.Is(err, tc.err) {
				t.Errorf("the cause %v is not in the chain of %v", tc.err, err)
			}
		})
	}
	if err := classify(nil, "client", "client c1"); err != nil {
		t.Errorf("classify(nil) = %v", err)
	}
}

func TestStorable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want bool
	}{
		{"", true},
		{"client-1", true},
		{"Grüße ✓", true},
		{"a\x00b", false},
		{"\xff", false},
		{"a\xc3", false}, // truncated UTF-8
	}
	for _, tc := range tests {
		if got := storable(tc.s); got != tc.want {
			t.Errorf("storable(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
