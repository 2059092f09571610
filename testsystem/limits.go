package testsystem

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// MaxDailyLimit is the largest daily limit a user may be given.
const MaxDailyLimit = 1_000_000

// CodeInvalidLimit is the code of a daily limit out of range.
const CodeInvalidLimit = "invalid_daily_limit"

// UserLimit is a user's own daily limit of test SMS requests, which wins
// over Options.DailyLimit.
type UserLimit struct {
	User  string
	Limit int
}

// Limits keeps users' own daily limits. Every method is one atomic
// operation.
type Limits interface {
	// SetDailyLimit gives user its own limit, replacing one it had.
	SetDailyLimit(ctx context.Context, user string, limit int) error
	// DailyLimit is user's own limit; ok is false without one.
	DailyLimit(ctx context.Context, user string) (limit int, ok bool, err error)
	// DeleteDailyLimit takes user's own limit away; NotFound
	// (LimitNotFound) without one.
	DeleteDailyLimit(ctx context.Context, user string) error
	// DailyLimits lists the users' own limits by q (LimitListSpec), by
	// user unless q sorts them.
	DailyLimits(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[UserLimit], error)
}

// LimitListSpec is the listing of users' own limits.
var LimitListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{"username": msgkit.AttrString, "dailyLimit": msgkit.AttrNumber},
	Sort:   []string{"username", "dailyLimit"},
	Search: []string{"username"},
}

// LimitAttr is attribute attr of l as LimitListSpec names it.
func LimitAttr(l UserLimit, attr string) (msgkit.Value, bool) {
	switch attr {
	case "username":
		return msgkit.StringValue(l.User), true
	case "dailyLimit":
		return msgkit.IntValue(int64(l.Limit)), true
	}
	return msgkit.Value{}, false
}

// LimitNotFound is the error of a user without a limit of its own.
func LimitNotFound(user string) error {
	return msgkit.Errorf(msgkit.NotFound, "daily_limit_not_found", "user %s has no daily limit of its own", msgkit.QuoteValue(user))
}

// limitView is a user's limit as the audit trail shows it.
type limitView struct {
	User  string `json:"username"`
	Limit int    `json:"dailyLimit"`
}

// SetDailyLimit gives user a daily limit of its own, 0 (no test requests)
// to MaxDailyLimit; it holds from the user's next request. The user need
// not exist yet: a limit may be set before the user is created.
func (s *System) SetDailyLimit(ctx context.Context, user string, limit int) (UserLimit, error) {
	if s.opts.Limits == nil {
		return UserLimit{}, msgkit.New(msgkit.Internal, "no_limits_store", "this system keeps no users' own limits")
	}
	if user == "" || len(user) > 200 || !utf8.ValidString(user) || strings.ContainsAny(user, "\x00\r\n") {
		return UserLimit{}, msgkit.Invalidf(CodeInvalidLimit, "username", "a username has 1 to 200 characters of UTF-8 without line breaks")
	}
	if limit < 0 || limit > MaxDailyLimit {
		return UserLimit{}, msgkit.Invalidf(CodeInvalidLimit, "dailyLimit", "a daily limit is 0 to %d", MaxDailyLimit)
	}
	before, had, err := s.opts.Limits.DailyLimit(ctx, user)
	if err != nil {
		return UserLimit{}, err
	}
	if err := s.opts.Limits.SetDailyLimit(ctx, user, limit); err != nil {
		return UserLimit{}, err
	}
	l := UserLimit{User: user, Limit: limit}
	if had {
		_ = s.opts.Audit.Record(ctx, "update", "daily_limit", user, limitView{user, before}, limitView{user, limit})
	} else {
		_ = s.opts.Audit.Record(ctx, "create", "daily_limit", user, nil, limitView{user, limit})
	}
	return l, nil
}

// DeleteDailyLimit takes a user's own limit away: Options.DailyLimit
// holds for it again.
func (s *System) DeleteDailyLimit(ctx context.Context, user string) error {
	if s.opts.Limits == nil {
		return LimitNotFound(user)
	}
	before, had, err := s.opts.Limits.DailyLimit(ctx, user)
	if err != nil {
		return err
	}
	if !had {
		return LimitNotFound(user)
	}
	if err := s.opts.Limits.DeleteDailyLimit(ctx, user); err != nil {
		return err
	}
	_ = s.opts.Audit.Record(ctx, "delete", "daily_limit", user, limitView{user, before}, nil)
	return nil
}

// DailyLimits lists the users' own limits by q (LimitListSpec).
func (s *System) DailyLimits(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[UserLimit], error) {
	if s.opts.Limits == nil {
		return msgkit.Apply([]UserLimit{}, q, LimitAttr)
	}
	return s.opts.Limits.DailyLimits(ctx, q)
}

// limitOf is user's daily limit: its own, else Options.DailyLimit.
func (s *System) limitOf(ctx context.Context, user string) (int, error) {
	if s.opts.Limits == nil {
		return s.opts.DailyLimit, nil
	}
	l, ok, err := s.opts.Limits.DailyLimit(ctx, user)
	if err != nil || !ok {
		return s.opts.DailyLimit, err
	}
	return l, nil
}

// Auditor records an administrative change (see auth.Auditor); the
// actor travels in ctx.
type Auditor interface {
	Record(ctx context.Context, action, resource, id string, before, after any) error
}

type noAudit struct{}

func (noAudit) Record(context.Context, string, string, string, any, any) error { return nil }
