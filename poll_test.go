package msgkit_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
)

// Poll goes round after round while rounds come back full, and pauses
// (here until woken: the idle pause is an hour) after a round that was
// not full or failed.
func TestPoll(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	wake := make(chan struct{})
	paused := make(chan int)
	rounds := 0
	results := []struct {
		n   int
		err error
	}{{10, nil}, {10, nil}, {3, nil}, {10, errors.New("store down")}, {0, nil}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		msgkit.Poll(ctx, time.Hour, 10, wake, slog.New(slog.DiscardHandler), "test", func(context.Context) (int, error) {
			r := results[rounds]
			rounds++
			if r.n < 10 || r.err != nil {
				paused <- rounds
			}
			if rounds == len(results) {
				cancel()
			}
			return r.n, r.err
		})
	}()
	for _, want := range []int{3, 4, 5} {
		if got := <-paused; got != want {
			t.Fatalf("paused after round %d, want %d", got, want)
		}
		if want < 5 {
			wake <- struct{}{}
		}
	}
	<-done
	if rounds != 5 {
		t.Errorf("%d rounds, want 5", rounds)
	}
}
