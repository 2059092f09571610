package bulksmsapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// keyedBulkSMS is the handler over a real gateway that keeps idempotency
// keys; brokenAccept, when set, makes the store's Accept fail.
type keyedBulkSMS struct {
	h     http.Handler
	gw    *sms.Gateway
	store *memstore.SMSStore
	clock *msgkittest.Clock
	fail  *bool
}

type failAccept struct {
	sms.Store
	fail *bool
}

func (s failAccept) Accept(ctx context.Context, m sms.MessageRecord) error {
	if *s.fail {
		return msgkit.Wrap(errors.New("connection reset"), msgkit.Internal, "storage_error", "storage error")
	}
	return s.Store.Accept(ctx, m)
}

func newKeyedBulkSMS(t testing.TB) *keyedBulkSMS {
	db := memstore.New()
	clk := httpapitest.NewClock()
	fail := new(bool)
	n := 0
	keys := idempotency.NewService(db.Idempotency(), idempotency.Options{Clock: clk.Now, NewRef: func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) // the message ids of keyed submissions
	}})
	gw := sms.NewGateway(failAccept{db.SMS(), fail}, sms.GatewayOptions{Clock: clk.Now, BcryptCost: bcrypt.MinCost, Keys: keys})
	_, err := gw.CreateAccount(context.Background(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &keyedBulkSMS{h: contract(t).Handler(t, bulksmsapi.Handler(gw, bulksmsapi.Options{})), gw: gw, store: db.SMS(), clock: clk, fail: fail}
}

func (k *keyedBulkSMS) post(body string, keys ...string) *httptest.ResponseRecorder {
	r := sendSMSRequest(body)
	for _, key := range keys {
		r.Header.Add("Idempotency-Key", key)
	}
	return httpapitest.Serve(k.h, r)
}

func (k *keyedBulkSMS) wantBalance(t *testing.T, want string) {
	t.Helper()
	a, err := k.store.Account(t.Context(), "shop")
	if err != nil || !a.Balance.Equal(decimal.RequireFromString(want)) {
		t.Errorf("balance %s, %v; want %s", a.Balance, err, want)
	}
}

// wantBulkError checks the family's error body with its code.
func wantBulkError(t *testing.T, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body)
	}
	m := httpapitest.DecodeBody(t, w)
	e, _ := m["error"].(map[string]any)
	if len(m) != 1 || len(e) != 2 || e["code"] != code || e["message"] == "" {
		t.Fatalf(`want {"error":{"code":%q,"message":...}}: %s`, code, w.Body)
	}
}

// A retried submission with an Idempotency-Key gets its first 202, the
// same msgId and numParts, and is charged once; the key with another
// submission is 422; a header that is no key 400.
func TestSendSMSIdempotencyKey(t *testing.T) {
	k := newKeyedBulkSMS(t)
	first := k.post(goodSMS, `"order-17"`)
	if first.Code != http.StatusAccepted || first.Header().Get(httpapi.ReplayedHeader) != "" {
		t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
	}
	// The same submission, encoded otherwise, under the key in either
	// spelling.
	reordered := `{"auth":{"password":"pw","username":"shop"},"type":"text","sender":"MyShop","receiver":38640123456,"dcs":"gsm","text":"Hello","dlrMask":"19","dlrUrl":"https://example.com/dlr","custom":{"order":1}}`
	for _, retry := range []struct{ body, key string }{{goodSMS, `"order-17"`}, {reordered, `order-17`}} {
		again := k.post(retry.body, retry.key)
		if again.Code != http.StatusAccepted || again.Body.String() != first.Body.String() || again.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Errorf("retry %s: %d %v %s; want %s replayed", retry.body, again.Code, again.Header(), again.Body, first.Body)
		}
	}
	msgkittest.Golden(t, "testdata/202_replayed.json", httpapitest.Answer(k.post(goodSMS, "order-17")))
	k.wantBalance(t, "9.95")

	reused := k.post(strings.Replace(goodSMS, `"text":"Hello"`, `"text":"Hello again"`, 1), "order-17")
	wantBulkError(t, reused, http.StatusUnprocessableEntity, idempotency.CodeKeyReused)
	msgkittest.Golden(t, "testdata/422_idempotency_key_reused.json", httpapitest.Answer(reused))
	empty := sendSMSRequest(goodSMS)
	empty.Header.Set("Idempotency-Key", "")
	wantBulkError(t, httpapitest.Serve(k.h, httpapitest.SkipRequestCheck(empty)), http.StatusBadRequest, idempotency.CodeInvalidKey)
	for _, keys := range [][]string{{`"unterminated`}, {"a b"}, {"a", "b"}} {
		w := k.post(goodSMS, keys...)
		wantBulkError(t, w, http.StatusBadRequest, idempotency.CodeInvalidKey)
		if keys[0] == "a b" {
			msgkittest.Golden(t, "testdata/400_invalid_idempotency_key.json", httpapitest.Answer(w))
		}
	}
	k.wantBalance(t, "9.95")
	// Without the header, every submission is accepted and charged, as
	// always.
	if w := k.post(goodSMS); w.Code != http.StatusAccepted || w.Body.String() == first.Body.String() {
		t.Errorf("without a key: %d %s", w.Code, w.Body)
	}
	k.wantBalance(t, "9.90")
}

// A submission whose store failed holds its key: a retry is 409 with
// Retry-After until the lease ends, and then accepted, once.
func TestSendSMSIdempotencyKeyInProgress(t *testing.T) {
	k := newKeyedBulkSMS(t)
	*k.fail = true
	if w := k.post(goodSMS, "k"); w.Code != http.StatusInternalServerError {
		t.Fatalf("store failure: %d %s", w.Code, w.Body)
	}
	*k.fail = false
	k.clock.Advance(idempotency.DefaultLease / 4)
	busy := k.post(goodSMS, "k")
	wantBulkError(t, busy, http.StatusConflict, idempotency.CodeInProgress)
	if got := busy.Header().Get("Retry-After"); got != "90" {
		t.Errorf("Retry-After %q, want 90", got)
	}
	msgkittest.Golden(t, "testdata/409_idempotency_key_in_progress.json", httpapitest.Answer(busy))
	k.wantBalance(t, "10")
	k.clock.Advance(idempotency.DefaultLease)
	first := k.post(goodSMS, "k")
	if first.Code != http.StatusAccepted || first.Header().Get(httpapi.ReplayedHeader) != "" {
		t.Fatalf("after the lease: %d %v %s", first.Code, first.Header(), first.Body)
	}
	if again := k.post(goodSMS, "k"); again.Body.String() != first.Body.String() || again.Header().Get(httpapi.ReplayedHeader) != "true" {
		t.Errorf("retry: %d %s", again.Code, again.Body)
	}
	k.wantBalance(t, "9.95")
}

// BenchmarkSendSMSIdempotencyKey is BenchmarkSendSMSGateway with an
// Idempotency-Key: a new key each time (begun, accepted, finished) and one
// key retried (the acceptance given again).
func BenchmarkSendSMSIdempotencyKey(b *testing.B) {
	k := newKeyedBulkSMS(b)
	h := bulksmsapi.Handler(k.gw, bulksmsapi.Options{}) // without the contract's checks
	if _, err := smstest.AddBalance(context.Background(), k.store, "shop", decimal.RequireFromString("1000000000")); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, key func(i int) string) {
		b.ReportAllocs()
		b.SetBytes(int64(len(goodSMS)))
		i := 0
		for b.Loop() {
			i++
			r := sendSMSRequest(goodSMS)
			r.Header.Set("Idempotency-Key", key(i))
			if w := httpapitest.Serve(h, r); w.Code != http.StatusAccepted {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("new key", func(b *testing.B) { run(b, func(i int) string { return "k" + strconv.Itoa(i) }) })
	b.Run("replay", func(b *testing.B) { run(b, func(int) string { return "same" }) })
}
