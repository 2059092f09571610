package memstore

import (
	"context"
	"maps"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/testsystem"
)

var _ testsystem.Limits = (*TestSystemStore)(nil)

// SetDailyLimit gives user its own limit.
func (s *TestSystemStore) SetDailyLimit(_ context.Context, user string, limit int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[user] = limit
	return nil
}

// DailyLimit is user's own limit, if it has one.
func (s *TestSystemStore) DailyLimit(_ context.Context, user string) (int, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	l, ok := s.limits[user]
	return l, ok, nil
}

// DeleteDailyLimit takes user's own limit away.
func (s *TestSystemStore) DeleteDailyLimit(_ context.Context, user string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.limits[user]; !ok {
		return testsystem.LimitNotFound(user)
	}
	delete(s.limits, user)
	return nil
}

// DailyLimits lists the users' own limits by q, by user unless q sorts
// them.
func (s *TestSystemStore) DailyLimits(_ context.Context, q msgkit.ListQuery) (msgkit.Page[testsystem.UserLimit], error) {
	s.mu.RLock()
	all := make([]testsystem.UserLimit, 0, len(s.limits))
	for _, u := range slices.Sorted(maps.Keys(s.limits)) {
		all = append(all, testsystem.UserLimit{User: u, Limit: s.limits[u]})
	}
	s.mu.RUnlock()
	return msgkit.Apply(all, q, testsystem.LimitAttr)
}
