package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/msgkit/msgkit/msgkittest"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// prometheusBin finds Debian's prometheus: MSGKIT_PROMETHEUS (set by
// .ci/run, so CI fails rather than skips without it), else prometheus on
// PATH; the test skips when there is neither.
func prometheusBin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("MSGKIT_PROMETHEUS"); bin != "" {
		return bin
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed (MSGKIT_PROMETHEUS)")
	}
	return bin
}

// freeAddr is a loopback address nothing listens on now, for a program
// that cannot be told to pick a port and say which.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// promServer is a running Prometheus.
type promServer struct {
	addr string
	logs *msgkittest.Buffer
}

// startPrometheus runs Prometheus scraping target's /metrics every
// second, until the test ends.
func startPrometheus(t *testing.T, target string) promServer {
	t.Helper()
	bin := prometheusBin(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: msgkit
    static_configs:
      - targets: [%q]
`, target)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := promServer{addr: freeAddr(t), logs: &msgkittest.Buffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+p.addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus said:\n%s", p.logs)
		}
	})
	p.await(t, "Prometheus ready", 30*time.Second, func() bool {
		resp, err := http.Get("http://" + p.addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// await asks ok every 200 ms until it holds, failing the test after
// limit: Prometheus scrapes on its own clock, which the test cannot
// drive.
func (p promServer) await(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// query runs an instant query through Prometheus's HTTP API and returns
// each series' labels and value.
func (p promServer) query(t *testing.T, q string) []promSample {
	t.Helper()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	p.get(t, "/api/v1/query?query="+url.QueryEscape(q), &body)
	var out []promSample
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("query %s: value %v", q, r.Value)
		}
		out = append(out, promSample{labels: r.Metric, value: v})
	}
	return out
}

type promSample struct {
	labels map[string]string
	value  float64
}

func (p promServer) get(t *testing.T, path string, into any) {
	t.Helper()
	resp, err := http.Get("http://" + p.addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(buf.Bytes(), into) != nil {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, buf.String())
	}
}

// A real Prometheus scrapes a running server under a short load: through
// its query API the rate of bulk SMS submissions shows the load and the
// outbound queue's depth is there, and it holds every metric the README's
// tables name for this server (on PostgreSQL with an SMSC, all of them).
func TestPrometheusScrapes(t *testing.T) {
	t.Parallel()
	prometheusBin(t)
	var cfg config
	if os.Getenv("MSGKIT_TEST_PG") != "" {
		cfg = observedConfigs(t)["postgres+smpp"](t)
	} else {
		cfg = observedConfigs(t)["memory"](t)
	}
	l, out := startPlatform(t, cfg)
	prom := startPrometheus(t, l.Metrics)
	prom.await(t, "the first scrape", 30*time.Second, func() bool {
		up := prom.query(t, `up{job="msgkit"}`)
		return len(up) == 1 && up[0].value == 1
	})

	// Submissions go on while Prometheus is asked, until the rates it
	// computes from its scrapes show them: the gateway's count of
	// submissions and the HTTP count of their answers (a series that
	// appears with the first answer has its rate from its second scrape).
	sent := 0
	prom.await(t, "a rate of submissions", 60*time.Second, func() bool {
		submitDemo(t, out, 10)
		sent += 10
		r := prom.query(t, `sum(rate(msgkit_sms_submissions_total{code="accepted"}[5s]))`)
		h := prom.query(t, `sum(rate(msgkit_http_requests_total{family="bulksms",route="POST /bulk/sendsms",status="202"}[5s]))`)
		return len(r) == 1 && r[0].value > 0 && len(h) == 1 && h[0].value > 0
	})
	if s := prom.query(t, `sum(msgkit_sms_submissions_total)`); len(s) != 1 || s[0].value <= 0 || s[0].value > float64(sent) {
		t.Errorf("submissions: %v, want some of the %d sent", s, sent)
	}
	if q := prom.query(t, `msgkit_sms_queue_parts`); len(q) != 1 || q[0].value < 0 {
		t.Errorf("queue depth: %v, want one series", q)
	}

	// Every query of the Grafana dashboard is one Prometheus runs.
	for title, exprs := range dashboardQueries(t) {
		for _, e := range exprs {
			var body struct {
				Status string `json:"status"`
			}
			prom.get(t, "/api/v1/query?query="+url.QueryEscape(strings.ReplaceAll(e, "$__rate_interval", "1m")), &body)
			if body.Status != "success" {
				t.Errorf("panel %q: %s: %s", title, e, body.Status)
			}
		}
	}

	var names struct {
		Data []string `json:"data"`
	}
	prom.get(t, "/api/v1/label/__name__/values", &names)
	for _, row := range readmeMetrics(t) {
		if !exported(row, cfg) {
			continue
		}
		name := row.name
		if row.typ == "histogram" {
			name += "_count"
		}
		if !slices.Contains(names.Data, name) {
			t.Errorf("Prometheus has no %s (README, %s)", name, row.table)
		}
	}
	if t.Failed() {
		t.Logf("Prometheus has: %s", strings.Join(names.Data, " "))
	}
}
