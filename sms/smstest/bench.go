package smstest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
)

// BenchmarkTransmitter measures a Transmitter handing parts from store's
// outbound queue to a simnet network, with the default options'
// concurrency (MaxInFlight/Batch rounds at once, as Run runs them,
// without its pauses): b.N one-part messages are accepted first,
// untimed, 32 at a time; then the timed transmission reports parts per
// second. memstore and pgstore run it.
func BenchmarkTransmitter(b *testing.B, store Store) {
	ctx := context.Background()
	if err := store.CreateAccount(ctx, Account("bench", "1000000000")); err != nil {
		b.Fatal(err)
	}
	clock := func() time.Time { return t0 }
	queue := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range queue {
				m := Message(fmt.Sprintf("m-%09d", i), "bench", "0.01")
				m.Parts, m.Charged = m.Parts[:1], m.PartPrice
				if err := store.Accept(ctx, m); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range b.N {
		queue <- i
	}
	close(queue)
	wg.Wait()

	net := simnet.New(simnet.Options{Clock: clock})
	tx := sms.NewTransmitter(store, net, sms.TransmitterOptions{Clock: clock})
	const rounds = 256 / 64 // the defaults' MaxInFlight / Batch
	var (
		mu    sync.Mutex
		total int
	)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range rounds {
		wg.Go(func() {
			for {
				k, err := tx.RunOnce(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				if k == 0 {
					return
				}
				mu.Lock()
				total += k
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if total != b.N || net.Pending() != 2*b.N {
		b.Fatalf("handed over %d parts (%d events planned), want %d", total, net.Pending(), b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "parts/s")
}

// BenchmarkAcceptWithTopUps measures one account submitting at full speed
// (32 concurrent Accepts, which pgstore writes by the batch) side by side
// without and with a top-up every 10 ms from another goroutine (through
// sms.Credit, so ApplyLedger takes the account row's lock between the
// batches). Each phase accepts b.N one-part messages, in quarters run
// without, with, with, without, twice over, so that a store that slows
// as it grows, or a machine whose load drifts, burdens both alike. It reports each phase's messages a second and
// their ratio (with / without): the issue asks that top-ups cost at most
// 5%, a ratio of 0.95 or more. memstore and pgstore run it.
func BenchmarkAcceptWithTopUps(b *testing.B, store Store) {
	ctx := context.Background()
	if err := store.CreateAccount(ctx, Account("bench", "1000000000")); err != nil {
		b.Fatal(err)
	}
	credit := sms.NewCredit(store, sms.CreditOptions{})
	var seq atomic.Int64
	phase := func(n int, topUps bool) (time.Duration, int) {
		stop := make(chan struct{})
		var tw sync.WaitGroup
		made := 0
		if topUps {
			tw.Go(func() {
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := credit.TopUp(ctx, sms.Change{Account: "bench", Amount: decimal.New(1, 0), Currency: "EUR", Actor: "bench"}); err != nil {
							b.Error(err)
							return
						}
						made++
					}
				}
			})
		}
		runtime.GC() // untimed: no phase pays for the garbage of the one before
		var left atomic.Int64
		left.Store(int64(n))
		var wg sync.WaitGroup
		start := time.Now()
		for range 32 {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					m := Message(fmt.Sprintf("topup-bench-%09d", seq.Add(1)), "bench", "0.01")
					m.Parts, m.Charged = m.Parts[:1], m.PartPrice
					if err := store.Accept(ctx, m); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(stop)
		tw.Wait()
		return elapsed, made
	}
	quarter := max(1, b.N/4)
	var without, with time.Duration
	topUps := 0
	b.ReportAllocs()
	b.ResetTimer()
	for _, withTopUps := range []bool{false, true, true, false, false, true, true, false} {
		d, k := phase(quarter, withTopUps)
		if withTopUps {
			with += d
			topUps += k
		} else {
			without += d
		}
	}
	b.StopTimer()
	plain, busy := float64(4*quarter)/without.Seconds(), float64(4*quarter)/with.Seconds()
	b.ReportMetric(plain, "msgs/s")
	b.ReportMetric(busy, "topup-msgs/s")
	b.ReportMetric(busy/plain, "ratio")
	b.ReportMetric(float64(topUps), "topups")
}
