package smstest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
