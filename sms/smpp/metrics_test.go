package smpp_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// metered starts a simulator and a client registering on a registry of
// its own.
func metered(t *testing.T, opts smppsim.Options, cfg smpp.Config) (*env, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	return startWith(t, opts, cfg, smpp.Options{Metrics: reg}), reg
}

// value is the value of the series of name with labels (connection
// "sim" and then outcome, when given), a histogram's sample count.
func value(t *testing.T, reg *prometheus.Registry, name string, outcome ...string) float64 {
	t.Helper()
	labels := []string{"connection", "sim"}
	if len(outcome) > 0 {
		labels = append(labels, "outcome", outcome[0])
	}
	return msgkittest.MustMetric(t, reg, name, labels...)
}

// waitValue waits until the series holds want.
func waitValue(t *testing.T, reg *prometheus.Registry, want float64, name string, outcome ...string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); value(t, reg, name, outcome...) != want; time.Sleep(5 * time.Millisecond) { // waiting for a condition
		if time.Now().After(deadline) {
			t.Fatalf("%s %v = %v, want %v", name, outcome, value(t, reg, name, outcome...), want)
		}
	}
}

// TestMetricsBinds: every bind bound counts, receivers included, and
// none once the client stops.
func TestMetricsBinds(t *testing.T) {
	e, reg := metered(t, smppsim.Options{}, smpp.Config{Mode: pdu.Transmitter, Binds: 2, Receivers: 1})
	waitValue(t, reg, 3, "msgkit_smpp_binds_up")
	if e.client.Bound() != 2 {
		t.Errorf("%d binds able to send, want 2", e.client.Bound())
	}
	e.stop()
	if got := value(t, reg, "msgkit_smpp_binds_up"); got != 0 {
		t.Errorf("%v binds up after Run ended", got)
	}
}

// TestMetricsWindow: the submit_sm a stalled SMSC holds fill the binds'
// windows, which empty as it answers; each answer's wait is observed.
func TestMetricsWindow(t *testing.T) {
	e, reg := metered(t, smppsim.Options{RespDelay: 20 * time.Millisecond}, smpp.Config{Binds: 2, Window: 4})
	e.waitBound(t, 2)
	e.sim.Stall(true)
	var parts []sms.OutboundPart
	for i := range 12 {
		parts = append(parts, part(fmt.Sprintf("w%d", i), 0, "x"))
	}
	sent := make(chan []error, 1)
	go func() { sent <- send(t, e, parts...) }()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := e.sim.Wait(ctx, func() bool { return e.sim.Outstanding() == 8 }); err != nil {
		t.Fatalf("%d submit_sm outstanding, want both windows' 8", e.sim.Outstanding())
	}
	if got := value(t, reg, "msgkit_smpp_window_in_use"); got != 8 {
		t.Errorf("window in use %v, want 8", got)
	}
	e.sim.Stall(false)
	if errs := <-sent; errs != nil {
		t.Fatal(errs)
	}
	if got := value(t, reg, "msgkit_smpp_window_in_use"); got != 0 {
		t.Errorf("window in use %v once all is answered", got)
	}
	// 12 answers, each at least the simulator's 20 ms after its request.
	if got := value(t, reg, "msgkit_smpp_submit_seconds"); got != 12 {
		t.Errorf("%v latencies, want 12", got)
	}
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "msgkit_smpp_submit_seconds" {
			continue
		}
		for _, b := range mf.GetMetric()[0].GetHistogram().GetBucket() {
			if b.GetUpperBound() < 0.02 && b.GetCumulativeCount() != 0 {
				t.Errorf("%d answers within %vs, quicker than the simulator answers", b.GetCumulativeCount(), b.GetUpperBound())
			}
		}
	}
}

// TestMetricsThrottled: ESME_RTHROTTLED and ESME_RMSGQFUL count, other
// refusals do not.
func TestMetricsThrottled(t *testing.T) {
	e, reg := metered(t, smppsim.Options{
		QueueFull: func(n int) bool { return n == 3 },
		Fail: func(s smppsim.Submit) pdu.Status {
			return map[string]pdu.Status{"38640000001": pdu.ESME_RTHROTTLED, "38640000002": pdu.ESME_RSYSERR, "38640000003": pdu.ESME_RINVDSTADR}[s.Dest().Addr]
		},
	}, smpp.Config{Throttled: time.Hour})
	var parts []sms.OutboundPart
	for i, to := range []string{"+38640123456", "+38640000001", "+38640123456", "+38640000002", "+38640000003"} {
		p := part(fmt.Sprint("t", i), 0, "x")
		p.Receiver = sms.MSISDN(to)
		parts = append(parts, p)
	}
	errs := send(t, e, parts...)
	if errs == nil || errs[0] != nil {
		t.Fatalf("Send: %v", errs)
	}
	if got := value(t, reg, "msgkit_smpp_throttled_total"); got != 2 {
		t.Errorf("throttled %v, want 2 (%v)", got, errs)
	}
	if got := value(t, reg, "msgkit_smpp_submit_seconds"); got != 5 {
		t.Errorf("%v latencies, want 5: every answer, whatever its status", got)
	}
}

// deliverReceipt has the simulator send a receipt of id with stat.
func deliverReceipt(t *testing.T, sim *smppsim.Server, key, id, stat string) {
	t.Helper()
	d := pdu.DeliverSM{ShortMessage: pdu.ShortMessage{ESMClass: pdu.ESMClassReceipt,
		Message: smpp.FormatReceiptText(smpp.Receipt{ID: id, Sub: 1, Dlvrd: 1, Stat: stat})}}
	if err := sim.Deliver("msgkit", key, d); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsReceipts: a receipt of a part is matched, a second one of a
// finished part is redelivered, one of no part is unmatched once the
// timeout passes, one that does not read is unreadable.
func TestMetricsReceipts(t *testing.T) {
	e, reg := metered(t, smppsim.Options{}, smpp.Config{Timeout: 300 * time.Millisecond})
	if errs := send(t, e, part("m1", 0, "x")); errs != nil {
		t.Fatal(errs)
	}
	e.sink.wait(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := e.sim.WaitAcked(ctx, 1); err != nil {
		t.Fatal(err)
	}
	id := e.sim.Submits()[0].MessageID
	deliverReceipt(t, e.sim, "again", id, "DELIVRD")
	deliverReceipt(t, e.sim, "late", id, "ENROUTE") // any receipt of a finished part
	deliverReceipt(t, e.sim, "none", "999999", "DELIVRD")
	if _, err := e.sim.WaitAcked(ctx, 4); err != nil {
		t.Fatal(err)
	}
	d := pdu.DeliverSM{ShortMessage: pdu.ShortMessage{ESMClass: pdu.ESMClassReceipt, Message: []byte("no receipt here")}}
	if err := e.sim.Deliver("msgkit", "garbled", d); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.Wait(ctx, func() bool { return slices.Contains(e.sim.Refusals(), "garbled") }); err != nil {
		t.Fatal("the unreadable receipt was not refused")
	}
	for outcome, want := range map[string]float64{"matched": 1, "redelivered": 2, "unmatched": 1, "unreadable": 1} {
		if got := value(t, reg, "msgkit_smpp_receipts_total", outcome); got != want {
			t.Errorf("%s %v, want %v", outcome, got, want)
		}
	}
}

// TestMetricsReceiptNotStored: a final receipt whose event was not
// stored leaves its part unfinished, so the SMSC's redelivery is matched,
// not a repeat.
func TestMetricsReceiptNotStored(t *testing.T) {
	e, reg := metered(t, smppsim.Options{}, smpp.Config{})
	e.sink.setFail(true)
	if errs := send(t, e, part("r", 0, "x")); errs != nil {
		t.Fatal(errs)
	}
	waitValue(t, reg, 1, "msgkit_smpp_receipts_total", "matched")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := e.sim.Wait(ctx, func() bool { return len(e.sim.Refusals()) == 1 }); err != nil {
		t.Fatal("the receipt was not refused")
	}
	e.sink.setFail(false)
	e.sim.DropAll()
	if _, err := e.sim.WaitAcked(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if m, r := value(t, reg, "msgkit_smpp_receipts_total", "matched"), value(t, reg, "msgkit_smpp_receipts_total", "redelivered"); m != 2 || r != 0 {
		t.Errorf("matched %v, redelivered %v; want 2 and 0", m, r)
	}
}

// TestMetricsRegistry: clients of two connections share a registry, one
// series each; a second client of one connection panics; without a
// registry nothing is registered.
func TestMetricsRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	store := memstore.New().SMPP()
	smpp.New(smpp.Config{Name: "a", Addr: "127.0.0.1:1"}, smpp.Options{Store: store, Metrics: reg})
	smpp.New(smpp.Config{Addr: "127.0.0.1:2"}, smpp.Options{Store: store, Metrics: reg}) // named by Addr
	if n := testutil.CollectAndCount(reg, "msgkit_smpp_binds_up"); n != 2 {
		t.Errorf("%d binds_up series, want one a connection", n)
	}
	if n := testutil.CollectAndCount(reg, "msgkit_smpp_receipts_total"); n != 8 {
		t.Errorf("%d receipts series, want 4 outcomes of 2 connections", n)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second client of connection a registered")
			}
		}()
		smpp.New(smpp.Config{Name: "a", Addr: "127.0.0.1:3"}, smpp.Options{Store: store, Metrics: reg})
	}()
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 2*(4+4) {
		t.Errorf("%d series, %v; want 2 connections' 4 of one series and 4 receipt outcomes", n, err)
	}
	want := `
		# HELP msgkit_smpp_binds_up SMPP binds currently bound (transceivers, transmitters and receivers), per SMSC connection.
		# TYPE msgkit_smpp_binds_up gauge
		msgkit_smpp_binds_up{connection="127.0.0.1:2"} 0
		msgkit_smpp_binds_up{connection="a"} 0
		# HELP msgkit_smpp_throttled_total SMPP submit_sm answered ESME_RTHROTTLED or ESME_RMSGQFUL, each resting its bind.
		# TYPE msgkit_smpp_throttled_total counter
		msgkit_smpp_throttled_total{connection="127.0.0.1:2"} 0
		msgkit_smpp_throttled_total{connection="a"} 0
		# HELP msgkit_smpp_window_in_use SMPP submit_sm in the windows of the connection's binds: sent and not answered yet.
		# TYPE msgkit_smpp_window_in_use gauge
		msgkit_smpp_window_in_use{connection="127.0.0.1:2"} 0
		msgkit_smpp_window_in_use{connection="a"} 0
	`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "msgkit_smpp_binds_up", "msgkit_smpp_throttled_total", "msgkit_smpp_window_in_use"); err != nil {
		t.Error(err)
	}
	// Without a registry, no cost: New registers nothing anywhere.
	smpp.New(smpp.Config{Name: "a", Addr: "127.0.0.1:4"}, smpp.Options{Store: store})
}
