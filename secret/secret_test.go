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
	wrong := errors.New("credentials match nothing")
	find := func(ctx context.Context, key string) (account, error) {
		switch key {
		case "shop":
			return stored, nil
		case "down":
			return account{}, down
		}
		return account{}, msgkit.New(msgkit.NotFound, "x", "no")
	}
	hashOf := func(a account) string { return a.hash }
	tests := []struct {
		name, key, secret string
		want              account
		wantErr           error
	}{
		{"right secret", "shop", "right", stored, nil},
		{"wrong secret", "shop", "wrong", account{}, wrong},
		{"unknown record", "nobody", "right", account{}, wrong},
		{"store failure", "down", "right", account{}, down},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := secret.Check(t.Context(), c, find, tc.key, tc.secret, hashOf, wrong)
			if got != tc.want || err != tc.wantErr {
				t.Errorf("Check = %v, %v; want %v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
