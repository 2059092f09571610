package testsystem_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit/sms/simnet"
	"github.com/msgkit/msgkit/testsystem"
	"github.com/msgkit/msgkit/testsystem/testtext"
)

// The metrics count two sessions: one judged over time (a message
// delivered, two not received), one failed at once (no handset).
func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	outcomes := map[int64]simnet.Outcome{
		2: {Kind: simnet.Reject, AcceptDelay: time.Second},
		3: {Kind: simnet.Unknown, AcceptDelay: time.Second, Delay: time.Second},
	}
	r := newRig(t, testsystem.Options{TimeLimit: time.Minute, Metrics: reg}, nil, outcomes)
	sess, _, err := r.sys.Send(t.Context(), "qa", request([]int64{1, 2, 3}, testtext.GSM, "23430"))
	if err != nil {
		t.Fatal(err)
	}
	if done := r.run(t, "qa", sess.ID, 30*time.Second); done.Status != testsystem.SessionComplete {
		t.Fatalf("session not complete: %+v", done)
	}
	if _, _, err := r.sys.Send(t.Context(), "qa", request([]int64{1}, testtext.GSM, "20801")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.sys.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP msgkit_testsystem_messages_judged_total Test messages judged, by judgement (delivered, not_received or failed).
# TYPE msgkit_testsystem_messages_judged_total counter
msgkit_testsystem_messages_judged_total{judgement="delivered"} 1
msgkit_testsystem_messages_judged_total{judgement="failed"} 1
msgkit_testsystem_messages_judged_total{judgement="not_received"} 2
# HELP msgkit_testsystem_sessions_completed_total Test sessions completed: every message of the session judged.
# TYPE msgkit_testsystem_sessions_completed_total counter
msgkit_testsystem_sessions_completed_total 2
# HELP msgkit_testsystem_sessions_started_total Test sessions started: test SMS requests accepted.
# TYPE msgkit_testsystem_sessions_started_total counter
msgkit_testsystem_sessions_started_total 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}
