package testsystemtest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testtext"
	"github.com/shopspring/decimal"
)

// BenchmarkSession runs sessions of 20 gates × 50 operators (1,000 test
// messages) against simnet to completion over st, empty: send, reports,
// receipts, judgement, callback. The simulated time advances half a
// second at a step; the work is what takes time.
func BenchmarkSession(b *testing.B, st testsystem.Store) {
	ctx := context.Background()
	clock := msgkittest.NewClock(day)
	hs := simnet.NewHandsets(clock.Now)
	var d testsystem.Dataset
	for i := range 50 {
		mnc := fmt.Sprintf("%02d", i+1)
		d.Operators = append(d.Operators, testsystem.Operator{ID: int64(i + 1), Name: "Operator " + mnc, Country: "Testland", MCC: "901", MNC: mnc})
		d.SMSCs = append(d.SMSCs, testsystem.SMSC{Address: "+88290100" + mnc, Operator: "Operator " + mnc, Country: "Testland", MCC: "901", MNC: mnc})
		if err := hs.Add(sms.MSISDN("+88291000"+mnc), "901"+mnc, "+88290100"+mnc); err != nil {
			b.Fatal(err)
		}
	}
	nets := map[int64]*simnet.Network{}
	var gates []int64
	for g := int64(1); g <= 20; g++ {
		d.Gates = append(d.Gates, testsystem.Gate{ID: g, Name: "gate-" + strconv.FormatInt(g, 10), Price: decimal.RequireFromString("0.01"), Currency: "EUR"})
		nets[g] = simnet.New(simnet.Options{Clock: clock.Now, Handsets: hs, Seed: uint64(g),
			Default: simnet.Outcome{AcceptDelay: 100 * time.Millisecond, Delay: time.Second, Jitter: time.Second}})
		gates = append(gates, g)
	}
	if err := st.Load(ctx, d); err != nil {
		b.Fatal(err)
	}
	sys := testsystem.New(st, st, hs, func(id int64) (sms.Upstream, bool) { n, ok := nets[id]; return n, ok },
		testsystem.Options{Clock: clock.Now, DailyLimit: 1 << 30, TimeLimit: 10 * time.Second})
	req := testsystem.Request{Username: "bench", Test: "bench", Gates: gates, MCCs: []string{"901"}, Owner: testsystem.OwnerPlatform,
		Lang: "en", TextType: testtext.GSM, Callback: "https://customer.example/cb"}
	b.ReportAllocs()
	for b.Loop() {
		sess, _, err := sys.Send(ctx, "bench", req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			clock.Advance(500 * time.Millisecond)
			for _, n := range nets {
				if _, err := n.RunDue(ctx, sys, clock.Now()); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := sys.Step(ctx); err != nil {
				b.Fatal(err)
			}
			s, _ := st.Session(ctx, "bench", sess.ID)
			if s.Status == testsystem.SessionComplete {
				break
			}
		}
	}
	b.StopTimer()
	page, err := st.Results(ctx, "bench", 1, msgkit.ListQuery{})
	if err != nil {
		b.Fatal(err)
	}
	delivered := 0
	for _, r := range page.Items {
		if r.Status == testsystem.StatusDelivered {
			delivered++
		}
	}
	if page.Total != 1000 || delivered != 1000 {
		b.Fatalf("%d results, %d delivered", page.Total, delivered)
	}
}
