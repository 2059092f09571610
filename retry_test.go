package msgkit_test

import (
	"testing"
	"time"

	"github.com/msgkit/msgkit"
)

func TestBackoff(t *testing.T) {
	b := msgkit.Backoff{Base: time.Second, Max: time.Minute, Jitter: func() float64 { return 0.999999 }}
	low := b
	low.Jitter = func() float64 { return 0 }
	tests := []struct {
		attempts int
		want     time.Duration // the full wait before jitter
	}{
		{-1, time.Second}, {0, time.Second}, {1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second},
		{6, 32 * time.Second}, {7, time.Minute}, {100, time.Minute}, {1 << 30, time.Minute},
	}
	for _, tc := range tests {
		if got := low.Wait(tc.attempts); got != tc.want/2 {
			t.Errorf("Wait(%d) with jitter 0 = %v, want %v", tc.attempts, got, tc.want/2)
		}
		if got := b.Wait(tc.attempts); got <= tc.want*99/100 || got > tc.want {
			t.Errorf("Wait(%d) with jitter near 1 = %v, want just below %v", tc.attempts, got, tc.want)
		}
	}
	random := msgkit.Backoff{Base: time.Second, Max: time.Minute}
	for range 100 {
		if got := random.Wait(3); got < 2*time.Second || got > 4*time.Second {
			t.Fatalf("Wait(3) = %v, want between 2s and 4s", got)
		}
	}
	if got := (msgkit.Backoff{}).Wait(5); got != 0 {
		t.Errorf("the zero Backoff waits %v", got)
	}
}
