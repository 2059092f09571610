package sms_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
)

// forgetter is a RetentionStore that holds n finished messages and
// records its calls.
type forgetter struct {
	n      int
	err    error
	before []time.Time
	limits []int
}

func (f *forgetter) ForgetFinished(_ context.Context, before time.Time, limit int) (int, error) {
	f.before, f.limits = append(f.before, before), append(f.limits, limit)
	k := min(f.n, limit)
	f.n -= k
	return k, f.err
}

// ForgetDue removes a Batch per call with the cutoff KeepFor before the
// clock's now, until a call finds fewer than a Batch.
func TestRetentionForgetDue(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := msgkittest.NewClock(now)
	for _, c := range []struct {
		stored, calls int
	}{{0, 1}, {5, 1}, {10, 2}, {25, 3}} {
		f := &forgetter{n: c.stored}
		r := sms.NewRetention(f, sms.RetentionOptions{Clock: clock.Now, KeepFor: time.Hour, Batch: 10})
		n, err := r.ForgetDue(t.Context())
		if err != nil || n != c.stored || len(f.before) != c.calls {
			t.Errorf("%d stored: ForgetDue = %d, %v in %d calls; want %d in %d", c.stored, n, err, len(f.before), c.stored, c.calls)
		}
		for i, b := range f.before {
			if !b.Equal(now.Add(-time.Hour)) || f.limits[i] != 10 {
				t.Errorf("call %d: cutoff %v, limit %d", i, b, f.limits[i])
			}
		}
	}
	f := &forgetter{n: 30, err: errors.New("down")}
	if n, err := sms.NewRetention(f, sms.RetentionOptions{Clock: clock.Now, Batch: 10}).ForgetDue(t.Context()); err == nil || n != 10 || len(f.before) != 1 {
		t.Errorf("a failing store: %d, %v after %d calls; want its error after one", n, err, len(f.before))
	}
	if f.before[0] != now.Add(-sms.DefaultKeepFinishedFor) {
		t.Errorf("default cutoff %v", f.before[0])
	}
}
