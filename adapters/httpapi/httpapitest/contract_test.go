package httpapitest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
)

// things is an OpenAPI 3.1 document with what the families' documents
// use: $ref, const, a type array with null, additionalProperties false,
// examples, a body-less response, webhooks and the unrouted answers.
func things(t *testing.T) *httpapitest.Contract {
	doc, err := os.ReadFile("testdata/things.openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	return httpapitest.NewContract(t, doc)
}

// The validator holds OpenAPI 3.1 documents to JSON Schema 2020-12, in
// requests, answers and webhooks alike: each broken exchange is refused,
// naming the fault, and each good one passes.
func TestContractCheck(t *testing.T) {
	c := things(t)
	const good = `{"kind":"thing","name":"a","note":null}`
	json := http.Header{"Content-Type": {"application/json"}}
	for _, tt := range []struct {
		name         string
		method, path string
		skip         bool
		req          string
		status       int
		header       http.Header
		body         string
		fault        string // "" passes
	}{
		{"good", "PUT", "/things/1", false, good, 200, json, good, ""},
		{"null in a type array", "PUT", "/things/1", false, good, 200, json, `{"kind":"thing","name":"a","note":null}`, ""},
		{"no body where none is documented", "PUT", "/things/1", false, good, 204, nil, "", ""},
		{"answer: wrong type", "PUT", "/things/1", false, good, 200, json, `{"kind":"thing","name":7}`, "name"},
		{"answer: missing required field", "PUT", "/things/1", false, good, 200, json, `{"kind":"thing"}`, "name"},
		{"answer: extra field", "PUT", "/things/1", false, good, 200, json, `{"kind":"thing","name":"a","extra":1}`, "extra"},
		{"answer: const", "PUT", "/things/1", false, good, 200, json, `{"kind":"other","name":"a"}`, "kind"},
		{"answer: null outside the type array", "PUT", "/things/1", false, good, 200, json, `{"kind":"thing","name":null}`, "name"},
		{"answer: undocumented status", "PUT", "/things/1", false, good, 201, json, good, "status is not supported"},
		{"answer: wrong content type", "PUT", "/things/1", false, good, 200, http.Header{"Content-Type": {"text/plain"}}, good, "text/plain"},
		{"answer: a body where none is documented", "PUT", "/things/1", false, good, 204, nil, "x", "no body"},
		{"request: extra field", "PUT", "/things/1", false, `{"kind":"thing","name":"a","x":1}`, 200, json, good, "request"},
		{"request: wrong path parameter", "PUT", "/things/abc", false, good, 200, json, good, "id"},
		{"request: missing body", "PUT", "/things/1", false, "", 200, json, good, "request"},
		{"request skipped, answer checked", "PUT", "/things/1", true, `{"x":1}`, 200, json, `{"x":1}`, "response"},
		{"request skipped, answer good", "PUT", "/things/1", true, `{"x":1}`, 200, json, good, ""},
		{"unknown path", "PUT", "/nothing", false, good, 404, json, `{"code":"not_found"}`, "matches no operation"},
		{"unknown path, skipped", "PUT", "/nothing", true, good, 404, json, `{"code":"not_found"}`, ""},
		{"unknown path, skipped, wrong body", "PUT", "/nothing", true, good, 404, json, `{"error":"x"}`, "response"},
		{"unknown path, skipped, wrong status", "PUT", "/nothing", true, good, 400, json, `{"code":"x"}`, "must be 404"},
		{"unknown method, skipped", "GET", "/things/1", true, "", 405, json, `{"code":"method_not_allowed"}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.req))
			r.Header.Set("Content-Type", "application/json")
			if tt.skip {
				r = httpapitest.SkipRequestCheck(r)
			}
			err := c.Check(r, []byte(tt.req), tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.fault == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.fault != "" && err == nil:
				t.Fatalf("passed, want a fault naming %q", tt.fault)
			case tt.fault != "" && !strings.Contains(err.Error(), tt.fault):
				t.Fatalf("fault %v does not name %q", err, tt.fault)
			}
		})
	}
}

func TestContractCallback(t *testing.T) {
	c := things(t)
	if err := c.CheckCallbackBody("thingChanged", "POST", []byte(`{"kind":"thing","name":"a"}`)); err != nil {
		t.Fatalf("good body refused: %v", err)
	}
	for _, body := range []string{`{"kind":"thing"}`, `{"kind":"thing","name":"a","x":1}`, `{"kind":"thing","name":1}`, `[]`} {
		if err := c.CheckCallbackBody("thingChanged", "POST", []byte(body)); err == nil {
			t.Errorf("%s passed", body)
		}
	}
	if err := c.CheckCallbackBody("nothing", "POST", []byte(`{}`)); err == nil {
		t.Error("an unknown webhook passed")
	}
}

// The loader's validation lints a document: an example that breaks its
// schema, a dangling $ref or a 3.1 keyword in a 3.0 document is refused.
func TestContractLint(t *testing.T) {
	doc, err := os.ReadFile("testdata/things.openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, broken := range map[string]string{
		"example breaks the schema": strings.Replace(string(doc), `"name": "a", "note": null`, `"name": 5, "note": null`, 1),
		"dangling $ref":             strings.Replace(string(doc), `"#/components/schemas/Error"}}}},`, `"#/components/schemas/Nope"}}}},`, 1),
		"3.0 with webhooks":         strings.Replace(string(doc), `"3.1.0"`, `"3.0.3"`, 1),
	} {
		if broken == string(doc) {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, err := httpapitest.LoadContract([]byte(broken)); err == nil {
			t.Errorf("%s: the document passed", name)
		}
	}
}

// Handler and Transport fail the test on a bad exchange; here through a
// stand-in test that records what would fail.
func TestContractHandlerAndTransport(t *testing.T) {
	c := things(t)
	answer := `{"kind":"thing","name":"a","extra":true}`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answer))
	})
	put := func() *http.Request {
		r := httptest.NewRequest("PUT", "/things/1", strings.NewReader(`{"kind":"thing","name":"a"}`))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	rec := &recordingTB{TB: t}
	w := httpapitest.Serve(c.Handler(rec, h), put())
	if w.Code != 200 || w.Body.String() != answer {
		t.Fatalf("the answer did not pass through: %d %s", w.Code, w.Body)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "extra") {
		t.Fatalf("Handler reported %q, want one fault naming extra", rec.errs)
	}

	srv := httptest.NewServer(h)
	defer srv.Close()
	rec = &recordingTB{TB: t}
	client := &http.Client{Transport: c.Transport(rec, nil)}
	req, _ := http.NewRequest("PUT", srv.URL+"/things/1", strings.NewReader(`{"kind":"thing","name":"a"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "extra") {
		t.Fatalf("Transport reported %q, want one fault naming extra", rec.errs)
	}
	answer = `{"kind":"thing","name":"a"}`
	rec = &recordingTB{TB: t}
	httpapitest.Serve(c.Handler(rec, h), put())
	if len(rec.errs) != 0 {
		t.Fatalf("a good exchange reported %q", rec.errs)
	}
}

// recordingTB records Errorf instead of failing.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
