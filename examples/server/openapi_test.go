package main

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// GET /openapi/ lists the documents; each is served valid, with the
// listeners that serve its family as servers; and the platform, as
// assembled, answers as the served documents say.
func TestOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	certFile, keyFile := selfSigned(t, t.TempDir())
	l, _ := startPlatform(t, config{store: "memory", tlsCert: certFile, tlsKey: keyFile})
	base := "http://" + l.API

	resp, body := call(t, http.MethodGet, base+"/openapi/", "", nil, "")
	var links []struct{ Family, URL string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &links) != nil {
		t.Fatalf("GET /openapi/: %d %s", resp.StatusCode, body)
	}
	type server struct{ URL, Description string }
	want := map[string][]string{
		"bulksms":    {"http://" + l.SMSHTTP, "https://" + l.SMSHTTPS},
		"oauth":      {"http://" + l.API},
		"finance":    {"http://" + l.API},
		"cds":        {"http://" + l.API},
		"routing":    {"http://" + l.API},
		"admin":      {"http://" + l.API},
		"testsystem": {"http://" + l.API},
		"uiproxy":    {"http://" + l.API},
		"health":     {"http://" + l.API, "http://" + l.SMSHTTP, "https://" + l.SMSHTTPS},
	}
	contracts := map[string]*httpapitest.Contract{}
	for _, link := range links {
		resp, body := call(t, http.MethodGet, base+link.URL, "", nil, "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %q %s", link.URL, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var doc struct {
			OpenAPI string `json:"openapi"`
			Servers []server
		}
		if err := json.Unmarshal(body, &doc); err != nil || doc.OpenAPI != "3.1.0" {
			t.Fatalf("%s: openapi %q, %v", link.URL, doc.OpenAPI, err)
		}
		var urls []string
		for _, s := range doc.Servers {
			urls = append(urls, s.URL)
		}
		if diff := cmp.Diff(want[link.Family], urls); diff != "" {
			t.Errorf("%s servers (-want +got):\n%s", link.Family, diff)
		}
		contracts[link.Family] = httpapitest.NewContract(t, body)
	}
	if len(links) != len(want) || len(contracts) != len(want) {
		t.Fatalf("documents %v, want %d of them", links, len(want))
	}

	// The served platform keeps the served documents.
	tlsBase := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} // the test's own certificate
	health := &http.Client{Transport: contracts["health"].Transport(t, tlsBase)}
	for _, u := range []string{base + "/healthz", base + "/readyz", "http://" + l.SMSHTTP + "/healthz", "https://" + l.SMSHTTPS + "/readyz"} {
		if resp, err := health.Get(u); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %v %v", u, resp, err)
		} else {
			resp.Body.Close()
		}
	}
	bulk := &http.Client{Transport: contracts["bulksms"].Transport(t, tlsBase)}
	req, _ := http.NewRequest(http.MethodPost, "https://"+l.SMSHTTPS+"/bulk/sendsms", strings.NewReader(`{"type":"text"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := bulk.Do(httpapitest.SkipRequestCheck(req)); err != nil || resp.StatusCode != 420 {
		t.Errorf("bulk SMS without credentials: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	oauth := &http.Client{Transport: contracts["oauth"].Transport(t, nil)}
	if resp, err := oauth.Get(base + "/oauth2/token-info"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("token-info without a token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// The demo tenant's contacts, as the CDS document says.
	cds := &http.Client{Transport: contracts["cds"].Transport(t, nil)}
	if resp, err := cds.Get(base + "/news/v1/services/00000000-0000-4000-8000-000000000000/cds/contacts"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("CDS contacts without a token: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// The mock grid, as the UI proxy's document says.
	ui := &http.Client{Transport: contracts["uiproxy"].Transport(t, nil)}
	if resp, err := ui.Get(base + "/ui/v1/mock/grid/invoices?reference_id=7&sort=-id&gt(id)=3"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the mock grid: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// Another name under /openapi/ is an unknown path.
	resp, body = call(t, http.MethodGet, base+"/openapi/nope.json", "", nil, "")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"code":"not_found"`) {
		t.Errorf("unknown document: %d %s", resp.StatusCode, body)
	}
}

// A listener bound to every interface is given with the host the client
// used; one bound to an address, with that address.
func TestPublicAddr(t *testing.T) {
	for _, tt := range []struct{ addr, reqHost, want string }{
		{"[::]:12020", "api.example.com:8080", "api.example.com:12020"},
		{"0.0.0.0:12020", "api.example.com", "api.example.com:12020"},
		{":12020", "10.1.2.3:8080", "10.1.2.3:12020"},
		{"[::]:12020", "[2001:db8::1]:8080", "[2001:db8::1]:12020"},
		{"[::]:12020", "", "localhost:12020"},
		{"127.0.0.1:12020", "api.example.com:8080", "127.0.0.1:12020"},
	} {
		if got := publicAddr(tt.addr, tt.reqHost); got != tt.want {
			t.Errorf("publicAddr(%q, %q) = %q, want %q", tt.addr, tt.reqHost, got, tt.want)
		}
	}
}

// Before the listeners are bound, a document keeps its own servers.
func TestOpenAPIBeforeBinding(t *testing.T) {
	d := newAPIDocs([]family{{docs: []apiDoc{{"oauth", httpapi.OAuthOpenAPI(), restServers}}}})
	h := d.mount(http.NotFoundHandler(), nil)
	r, _ := http.NewRequest(http.MethodGet, "/openapi/oauth.json", nil)
	w := httpapitest.Serve(h, r)
	b, _ := io.ReadAll(w.Body)
	if w.Code != http.StatusOK || !strings.Contains(string(b), `"http://localhost:8080"`) {
		t.Fatalf("%d %s", w.Code, b)
	}
}
