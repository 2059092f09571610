package smpp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// parts are n one-part messages named prefix0, prefix1, ...
func parts(prefix string, n int) []sms.OutboundPart {
	ps := make([]sms.OutboundPart, n)
	for i := range ps {
		ps[i] = part(fmt.Sprint(prefix, i), 0, "x")
	}
	return ps
}

// A window's answers throttled together are one episode: the bind rests
// Throttled once, not doubled for each answer.
func TestThrottlingEpisodeRestsOnce(t *testing.T) {
	for _, st := range []pdu.Status{pdu.ESME_RTHROTTLED, pdu.ESME_RMSGQFUL} {
		t.Run(st.String(), func(t *testing.T) {
			clock := msgkittest.NewClock(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
			e := startClocked(t, smppsim.Options{
				RespDelay: 20 * time.Millisecond, // the window's answers come together
				Fail: func(s smppsim.Submit) pdu.Status {
					if s.N >= 10 && s.N < 30 {
						return st
					}
					return pdu.ESME_ROK
				},
			}, smpp.Config{Window: 50, Throttled: time.Minute}, clock.Now)
			errs := send(t, e, parts("a", 50)...)
			limited := 0
			for _, err := range errs {
				if err != nil && msgkit.KindOf(err) == msgkit.RateLimited {
					limited++
				}
			}
			if limited != 20 || len(e.sim.Refused()) != 20 {
				t.Fatalf("%d RateLimited, %d refused; want 20", limited, len(e.sim.Refused()))
			}
			if errs := send(t, e, part("b", 0, "x")); errs == nil || msgkit.KindOf(errs[0]) != msgkit.RateLimited {
				t.Fatalf("a bind that should rest: %v", errs)
			}
			clock.Advance(time.Minute)
			if errs := send(t, e, part("c", 0, "x")); errs != nil {
				t.Fatalf("after one Throttled of rest, 20 throttled answers of one window still rest the bind: %v", errs)
			}
		})
	}
}

// A client whose window is larger than the SMSC's shrinks it: 200
// messages through an SMSC with a window of 5 take a few rests, not one
// for every window the client fills, and throttling stops once the
// window fits.
func TestWindowShrinksToTheSMSCs(t *testing.T) {
	clock := msgkittest.NewClock(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
	e := startClocked(t, smppsim.Options{Window: 5, RespDelay: 2 * time.Millisecond}, smpp.Config{Window: 50, Throttled: time.Second}, clock.Now)
	pending := parts("w", 200)
	rests := 0
	for len(pending) > 0 {
		if rests > 40 {
			t.Fatalf("%d rests and %d messages still to go; %d throttled answers", rests, len(pending), len(e.sim.Refused()))
		}
		var again []sms.OutboundPart
		for i, err := range send(t, e, pending...) {
			if err != nil {
				if msgkit.KindOf(err) != msgkit.RateLimited {
					t.Fatal(err)
				}
				again = append(again, pending[i])
			}
		}
		if pending = again; len(pending) > 0 {
			clock.Advance(time.Second) // the rest's end, by the client's clock
			rests++
		}
	}
	if refused := len(e.sim.Refused()); rests > 8 || refused > 90 {
		t.Errorf("200 messages through a window of 5: %d rests, %d throttled answers", rests, refused)
	}
	t.Logf("%d rests, %d throttled answers", rests, len(e.sim.Refused()))
}
