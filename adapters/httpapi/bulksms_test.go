package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
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

func newBulkSMS(t testing.TB) (http.Handler, *memstore.Store) {
	store := memstore.New()
	gw := sms.NewGateway(store, nil, sms.GatewayOptions{BcryptCost: bcrypt.MinCost})
	_, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.BulkSMSHandler(httpapi.BulkSMSOptions{Gateway: gw}), store
}

func postSMS(h http.Handler, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, httpapi.SendSMSPath, strings.NewReader(body))
	r.RemoteAddr = httpapitest.ClientAddr
	r.Header.Set("Content-Type", "application/json")
	return httpapitest.Serve(h, r)
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
		w := postSMS(h, body)
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
		{"too large", `{"text":"` + strings.Repeat("a", httpapi.DefaultBulkSMSMaxBody) + `"}`, "109"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := postSMS(h, tc.body)
			if w.Code != httpapi.StatusBusinessError {
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
		h := httpapi.BulkSMSHandler(httpapi.BulkSMSOptions{Gateway: submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
			return sms.Accepted{}, tc.err
		})})
		w := postSMS(h, goodSMS)
		if w.Code != tc.status || w.Body.Len() != 0 {
			t.Errorf("%v: %d %q; want %d without a body", tc.err, w.Code, w.Body, tc.status)
		}
	}
	h := httpapi.BulkSMSHandler(httpapi.BulkSMSOptions{Gateway: submitFunc(func(context.Context, sms.Submission) (sms.Accepted, error) {
		panic("boom")
	})})
	if w := postSMS(h, goodSMS); w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "boom") {
		t.Errorf("panic: %d %q", w.Code, w.Body)
	}
}

// The handler hands the gateway what the body says, and the client address.
func TestSendSMSDecoding(t *testing.T) {
	var got sms.Submission
	h := httpapi.BulkSMSHandler(httpapi.BulkSMSOptions{Gateway: submitFunc(func(_ context.Context, s sms.Submission) (sms.Accepted, error) {
		got = s
		return sms.Accepted{MsgID: "m", NumParts: 1}, nil
	})})
	w := postSMS(h, `{"type":"wsi","auth":{"username":"u","password":"p"},"sender":12345,"receiver":"386","url":"https://x.example/","title":"T","flash":true,"custom":null}`)
	if w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	want := sms.Submission{Type: "wsi", Username: "u", Password: "p", Sender: "12345", Receiver: "386", URL: "https://x.example/", Title: "T", Flash: true, ClientIP: netip.MustParseAddr("192.0.2.10")}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
		t.Errorf("submission (-want +got):\n%s", diff)
	}
}

func FuzzSendSMS(f *testing.F) {
	h, _ := newBulkSMS(f)
	for _, s := range []string{goodSMS, ``, `{`, `{"dlrMask":1e99}`, `{"receiver":-1}`, `{"custom":[]}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		w := postSMS(h, body)
		switch w.Code {
		case http.StatusAccepted, httpapi.StatusBusinessError:
		default:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
		var v map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("answer is not JSON: %s", w.Body)
		}
	})
}
