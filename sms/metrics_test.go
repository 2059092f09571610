package sms_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"
)

// wantMetric checks the value of a metric.
func wantMetric(t *testing.T, reg prometheus.Gatherer, want float64, name string, labels ...string) {
	t.Helper()
	if got := msgkittest.MustMetric(t, reg, name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// The gateway counts every submission it answers by result code, and the
// parts it accepts, and those it leaves to the store's queue.
func TestGatewayMetrics(t *testing.T) {
	f := newKeyedFixture(t, nil, nil)
	reg := prometheus.NewRegistry()
	gw := sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence(), Keys: f.keys, Metrics: reg})
	ctx := t.Context()
	// Every code is there from the start, at zero: a rate over it has a
	// series before the first rejection.
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, f := range families {
		if f.GetName() == "msgkit_sms_submissions_total" {
			series = len(f.GetMetric())
		}
	}
	if series != 18 {
		t.Fatalf("%d series of msgkit_sms_submissions_total, want 18: accepted, replayed, conflict, 101 to 115", series)
	}

	long := valid()
	long.Text = strings.Repeat("x", 200) // two parts
	if _, err := gw.Submit(ctx, long); err != nil {
		t.Fatal(err)
	}
	keyedSub := keyed(idempotency.Key("order-1"))
	for range 2 { // accepted, then replayed
		if _, err := gw.Submit(ctx, keyedSub); err != nil {
			t.Fatal(err)
		}
	}
	other := keyed(idempotency.Key("order-1"))
	other.Text = "another text" // the same key with another submission
	wrong := valid()
	wrong.Password = "wrong"
	noType := valid()
	noType.Type = ""
	for _, sub := range []sms.Submission{other, wrong, noType, noType} {
		if _, err := gw.Submit(ctx, sub); err == nil {
			t.Fatalf("%+v accepted", sub)
		}
	}
	if _, err := gw.SubmitFor(ctx, "shop", "campaign-1", valid()); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.SubmitFor(ctx, "shop", "campaign-1", valid()); msgkit.KindOf(err) != msgkit.Conflict {
		t.Fatalf("a campaign's message accepted twice: %v", err)
	}
	gw.Refused(sms.CodeBadContentFormat.Errorf("the request body is not a JSON object"))

	for _, c := range []struct {
		code string
		want float64
	}{{"accepted", 3}, {"replayed", 1}, {"conflict", 2}, {"103", 1}, {"110", 2}, {"109", 1}, {"101", 0}} {
		wantMetric(t, reg, c.want, "msgkit_sms_submissions_total", "code", c.code)
	}
	// Without a transmitter in memory every accepted part is queued for
	// a claim.
	wantMetric(t, reg, 4, "msgkit_sms_parts_total", "event", "accepted")
	wantMetric(t, reg, 4, "msgkit_sms_parts_total", "event", "queued")

	// A store that fails is 101, as the answer is.
	reg2 := prometheus.NewRegistry()
	broken := sms.NewGateway(failingStore{f.store}, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, Metrics: reg2})
	if _, err := broken.Submit(ctx, valid()); err == nil {
		t.Fatal("accepted by a failing store")
	}
	wantMetric(t, reg2, 1, "msgkit_sms_submissions_total", "code", "101")
}

// Parts a gateway hands to its transmitter in memory are accepted, not
// queued; the gateway and the transmitter count in the same
// msgkit_sms_parts_total.
func TestGatewayMetricsHandingOver(t *testing.T) {
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{})
	reg := prometheus.NewRegistry()
	f.tx = sms.NewTransmitter(f.store, f.up, sms.TransmitterOptions{Clock: f.clock.Now, Metrics: reg})
	f.gw = sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, NewID: sequence(), Transmitter: f.tx, Metrics: reg})
	f.submitN(t, 2)
	wantMetric(t, reg, 2, "msgkit_sms_parts_total", "event", "accepted")
	wantMetric(t, reg, 0, "msgkit_sms_parts_total", "event", "queued")
	if n := transmit(t, f.tx); n != 2 {
		t.Fatalf("handed over %d parts", n)
	}
	wantMetric(t, reg, 2, "msgkit_sms_parts_total", "event", "handed_over")
	// Two gateways on one registry are a wiring mistake.
	defer func() {
		if recover() == nil {
			t.Error("a second gateway registered on the same registry")
		}
	}()
	sms.NewGateway(f.store, sms.GatewayOptions{Metrics: reg})
}

// The transmitter counts the parts the network took, refused and those
// to try again, and reads the queue's depth and lag from the store.
func TestTransmitterMetrics(t *testing.T) {
	f := newTxFixture(t, simnet.Options{}, sms.TransmitterOptions{})
	reg := prometheus.NewRegistry()
	// Of each round's parts (by message id) the first is taken, the
	// second refused and the third fails for now.
	up := upstreamFunc(func(ctx context.Context, parts []sms.OutboundPart) []error {
		errs := make([]error, len(parts))
		for i := range parts {
			switch i % 3 {
			case 1:
				errs[i] = &sms.Refusal{Reason: "no route"}
			case 2:
				errs[i] = errors.New("connection reset")
			}
		}
		return errs
	})
	tx := sms.NewTransmitter(f.store, up, sms.TransmitterOptions{Clock: f.clock.Now, Metrics: reg})
	wantMetric(t, reg, 0, "msgkit_sms_queue_parts")
	f.submitN(t, 3)
	wantMetric(t, reg, 3, "msgkit_sms_queue_parts")
	wantMetric(t, reg, 0, "msgkit_sms_queue_oldest_seconds")
	f.clock.Advance(5 * time.Second)
	wantMetric(t, reg, 5, "msgkit_sms_queue_oldest_seconds")

	if _, err := tx.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantMetric(t, reg, 1, "msgkit_sms_parts_total", "event", "handed_over")
	wantMetric(t, reg, 1, "msgkit_sms_parts_total", "event", "failed")
	wantMetric(t, reg, 1, "msgkit_sms_parts_total", "event", "retried")
	// The retry waits for its backoff: queued, not due.
	wantMetric(t, reg, 1, "msgkit_sms_queue_parts")
	wantMetric(t, reg, 0, "msgkit_sms_queue_oldest_seconds")
	f.clock.Advance(time.Hour)
	if got := msgkittest.MustMetric(t, reg, "msgkit_sms_queue_oldest_seconds"); got < 3000 || got > 3600 {
		t.Errorf("the retry due for %vs, want most of an hour", got)
	}
}

// brokenBacklogs is a store whose backlogs cannot be read.
type brokenBacklogs struct{ storeOf }

type storeOf interface {
	sms.TransmitterStore
	sms.OutboxStore
}

var errUnreachable = msgkit.New(msgkit.Unavailable, "unreachable", "the database cannot be reached")

func (brokenBacklogs) OutboundBacklog(context.Context, time.Time) (sms.Backlog, error) {
	return sms.Backlog{}, errUnreachable
}

func (brokenBacklogs) OutboxBacklog(context.Context, time.Time) (sms.Backlog, error) {
	return sms.Backlog{}, errUnreachable
}

// A store that fails makes the gauges read from it invalid for the
// scrape: the error names them, and nothing panics or waits.
func TestBacklogMetricsOnStoreError(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name     string
		register func(reg prometheus.Registerer)
	}{
		{"msgkit_sms_queue_parts", func(reg prometheus.Registerer) {
			sms.NewTransmitter(brokenBacklogs{f.store}, &recorder{}, sms.TransmitterOptions{Metrics: reg})
		}},
		{"msgkit_sms_report_outbox_reports", func(reg prometheus.Registerer) {
			sms.NewDispatcher(brokenBacklogs{f.store}, posterFunc(func(context.Context, string, []byte) error { return nil }), sms.DispatcherOptions{Metrics: reg})
		}},
	} {
		reg := prometheus.NewRegistry()
		c.register(reg)
		_, err := reg.Gather()
		if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "cannot be reached") {
			t.Errorf("gathering %s from a broken store: %v", c.name, err)
		}
	}
}

// The dispatcher counts its attempts by outcome, and reads the outbox's
// depth and lag from the store.
func TestDispatcherMetrics(t *testing.T) {
	f := newFixture(t)
	reg := prometheus.NewRegistry()
	d := sms.NewDispatcher(f.store, posterFunc(func(ctx context.Context, url string, _ []byte) error {
		switch {
		case strings.Contains(url, "gone"):
			return msgkit.New(msgkit.Invalid, "dlr_refused", "404")
		case strings.Contains(url, "busy"):
			return msgkit.New(msgkit.Unavailable, "dlr_unreachable", "503")
		}
		return nil
	}), sms.DispatcherOptions{Clock: f.clock.Now, Metrics: reg, MaxAttempts: 2, BaseBackoff: time.Second, MaxBackoff: time.Second, Jitter: func() float64 { return 0.999 }})
	wantMetric(t, reg, 0, "msgkit_sms_report_outbox_reports")
	for _, url := range []string{"https://ok.example/dlr", "https://gone.example/dlr", "https://busy.example/dlr"} {
		f.queue(t, url, sms.StatusDelivered)
	}
	f.clock.Advance(2 * time.Second)
	wantMetric(t, reg, 3, "msgkit_sms_report_outbox_reports")
	wantMetric(t, reg, 2, "msgkit_sms_report_outbox_oldest_seconds")

	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantMetric(t, reg, 1, "msgkit_sms_report_attempts_total", "outcome", "delivered")
	wantMetric(t, reg, 1, "msgkit_sms_report_attempts_total", "outcome", "refused")
	wantMetric(t, reg, 1, "msgkit_sms_report_attempts_total", "outcome", "retried")
	wantMetric(t, reg, 0, "msgkit_sms_report_attempts_total", "outcome", "given_up")
	wantMetric(t, reg, 1, "msgkit_sms_report_outbox_reports")
	wantMetric(t, reg, 0, "msgkit_sms_report_outbox_oldest_seconds") // backing off

	f.clock.Advance(time.Minute)
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	wantMetric(t, reg, 1, "msgkit_sms_report_attempts_total", "outcome", "given_up") // its second attempt, the last
	wantMetric(t, reg, 0, "msgkit_sms_report_outbox_reports")
}

// A host whose line is full is held back: the gauges count the line and
// the reports it holds while it is full, and the reports it could not
// take are counted as put off.
func TestDispatcherHeldBackMetrics(t *testing.T) {
	f := newFixture(t)
	for range 3 {
		f.queue(t, "https://slow.example/dlr", sms.StatusDelivered)
	}
	reg := prometheus.NewRegistry()
	entered, release := make(chan struct{}, 3), make(chan struct{})
	d := sms.NewDispatcher(f.store, posterFunc(func(ctx context.Context, url string, _ []byte) error {
		entered <- struct{}{}
		<-release
		return nil
	}), sms.DispatcherOptions{Clock: f.clock.Now, Metrics: reg, PerHost: 1, MaxHeldPerHost: 1})
	wantMetric(t, reg, 0, "msgkit_sms_report_lines_held_back")
	done := make(chan error)
	go func() { _, err := d.RunOnce(t.Context()); done <- err }()
	<-entered
	wantMetric(t, reg, 1, "msgkit_sms_report_lines_held_back")
	wantMetric(t, reg, 1, "msgkit_sms_report_held_back_reports")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	wantMetric(t, reg, 2, "msgkit_sms_reports_put_off_total", "reason", "line_full")
	wantMetric(t, reg, 0, "msgkit_sms_reports_put_off_total", "reason", "stopping")
	wantMetric(t, reg, 0, "msgkit_sms_report_lines_held_back")
	wantMetric(t, reg, 0, "msgkit_sms_report_held_back_reports")
}

// Without Metrics nothing is registered anywhere, and everything works.
func TestNoMetrics(t *testing.T) {
	f := newFixture(t)
	tx := sms.NewTransmitter(f.store, &recorder{}, sms.TransmitterOptions{Clock: f.clock.Now})
	gw := sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, Transmitter: tx})
	if _, err := gw.Submit(t.Context(), valid()); err != nil {
		t.Fatal(err)
	}
	gw.Refused(sms.CodeBadContentFormat.Errorf("not JSON"))
	if n := transmit(t, tx); n != 1 {
		t.Fatalf("handed over %d", n)
	}
}
