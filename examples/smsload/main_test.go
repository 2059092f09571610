package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

func TestRun(t *testing.T) {
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "load", Enabled: true, Balance: decimal.RequireFromString("1000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.01")}},
	}}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bulksmsapi.Handler(gw, bulksmsapi.Options{}))
	defer srv.Close()

	r, err := run(context.Background(), config{URL: srv.URL + bulksmsapi.SendSMSPath, User: "load", Password: "pw", Receiver: "38640123456", N: 300, Workers: 4, Duration: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 300 || r.Accepted != 300 || r.P99 <= 0 || r.P50 > r.P99 {
		t.Fatalf("result %v", r)
	}
	a, _ := store.Account(t.Context(), "load")
	if !a.Balance.Equal(decimal.RequireFromString("994")) { // 300 × 2 parts × 0.01
		t.Errorf("balance %s, want 994", a.Balance)
	}
	r, err = run(context.Background(), config{URL: srv.URL + bulksmsapi.SendSMSPath, User: "load", Password: "wrong", Receiver: "38640123456", N: 10, Workers: 2, Duration: 30 * time.Second})
	if err != nil || r.Rejected != 10 || len(r.Codes) != 1 {
		t.Fatalf("wrong password: %v, %v", r, err)
	}
	for code, n := range r.Codes {
		if n != 10 || !strings.Contains(r.String(), "refused by code: "+code+"×10") {
			t.Errorf("refusals by code %v in %q", r.Codes, r)
		}
	}
}

func TestRefusalCode(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{420, `{"error":{"code":"107","message":"not enough credit"}}`, "107"},
		{420, `{"error":{"code":114,"message":"no price"}}`, "114"},
		{403, `Authorization failed for sendsms`, "403"},
		{420, ``, "420"},
	} {
		if got := refusalCode(c.status, []byte(c.body)); got != c.want {
			t.Errorf("refusalCode(%d, %q) = %q, want %q", c.status, c.body, got, c.want)
		}
	}
}

// signalWriter tells each Write on a channel.
type signalWriter chan string

func (w signalWriter) Write(p []byte) (int, error) {
	select {
	case w <- string(p):
	default:
	}
	return len(p), nil
}

// TestProgress: a run prints a progress line every -progress while it
// lasts. The server holds its one answer until the first line is out.
func TestProgress(t *testing.T) {
	lines := make(signalWriter, 1)
	var first string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first == "" {
			first = <-lines
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	r, err := run(t.Context(), config{URL: srv.URL, User: "u", Password: "p", Receiver: "38640123456", N: 1, Workers: 1,
		Duration: time.Minute, Every: time.Millisecond, Progress: lines})
	if err != nil || r.Accepted != 1 {
		t.Fatalf("%v, %v", r, err)
	}
	if !strings.Contains(first, "0 accepted") || !strings.Contains(first, "0 rejected, 0 failed") {
		t.Errorf("progress line %q", first)
	}
}

func TestRunAsksForReports(t *testing.T) {
	bodies := make(chan map[string]any, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b map[string]any
		json.NewDecoder(r.Body).Decode(&b)
		bodies <- b
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	mask := 9
	for _, c := range []struct {
		url  string
		mask *int
		want map[string]any
	}{
		{"", nil, map[string]any{}},
		{"http://127.0.0.1:12040/dlr", &mask, map[string]any{"dlrUrl": "http://127.0.0.1:12040/dlr", "dlrMask": 9.0}},
		{"http://127.0.0.1:12040/dlr", nil, map[string]any{"dlrUrl": "http://127.0.0.1:12040/dlr"}},
	} {
		r, err := run(t.Context(), config{URL: srv.URL, User: "u", Password: "p", Receiver: "38640123456", N: 1, Workers: 1, Duration: 10 * time.Second, DLRURL: c.url, DLRMask: c.mask})
		if err != nil || r.Accepted != 1 {
			t.Fatalf("%v, %v", r, err)
		}
		b := <-bodies
		got := map[string]any{}
		for _, k := range []string{"dlrUrl", "dlrMask"} {
			if v, ok := b[k]; ok {
				got[k] = v
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("url %q mask %v: body has %v, want %v", c.url, c.mask, got, c.want)
		}
	}
}

// With -api kannel a submission is Kannel's sendsms GET, the text and the
// credentials in the query.
func TestKannelRequests(t *testing.T) {
	newRequest, err := requests(config{URL: "http://127.0.0.1:13013/cgi-bin/sendsms", API: "kannel", User: "load", Password: "p&w", Receiver: "38640123456", Text: "a b+c"})
	if err != nil {
		t.Fatal(err)
	}
	req := newRequest(t.Context())
	q := req.URL.Query()
	if req.Method != "GET" || req.URL.Path != "/cgi-bin/sendsms" || q.Get("username") != "load" || q.Get("password") != "p&w" ||
		q.Get("to") != "38640123456" || q.Get("from") != "LoadTest" || q.Get("text") != "a b+c" {
		t.Errorf("request %s %s", req.Method, req.URL)
	}
	if _, err := requests(config{API: "smpp"}); err == nil {
		t.Error("an unknown -api was taken")
	}
}

// TestRate: -rate spreads the submissions over time: 20 at 200/s take
// at least the 95 ms their slots span, however many workers.
func TestRate(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	start := time.Now()
	r, err := run(context.Background(), config{URL: srv.URL, User: "u", Password: "p", Receiver: "38640123456", N: 20, Workers: 8, Duration: 10 * time.Second, Rate: 200})
	if err != nil || r.Accepted != 20 || n.Load() != 20 {
		t.Fatalf("%v, %v", r, err)
	}
	if took := time.Since(start); took < 95*time.Millisecond {
		t.Errorf("20 submissions at 200/s took %v", took)
	}
}
