package secret_test

import (
	"context"
	"errors"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/secret"
	"golang.org/x/crypto/bcrypt"
)

type account struct{ name, hash string }

func TestCheck(t *testing.T) {
	c := secret.NewChecker(bcrypt.MinCost)
	h, err := c.Hash("right")
	if err != nil {
		t.Fatal(err)
	}
	stored := account{"shop", h}
	down := errors.New("store down")
	found := func(context.Context) (account, error) { return stored, nil }
	missing := func(context.Context) (account, error) { return account{}, msgkit.New(msgkit.NotFound, "x", "no") }
	failing := func(context.Context) (account, error) { return account{}, down }
	hashOf := func(a account) string { return a.hash }
	tests := []struct {
		name    string
		secret  string
		find    func(context.Context) (account, error)
		want    account
		ok      bool
		wantErr error
	}{
		{"right secret", "right", found, stored, true, nil},
		{"wrong secret", "wrong", found, account{}, false, nil},
		{"unknown record", "right", missing, account{}, false, nil},
		{"store failure", "right", failing, account{}, false, down},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := secret.Check(t.Context(), c, tc.secret, tc.find, hashOf)
			if got != tc.want || ok != tc.ok || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("Check = %v, %v, %v; want %v, %v, %v", got, ok, err, tc.want, tc.ok, tc.wantErr)
			}
		})
	}
}
