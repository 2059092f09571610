package bulksmsapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/sms"
)

// The codes a 420 may carry are the interface's codes but the internal
// one (101 is a bare 500), and the events of a report are sms.Events: the
// document's enumerations follow the code's tables.
func TestOpenAPIEnumerations(t *testing.T) {
	c := contract(t)
	var codes []any
	for _, code := range sms.Codes() {
		if code.Kind() != msgkit.Internal {
			codes = append(codes, code.String())
		}
	}
	got := c.Schema("BulkError").Properties["error"].Value.Properties["code"].Value.Enum
	if !slices.Equal(got, codes) {
		t.Errorf("420 codes %v, want %v", got, codes)
	}
	var events []any
	for _, e := range sms.Events() {
		events = append(events, e.String())
	}
	if got := c.Schema("DeliveryReport").Properties["event"].Value.Enum; !slices.Equal(got, events) {
		t.Errorf("report events %v, want %v", got, events)
	}
	keyCodes := []any{idempotency.CodeInvalidKey, idempotency.CodeKeyReused, idempotency.CodeInProgress}
	if got := c.Schema("IdempotencyError").Properties["error"].Value.Properties["code"].Value.Enum; !slices.Equal(got, keyCodes) {
		t.Errorf("Idempotency-Key codes %v, want %v", got, keyCodes)
	}
}

// The delivery reports that msgkit posts to dlrUrl (package sms's golden
// bodies, one per event) match the callback deliveryReport, and a report
// with a field gone wrong does not.
func TestOpenAPIDeliveryReports(t *testing.T) {
	c := contract(t)
	files, err := filepath.Glob("../../../sms/testdata/report_*.json")
	if err != nil || len(files) != len(sms.Events()) {
		t.Fatalf("%d report goldens (%v), want one per event", len(files), err)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c.CheckCallback(t, "deliveryReport", http.MethodPost, body)
	}
	for _, bad := range []string{
		`{"msgId":"m","event":"READ","errorCode":0,"partNum":0,"numParts":1,"accountName":"a","sendTime":1,"dlrTime":2}`,
		`{"msgId":"m","event":"DELIVERED","errorCode":"0","partNum":0,"numParts":1,"accountName":"a","sendTime":1,"dlrTime":2}`,
		`{"msgId":"m","event":"DELIVERED","errorCode":0,"partNum":0,"numParts":1,"accountName":"a","sendTime":1}`,
		`{"msgId":"m","event":"DELIVERED","errorCode":0,"partNum":0,"numParts":1,"accountName":"a","sendTime":1,"dlrTime":2,"extra":1}`,
	} {
		if err := c.CheckCallbackBody("deliveryReport", http.MethodPost, []byte(bad)); err == nil {
			t.Errorf("passed: %s", bad)
		}
	}
}

// Another method, or another path, gets the standard library's plain
// answers, as the document says.
func TestOpenAPIUnroutedAnswers(t *testing.T) {
	h, _ := newBulkSMS(t)
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, bulksmsapi.SendSMSPath, http.StatusMethodNotAllowed},
		{http.MethodPost, "/bulk/other", http.StatusNotFound},
	} {
		r := sendSMSRequest(goodSMS)
		r.Method, r.URL.Path = tt.method, tt.path
		w := httpapitest.Serve(contract(t).Handler(t, h), httpapitest.SkipRequestCheck(r))
		if w.Code != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, w.Code, tt.status)
		}
	}
}
