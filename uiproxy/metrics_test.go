package uiproxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// scriptFetcher answers the calls in turn, each taking its time on the
// test's clock.
type scriptFetcher struct {
	now     *time.Time
	answers []scriptAnswer
}

type scriptAnswer struct {
	took time.Duration
	body string
	err  error
}

func (f *scriptFetcher) Fetch(context.Context, uiproxy.Call, time.Duration) ([]byte, error) {
	a := f.answers[0]
	f.answers = f.answers[1:]
	*f.now = f.now.Add(a.took)
	return []byte(a.body), a.err
}

// Each outcome is counted, and each call timed on the proxy's clock; an
// answer from the cache is no call.
func TestProxyMetrics(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	kpi, _ := json.Marshal(uiproxy.MockKPI("k", "r"))
	f := &scriptFetcher{now: &now, answers: []scriptAnswer{
		{took: 20 * time.Millisecond, body: string(kpi)},
		{took: 200 * time.Millisecond, body: "not json"},
		{took: 10 * time.Second, err: msgkit.Wrap(fmt.Errorf("dial: %w", context.DeadlineExceeded), msgkit.Unavailable, "customer_unreachable", "no answer")},
		{took: 3 * time.Millisecond, err: msgkit.New(msgkit.Unavailable, "customer_status", "the customer API answered 500")},
	}}
	reg := prometheus.NewRegistry()
	p := uiproxy.NewProxy(&mapStore{m: map[string]uiproxy.Component{}}, f, uiproxy.Options{Clock: func() time.Time { return now }, Metrics: reg})
	c := uiproxy.Component{ID: "balance", Type: uiproxy.KPI, Service: tenant, URL: "https://customer.example/kpi/{componentId}?reference_id={referenceId}", CacheTTL: time.Minute}
	if err := p.Put(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	for i, ref := range []string{"r", "r", "a", "b", "c"} { // the second from the cache
		_, err := p.KPI(t.Context(), viewer{tenant}, "balance", url.Values{"reference_id": {ref}})
		if (err == nil) != (i < 2) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	want := `
# HELP msgkit_uiproxy_calls_total UI proxy calls to customer APIs, by outcome (ok, bad_answer, timeout or error).
# TYPE msgkit_uiproxy_calls_total counter
msgkit_uiproxy_calls_total{outcome="bad_answer"} 1
msgkit_uiproxy_calls_total{outcome="error"} 1
msgkit_uiproxy_calls_total{outcome="ok"} 1
msgkit_uiproxy_calls_total{outcome="timeout"} 1
# HELP msgkit_uiproxy_call_seconds Seconds a UI proxy call to a customer API took, to its answer parsed or its failure.
# TYPE msgkit_uiproxy_call_seconds histogram
msgkit_uiproxy_call_seconds_bucket{le="0.01"} 1
msgkit_uiproxy_call_seconds_bucket{le="0.025"} 2
msgkit_uiproxy_call_seconds_bucket{le="0.05"} 2
msgkit_uiproxy_call_seconds_bucket{le="0.1"} 2
msgkit_uiproxy_call_seconds_bucket{le="0.25"} 3
msgkit_uiproxy_call_seconds_bucket{le="0.5"} 3
msgkit_uiproxy_call_seconds_bucket{le="1"} 3
msgkit_uiproxy_call_seconds_bucket{le="2.5"} 3
msgkit_uiproxy_call_seconds_bucket{le="5"} 3
msgkit_uiproxy_call_seconds_bucket{le="10"} 4
msgkit_uiproxy_call_seconds_bucket{le="30"} 4
msgkit_uiproxy_call_seconds_bucket{le="60"} 4
msgkit_uiproxy_call_seconds_bucket{le="+Inf"} 4
msgkit_uiproxy_call_seconds_sum 10.223
msgkit_uiproxy_call_seconds_count 4
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
