// Package secret checks passwords and client secrets against their bcrypt
// hashes without telling, by the time an answer takes, whether the account
// asked for exists: an unknown account costs the same bcrypt comparison,
// against a dummy hash of the same cost. auth (clients, users) and sms
// (bulk SMS accounts) both verify credentials through it.
package secret

import (
	"context"
	"errors"

	"github.com/msgkit/msgkit"
	"golang.org/x/crypto/bcrypt"
)

// Checker compares secrets with bcrypt hashes. It is safe for concurrent
// use.
type Checker struct {
	cost  int
	dummy []byte // compared against when the record is unknown
}

// NewChecker returns a checker whose hashes (Hash and the dummy) have the
// given bcrypt cost; 0 means bcrypt.DefaultCost.
func NewChecker(cost int) *Checker {
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("msgkit-dummy-secret"), cost)
	if err != nil { // a cost outside bcrypt's range
		dummy, _ = bcrypt.GenerateFromPassword([]byte("msgkit-dummy-secret"), bcrypt.DefaultCost)
		cost = bcrypt.DefaultCost
	}
	return &Checker{cost: cost, dummy: dummy}
}

// Hash returns the bcrypt hash of secret at the checker's cost.
func (c *Checker) Hash(secret string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(secret), c.cost)
	if err != nil {
		return "", msgkit.Wrap(err, msgkit.Internal, "hash", "hashing failed")
	}
	return string(h), nil
}

// Check looks up the record of key with find and compares secret with the
// hash that hashOf gives of it. It returns the record when the secret
// matches, and mismatch when the record is unknown (find answered
// NotFound) or the secret is wrong, taking one bcrypt comparison either
// way; find's other errors come back as they are.
func Check[T any](ctx context.Context, c *Checker, find func(context.Context, string) (T, error), key, secret string,
	hashOf func(T) string, mismatch error) (T, error) {
	var zero T
	rec, err := find(ctx, key)
	if err != nil && !errors.Is(err, msgkit.NotFound) {
		return zero, err
	}
	hash := c.dummy
	if err == nil {
		hash = []byte(hashOf(rec))
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(secret)) != nil || err != nil {
		return zero, mismatch
	}
	return rec, nil
}
