package pgstore

import (
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit/inbound"
	"github.com/msgkit/msgkit/inbound/inboundtest"
	"github.com/msgkit/msgkit/sms"
)

func TestInboundContract(t *testing.T) {
	t.Parallel()
	inboundtest.Run(t, func(t *testing.T) inboundtest.Fixture {
		db := newTestDB(t)
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS()}
	})
}

// The listing covers every attribute inbound.ListSpec lets a query filter
// or sort by, with its types.
func TestInboundListSpec(t *testing.T) {
	t.Parallel()
	for attr, typ := range inbound.ListSpec.Filter {
		if a, ok := inboundTable.Attrs[attr]; !ok || a.Type != typ {
			t.Errorf("attribute %s: %+v, want type %v", attr, a, typ)
		}
	}
	for _, attr := range inbound.ListSpec.Sort {
		if _, ok := inboundTable.Attrs[attr]; !ok {
			t.Errorf("sort %s: no column", attr)
		}
	}
}

func BenchmarkInboundRouteKeep(b *testing.B) {
	inboundtest.Bench(b, func(b *testing.B) inboundtest.Fixture {
		db := newTestDB(b)
		return inboundtest.Fixture{Store: db.Inbound(), Outbox: db.SMS(), Routes: db.Routing()}
	})
}

// ForgetFinished removes inbound messages received before its cutoff
// whose delivery is done, with the delivery, and no other.
func TestForgetInbound(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	ctx := t.Context()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	keep := func(i int, state inbound.State, routed bool) inbound.Message {
		m := inbound.Message{ID: inbound.NewID(t0.Add(time.Duration(i) * time.Minute)), Conn: "simnet", Source: "1", Dest: "2", DCS: "GSM", Text: "x",
			Parts: 1, Total: 1, ReceivedAt: t0.Add(time.Duration(i) * time.Minute), State: state}
		var r *sms.Report
		if routed {
			m.URL = "https://x.example/mo"
			r = &sms.Report{MsgID: m.ID, URL: m.URL, Body: []byte("{}"), State: sms.ReportPending, NextAt: m.ReceivedAt, CreatedAt: m.ReceivedAt}
		}
		if err := db.Inbound().Keep(ctx, m, r); err != nil {
			t.Fatal(err)
		}
		return m
	}
	delivered := keep(0, inbound.Routed, true)
	pending := keep(1, inbound.Routed, true)
	unroutable := keep(2, inbound.Unroutable, false)
	recent := keep(10, inbound.Unroutable, false)
	rs, err := db.SMS().ClaimReports(ctx, t0.Add(time.Hour), time.Minute, 10)
	if err != nil || len(rs) != 2 {
		t.Fatalf("claimed %v %v", rs, err)
	}
	for _, r := range rs {
		if r.MsgID == delivered.ID {
			r.State, r.Attempts = sms.ReportDelivered, 1
			if errs := db.SMS().FinishReports(ctx, []sms.Report{r}); errs[0] != nil {
				t.Fatal(errs[0])
			}
		}
	}
	if _, err := db.SMS().ForgetFinished(ctx, t0.Add(5*time.Minute), 100); err != nil {
		t.Fatal(err)
	}
	left := queryStrings(t, db.pool, "SELECT id FROM inbound_messages ORDER BY id")
	if want := []string{string(pending.ID), string(recent.ID)}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v (removed %s, %s)", left, want, delivered.ID, unroutable.ID)
	}
	if n := countWhere(t, db.SMS(), "sms_reports", "msg_id = $1", string(delivered.ID)); n != 0 {
		t.Errorf("the removed message's delivery stays")
	}
}
