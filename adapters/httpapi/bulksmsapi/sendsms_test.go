package bulksmsapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// submitFunc is a Submitter stub for failures the gateway cannot be made to
// produce.
type submitFunc func(context.Context, sms.Submission) (sms.Accepted, error)

func (f submitFunc) Submit(ctx context.Context, s sms.Submission) (sms.Accepted, error) {
	return f(ctx, s)
}

func newBulkSMS(t testing.TB) (http.Handler, *memstore.SMSStore) {
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	_, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return bulksmsapi.Handler(gw, bulksmsapi.Options{}), store
}

// contract is the family's OpenAPI document, which every exchange of these
// tests is held to. It is loaded and linted once (loadContract), as that
// is the slow part of a check; a Contract is only read afterwards.
func contract(t testing.TB) *httpapitest.Contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var loadContract = sync.OnceValues(func() (*httpapitest.Contract, error) {
	return httpapitest.LoadContract(bulksmsapi.OpenAPI())
})

func sendSMSRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, bulksmsapi.SendSMSPath, strings.NewReader(body))
	r.RemoteAddr = httpapitest.ClientAddr
	r.Header.Set("Content-Type", "application/json")
	return r
}

// postSMS posts a submission that the document allows through h, and
// checks the request and the answer against the document.
func postSMS(t testing.TB, h http.Handler, body string) *httptest.ResponseRecorder {
	return httpapitest.Serve(contract(t).Handler(t, h), sendSMSRequest(body))
}

// postBad posts a submission that breaks the document on purpose: only
// the answer is checked against it.
func postBad(t testing.TB, h http.Handler, body string) *httptest.ResponseRecorder {
	return httpapitest.Serve(contract(t).Handler(t, h), httpapitest.SkipRequestCheck(sendSMSRequest(body)))
}

const goodSMS = `{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","dcs":"gsm","text":"Hello","dlrMask":19,"dlrUrl":"https://example.com/dlr","custom":{"order":1},"unknown":"ignored"}`

func TestSendSMSAccepted(t *testing.T) {
	h, store := newBulkSMS(t)
	for _, body := range []string{
		goodSMS,
		strings.Replace(goodSMS, `"receiver":"38640123456"`, `"receiver":38640123456`, 1),
		strings.Replace(goodSMS, `"dlrMask":19`, `"dlrMask":"19"`, 1),
		strings.Replace(goodSMS, `"dcs":"gsm"`, `"dcs":"UCS","flash":true`, 1),
	} {
		w := postSMS(t, h, body)
		if w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
		var got struct {
			MsgID    string `json:"msgId"`
			NumParts int    `json:"numParts"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || got.MsgID == "" || got.NumParts != 1 {
			t.Fatalf("body %s", w.Body)
		}
		m, err := store.Message(context.Background(), sms.MessageID(got.MsgID))
		if err != nil || string(m.Custom) != `{"order":1}` || m.DLRMask != 19 {
			t.Fatalf("stored %+v, %v", m, err)
		}
	}
}

func TestSendSMSRejections(t *testing.T) {
	h, _ := newBulkSMS(t)
	tests := []struct {
		name, body, code string
	}{
		{"empty body", ``, "110"},
		{"blank body", " \n ", "110"},
		{"malformed JSON", `{"type":`, "109"},
		{"not an object", `[1,2]`, "109"},
		{"two values", goodSMS + ` {}`, "109"},
		{"receiver of the wrong type", strings.Replace(goodSMS, `"receiver":"38640123456"`, `"receiver":true`, 1), "112"},
		{"receiver as a fraction", strings.Replace(goodSMS, `"receiver":"38640123456"`, `"receiver":3.5`, 1), "112"},
		{"text of the wrong type", strings.Replace(goodSMS, `"text":"Hello"`, `"text":7`, 1), "112"},
		{"dlrMask not an integer", strings.Replace(goodSMS, `"dlrMask":19`, `"dlrMask":"x"`, 1), "112"},
		{"wrong password", strings.Replace(goodSMS, `"password":"pw"`, `"password":"nope"`, 1), "103"},
		{"encoding", strings.Replace(goodSMS, `"text":"Hello"`, `"text":"😀"`, 1), "102"},
		{"unknown type", strings.Replace(goodSMS, `"type":"text"`, `"type":"mms"`, 1), "111"},
		{"too large", `{"text":"` + strings.Repeat("a", bulksmsapi.DefaultMaxBodyBytes) + `"}`, "109"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := postBad(t, h, tc.body)
			if w.Code != bulksmsapi.StatusBusinessError {
				t.Fatalf("status %d, want 420; body %s", w.Code, w.Body)
			}
			var got map[string]map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatalf("body %s: %v", w.Body, err)
			}
			if code, ok := got["error"]["code"].(string); !ok || code != tc.code {
				t.Fatalf("code %#v (a JSON string is required), want %q; body %s", got["error"]["code"], tc.code, w.Body)
			}
			if msg, _ := got["error"]["message"].(string); msg == "" {
				t.Errorf("no message: %s", w.Body)
			}
		})
	}
}

func TestSendSMSServerFailures(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
	}{
		{msgkit.Wrap(context.DeadlineExceeded, msgkit.Internal, "db", "database timeout on table sms_messages"), http.StatusInternalServerError},
		{msgkit.New(msgkit.Unavailable, "db", "database down"), http.StatusServiceUnavailable},
	} {
		h := bulksmsapi.Handler(submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
			return sms.Accepted{}, tc.err
		}), bulksmsapi.Options{})
		w := postSMS(t, h, goodSMS)
		if w.Code != tc.status || w.Body.Len() != 0 {
			t.Errorf("%v: %d %q; want %d without a body", tc.err, w.Code, w.Body, tc.status)
		}
	}
	h := bulksmsapi.Handler(submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
		panic("boom")
	}), bulksmsapi.Options{})
	if w := postSMS(t, h, goodSMS); w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "boom") {
		t.Errorf("panic: %d %q", w.Code, w.Body)
	}
}

// The handler hands the gateway what the body says, and the client address.
func TestSendSMSDecoding(t *testing.T) {
	var got sms.Submission
	h := bulksmsapi.Handler(submitFunc(func(_ context.Context, s sms.Submission) (sms.Accepted, error) {
		got = s
		return sms.Accepted{MsgID: "m", NumParts: 1}, nil
	}), bulksmsapi.Options{})
	w := postSMS(t, h, `{"type":"wsi","auth":{"username":"u","password":"p"},"sender":12345,"receiver":"386","url":"https://x.example/","title":"T","flash":true,"custom":null}`)
	if w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	want := sms.Submission{Type: "wsi", Username: "u", Password: "p", Sender: "12345", Receiver: "386", URL: "https://x.example/", Title: "T", Flash: true, ClientIP: netip.MustParseAddr("192.0.2.10")}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("submission (-want +got):\n%s", diff)
	}
}

// What encoding/json would silently change or merge is refused with 109
// naming the field: invalid UTF-8 and lone surrogate escapes (json makes
// them U+FFFD), keys given twice (json keeps the last), and bodies that are
// not one object, null included. Valid surrogate pairs and escapes pass.
func TestSendSMSStrictJSON(t *testing.T) {
	reached := false
	h := bulksmsapi.Handler(submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
		reached = true
		return sms.Accepted{MsgID: "m", NumParts: 1}, nil
	}), bulksmsapi.Options{})
	with := func(old, new string) string { return strings.Replace(goodSMS, old, new, 1) }
	for _, tc := range []struct {
		name, body, field string // field "-" means accepted
	}{
		{"invalid UTF-8 in text", with(`"text":"Hello"`, "\"text\":\"He\xffllo\""), "text"},
		{"invalid UTF-8 in a username", with(`"username":"shop"`, "\"username\":\"sh\xc3op\""), "auth.username"},
		{"lone high surrogate", with(`"text":"Hello"`, `"text":"a\ud800b"`), "text"},
		{"high surrogate at the end", with(`"text":"Hello"`, `"text":"a\ud800"`), "text"},
		{"high surrogate and no low", with(`"text":"Hello"`, `"text":"\ud800\u0041"`), "text"},
		{"lone low surrogate", with(`"text":"Hello"`, `"text":"\udc00"`), "text"},
		{"lone surrogate in custom", with(`"custom":{"order":1}`, `"custom":{"items":[{"note":"\ud83d"}]}`), "custom.items[0].note"},
		{"lone surrogate in a key", with(`"custom":{"order":1}`, `"custom":{"ab\udfff":1}`), "custom.ab"},
		{"auth twice", with(`"sender":"MyShop"`, `"auth":{"username":"other","password":"x"},"sender":"MyShop"`), "auth"},
		{"username twice", with(`"password":"pw"`, `"password":"pw","username":"other"`), "auth.username"},
		{"custom key twice", with(`"custom":{"order":1}`, `"custom":{"order":1,"order":2}`), "custom.order"},
		{"null body", `null`, ""},
		{"array body", `[` + goodSMS + `]`, ""},
		{"string body", `"text"`, ""},
		{"number body", `42`, ""},
		{"surrogate pair and escapes", with(`"text":"Hello"`, `"text":"\ud83d\ude00 \u00e9\\ud800\n"`), "-"},
		{"same key in two objects", with(`"custom":{"order":1}`, `"custom":{"username":"x","auth":{"username":"y"}}`), "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reached = false
			post := postBad
			if tc.field == "-" {
				post = postSMS
			}
			w := post(t, h, tc.body)
			if tc.field == "-" {
				if w.Code != http.StatusAccepted || !reached {
					t.Fatalf("want 202: %d %s", w.Code, w.Body)
				}
				return
			}
			m := httpapitest.DecodeBody(t, w)
			e, _ := m["error"].(map[string]any)
			msg, _ := e["message"].(string)
			if w.Code != 420 || e["code"] != "109" || reached || !strings.HasPrefix(msg, tc.field) {
				t.Fatalf("want 420 109 naming %q, the gateway not reached (%v): %d %s", tc.field, reached, w.Code, w.Body)
			}
		})
	}
}

func FuzzSendSMS(f *testing.F) {
	h, _ := newBulkSMS(f)
	c := contract(f)
	for _, s := range []string{goodSMS, ``, `{`, `{"dlrMask":1e99}`, `{"receiver":-1}`, `{"custom":[]}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		w := httpapitest.Serve(c.Handler(t, h), httpapitest.SkipRequestCheck(sendSMSRequest(body)))
		switch w.Code {
		case http.StatusAccepted, bulksmsapi.StatusBusinessError:
		default:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		var v map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("answer is not JSON: %s", w.Body)
		}
	})
}

// Every answer the handler gives, with a stub gateway so that the msgId of
// the 202 is stable: acceptance, each 420 of decoding and of the gateway's
// codes, and the bare 5xx. The rules are checked before the golden file is.
func TestSendSMSGolden(t *testing.T) {
	type answerCase struct {
		golden, body string
		err          error // the gateway's answer; nil accepts
		panics       bool  // the gateway panics
		status       int
		code         string // of a 420
	}
	cases := []answerCase{
		{"202_accepted", goodSMS, nil, false, http.StatusAccepted, ""},
		{"420_110_empty_body", ``, nil, false, 420, "110"},
		{"420_109_malformed_json", `{"type":`, nil, false, 420, "109"},
		{"420_109_two_values", goodSMS + ` {}`, nil, false, 420, "109"},
		{"420_109_too_large", `{"text":"` + strings.Repeat("a", bulksmsapi.DefaultMaxBodyBytes) + `"}`, nil, false, 420, "109"},
		{"420_112_wrong_type", strings.Replace(goodSMS, `"receiver":"38640123456"`, `"receiver":true`, 1), nil, false, 420, "112"},
		{"420_112_dlrmask", strings.Replace(goodSMS, `"dlrMask":19`, `"dlrMask":"x"`, 1), nil, false, 420, "112"},
		{"500_internal", goodSMS, sms.CodeApplicationError.Errorf("the database timed out"), false, http.StatusInternalServerError, ""},
		{"500_panic", goodSMS, nil, true, http.StatusInternalServerError, ""},
		{"503_unavailable", goodSMS, msgkit.New(msgkit.Unavailable, "db", "the database is down"), false, http.StatusServiceUnavailable, ""},
	}
	for _, c := range sms.Codes() {
		if c.Kind() == msgkit.Internal {
			continue // 101 is the bare 500 above
		}
		err := c.Errorf("the gateway refused the submission")
		cases = append(cases, answerCase{fmt.Sprintf("420_%s_%s", c, c.Name()), goodSMS, err, false, 420, c.String()})
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			h := bulksmsapi.Handler(submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
				if tc.panics {
					panic("the gateway failed")
				}
				if tc.err != nil {
					return sms.Accepted{}, tc.err
				}
				return sms.Accepted{MsgID: "01JQ3Z5N7V4W8X9Y0A1B2C3D4E", NumParts: 1}, nil
			}), bulksmsapi.Options{})
			post := postSMS
			if tc.body != goodSMS {
				post = postBad
			}
			w := post(t, h, tc.body)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			switch {
			case tc.status >= 500:
				if w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
					t.Fatalf("a %d with a body: %q %q", w.Code, w.Header().Get("Content-Type"), w.Body)
				}
			case tc.status == bulksmsapi.StatusBusinessError:
				m := httpapitest.DecodeBody(t, w)
				e, _ := m["error"].(map[string]any)
				if len(m) != 1 || len(e) != 2 || e["code"] != tc.code || e["message"] == "" {
					t.Fatalf(`want {"error":{"code":%q,"message":...}} with the code a JSON string: %s`, tc.code, w.Body)
				}
			default:
				if m := httpapitest.DecodeBody(t, w); len(m) != 2 || m["numParts"] != float64(1) || m["msgId"] == "" {
					t.Fatalf(`want {"msgId","numParts"}: %s`, w.Body)
				}
			}
			msgkittest.Golden(t, "testdata/"+tc.golden+".json", httpapitest.Answer(w))
		})
	}
}

// The same answers through the real gateway, with its injected message
// ids: what a client sees end to end, acceptance and the refusals the
// gateway decides after reading the account (114, 113).
func TestSendSMSGatewayGolden(t *testing.T) {
	store := memstore.New().SMS()
	n := 0
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost, NewID: func() sms.MessageID {
		n++
		return sms.MessageID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n))
	}})
	_, err := gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("0.05"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := bulksmsapi.Handler(gw, bulksmsapi.Options{})
	for _, tc := range []struct {
		golden, body string
		status       int
	}{
		{"gateway_202_accepted", goodSMS, http.StatusAccepted},
		{"gateway_420_113_no_credit", goodSMS, 420}, // the first took the whole balance
		{"gateway_420_114_no_route", strings.Replace(goodSMS, `"receiver":"38640123456"`, `"receiver":"4930123456"`, 1), 420},
	} {
		w := postSMS(t, h, tc.body)
		if w.Code != tc.status {
			t.Fatalf("%s: status %d, want %d: %s", tc.golden, w.Code, tc.status, w.Body)
		}
		msgkittest.Golden(t, "testdata/"+tc.golden+".json", httpapitest.Answer(w))
	}
}

// A submission whose client went away while the store worked (a
// PostgreSQL query cancelled with the request) is no storage failure: it
// is logged at INFO, never at ERROR.
func TestSendSMSClientGone(t *testing.T) {
	for _, gone := range []bool{false, true} {
		var logs bytes.Buffer
		h := bulksmsapi.Handler(submitFunc(func(ctx context.Context, _ sms.Submission) (sms.Accepted, error) {
			cause := context.Cause(ctx)
			if cause == nil {
				cause = errors.New("disk full")
			}
			return sms.Accepted{}, msgkit.Wrap(cause, msgkit.Internal, "storage_error", "storage error")
		}), bulksmsapi.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
		ctx, cancel := context.WithCancel(t.Context())
		if gone {
			cancel()
		}
		w := httpapitest.Serve(contract(t).Handler(t, h), sendSMSRequest(goodSMS).WithContext(ctx))
		cancel()
		errorLogged := strings.Contains(logs.String(), `"level":"ERROR"`)
		switch {
		case gone && (w.Code != http.StatusServiceUnavailable || errorLogged):
			t.Errorf("client gone: %d, logs %s; want 503 logged below ERROR", w.Code, logs.String())
		case !gone && (w.Code != http.StatusInternalServerError || !errorLogged):
			t.Errorf("client still there: %d, logs %s; want 500 logged at ERROR", w.Code, logs.String())
		}
	}
}

func TestHandlerNeedsAGateway(t *testing.T) {
	defer func() {
		if v, _ := recover().(string); !strings.Contains(v, "gateway") {
			t.Errorf("recovered %q, want a panic naming the gateway", v)
		}
	}()
	bulksmsapi.Handler(nil, bulksmsapi.Options{})
}

// BenchmarkSendSMS is one submission through the handler, lenient decoding
// included, with a gateway that accepts at once.
func BenchmarkSendSMS(b *testing.B) {
	h := bulksmsapi.Handler(submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
		return sms.Accepted{MsgID: "m", NumParts: 1}, nil
	}), bulksmsapi.Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(goodSMS)))
	for b.Loop() {
		if w := httpapitest.Serve(h, sendSMSRequest(goodSMS)); w.Code != http.StatusAccepted {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkSendSMSGateway is one submission through the handler and a
// real gateway over memstore: decoding, the checks, splitting, charging
// and queueing, the path every submission takes.
func BenchmarkSendSMSGateway(b *testing.B) {
	store := memstore.New().SMS()
	gw := sms.NewGateway(store, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	if _, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("1000000000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		b.Fatal(err)
	}
	h := bulksmsapi.Handler(gw, bulksmsapi.Options{})
	b.ReportAllocs()
	b.SetBytes(int64(len(goodSMS)))
	for b.Loop() {
		if w := httpapitest.Serve(h, sendSMSRequest(goodSMS)); w.Code != http.StatusAccepted {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
