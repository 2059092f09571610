package smpp_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// countSink counts status events.
type countSink struct{ n atomic.Int64 }

func (s *countSink) HandleStatus(context.Context, sms.StatusEvent) error {
	s.n.Add(1)
	return nil
}

// BenchmarkSubmit is submit_sm throughput over loopback against the
// simulator with a window of 50: Send calls of 64 parts from 8
// goroutines, as the Transmitter runs them; each part answered, recorded
// in the memory store, and its receipt matched and handed to a sink. The
// target is at least 20,000 PDUs a second. It runs without metrics and
// with them, side by side, to show what they cost (-count 6 alternates
// them).
func BenchmarkSubmit(b *testing.B) {
	b.Run("metrics=off", func(b *testing.B) { benchSubmit(b, nil) })
	b.Run("metrics=on", func(b *testing.B) { benchSubmit(b, prometheus.NewRegistry()) })
}

func benchSubmit(b *testing.B, reg prometheus.Registerer) {
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}})
	addr, err := sim.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	c := smpp.New(smpp.Config{Addr: addr, SystemID: "msgkit", Password: "secret", Window: 50}, smpp.Options{Store: memstore.New().SMPP(), Metrics: reg})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, &countSink{}); close(done) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(5 * time.Second); c.Bound() == 0; {
		if time.Now().After(deadline) {
			b.Fatal("no bind")
		}
		time.Sleep(time.Millisecond) // waiting for the bind, not a schedule
	}
	var n atomic.Int64
	run := fmt.Sprint(time.Now().UnixNano())
	b.ResetTimer()
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		batch := make([]sms.OutboundPart, 0, 64)
		flush := func() bool {
			if errs := c.Send(ctx, batch); errs != nil {
				b.Error(errs)
				return false
			}
			batch = batch[:0]
			return true
		}
		for pb.Next() {
			p := part(fmt.Sprintf("%s-%d", run, n.Add(1)), 0, "benchmark text")
			p.ExpiresAt = time.Now().Add(time.Hour)
			if batch = append(batch, p); len(batch) == cap(batch) && !flush() {
				return
			}
		}
		if len(batch) > 0 {
			flush()
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "PDUs/s")
}
