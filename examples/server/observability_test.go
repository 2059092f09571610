package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// metricRow is one row of the README's metric tables.
type metricRow struct {
	table, name, typ, help string
	labels                 []string
}

// readmeMetrics reads the metric tables of README.md's "Metrics, version
// and logs": a heading (####) names each table, a row is
// | `name` | type | labels | help |.
func readmeMetrics(t testing.TB) []metricRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n### Metrics, version and logs\n")
	if !ok {
		t.Fatal("README.md has no section Metrics, version and logs")
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	if end := strings.Index(section, "\n### "); end >= 0 {
		section = section[:end]
	}
	var rows []metricRow
	table := ""
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "#### "); ok {
			table = h
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Fatalf("README metric row of %d cells: %s", len(cells), line)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		r := metricRow{table: table, name: strings.Trim(cells[0], "`"), typ: cells[1], help: cells[3]}
		if cells[2] != "—" {
			r.labels = strings.Split(cells[2], ", ")
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("README.md's metric tables are empty")
	}
	return rows
}

// exported says whether a server run as cfg exports row's metric: the
// SMPP table's with an SMSC connection, the Store table's on PostgreSQL.
func exported(row metricRow, cfg config) bool {
	switch {
	case strings.HasPrefix(row.table, "SMPP"):
		return cfg.smpp != nil
	case strings.HasPrefix(row.table, "ESME"):
		return cfg.smppServer != ""
	case strings.HasPrefix(row.table, "Store"):
		return cfg.store == "postgres"
	}
	return true
}

// scrape reads GET /metrics of addr.
func scrape(t testing.TB, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// simSMSC starts a simulated SMSC and returns the -smpp file that
// connects to it.
func simSMSC(t *testing.T) string {
	t.Helper()
	sim := smppsim.New(smppsim.Options{Accounts: map[string]string{"msgkit": "secret"}, RespDelay: time.Millisecond, ReceiptDelay: 5 * time.Millisecond})
	addr, err := sim.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	file := filepath.Join(t.TempDir(), "smpp.json")
	if err := os.WriteFile(file, []byte(`{"name": "sim", "addr": "`+addr+`", "systemId": "msgkit", "password": "secret", "binds": 1, "window": 10, "timeout": "3s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// observedConfigs are the servers the metric tests run: the memory store
// on the simulated network, and PostgreSQL sending through an SMSC, so
// that between them every table's metrics are exported.
func observedConfigs(t *testing.T) map[string]func(t *testing.T) config {
	return map[string]func(t *testing.T) config{
		"memory": func(t *testing.T) config {
			return parse(t, "-log-format", "json", "-metrics-pprof", "true", "-smpp-server", "127.0.0.1:0")
		},
		"postgres+smpp": func(t *testing.T) config {
			pg := pgConfig(t)
			return parse(t, "-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema, "-demo", "true", "-smpp", simSMSC(t))
		},
	}
}

// submitDemo sends n bulk SMS through the demo account the server printed.
func submitDemo(t *testing.T, out *bytes.Buffer, n int) {
	t.Helper()
	sm := sendPattern.FindStringSubmatch(out.String())
	if sm == nil {
		t.Fatalf("no bulk SMS call printed:\n%s", out)
	}
	for range n {
		resp, body := call(t, http.MethodPost, sm[1], "", strings.NewReader(sm[2]), "application/json")
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("sendsms: %d %s", resp.StatusCode, body)
		}
	}
}

// Every metric of the README's tables is exported with the type, labels
// and help the table gives, and the server exports no msgkit_ metric the
// tables leave out; after a few requests the HTTP and bulk SMS counters
// have counted them.
func TestMetricsTable(t *testing.T) {
	t.Parallel()
	rows := readmeMetrics(t)
	for name, newConfig := range observedConfigs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := newConfig(t)
			l, out := startPlatform(t, cfg)
			if l.Metrics == "" {
				t.Fatal("no metrics listener")
			}
			submitDemo(t, out, 3)
			fams := scrape(t, l.Metrics)
			for _, row := range rows {
				mf, ok := fams[row.name]
				if !exported(row, cfg) {
					if ok {
						t.Errorf("%s is exported, though its table (%s) says it is not here", row.name, row.table)
					}
					continue
				}
				if !ok {
					t.Errorf("%s (README, %s) is not exported", row.name, row.table)
					continue
				}
				if got := strings.ToLower(mf.GetType().String()); got != row.typ {
					t.Errorf("%s is a %s, README says %s", row.name, got, row.typ)
				}
				if mf.GetHelp() != row.help {
					t.Errorf("%s's help %q, README says %q", row.name, mf.GetHelp(), row.help)
				}
				var labels []string
				for _, lp := range mf.GetMetric()[0].GetLabel() {
					labels = append(labels, lp.GetName())
				}
				if want := slices.Sorted(slices.Values(row.labels)); !slices.Equal(labels, want) {
					t.Errorf("%s has labels %v, README says %v", row.name, labels, row.labels)
				}
			}
			for name := range fams {
				if strings.HasPrefix(name, "msgkit_") && !slices.ContainsFunc(rows, func(r metricRow) bool { return r.name == name }) {
					t.Errorf("%s is exported but not in README's tables", name)
				}
			}
			accepted := 0.0
			for _, m := range fams["msgkit_http_requests_total"].GetMetric() {
				lv := map[string]string{}
				for _, lp := range m.GetLabel() {
					lv[lp.GetName()] = lp.GetValue()
				}
				if lv["family"] == "bulksms" && lv["route"] == "POST /bulk/sendsms" && lv["status"] == "202" {
					accepted += m.GetCounter().GetValue()
				}
			}
			if accepted != 3 {
				t.Errorf("msgkit_http_requests_total of the bulk SMS submissions: %v, want 3", accepted)
			}
		})
	}
}

// GET /version answers the build, on the REST and bulk SMS listeners;
// the profiles are on the metrics listener with -metrics-pprof only; a
// request's log lines name its request id in JSON.
func TestVersionProfilesLogs(t *testing.T) {
	t.Parallel()
	var logs msgkittest.Buffer
	cfg := parse(t, "-log-format", "json", "-metrics-pprof", "true")
	l, _ := startPlatformLogged(t, cfg, newLogger(&logs, cfg))
	for _, base := range []string{l.API, l.SMSHTTP} {
		resp, body := call(t, http.MethodGet, "http://"+base+"/version", "", nil, "")
		var v httpapi.Version
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &v) != nil || v.GoVersion != runtime.Version() {
			t.Errorf("GET %s/version: %d %s", base, resp.StatusCode, body)
		}
	}
	if resp, _ := call(t, http.MethodGet, "http://"+l.Metrics+"/debug/pprof/", "", nil, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("pprof with -metrics-pprof: %d", resp.StatusCode)
	}
	off, _ := startPlatform(t, parse(t))
	if resp, _ := call(t, http.MethodGet, "http://"+off.Metrics+"/debug/pprof/", "", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("pprof without -metrics-pprof: %d", resp.StatusCode)
	}
	if none, _ := startPlatform(t, parse(t, "-metrics", "")); none.Metrics != "" {
		t.Errorf("-metrics '' listens on %s", none.Metrics)
	}

	req, _ := http.NewRequest(http.MethodGet, "http://"+l.API+"/news/v1/nowhere", nil)
	req.Header.Set("X-Request-Id", "observed-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var seen int
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line that is not JSON: %s", line)
		}
		if rec["path"] == "/news/v1/nowhere" {
			seen++
			if rec["request_id"] != "observed-1" {
				t.Errorf("the request's line lacks its id: %s", line)
			}
		}
	}
	if seen != 1 {
		t.Errorf("%d access lines of the request:\n%s", seen, logs.String())
	}
	for _, format := range []string{"text", "json"} {
		c := parse(t, "-log-format", format)
		if h := newLogger(&logs, c).Handler(); httpapi.LogHandler(h) != h {
			t.Errorf("the %s logger does not name request ids", format)
		}
	}
	c := parse(t, "-version")
	var v bytes.Buffer
	printVersion(&v, httpapi.ReadVersion())
	if !c.version || !strings.HasPrefix(v.String(), "msgkit server ") || !strings.Contains(v.String(), runtime.Version()) {
		t.Errorf("-version %v prints %q", c.version, v.String())
	}
}

// dashboardQueries are the PromQL queries of examples/grafana/msgkit.json's
// panels, by panel title.
func dashboardQueries(t testing.TB) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "grafana", "msgkit.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Type, Title string
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out[p.Title] = append(out[p.Title], tg.Expr)
		}
	}
	return out
}

// metricName finds the metric names in a PromQL query.
var metricName = regexp.MustCompile(`\b(?:msgkit|go|process)_[a-z0-9_]+\b`)

// Every query of the Grafana dashboard names metrics the server exports:
// the README's (a histogram's by its _bucket, _sum or _count series) and
// the Go runtime's and the process's.
func TestGrafanaDashboard(t *testing.T) {
	t.Parallel()
	rows := readmeMetrics(t)
	known := map[string]bool{}
	for _, r := range rows {
		known[r.name] = true
		if r.typ == "histogram" {
			known[r.name+"_bucket"], known[r.name+"_sum"], known[r.name+"_count"] = true, true, true
		}
	}
	l, _ := startPlatform(t, parse(t))
	for name, mf := range scrape(t, l.Metrics) {
		if !strings.HasPrefix(name, "msgkit_") {
			known[name] = true
			if mf.GetType() == dto.MetricType_HISTOGRAM {
				known[name+"_bucket"], known[name+"_sum"], known[name+"_count"] = true, true, true
			}
		}
	}
	queries := dashboardQueries(t)
	if len(queries) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	used := map[string]bool{}
	for title, exprs := range queries {
		for _, e := range exprs {
			names := metricName.FindAllString(e, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: %q names no metric", title, e)
			}
			for _, n := range names {
				used[n] = true
				if !known[n] {
					t.Errorf("panel %q: %s is not a metric the server exports", title, n)
				}
			}
		}
	}
	// The five views: queue depths, rates, refusals by code,
	// latency quantiles, SMPP binds.
	for _, n := range []string{"msgkit_sms_queue_parts", "msgkit_sms_report_outbox_reports", "msgkit_sms_submissions_total",
		"msgkit_http_request_seconds_bucket", "msgkit_smpp_binds_up"} {
		if !used[n] {
			t.Errorf("the dashboard shows no %s", n)
		}
	}
}
