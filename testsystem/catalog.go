package testsystem

import (
	"context"

	"github.com/msgkit/msgkit"
)

// Caller is who asks the System for reference lists: a user, and whether
// the user is an operator, who changes the platform's records.
type Caller struct {
	User     string
	Operator bool
}

// owner is whose records the caller's changes make and change: the
// platform's for an operator, else the user's own.
func (c Caller) owner() string {
	if c.Operator {
		return ""
	}
	return c.User
}

// Routes lists the routes of the gates c sees: the platform's and c's own.
func (s *System) Routes(ctx context.Context, c Caller, q msgkit.ListQuery) (msgkit.Page[Route], error) {
	return s.catalog.Routes(ctx, c.User, q)
}

// Named lists the categories, suppliers or gates c sees: the platform's
// and c's own.
func (s *System) Named(ctx context.Context, c Caller, k Kind, q msgkit.ListQuery) (msgkit.Page[Named], error) {
	return s.catalog.Named(ctx, k, c.User, q)
}

// AddRoute checks an add-route body (FillRoute) and stores its routes:
// an operator's among the platform's records, a user's among its own
// (see Catalog.AddRoute).
func (s *System) AddRoute(ctx context.Context, c Caller, in RouteInput) (added bool, err error) {
	r, err := FillRoute(in)
	if err != nil {
		return false, err
	}
	return s.catalog.AddRoute(ctx, c.owner(), r)
}

// DeleteNamed deletes a category, supplier or gate with the routes that
// use it: a user's own, or the platform's when c is an operator. Another
// user's record is not found, as an unknown one is; the platform's is
// Forbidden to a user who is no operator.
func (s *System) DeleteNamed(ctx context.Context, c Caller, k Kind, id int64) (Named, error) {
	n, err := s.catalog.NamedByID(ctx, k, id)
	switch {
	case msgkit.KindOf(err) == msgkit.NotFound:
		return Named{}, NamedNotFound(k, id)
	case err != nil:
		return Named{}, err
	case n.Owner != "" && n.Owner != c.User:
		return Named{}, NamedNotFound(k, id)
	case n.Owner == "" && !c.Operator:
		return Named{}, PlatformRecord(k, id)
	}
	return s.catalog.DeleteNamed(ctx, k, n.Owner, id)
}

// ownerOf is whose operators owner names when user asks: the platform's
// ("") for OwnerPlatform, user's own for OwnerMe.
func ownerOf(user, owner string) (string, error) {
	switch owner {
	case OwnerPlatform:
		return "", nil
	case OwnerMe:
		return user, nil
	}
	return "", msgkit.Invalidf(msgkit.CodeInvalidQuery, "owner", "owner must be platform or me, got %q", owner)
}

// Operators lists the operators of owner, OwnerPlatform (the platform's)
// or OwnerMe (user's own), as OperatorSpec says.
func (s *System) Operators(ctx context.Context, user, owner string, q msgkit.ListQuery) (msgkit.Page[Operator], error) {
	who, err := ownerOf(user, owner)
	if err != nil {
		return msgkit.Page[Operator]{}, err
	}
	return s.catalog.Operators(ctx, who, q)
}

// Countries lists the countries of owner's operators, each once, as
// CountrySpec says; owner is as for Operators.
func (s *System) Countries(ctx context.Context, user, owner string, q msgkit.ListQuery) (msgkit.Page[Country], error) {
	who, err := ownerOf(user, owner)
	if err != nil {
		return msgkit.Page[Country]{}, err
	}
	return s.catalog.Countries(ctx, who, q)
}
