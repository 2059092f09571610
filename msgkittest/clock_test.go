package msgkittest_test

import (
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c := msgkittest.NewClock(t0)
	var clock msgkit.Clock = c.Now
	if !clock.Now().Equal(t0) {
		t.Fatalf("Now = %v", clock.Now())
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Advance(time.Second) })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("after ten seconds: %v", got)
	}
	c.Set(t0)
	if !c.Now().Equal(t0) {
		t.Errorf("Set: %v", c.Now())
	}
}
