package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/time/rate"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

// The bootstrap's campaignRates set a tenant's pace over its payer's
// throughput and -campaign-rate (campaign.Pace); 0 and "unpaced" send
// unpaced, and a tenant left out keeps its payer's throughput, else the
// flag's default.
func TestBootstrapCampaignRates(t *testing.T) {
	var r tenantRates
	n, err := r.load(json.RawMessage(`{"a": 20, "b": "unpaced", "c": 0, "d": 2.5}`))
	if err != nil || n != 4 {
		t.Fatalf("load = %d, %v", n, err)
	}
	const throughput, flag = 50, rate.Limit(200)
	for _, tt := range []struct {
		tenant     msgkit.ServiceUUID
		throughput int
		want       rate.Limit
	}{
		{"a", throughput, 20},
		{"b", throughput, rate.Inf},
		{"c", throughput, rate.Inf},
		{"d", 0, 2.5},
		{"e", throughput, throughput}, // not set: the payer's throughput
		{"e", 0, flag},                // nor that: the flag
	} {
		set, ok := r.rate(tt.tenant)
		if got := campaign.Pace(set, ok, tt.throughput, flag); got != tt.want {
			t.Errorf("tenant %s, payer's throughput %d: pace %v, want %v", tt.tenant, tt.throughput, got, tt.want)
		}
	}
	if got := campaign.Pace(0, false, 0, 0); got != rate.Inf {
		t.Errorf("-campaign-rate unpaced, no throughput: pace %v, want unpaced", got)
	}
}

// paceText is the text of both sides of BenchmarkCampaignVersusHTTP: 210
// GSM characters, two parts, smsload's default.
var paceText = strings.Repeat("Your order 12345 has shipped. ", 7)

// smsloadRate reads the accepted submissions a second smsload printed.
var smsloadRate = regexp.MustCompile(`(\d+) accepted \((\d+)/s\)`)

// BenchmarkCampaignVersusHTTP compares, on one server process per store,
// an unpaced campaign with bulk SMS submitted over HTTP: each round runs
// examples/smsload (32 workers) against /bulk/sendsms for N submissions,
// then a campaign "now" to a list of N contacts, both charged to one
// account without a throughput limit, in the same text. It reports the
// medians over the rounds of both rates and of their ratio, the campaign's
// from the first sight of its task to its end (polled every 10 ms through
// the CDS API). N is MSGKIT_PACE_N (default 20,000), the rounds
// MSGKIT_PACE_ROUNDS (default 5); MSGKIT_PACE_CPUPROFILE=dir writes each
// server's CPU profile there. Run it alone:
//
//	go test ./examples/server -run '^$' -bench CampaignVersusHTTP -benchtime 1x
func BenchmarkCampaignVersusHTTP(b *testing.B) {
	n, rounds := envInt(b, "MSGKIT_PACE_N", 20_000), envInt(b, "MSGKIT_PACE_ROUNDS", 5)
	smsload := filepath.Join(b.TempDir(), "smsload")
	if out, err := exec.Command("go", "build", "-o", smsload, "../smsload").CombinedOutput(); err != nil {
		b.Fatalf("building smsload: %v\n%s", err, out)
	}
	for _, name := range []string{"memory", "postgres"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p := newPaceWorld(b, name, storeArgs(b, name), smsload, n)
				var httpRates, campaignRates, ratios []float64
				for round := range rounds {
					h := p.http(b)
					c := p.campaign(b, round)
					httpRates, campaignRates, ratios = append(httpRates, h), append(campaignRates, c), append(ratios, c/h)
					b.Logf("%s round %d: HTTP %.0f/s, campaign %.0f/s, ratio %.2f", name, round+1, h, c, c/h)
				}
				p.stop(b)
				b.ReportMetric(median(httpRates), "http/s")
				b.ReportMetric(median(campaignRates), "campaign/s")
				b.ReportMetric(median(ratios), "ratio")
			}
		})
	}
}

// paceWorld is a server with a tenant whose list holds n contacts, its
// token, and an account both sides are charged to.
type paceWorld struct {
	server        *serverProcess
	smsload, list string
	cds, token    string
	n             int
	profile       bool
}

const paceTenant = "5d0c2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e60"

func newPaceWorld(b *testing.B, name string, storeArgs []string, smsload string, n int) *paceWorld {
	dir := b.TempDir()
	hash := func(secret string) string {
		h, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
		if err != nil {
			b.Fatal(err)
		}
		return string(h)
	}
	boot := filepath.Join(dir, "bootstrap.json")
	os.WriteFile(boot, []byte(`{
		"clients": [{"id": "crm", "name": "CRM", "secretHash": "`+hash("crm-secret")+`", "networks": ["127.0.0.1", "::1"], "services": ["`+paceTenant+`"], "privileges": ["news"]}],
		"smsAccounts": [{"username": "bulk", "passwordHash": "`+hash("bulk-pw")+`", "networks": ["127.0.0.1"], "balance": "100000000", "currency": "EUR", "validity": "1h", "prices": {"386": "0.01"}}],
		"campaignAccounts": {"`+paceTenant+`": "bulk"}
	}`), 0o600)
	args := append(storeArgs, "-bootstrap", boot, "-demo", "false", "-addr", "127.0.0.1:0", "-sms-http", "127.0.0.1:0",
		"-log-level", "info", "-campaign-rate", "unpaced")
	p := &paceWorld{smsload: smsload, n: n}
	if dir := os.Getenv("MSGKIT_PACE_CPUPROFILE"); dir != "" {
		args = append(args, "-cpuprofile", filepath.Join(dir, "server-"+name+".pprof"))
		p.profile = true
	}
	p.server = startServer(b, args...)
	base := "http://" + p.server.apiAddr
	resp, body := call(b, http.MethodPost, base+"/oauth2/access-token", "",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {"crm"}, "client_secret": {"crm-secret"}}.Encode()),
		"application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil {
		b.Fatalf("token: %d %s", resp.StatusCode, body)
	}
	p.token, p.cds = tok.AccessToken, base+"/news/v1/services/"+paceTenant
	var list struct{ UUID string }
	if resp, body = call(b, http.MethodPost, p.cds+"/cds/lists", p.token, strings.NewReader(`{"name": "Pace"}`), "application/json"); resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &list) != nil {
		b.Fatalf("list: %d %s", resp.StatusCode, body)
	}
	p.list = list.UUID
	const chunk = 10_000
	for from := 0; from < n; from += chunk {
		items := make([]string, 0, chunk)
		for i := from; i < min(from+chunk, n); i++ {
			items = append(items, fmt.Sprintf(`{"first_name": "C%d", "mobile": "+38640%06d", "opt_status": "in"}`, i, i))
		}
		resp, body = call(b, http.MethodPost, p.cds+"/cds/imports?list_uuid="+p.list, p.token, strings.NewReader("["+strings.Join(items, ",")+"]"), "application/json")
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("import: %d %.500s", resp.StatusCode, body)
		}
	}
	return p
}

// http runs smsload for n submissions and returns its rate.
func (p *paceWorld) http(b *testing.B) float64 {
	out, err := exec.Command(p.smsload, "-url", "http://"+p.server.smsAddr+"/bulk/sendsms", "-user", "bulk", "-password", "bulk-pw",
		"-n", strconv.Itoa(p.n), "-c", "32", "-duration", "10m", "-progress", "0", "-text", paceText).CombinedOutput()
	m := smsloadRate.FindSubmatch(out)
	if err != nil || m == nil || string(m[1]) != strconv.Itoa(p.n) {
		b.Fatalf("smsload: %v\n%s", err, out)
	}
	rate, _ := strconv.ParseFloat(string(m[2]), 64)
	return rate
}

// campaign runs a campaign now to the list and returns its recipients a
// second.
func (p *paceWorld) campaign(b *testing.B, round int) float64 {
	resp, body := call(b, http.MethodPost, p.cds+"/campaigns", p.token, strings.NewReader(fmt.Sprintf(`{"name": "Pace %d", "status": "active",
		"sending_type": "sms", "schedule_type": "now", "template": %q, "sender": "LoadTest", "recipient_lists": %q}`, round, paceText, p.list)), "application/json")
	var c struct{ UUID string }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &c) != nil {
		b.Fatalf("campaign: %d %s", resp.StatusCode, body)
	}
	var began time.Time
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		resp, body := call(b, http.MethodGet, p.cds+"/campaigns/"+c.UUID+"?fields=tasks", p.token, nil, "")
		var got struct {
			Tasks []struct {
				Status       string
				Sent, Failed int
			}
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil {
			b.Fatalf("campaign: %d %s", resp.StatusCode, body)
		}
		if len(got.Tasks) == 1 && began.IsZero() {
			began = time.Now()
		}
		if len(got.Tasks) == 1 && got.Tasks[0].Status == "done" {
			if t := got.Tasks[0]; t.Sent != p.n || t.Failed != 0 {
				b.Fatalf("the campaign's task: %+v, want %d sent", t, p.n)
			}
			return float64(p.n) / time.Since(began).Seconds()
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatalf("the campaign did not end in 10 minutes")
	return 0
}

// stop ends the server: gently when it writes a profile.
func (p *paceWorld) stop(b *testing.B) {
	if p.profile {
		p.server.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.server.done:
		case <-time.After(30 * time.Second):
			b.Error("the server did not stop in 30 s")
		}
	}
	p.server.kill()
}

// storeArgs are the server's arguments for the store named name, for
// the benchmarks that run it as a process.
func storeArgs(b *testing.B, name string) []string {
	if name == "postgres" {
		c := pgConfig(b)
		return []string{"-store", "postgres", "-pg", c.pgDSN, "-pg-schema", c.pgSchema}
	}
	return []string{"-store", "memory"}
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		b.Fatalf("%s must be a positive number, not %q", name, s)
	}
	return v
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
