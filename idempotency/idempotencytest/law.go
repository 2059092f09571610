package idempotencytest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
	"pgregory.net/rapid"
)

// testServiceLaw runs random interleavings of requests with keys against
// the Service: requests begin, succeed (Finish) or are refused (Abandon)
// in any order, and time passes by leases and days. The law: while a
// key lives, its request succeeds at most once; every replay gives that
// success's answer; only one request at a time holds a key's running
// lease; and a request with another fingerprint never acts while the
// key lives.
func testServiceLaw(t *testing.T, s Store) {
	var run atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		// Each run has scopes of its own: the store is shared by runs.
		prefix := fmt.Sprintf("run%d/", run.Add(1))
		clk := msgkittest.NewClock(t0)
		var refs atomic.Int64
		const lease, ttl = time.Minute, time.Hour
		svc := idempotency.NewService(s, idempotency.Options{
			Clock: clk.Now, TTL: ttl, Lease: lease,
			NewRef: func() string { return fmt.Sprint(prefix, "ref-", refs.Add(1)) },
		})
		type slot struct{ scope, key string }
		type claim struct {
			slot  slot
			claim idempotency.Claim
			body  string
		}
		type success struct {
			body    string
			fp      idempotency.Fingerprint
			expires time.Time
		}
		var (
			open      []claim              // requests that act and have not ended
			succeeded = map[slot]success{} // the success of each live key
			n         int
		)
		ctx := context.Background()
		now := func() time.Time { return clk.Now().UTC().Truncate(time.Microsecond) }
		rt.Repeat(map[string]func(*rapid.T){
			"begin": func(rt *rapid.T) {
				sl := slot{prefix + rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "scope"), rapid.SampledFrom([]string{"k1", "k2"}).Draw(rt, "key")}
				fp := rapid.SampledFrom([]idempotency.Fingerprint{fpA, fpB}).Draw(rt, "fingerprint")
				c, err := svc.Begin(ctx, request(sl.scope, idempotency.Key(sl.key), fp))
				prev, done := succeeded[sl]
				if done && !now().Before(prev.expires) {
					delete(succeeded, sl)
					done = false
				}
				switch {
				case err == nil && c.Replay:
					if !done || string(c.Record.Answer.Body) != prev.body || prev.fp != fp {
						rt.Fatalf("replay of %v gave %q (fingerprint ok %v); the success was %+v (live %v)", sl, c.Record.Answer.Body, prev.fp == fp, prev, done)
					}
				case err == nil:
					if done {
						rt.Fatalf("%v acts again while its success %+v lives", sl, prev)
					}
					for _, o := range open {
						if o.slot == sl && now().Before(o.claim.Record.LeaseUntil) {
							rt.Fatalf("%v acts while another request holds its lease until %v", sl, o.claim.Record.LeaseUntil)
						}
					}
					n++
					open = append(open, claim{slot: sl, claim: c, body: fmt.Sprint("answer ", n)})
				case msgkit.CodeOf(err) == idempotency.CodeKeyReused:
					if c.Record.Fingerprint == fp {
						rt.Fatalf("%v refused as reused with the same fingerprint", sl)
					}
				case msgkit.CodeOf(err) == idempotency.CodeInProgress:
					if c.Record.State != idempotency.Pending || !now().Before(c.Record.LeaseUntil) {
						rt.Fatalf("%v in progress with the record %+v", sl, c.Record)
					}
				default:
					rt.Fatalf("Begin(%v): %v", sl, err)
				}
			},
			"succeed": func(rt *rapid.T) {
				if len(open) == 0 {
					return // no request runs
				}
				i := rapid.IntRange(0, len(open)-1).Draw(rt, "request")
				o := open[i]
				open = append(open[:i], open[i+1:]...)
				err := svc.Finish(ctx, o.claim, idempotency.Answer{Status: 201, Body: []byte(o.body)})
				switch {
				case err == nil:
					if prev, ok := succeeded[o.slot]; ok && now().Before(prev.expires) {
						rt.Fatalf("%v succeeded twice while it lived: %q and %q", o.slot, prev.body, o.body)
					}
					succeeded[o.slot] = success{body: o.body, fp: o.claim.Record.Fingerprint, expires: o.claim.Record.Expires}
				case msgkit.CodeOf(err) == idempotency.CodeClaimLost:
				default:
					rt.Fatalf("Finish: %v", err)
				}
			},
			"refuse": func(rt *rapid.T) {
				if len(open) == 0 {
					return // no request runs
				}
				i := rapid.IntRange(0, len(open)-1).Draw(rt, "request")
				if err := svc.Abandon(ctx, open[i].claim); err != nil {
					rt.Fatalf("Abandon: %v", err)
				}
				open = append(open[:i], open[i+1:]...)
			},
			"wait": func(rt *rapid.T) {
				clk.Advance(rapid.SampledFrom([]time.Duration{time.Second, lease / 2, lease, ttl / 2, ttl}).Draw(rt, "wait"))
			},
		})
	})
}
