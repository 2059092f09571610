package sms_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
)

// submit sends a valid message with the mask and returns its id.
func (f *fixture) submit(t *testing.T, mask int64, text string) sms.MessageID {
	t.Helper()
	sub := valid()
	sub.DLRMask = &mask
	sub.Text = text
	sub.Custom = []byte(`{"order":7}`)
	acc, err := f.gw.Submit(t.Context(), sub)
	if err != nil {
		t.Fatal(err)
	}
	return acc.MsgID
}

// drain claims and finishes every due report, returning their bodies.
func (f *fixture) drain(t *testing.T) []sms.ReportBody {
	t.Helper()
	var out []sms.ReportBody
	for {
		rs, err := f.store.ClaimReports(t.Context(), f.clock.Now().Add(time.Hour), time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			return out
		}
		slices.SortFunc(rs, func(a, b sms.Report) int { return int(a.ID - b.ID) })
		for _, r := range rs {
			var b sms.ReportBody
			if err := json.Unmarshal(r.Body, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
			r.State = sms.ReportDelivered
			if err := f.store.FinishReport(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (f *fixture) event(t *testing.T, id sms.MessageID, part int, st sms.Status, code sms.DLRError) {
	t.Helper()
	f.clock.Advance(time.Second)
	if err := f.gw.HandleStatus(t.Context(), sms.StatusEvent{MsgID: id, PartNum: part, Status: st, ErrorCode: code, At: f.clock.Now()}); err != nil {
		t.Fatal(err)
	}
}

// Every mask from 0 to 31 gets exactly the events its bits allow, through
// every row of the delivery state table.
func TestReportsFollowTheMask(t *testing.T) {
	type step struct {
		st   sms.Status
		code sms.DLRError
	}
	flows := []struct {
		name   string
		steps  []step
		events []string
	}{
		{"buffered then delivered", []step{{sms.StatusAccepted, 0}, {sms.StatusTemporaryFailure, 29}, {sms.StatusTemporaryFailure, 29}, {sms.StatusDelivered, 0}},
			[]string{"SENT_TO_SMSC", "BUFFERED", "BUFFERED", "DELIVERED"}},
		{"delivered at once", []step{{sms.StatusDelivered, 0}}, []string{"DELIVERED"}},
		{"unknown subscriber", []step{{sms.StatusAccepted, 0}, {sms.StatusPermanentFailure, 1}}, []string{"SENT_TO_SMSC", "UNDELIVERED"}},
		{"rejected", []step{{sms.StatusRejected, 989}}, []string{"REJECTED"}},
		{"buffered then expired", []step{{sms.StatusTemporaryFailure, 29}, {sms.StatusExpired, 0}}, []string{"BUFFERED", "UNDELIVERED"}},
	}
	for _, fl := range flows {
		t.Run(fl.name, func(t *testing.T) {
			f := newFixture(t)
			for mask := int64(0); mask <= 31; mask++ {
				id := f.submit(t, mask, "hello")
				for i, s := range fl.steps {
					f.event(t, id, 0, s.st, s.code)
					if s.st != sms.StatusAccepted || i > 0 {
						continue
					}
					// An acceptance is stored only when its report is asked for.
					want := sms.StateSubmitted
					if sms.DLRMask(mask).Allows(sms.EventSentToSMSC) {
						want = sms.StateSentToSMSC
					}
					m, err := f.store.Message(t.Context(), id)
					if err != nil {
						t.Fatal(err)
					}
					if got := m.Parts[0].State; got != want {
						t.Errorf("mask %d: after the acceptance the part is %v, want %v", mask, got, want)
					}
				}
				// Duplicates and late events after the final one change nothing.
				f.event(t, id, 0, fl.steps[len(fl.steps)-1].st, 0)
				f.event(t, id, 0, sms.StatusAccepted, 0)
				var want, got []string
				for _, e := range fl.events {
					if ev, _ := sms.ParseEvent(e); sms.DLRMask(mask).Allows(ev) {
						want = append(want, e)
					}
				}
				for _, b := range f.drain(t) {
					got = append(got, b.Event)
				}
				if !slices.Equal(got, want) {
					t.Errorf("mask %d: reports %v, want %v", mask, got, want)
				}
			}
		})
	}
}

func TestReportBody(t *testing.T) {
	f := newFixture(t)
	submitted := f.clock.Now()
	id := f.submit(t, 31, strings.Repeat("a", 200)) // two parts
	f.event(t, id, 1, sms.StatusPermanentFailure, 1)
	f.event(t, id, 0, sms.StatusDelivered, 0)
	got := f.drain(t)
	want := []sms.ReportBody{
		{MsgID: id, Event: "UNDELIVERED", ErrorCode: 1, ErrorMessage: "subscriber unknown", PartNum: 1, NumParts: 2, AccountName: "shop",
			SendTime: submitted.Unix(), DLRTime: submitted.Add(time.Second).Unix(), Custom: json.RawMessage(`{"order":7}`)},
		{MsgID: id, Event: "DELIVERED", ErrorCode: 0, PartNum: 0, NumParts: 2, AccountName: "shop",
			SendTime: submitted.Unix(), DLRTime: submitted.Add(2 * time.Second).Unix(), Custom: json.RawMessage(`{"order":7}`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
	// errorMessage is absent, not empty, when there is no error.
	rs, _ := f.store.ClaimReports(t.Context(), f.clock.Now(), time.Minute, 10)
	if len(rs) != 0 {
		t.Fatalf("left over %v", rs)
	}
	id = f.submit(t, 1, "x")
	f.event(t, id, 0, sms.StatusDelivered, 0)
	rs, _ = f.store.ClaimReports(t.Context(), f.clock.Now(), time.Minute, 10)
	if len(rs) != 1 || strings.Contains(string(rs[0].Body), "errorMessage") || !strings.Contains(string(rs[0].Body), `"errorCode":0`) {
		t.Errorf("body %s", rs[0].Body)
	}
	m, _ := f.store.Message(t.Context(), id)
	if m.Parts[0].State != sms.StateDelivered {
		t.Errorf("part state %v", m.Parts[0].State)
	}
	if err := f.gw.HandleStatus(t.Context(), sms.StatusEvent{MsgID: "unknown", Status: sms.StatusDelivered}); err != nil {
		t.Errorf("an unknown message's event is an error: %v", err)
	}
}

func TestExpireDue(t *testing.T) {
	f := newFixture(t)
	buffered := f.submit(t, 31, "a")
	silent := f.submit(t, 2, "b")
	done := f.submit(t, 31, "c")
	f.event(t, buffered, 0, sms.StatusTemporaryFailure, 29)
	f.event(t, done, 0, sms.StatusDelivered, 0)
	f.drain(t)
	if n, err := f.gw.ExpireDue(t.Context()); err != nil || n != 0 {
		t.Fatalf("before validity ends: %d, %v", n, err)
	}
	f.clock.Advance(24 * time.Hour)
	if n, err := f.gw.ExpireDue(t.Context()); err != nil || n != 2 {
		t.Fatalf("ExpireDue = %d, %v; want the buffered and the silent part", n, err)
	}
	got := f.drain(t)
	if len(got) != 2 {
		t.Fatalf("reports %+v", got)
	}
	for _, b := range got {
		if b.Event != "UNDELIVERED" || b.ErrorCode != 996 || b.ErrorMessage != "validity expired" {
			t.Errorf("expiry report %+v", b)
		}
	}
	for _, id := range []sms.MessageID{buffered, silent} {
		m, _ := f.store.Message(t.Context(), id)
		if m.Parts[0].State != sms.StateUndelivered || m.Parts[0].ErrorCode != 996 {
			t.Errorf("%s: %+v", id, m.Parts[0])
		}
	}
	if n, _ := f.gw.ExpireDue(t.Context()); n != 0 {
		t.Errorf("expired parts expire again: %d", n)
	}
}

// posterFunc is a ReportPoster stub.
type posterFunc func(ctx context.Context, url string, body []byte) error

func (p posterFunc) PostReport(ctx context.Context, url string, body []byte) error {
	return p(ctx, url, body)
}

func (f *fixture) dispatcher(p sms.ReportPoster, change func(*sms.DispatcherOptions)) *sms.Dispatcher {
	o := sms.DispatcherOptions{Clock: f.clock.Now, Jitter: func() float64 { return 0.5 }, BaseBackoff: time.Second, MaxBackoff: time.Minute, MaxAttempts: 5, MaxAge: time.Hour}
	if change != nil {
		change(&o)
	}
	return sms.NewDispatcher(f.store, p, o)
}

func counts(t *testing.T, f *fixture) map[sms.ReportState]int {
	c, err := f.store.ReportCounts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDispatcherRetriesWithBackoff(t *testing.T) {
	f := newFixture(t)
	id := f.submit(t, 1, "x")
	f.event(t, id, 0, sms.StatusDelivered, 0)
	fails := 2
	var posted []time.Time
	d := f.dispatcher(posterFunc(func(ctx context.Context, url string, body []byte) error {
		posted = append(posted, f.clock.Now())
		if fails > 0 {
			fails--
			return msgkit.New(msgkit.Unavailable, "dlr_status", "503")
		}
		return nil
	}), nil)
	for range 20 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(250 * time.Millisecond)
	}
	if len(posted) != 3 {
		t.Fatalf("%d attempts, want 3", len(posted))
	}
	// Backoff 1 s then 2 s, jittered to 75% (Jitter 0.5 of the upper half).
	if d1, d2 := posted[1].Sub(posted[0]), posted[2].Sub(posted[1]); d1 < 750*time.Millisecond || d1 > time.Second || d2 < 1500*time.Millisecond || d2 > 1750*time.Millisecond {
		t.Errorf("waits %v and %v", d1, d2)
	}
	if c := counts(t, f); c[sms.ReportDelivered] != 1 || c[sms.ReportPending] != 0 {
		t.Errorf("counts %v", c)
	}
}

func TestDispatcherGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		attempts int
		change   func(*sms.DispatcherOptions)
	}{
		{"refused for good", msgkit.New(msgkit.Invalid, "dlr_status", "404"), 1, nil},
		{"attempts run out", msgkit.New(msgkit.Unavailable, "dlr_status", "503"), 5, nil},
		{"age runs out", msgkit.New(msgkit.Unavailable, "dlr_status", "503"), 3, func(o *sms.DispatcherOptions) { o.MaxAge = 4 * time.Second; o.MaxAttempts = 100 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			id := f.submit(t, 1, "x")
			f.event(t, id, 0, sms.StatusDelivered, 0)
			attempts := 0
			d := f.dispatcher(posterFunc(func(context.Context, string, []byte) error { attempts++; return tc.err }), tc.change)
			for range 200 {
				d.RunOnce(t.Context())
				f.clock.Advance(time.Second)
			}
			if attempts != tc.attempts {
				t.Errorf("%d attempts, want %d", attempts, tc.attempts)
			}
			if c := counts(t, f); c[sms.ReportGivenUp] != 1 || c[sms.ReportPending] != 0 {
				t.Errorf("counts %v: a report given up must be recorded", c)
			}
		})
	}
}

func TestDispatcherPerHostCapAndOrder(t *testing.T) {
	f := newFixture(t)
	const perHost = 3
	var (
		mu        sync.Mutex
		inFlight  = map[string]int{}
		maxFlight = map[string]int{}
		order     = map[sms.MessageID][]string{}
		release   = make(chan struct{})
	)
	var ids []sms.MessageID
	for i := range 12 {
		sub := valid()
		mask := int64(31)
		sub.DLRMask = &mask
		sub.DLRURL = []string{"https://a.example/dlr", "https://b.example/dlr"}[i%2]
		acc, err := f.gw.Submit(t.Context(), sub)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, acc.MsgID)
		f.event(t, acc.MsgID, 0, sms.StatusAccepted, 0)
		f.event(t, acc.MsgID, 0, sms.StatusDelivered, 0)
	}
	d := f.dispatcher(posterFunc(func(ctx context.Context, url string, body []byte) error {
		mu.Lock()
		inFlight[url]++
		maxFlight[url] = max(maxFlight[url], inFlight[url])
		var b sms.ReportBody
		json.Unmarshal(body, &b)
		order[b.MsgID] = append(order[b.MsgID], b.Event)
		mu.Unlock()
		<-release
		mu.Lock()
		inFlight[url]--
		mu.Unlock()
		return nil
	}), func(o *sms.DispatcherOptions) { o.PerHost = perHost })
	go func() {
		for range 24 {
			release <- struct{}{}
		}
	}()
	for range 3 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	for url, m := range maxFlight {
		if m > perHost {
			t.Errorf("%s had %d deliveries at once, cap %d", url, m, perHost)
		}
	}
	for _, id := range ids {
		if !slices.Equal(order[id], []string{"SENT_TO_SMSC", "DELIVERED"}) {
			t.Errorf("%s reports went out as %v", id, order[id])
		}
	}
}

// The outbox keeps an attempt's error as short valid UTF-8 without NUL,
// whatever the customer's server answered.
func TestDispatcherKeepsStorableErrors(t *testing.T) {
	f := newFixture(t)
	id := f.submit(t, 1, "x")
	f.event(t, id, 0, sms.StatusDelivered, 0)
	d := f.dispatcher(posterFunc(func(context.Context, string, []byte) error {
		return msgkit.New(msgkit.Unavailable, "dlr", "bad\x00byte \xff"+strings.Repeat("é", 400))
	}), nil)
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	rs, err := f.store.ClaimReports(t.Context(), f.clock.Now(), time.Minute, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("claim %v, %v", rs, err)
	}
	e := rs[0].LastError
	if strings.ContainsRune(e, 0) || !utf8.ValidString(e) || len(e) > 500 || !strings.Contains(e, "bad") {
		t.Errorf("LastError %q", e)
	}
}

// The report bodies as they are posted, with the injected ids: every
// event, with and without an error, with the custom object. The rules of
// the body are tested above (TestReportsFollowTheMask and others); the
// goldens keep its exact shape.
func TestReportBodiesGolden(t *testing.T) {
	f := newFixture(t)
	id := f.submit(t, 31, strings.Repeat("x", 200)) // two parts
	f.event(t, id, 0, sms.StatusAccepted, 0)
	f.event(t, id, 0, sms.StatusTemporaryFailure, 29)
	f.event(t, id, 0, sms.StatusDelivered, 0)
	f.event(t, id, 1, sms.StatusPermanentFailure, 1)
	rejected := f.submit(t, 31, "y")
	f.event(t, rejected, 0, sms.StatusRejected, 0)
	names := []string{"sent_to_smsc", "buffered", "delivered", "undelivered", "rejected"}
	for i, name := range names {
		rs, err := f.store.ClaimReports(t.Context(), f.clock.Now(), time.Minute, 1)
		if err != nil || len(rs) != 1 {
			t.Fatalf("report %d: %v, %v", i, rs, err)
		}
		msgkittest.Golden(t, "testdata/report_"+name+".json", rs[0].Body)
		rs[0].State = sms.ReportDelivered
		if err := f.store.FinishReport(t.Context(), rs[0]); err != nil {
			t.Fatal(err)
		}
	}
}
