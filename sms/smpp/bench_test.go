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
	"github.com/msgkit/msgkit/sms/smpp/pdu"
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

// BenchmarkThrottled120 is how long 120 one-part messages take through
// an SMSC that throttles: one that answers every 25th submit
// ESME_RTHROTTLED, and one that answers in 200 ms with a window of 5 (25
// messages a second) to a client with a window of 50. Parts answered
// RateLimited are offered again as soon as the client has a bind that
// does not rest (looked at every 10 ms, as a queue would offer them),
// with the default rest (Config.Throttled, 1 s). Run with -benchtime 1x:
// each iteration is the 120 messages.
func BenchmarkThrottled120(b *testing.B) {
	b.Run("every25th", func(b *testing.B) {
		benchThrottled(b, smppsim.Options{Fail: func(s smppsim.Submit) pdu.Status {
			if s.N%25 == 0 {
				return pdu.ESME_RTHROTTLED
			}
			return pdu.ESME_ROK
		}})
	})
	b.Run("window5", func(b *testing.B) {
		benchThrottled(b, smppsim.Options{Window: 5, RespDelay: 200 * time.Millisecond})
	})
}

func benchThrottled(b *testing.B, opts smppsim.Options) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sim := smppsim.New(opts)
		addr, err := sim.Start()
		if err != nil {
			b.Fatal(err)
		}
		c := smpp.New(smpp.Config{Addr: addr, SystemID: "msgkit", Window: 50}, smpp.Options{Store: memstore.New().SMPP()})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { c.Run(ctx, &countSink{}); close(done) }()
		for c.Bound() == 0 {
			time.Sleep(time.Millisecond) // waiting for the bind
		}
		pending := make([]sms.OutboundPart, 120)
		for k := range pending {
			pending[k] = part(fmt.Sprintf("t%d-%d", i, k), 0, "x")
			pending[k].Receiver = sms.MSISDN(fmt.Sprintf("+3864%07d", k))
		}
		b.StartTimer()
		start := time.Now()
		for len(pending) > 0 {
			var again []sms.OutboundPart
			for k, err := range c.Send(ctx, pending) {
				if err != nil {
					again = append(again, pending[k])
				}
			}
			if len(again) == len(pending) {
				time.Sleep(10 * time.Millisecond) // the queue's next look
			}
			pending = again
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/120msgs")
		b.ReportMetric(float64(len(sim.Refused())), "throttled/120msgs")
		b.StopTimer()
		cancel()
		<-done
		sim.Close()
	}
}
