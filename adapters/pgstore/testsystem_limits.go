package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/testsystem"
)

var _ testsystem.Limits = (*TestSystemStore)(nil)

// limitsTable is the listing of users' own limits (testsystem.LimitListSpec).
var limitsTable = listTable{
	From: "testsystem_limits l", Select: "l.username, l.daily_limit", Scope: "TRUE",
	Attrs: map[string]listAttr{"username": {"l.username", msgkit.AttrString}, "dailyLimit": {"l.daily_limit", msgkit.AttrNumber}},
	Order: "l.username",
}

// SetDailyLimit gives user its own limit, replacing one it had.
func (s *TestSystemStore) SetDailyLimit(ctx context.Context, user string, limit int) error {
	if err := invalidText("daily_limit", "username", user); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO testsystem_limits (username, daily_limit) VALUES ($1, $2)
		ON CONFLICT (username) DO UPDATE SET daily_limit = EXCLUDED.daily_limit`, user, int32(min(max(limit, 0), testsystem.MaxDailyLimit)))
	return classify(err, "daily_limit", "daily limit of "+user)
}

// DailyLimit is user's own limit, if it has one.
func (s *TestSystemStore) DailyLimit(ctx context.Context, user string) (int, bool, error) {
	if !storable(user) {
		return 0, false, nil
	}
	var l int32
	err := s.pool.QueryRow(ctx, `SELECT daily_limit FROM testsystem_limits WHERE username = $1`, user).Scan(&l)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify(err, "daily_limit", "daily limit of "+user)
	}
	return int(l), true, nil
}

// DeleteDailyLimit takes user's own limit away.
func (s *TestSystemStore) DeleteDailyLimit(ctx context.Context, user string) error {
	if !storable(user) {
		return testsystem.LimitNotFound(user)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM testsystem_limits WHERE username = $1`, user)
	if err != nil {
		return classify(err, "daily_limit", "daily limit of "+user)
	}
	if tag.RowsAffected() == 0 {
		return testsystem.LimitNotFound(user)
	}
	return nil
}

// DailyLimits lists the users' own limits by q, by user unless q sorts
// them.
func (s *TestSystemStore) DailyLimits(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[testsystem.UserLimit], error) {
	return listPage(ctx, s.pool, &limitsTable, q, func(row pgx.CollectableRow) (testsystem.UserLimit, error) {
		var (
			l testsystem.UserLimit
			n int32
		)
		err := row.Scan(&l.User, &n)
		l.Limit = int(n)
		return l, err
	})
}
