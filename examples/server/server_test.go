package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/httpapi/testsystemapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"golang.org/x/crypto/bcrypt"
)

// startPlatform runs the server's wiring on random loopback ports and
// returns the bound addresses and what it printed; it stops with the test.
func startPlatform(t *testing.T, cfg config) (listeners, *bytes.Buffer) {
	t.Helper()
	cfg.addr, cfg.smsHTTP, cfg.smsHTTPS = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	return startPlatformAt(t, cfg)
}

// startPlatformAt is startPlatform on the listen addresses of cfg.
func startPlatformAt(t *testing.T, cfg config) (listeners, *bytes.Buffer) {
	t.Helper()
	return startPlatformLogged(t, cfg, slog.New(slog.DiscardHandler))
}

// startPlatformLogged is startPlatformAt logging to logger.
func startPlatformLogged(t *testing.T, cfg config, logger *slog.Logger) (listeners, *bytes.Buffer) {
	t.Helper()
	if cfg.getenv == nil {
		cfg.getenv = func(string) string { return "" }
	}
	cfg.bcryptCost = bcrypt.MinCost
	if cfg.metrics == defaultMetricsAddr {
		cfg.metrics = "127.0.0.1:0" // tests run side by side
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &bytes.Buffer{}
	readyc := make(chan listeners, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, logger, out, func(l listeners) { readyc <- l })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	select {
	case l := <-readyc:
		return l, out
	case err := <-done:
		t.Fatalf("run stopped before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the platform did not start")
	}
	return listeners{}, nil
}

// pgConfig gives each test its own schema, dropped afterwards.
func pgConfig(t testing.TB) config {
	dsn := os.Getenv("MSGKIT_TEST_PG")
	if dsn == "" {
		t.Skip("MSGKIT_TEST_PG is not set")
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_server_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Errorf("dropping %s: %v", schema, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Errorf("dropping %s: %v", schema, err)
		}
	})
	return config{store: "postgres", pgDSN: dsn, pgSchema: schema, demo: true}
}

// demoPattern reads the credentials the demo printed.
var (
	demoPattern = regexp.MustCompile(`client_id=(\S+) client_secret=(\S+)`)
	sendPattern = regexp.MustCompile(`curl -s (\S+/bulk/sendsms) -d '([^']+)'`)
	loadPattern = regexp.MustCompile(`smsload -url (\S+) -user (\S+) -password (\S+)`)
)

// parse is parseConfig of args without environment.
func parse(t *testing.T, args ...string) config {
	t.Helper()
	c, err := parseConfig(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The demo as a newcomer runs it: its printed calls work, the bulk SMS one
// end to end, its delivery report coming back to the demo's receiver.
func TestReadmeSequence(t *testing.T) {
	t.Parallel()
	stores := map[string]func(t *testing.T) config{
		"memory": func(t *testing.T) config { return parse(t, "-test-time-limit", "6s") },
		"postgres": func(t *testing.T) config {
			pg := pgConfig(t)
			return parse(t, "-store", "postgres", "-pg", pg.pgDSN, "-pg-schema", pg.pgSchema, "-demo", "true", "-test-time-limit", "6s")
		},
	}
	for name, newConfig := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := newConfig(t)
			reports := make(chan string, 10)
			cfg.wrap = func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == demoReportPath {
						b, _ := io.ReadAll(r.Body)
						r.Body = io.NopCloser(bytes.NewReader(b))
						select {
						case reports <- string(b):
						default:
						}
					}
					next.ServeHTTP(w, r)
				})
			}
			l, out := startPlatform(t, cfg)
			m := demoPattern.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("no demo credentials printed:\n%s", out)
			}
			base := "http://" + l.API

			// 1. A token.
			resp, body := call(t, http.MethodPost, base+"/oauth2/access-token", "",
				strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {m[1]}, "client_secret": {m[2]}}.Encode()),
				"application/x-www-form-urlencoded")
			var tok struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
				ExpiresIn   int    `json:"expires_in"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil || tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 {
				t.Fatalf("token: %d %s", resp.StatusCode, body)
			}

			// 2. A call with it.
			resp, body = call(t, http.MethodGet, base+"/oauth2/token-info", tok.AccessToken, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), m[1]) {
				t.Fatalf("token-info: %d %s", resp.StatusCode, body)
			}

			// 3. An error: another tenant's data is forbidden, in the CDS body.
			resp, body = call(t, http.MethodGet, base+"/news/v1/services/00000000-0000-4000-8000-000000000000/cds/contacts", tok.AccessToken, nil, "")
			var cdsErr struct{ Code, Message string }
			if resp.StatusCode != http.StatusForbidden || json.Unmarshal(body, &cdsErr) != nil || cdsErr.Code == "" {
				t.Fatalf("other tenant: %d %s", resp.StatusCode, body)
			}

			// The printed CDS call: the demo tenant's contacts, with their list.
			cds := regexp.MustCompile(`curl -s '(\S+/cds/contacts\S*)'`).FindStringSubmatch(out.String())
			if cds == nil {
				t.Fatalf("no CDS call printed:\n%s", out)
			}
			resp, body = call(t, http.MethodGet, cds[1], tok.AccessToken, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"first_name":"Ana"`) || !strings.Contains(string(body), `"name":"Newsletter"`) {
				t.Errorf("CDS contacts: %d %s", resp.StatusCode, body)
			}

			// The printed campaigns call: the demo's draft campaign.
			camp := regexp.MustCompile(`curl -s '(\S+/campaigns\?status=draft)'`).FindStringSubmatch(out.String())
			if camp == nil {
				t.Fatalf("no campaigns call printed:\n%s", out)
			}
			resp, body = call(t, http.MethodGet, camp[1], tok.AccessToken, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"Welcome"`) || !strings.Contains(string(body), `"template_parts":1`) {
				t.Errorf("campaigns: %d %s", resp.StatusCode, body)
			}

			// The printed campaign calls: the draft sent now, its messages
			// handed to the bulk SMS gateway.
			patch := regexp.MustCompile(`curl -s -X PATCH (\S+/campaigns/\S+) -H "Authorization: Bearer \$TOKEN" -d '([^']+)'`).FindStringSubmatch(out.String())
			watch := regexp.MustCompile(`curl -s '(\S+/campaigns/\S+\?fields=tasks,messages)'`).FindStringSubmatch(out.String())
			if patch == nil || watch == nil {
				t.Fatalf("no campaign calls printed:\n%s", out)
			}
			resp, body = call(t, http.MethodPatch, patch[1], tok.AccessToken, strings.NewReader(patch[2]), "application/json")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"active"`) && !strings.Contains(string(body), `"status":"finished"`) {
				t.Fatalf("sending the campaign: %d %s", resp.StatusCode, body)
			}
			var sent struct {
				Status   string                    `json:"status"`
				Tasks    []struct{ Status string } `json:"tasks"`
				Messages []struct {
					Status string `json:"status"`
					MsgID  string `json:"msg_id"`
				} `json:"messages"`
			}
			for deadline := time.Now().Add(20 * time.Second); ; {
				resp, body = call(t, http.MethodGet, watch[1], tok.AccessToken, nil, "")
				if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &sent) != nil {
					t.Fatalf("watching the campaign: %d %s", resp.StatusCode, body)
				}
				if len(sent.Tasks) == 1 && sent.Tasks[0].Status == "done" || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if sent.Status != "finished" || len(sent.Messages) != 2 || sent.Messages[0].Status != "sent" || sent.Messages[1].Status != "sent" || sent.Messages[0].MsgID == "" {
				t.Errorf("the sent campaign: %s", body)
			}

			// The printed finance call: the demo's customer owes two invoices
			// of which one is approved: 1200 × 0.045 + 25.00 = 79.00 net,
			// 94.80 with 20 % VAT.
			resp, body = call(t, http.MethodGet, base+"/finance/sit/v1/balances/biz-partners/customers", tok.AccessToken, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"bizPartnerId":1001`) || !strings.Contains(string(body), `"total":94.80`) {
				t.Errorf("finance balances: %d %s", resp.StatusCode, body)
			}

			for _, path := range []string{"/healthz", "/readyz"} {
				if resp, body := call(t, http.MethodGet, base+path, "", nil, ""); resp.StatusCode != http.StatusOK {
					t.Errorf("%s: %d %s", path, resp.StatusCode, body)
				}
			}
			// 4. Bulk SMS with the demo account, as printed: its delivery
			// report comes back to the demo's receiver on loopback.
			sm := sendPattern.FindStringSubmatch(out.String())
			if sm == nil {
				t.Fatalf("no bulk SMS call printed:\n%s", out)
			}
			resp, body = call(t, http.MethodPost, sm[1], "", strings.NewReader(sm[2]), "application/json")
			if resp.StatusCode != http.StatusAccepted || !strings.Contains(string(body), `"numParts":1`) {
				t.Fatalf("bulk SMS: %d %s", resp.StatusCode, body)
			}
			var acc struct{ MsgID string }
			json.Unmarshal(body, &acc)
			select {
			case r := <-reports:
				if !strings.Contains(r, `"msgId":"`+acc.MsgID+`"`) || !strings.Contains(r, `"event":"DELIVERED"`) {
					t.Errorf("the demo received the report %s", r)
				}
				// The report the platform posted is the one its document shows.
				httpapitest.NewContract(t, bulksmsapi.OpenAPI()).CheckCallback(t, "deliveryReport", http.MethodPost, []byte(r))
			case <-time.After(30 * time.Second):
				t.Fatal("the demo's delivery report did not come back")
			}
			resp, body = call(t, http.MethodPost, "http://"+l.SMSHTTP+"/bulk/sendsms", "", strings.NewReader(""), "application/json")
			if resp.StatusCode != 420 || !strings.Contains(string(body), `"code":"110"`) {
				t.Errorf("bulk SMS without a body: %d %s", resp.StatusCode, body)
			}
			// 5. The printed load command's account takes what smsload sends.
			lm := loadPattern.FindStringSubmatch(out.String())
			if lm == nil {
				t.Fatalf("no load command printed:\n%s", out)
			}
			resp, body = call(t, http.MethodPost, lm[1], "", strings.NewReader(
				`{"type":"text","auth":{"username":"`+lm[2]+`","password":"`+lm[3]+`"},"sender":"LoadTest","receiver":"38640123456","dcs":"GSM","text":"load"}`), "application/json")
			if resp.StatusCode != http.StatusAccepted {
				t.Errorf("the demo's load account: %d %s", resp.StatusCode, body)
			}

			// 6. The printed UI proxy calls: the demo grid, sorted and
			// filtered, and the KPI, through the proxy from the mock
			// operations of this server.
			ui := regexp.MustCompile(`curl -s '(\S+/ui/v1/(?:grid|kpi)/\S+)' -H "Authorization: Bearer \$TOKEN"`).FindAllStringSubmatch(out.String(), -1)
			if len(ui) != 2 || !strings.Contains(out.String(), base+"/ui/demo/") {
				t.Fatalf("no UI proxy calls printed:\n%s", out)
			}
			resp, body = call(t, http.MethodGet, ui[0][1], tok.AccessToken, nil, "")
			var grid struct {
				Data []struct{ ID int } `json:"data"`
				Meta struct {
					Pagination struct{ Total int } `json:"pagination"`
				} `json:"meta"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &grid) != nil || len(grid.Data) != 3 || grid.Data[0].ID != 42 || grid.Meta.Pagination.Total != 12 {
				t.Errorf("the demo grid: %d %s", resp.StatusCode, body)
			}
			resp, body = call(t, http.MethodGet, ui[1][1], tok.AccessToken, nil, "")
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"title":"Invoices","value":"42"`) {
				t.Errorf("the demo KPI: %d %s", resp.StatusCode, body)
			}

			// 7. The printed test system calls: a session through the five
			// simulated routes, its callback, and its results.
			user := regexp.MustCompile(`grant_type=password -d username=(\S+) -d password=(\S+) \|`).FindStringSubmatch(out.String())
			send := regexp.MustCompile(`curl -s (\S+/gate/testsystem/v1/test/sms) -H "Authorization: Bearer \$TS" -d '([^']+)'`).FindStringSubmatch(out.String())
			results := regexp.MustCompile(`curl -s '(\S+/gate/testsystem/v1/test/sms/1/result\S*)'`).FindStringSubmatch(out.String())
			if user == nil || send == nil || results == nil {
				t.Fatalf("no test system calls printed:\n%s", out)
			}
			resp, body = call(t, http.MethodPost, base+"/oauth2/access-token", "",
				strings.NewReader(url.Values{"grant_type": {"password"}, "username": {user[1]}, "password": {user[2]}}.Encode()),
				"application/x-www-form-urlencoded")
			var ts struct {
				AccessToken string `json:"access_token"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &ts) != nil {
				t.Fatalf("test system token: %d %s", resp.StatusCode, body)
			}
			resp, body = call(t, http.MethodPost, send[1], ts.AccessToken, strings.NewReader(send[2]), "")
			if resp.StatusCode != http.StatusCreated || strings.TrimSpace(string(body)) != `{"test_session":1}` || resp.Header.Get("X-Ratelimit-Remaining") == "" {
				t.Fatalf("test SMS: %d %s", resp.StatusCode, body)
			}
			deadline := time.After(30 * time.Second)
			for callback := ""; callback == ""; {
				select {
				case r := <-reports:
					if strings.Contains(r, `"test_session":1`) {
						callback = r
						httpapitest.NewContract(t, testsystemapi.OpenAPI()).CheckCallback(t, "testResults", http.MethodPost, []byte(r))
					}
				case <-deadline:
					t.Fatal("the test session's callback did not come")
				}
			}
			resp, body = call(t, http.MethodGet, results[1], ts.AccessToken, nil, "")
			var page struct {
				Data []struct{ Gate, Status, FakeDLR, DirectRoute string } `json:"data"`
			}
			if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &page) != nil || len(page.Data) != 5 {
				t.Fatalf("test results: %d %s", resp.StatusCode, body)
			}
			judged := map[string]string{}
			for _, r := range page.Data {
				judged[r.Gate] = r.Status
			}
			want := map[string]string{"alpha-direct": "delivered", "beta-wholesale": "not_received", "gamma-grey": "delivered", "beta-latin": "delivered", "gamma-offshore": "delivered"}
			if !maps.Equal(judged, want) {
				t.Errorf("test results %v, want %v", judged, want)
			}
		})
	}
}

func TestBootstrapFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bootstrap.json")
	const file = `{
	  "clients": [{"id": "shop", "name": "Shop", "secretEnv": "SHOP_SECRET", "networks": ["127.0.0.1", "::1/128"],
	               "services": ["6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"], "privileges": ["news"]}],
	  "users": [{"username": "qa", "password": "qa-password", "privileges": ["testsystem"]}],
	  "apiKeys": [{"name": "noc", "key": "noc-routing-key-0001"}],
	  "smsAccounts": [{"username": "shop", "passwordEnv": "SHOP_SMS", "networks": ["127.0.0.0/8", "::1"],
	                   "balance": "1.00", "currency": "EUR", "validity": "1h", "prices": {"386": "0.05"}}],
	  "testSystem": {"operators": [{"id": 77, "name": "Lab Mobile", "country": "Slovenia", "mcc": "293", "mnc": "070"}]}
	}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SHOP_SECRET": "shop-secret-from-env", "SHOP_SMS": "shop-sms-password"}
	l, out := startPlatform(t, config{store: "memory", bootstrap: path, getenv: func(k string) string { return env[k] }})
	if out.Len() != 0 {
		t.Errorf("a bootstrapped platform printed demo credentials:\n%s", out)
	}
	resp, body := call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "",
		strings.NewReader("grant_type=client_credentials&client_id=shop&client_secret=shop-secret-from-env"), "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bootstrapped client: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "",
		strings.NewReader("grant_type=password&username=qa&password=qa-password"), "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bootstrapped user: %d %s", resp.StatusCode, body)
	}
	var qa struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(body, &qa)
	resp, body = call(t, http.MethodGet, "http://"+l.API+"/gate/testsystem/v1/test/operator?owner=platform&mcc=293", qa.AccessToken, nil, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `{"id":77,"name":"Lab Mobile","mcc_mnc":293070,"country":"Slovenia","mcc":293}`) {
		t.Errorf("bootstrapped test system operator: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodPost, "http://"+l.SMSHTTP+"/bulk/sendsms", "", strings.NewReader(
		`{"type":"text","auth":{"username":"shop","password":"shop-sms-password"},"sender":"Shop","receiver":"38640123456","text":"hi"}`), "application/json")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("bootstrapped bulk SMS account: %d %s", resp.StatusCode, body)
	}
}

func TestBootstrapErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, file := range map[string]string{
		"unknown field":   `{"clients": [{"id": "x", "secrt": "typo"}]}`,
		"missing env":     `{"clients": [{"id": "x", "secretEnv": "NOPE", "networks": ["127.0.0.1"]}]}`,
		"bad network":     `{"clients": [{"id": "x", "secret": "s", "networks": ["localhost"]}]}`,
		"bad privilege":   `{"clients": [{"id": "x", "secret": "s", "networks": ["127.0.0.1"], "privileges": ["root"]}]}`,
		"key without key": `{"apiKeys": [{"name": "k"}]}`,
		"not json":        `clients: []`,
		"unknown section": `{"clientz": []}`,
		"bad validity":    `{"smsAccounts": [{"username": "a", "password": "p", "validity": "forever"}]}`,
		"bad price":       `{"smsAccounts": [{"username": "a", "password": "p", "prices": {"49": "cheap"}}]}`,
		"secret twice":    `{"users": [{"username": "u", "password": "p", "passwordEnv": "P"}]}`,
		"bad component":   `{"uiComponents": [{"id": "g", "type": "grid", "service": "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90", "url": "ftp://x/"}]}`,
		"bad timeout":     `{"uiComponents": [{"id": "k", "type": "KPI", "service": "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90", "url": "https://x.example/", "timeout": "soon"}]}`,
		"bad payer":       `{"campaignAccounts": {"6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90": "bulk sms"}}`,
		"payers no map":   `{"campaignAccounts": ["bulk"]}`,
		"rate a word":     `{"campaignRates": {"6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90": "fast"}}`,
		"rate negative":   `{"campaignRates": {"6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90": -1}}`,
		"rates no map":    `{"campaignRates": [20]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
			os.WriteFile(path, []byte(file), 0o600)
			err := run(t.Context(), config{store: "memory", bootstrap: path, addr: "127.0.0.1:0", smsHTTP: "127.0.0.1:0", getenv: func(string) string { return "" }, bcryptCost: bcrypt.MinCost},
				slog.New(slog.DiscardHandler), io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), "bootstrap") {
				t.Fatalf("run = %v, want a bootstrap error", err)
			}
		})
	}
}

func TestParseConfig(t *testing.T) {
	env := map[string]string{"MSGKIT_ADDR": ":9090", "MSGKIT_PG": "postgres://x"}
	getenv := func(k string) string { return env[k] }
	c, err := parseConfig([]string{"-store", "postgres", "-bootstrap", "b.json"}, getenv, io.Discard)
	if err != nil || c.addr != ":9090" || c.pgDSN != "postgres://x" || c.demo || c.smsHTTP != ":12020" || c.smsHTTPS != ":12021" {
		t.Fatalf("parseConfig = %+v, %v", c, err)
	}
	if !c.smsSend {
		t.Errorf("-sms-send defaults to false")
	}
	c, err = parseConfig([]string{"-store", "postgres", "-pg", "postgres://x", "-sms-send", "false"}, func(string) string { return "" }, io.Discard)
	if err != nil || c.smsSend {
		t.Errorf("-sms-send false on postgres = %v, %v; want accepted", c.smsSend, err)
	}
	c, err = parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil || !c.demo || c.store != "memory" || c.addr != ":8080" ||
		c.mem != (memstore.Options{KeepFinished: memstore.DefaultKeepFinished, KeepFinishedFor: memstore.DefaultKeepFinishedFor}) {
		t.Fatalf("defaults = %+v, %v", c, err)
	}
	c, err = parseConfig([]string{"-mem-keep-finished", "0", "-mem-keep-finished-for", "10m"}, func(string) string { return "" }, io.Discard)
	if err != nil || c.mem != (memstore.Options{KeepFinished: -1, KeepFinishedFor: 10 * time.Minute}) {
		t.Fatalf("retention = %+v, %v; want none kept, for 10m", c.mem, err)
	}
	for _, args := range [][]string{
		{"-store", "mysql"}, {"-store", "postgres"}, {"-tls-cert", "c.pem"}, {"-demo", "maybe"}, {"-log-level", "loud"}, {"extra"},
		{"-dlr-allow", "loopback"}, {"-dlr-forbid", "10.0.0.0/33"},
		{"-sms-send", "no"}, {"-sms-send", "false"}, // an accept-only server needs a shared store
		{"-mem-keep-finished", "-1"}, {"-mem-keep-finished", "many"}, {"-mem-keep-finished-for", "0s"}, {"-mem-keep-finished-for", "1 day"},
	} {
		if _, err := parseConfig(args, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("parseConfig(%v) accepted", args)
		}
	}
}

// The campaign runners' lease and default pace: defaults, values given
// (0 and unpaced for no pacing), and values refused.
func TestParseConfigCampaignRuns(t *testing.T) {
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	if err != nil || c.campaignLease != time.Minute || c.campaignRate != 200 {
		t.Fatalf("defaults: lease %v, rate %v (%v); want 1m0s, 200", c.campaignLease, c.campaignRate, err)
	}
	c, err = parseConfig([]string{"-campaign-lease", "4s", "-campaign-rate", "500"}, none, io.Discard)
	if err != nil || c.campaignLease != 4*time.Second || c.campaignRate != 500 {
		t.Fatalf("-campaign-lease 4s -campaign-rate 500: lease %v, rate %v (%v)", c.campaignLease, c.campaignRate, err)
	}
	c, err = parseConfig(nil, func(k string) string {
		return map[string]string{"MSGKIT_CAMPAIGN_RATE": "12.5", "MSGKIT_CAMPAIGN_LEASE": "2m"}[k]
	}, io.Discard)
	if err != nil || c.campaignLease != 2*time.Minute || c.campaignRate != 12.5 {
		t.Fatalf("from the environment: lease %v, rate %v (%v)", c.campaignLease, c.campaignRate, err)
	}
	for _, unpaced := range []string{"0", "unpaced"} {
		c, err = parseConfig([]string{"-campaign-lease", "1s", "-campaign-rate", unpaced}, none, io.Discard)
		if err != nil || c.campaignRate != 0 {
			t.Errorf("-campaign-rate %s: rate %v (%v), want 0, unpaced", unpaced, c.campaignRate, err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-campaign-lease", "0s"}, "-campaign-lease"},
		{[]string{"-campaign-lease", "soon"}, "-campaign-lease"},
		{[]string{"-campaign-rate", "-5"}, "-campaign-rate"},
		{[]string{"-campaign-rate", "fast"}, "-campaign-rate"},
		{[]string{"-campaign-rate", "NaN"}, "-campaign-rate"},
		{[]string{"-campaign-rate", "+Inf"}, "-campaign-rate"},
		{[]string{"-campaign-rate", "Unpaced"}, "-campaign-rate"},
	} {
		if _, err := parseConfig(tt.args, none, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseConfig(%v) = %v, want an error naming %s", tt.args, err, tt.want)
		}
	}
}

// The transmitter's lease: 30 s by default, a third of it a hand-over's
// timeout (the transmitter's own default relation); shorter ones for tests
// that kill a server; none under 3 s.
func TestParseConfigSMSLease(t *testing.T) {
	none := func(string) string { return "" }
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want time.Duration
	}{
		{nil, nil, 30 * time.Second},
		{[]string{"-sms-lease", "9s"}, nil, 9 * time.Second},
		{nil, map[string]string{"MSGKIT_SMS_LEASE": "1m"}, time.Minute},
	} {
		c, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
		if err != nil || c.smsLease != tt.want {
			t.Errorf("parseConfig(%v, %v): lease %v (%v), want %v", tt.args, tt.env, c.smsLease, err, tt.want)
		}
	}
	for _, v := range []string{"0s", "2s", "-9s", "soon"} {
		if _, err := parseConfig([]string{"-sms-lease", v}, none, io.Discard); err == nil || !strings.Contains(err.Error(), "-sms-lease") {
			t.Errorf("-sms-lease %s: %v, want an error naming -sms-lease", v, err)
		}
	}
}

// Delivery reports are closed to special addresses unless -dlr-allow
// opens them; the demo opens loopback, so its printed call works.
func TestParseConfigReportPolicy(t *testing.T) {
	pfx := func(ss ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, s := range ss {
			out = append(out, netip.MustParsePrefix(s))
		}
		return out
	}
	for _, tc := range []struct {
		args          []string
		env           map[string]string
		allow, forbid []netip.Prefix
	}{
		{args: nil, allow: pfx("127.0.0.0/8", "::1/128")}, // the demo
		{args: []string{"-demo", "false"}},
		{args: []string{"-store", "postgres", "-pg", "postgres://x"}, allow: pfx("127.0.0.0/8", "::1/128")}, // the demo, if the database is empty
		{args: []string{"-store", "postgres", "-pg", "postgres://x", "-bootstrap", "b.json"}},
		{args: []string{"-dlr-allow", "none"}},
		{args: []string{"-demo", "false", "-dlr-allow", "10.1.0.0/16, 192.168.7.7", "-dlr-forbid", "8.8.8.0/24"},
			allow: pfx("10.1.0.0/16", "192.168.7.7/32"), forbid: pfx("8.8.8.0/24")},
		{env: map[string]string{"MSGKIT_DLR_ALLOW": "fd00::/8", "MSGKIT_DLR_FORBID": "127.0.0.2"},
			allow: pfx("fd00::/8"), forbid: pfx("127.0.0.2/32")},
	} {
		c, err := parseConfig(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
		if err != nil {
			t.Fatalf("%v %v: %v", tc.args, tc.env, err)
		}
		if !slices.Equal(c.dlr.Allow, tc.allow) || !slices.Equal(c.dlr.Forbid, tc.forbid) {
			t.Errorf("%v %v: allow %v forbid %v, want %v and %v", tc.args, tc.env, c.dlr.Allow, c.dlr.Forbid, tc.allow, tc.forbid)
		}
	}
}

func call(t testing.TB, method, u, token string, body io.Reader, contentType string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestHelpNamesTheEnvironment: -h lists every flag with the environment
// variable behind it, and that variable is the flag's fallback.
func TestHelpNamesTheEnvironment(t *testing.T) {
	var help bytes.Buffer
	if _, err := parseConfig([]string{"-h"}, func(string) string { return "" }, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, name := range []string{"addr", "sms-http", "sms-https", "tls-cert", "tls-key", "store", "pg", "pg-schema",
		"bootstrap", "dlr-allow", "dlr-forbid", "demo", "log-level", "mem-keep-finished", "mem-keep-finished-for", "keep-finished-for", "campaign-lease", "campaign-rate", "sms-lease", "metrics", "metrics-pprof", "log-format"} {
		if !strings.Contains(help.String(), "(env "+envName(name)+")") {
			t.Errorf("-h does not name %s for -%s:\n%s", envName(name), name, help.String())
		}
	}
	c, err := parseConfig(nil, func(k string) string { return map[string]string{"MSGKIT_SMS_HTTP": ":1"}[k] }, io.Discard)
	if err != nil || c.smsHTTP != ":1" {
		t.Errorf("MSGKIT_SMS_HTTP=:1 gives -sms-http %q (%v)", c.smsHTTP, err)
	}
}

// TestDemoOnceOnPostgreSQL: without -bootstrap, an empty database gets the
// demo at the first start and never a second copy; a later start says how
// to get credentials, lets no report go to loopback (the demo's allowance
// goes with it), and the banner names the store.
func TestDemoOnceOnPostgreSQL(t *testing.T) {
	t.Parallel()
	cfg := pgConfig(t)
	c, err := parseConfig([]string{"-store", "postgres", "-pg", cfg.pgDSN, "-pg-schema", cfg.pgSchema}, func(string) string { return "" }, io.Discard)
	if err != nil || !c.demo {
		t.Fatalf("-store postgres without -bootstrap: demo %v (%v), want the demo", c.demo, err)
	}
	l, first := startPlatform(t, c)
	if !demoPattern.MatchString(first.String()) || !strings.Contains(first.String(), "the PostgreSQL store keeps them") {
		t.Fatalf("first start printed no demo credentials naming the store:\n%s", first)
	}
	if resp, _ := call(t, http.MethodPost, "http://"+l.SMSHTTP+demoReportPath, "", strings.NewReader("{}"), "application/json"); resp.StatusCode != http.StatusNoContent {
		t.Errorf("the demo's report receiver answers %d at the first start", resp.StatusCode)
	}
	l, second := startPlatform(t, c)
	if demoPattern.MatchString(second.String()) || !strings.Contains(second.String(), "has msgkit's tables already") ||
		!strings.Contains(second.String(), "-bootstrap") {
		t.Fatalf("second start:\n%s\nwant no new credentials and how to get some", second)
	}
	if resp, _ := call(t, http.MethodPost, "http://"+l.SMSHTTP+demoReportPath, "", strings.NewReader("{}"), "application/json"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the demo's report receiver answers %d on a later start, want 404", resp.StatusCode)
	}
	if got := c.withoutDemo().dlr.Allow; got != nil {
		t.Errorf("without the demo, -dlr-allow auto allows %v", got)
	}
	conn, err := pgx.Connect(t.Context(), cfg.pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var clients, accounts int
	if err := conn.QueryRow(t.Context(), "SELECT (SELECT count(*) FROM "+cfg.pgSchema+".auth_clients), (SELECT count(*) FROM "+cfg.pgSchema+".sms_accounts)").Scan(&clients, &accounts); err != nil {
		t.Fatal(err)
	}
	if clients != 2 || accounts != 2 {
		t.Errorf("after two starts: %d clients, %d bulk SMS accounts; want the demo's client, its operator's and its two accounts", clients, accounts)
	}
}

// TestBootstrapExample loads the sample bootstrap file the documentation
// points to, and its credentials work.
func TestBootstrapExample(t *testing.T) {
	env := map[string]string{"CRM_CLIENT_SECRET": "crm-secret", "ROUTING_API_KEY": "routing-key-0001", "SHOP_SMS_PASSWORD": "shop-pw",
		"FINANCE_CLIENT_SECRET": "finance-secret", "OPS_CLIENT_SECRET": "ops-secret"}
	l, out := startPlatform(t, config{store: "memory", bootstrap: "bootstrap.example.json", getenv: func(k string) string { return env[k] }})
	if out.Len() != 0 {
		t.Errorf("a bootstrapped platform printed:\n%s", out)
	}
	for _, try := range []struct{ name, body string }{
		{"client", "grant_type=client_credentials&client_id=crm-backend&client_secret=crm-secret"},
		{"user", "grant_type=password&username=route-tester&password=change+me+before+use"},
	} {
		resp, body := call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "", strings.NewReader(try.body), "application/x-www-form-urlencoded")
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the example's %s: %d %s", try.name, resp.StatusCode, body)
		}
	}
	// The operator's client reads the example's tenant by its name.
	resp, body := call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "", strings.NewReader("grant_type=client_credentials&client_id=ops-console&client_secret=ops-secret"), "application/x-www-form-urlencoded")
	var ops struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &ops) != nil {
		t.Fatalf("the example's operator client: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodGet, "http://"+l.API+"/admin/v1/tenants/6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90", ops.AccessToken, nil, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"name":"Shop d.o.o."`) {
		t.Errorf("the example's tenant: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodPost, "http://"+l.SMSHTTP+"/bulk/sendsms", "", strings.NewReader(
		`{"type":"text","auth":{"username":"shop","password":"shop-pw"},"sender":"Shop","receiver":"38640123456","text":"hi"}`), "application/json")
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("the example's bulk SMS account: %d %s", resp.StatusCode, body)
	}
	// The example's UI components, seen by its client.
	resp, body = call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "", strings.NewReader("grant_type=client_credentials&client_id=crm-backend&client_secret=crm-secret"), "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil {
		t.Fatalf("the example's client: %d %s", resp.StatusCode, body)
	}
	for _, id := range []string{"crm-invoices", "crm-balance"} {
		resp, body = call(t, http.MethodGet, "http://"+l.API+"/ui/v1/components/"+id, tok.AccessToken, nil, "")
		if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "change me") {
			t.Errorf("the example's component %s: %d %s", id, resp.StatusCode, body)
		}
	}
	// The example's finance reference data, read by its finance client:
	// the partner linked to the tenant, and the Slovenian template of the
	// stored configuration.
	resp, body = call(t, http.MethodPost, "http://"+l.API+"/oauth2/access-token", "", strings.NewReader("grant_type=client_credentials&client_id=finance-office&client_secret=finance-secret"), "application/x-www-form-urlencoded")
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil {
		t.Fatalf("the example's finance client: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodGet, "http://"+l.API+"/finance/sit/v1/biz-partners/1001", tok.AccessToken, nil, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"serviceUuid":"6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"`) || !strings.Contains(string(body), `"externalRefId":"ERP-1001"`) {
		t.Errorf("the example's partner: %d %s", resp.StatusCode, body)
	}
	resp, body = call(t, http.MethodGet, "http://"+l.API+"/finance/sit/v1/default-invoice-config?domainCodeName=BULK&dataSourceCodeName=POSTPAID&docClassCodeName=CUSTOMER_INVOICE&templateLang=sl", tok.AccessToken, nil, "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"templateId":602`) {
		t.Errorf("the example's configuration: %d %s", resp.StatusCode, body)
	}
}

// TestLoadBootstrap: the account the README's load command uses is made
// by examples/smsload/bootstrap.json and takes submissions.
func TestLoadBootstrap(t *testing.T) {
	l, _ := startPlatform(t, config{store: "memory", bootstrap: "../smsload/bootstrap.json"})
	resp, body := call(t, http.MethodPost, "http://"+l.SMSHTTP+"/bulk/sendsms", "", strings.NewReader(
		`{"type":"text","auth":{"username":"load","password":"loadpw"},"sender":"LoadTest","receiver":"38640123456","text":"hi"}`), "application/json")
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("the load account: %d %s", resp.StatusCode, body)
	}
}

// TestSMPPFile: the example -smpp file loads; a broken one is refused
// naming what is wrong.
func TestSMPPFile(t *testing.T) {
	c, err := loadSMPP("smpp.example.json", func(k string) string { return map[string]string{"SMPP_PASSWORD": "pw"}[k] })
	if err != nil || c.Addr != "127.0.0.1:2775" || c.Password != "pw" || c.Binds != 2 || c.Window != 50 || c.Timeout != 10*time.Second {
		t.Fatalf("the example: %+v, %v", c, err)
	}
	dir := t.TempDir()
	for name, file := range map[string]string{
		"no addr":       `{"systemId": "x", "password": "p"}`,
		"unknown field": `{"addr": "h:1", "systemId": "x", "password": "p", "windw": 5}`,
		"bad mode":      `{"addr": "h:1", "systemId": "x", "password": "p", "mode": "receiver"}`,
		"bad concat":    `{"addr": "h:1", "systemId": "x", "password": "p", "concat": "udh"}`,
		"bad duration":  `{"addr": "h:1", "systemId": "x", "password": "p", "timeout": "soon"}`,
		"empty env":     `{"addr": "h:1", "systemId": "x", "passwordEnv": "NOPE"}`,
		"window":        `{"addr": "h:1", "systemId": "x", "password": "p", "window": 5000}`,
		"bad zone":      `{"addr": "h:1", "systemId": "x", "password": "p", "timezone": "Europe/Atlantis"}`,
		"bad offset":    `{"addr": "h:1", "systemId": "x", "password": "p", "timezone": "+25:00"}`,
		"local zone":    `{"addr": "h:1", "systemId": "x", "password": "p", "timezone": "Local"}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(path, []byte(file), 0o600)
		if _, err := loadSMPP(path, func(string) string { return "" }); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	for zone, offset := range map[string]int{"+01:00": 3600, "-0330": -12600, "UTC": 0, "Europe/Ljubljana": 3600} {
		path := filepath.Join(dir, "zone.json")
		os.WriteFile(path, []byte(`{"addr": "h:1", "systemId": "x", "password": "p", "timezone": "`+zone+`"}`), 0o600)
		c, err := loadSMPP(path, func(string) string { return "" })
		if err != nil {
			t.Errorf("timezone %s: %v", zone, err)
			continue
		}
		if _, off := time.Date(2026, 1, 15, 12, 0, 0, 0, c.TimeZone).Zone(); off != offset {
			t.Errorf("timezone %s: offset %d in January, want %d", zone, off, offset)
		}
	}
	if c.TimeZone != time.UTC {
		t.Errorf("the example's zone: %v", c.TimeZone)
	}
	if _, err := parseConfig([]string{"-smpp", filepath.Join(dir, "missing.json")}, func(string) string { return "" }, io.Discard); err == nil {
		t.Error("-smpp of a missing file parsed")
	}
}
