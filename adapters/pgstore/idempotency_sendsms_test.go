package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/bulksmsapi"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/sms"
	"github.com/prometheus/client_golang/prometheus"
)

// finishKilled is a keeper whose Finish never reaches the database: the
// process was killed between the acceptance's commit and its answer.
type finishKilled struct{ sms.IdempotencyKeeper }

func (finishKilled) Finish(context.Context, idempotency.Claim, idempotency.Answer) error {
	return errors.New("killed")
}

// replica is one server over the shared database: its pool, its keys, its
// gateway and its POST /bulk/sendsms.
type replica struct {
	db *DB
	gw *sms.Gateway
	h  http.Handler
}

func newReplica(t *testing.T, dsn, schema string, keeper func(sms.IdempotencyKeeper) sms.IdempotencyKeeper) replica {
	db := openTestDB(t, dsn, Options{Schema: schema})
	var keys sms.IdempotencyKeeper = idempotency.NewService(db.Idempotency(), idempotency.Options{})
	if keeper != nil {
		keys = keeper(keys)
	}
	gw := sms.NewGateway(db.SMS(), sms.GatewayOptions{BcryptCost: bcrypt.MinCost, Keys: keys})
	return replica{db: db, gw: gw, h: bulksmsapi.Handler(gw, bulksmsapi.Options{})}
}

const keyedSMS = `{"type":"text","auth":{"username":"shop","password":"pw"},"sender":"MyShop","receiver":"38640123456","text":"Your order has shipped"}`

func (r replica) post(key string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, bulksmsapi.SendSMSPath, strings.NewReader(keyedSMS))
	req.RemoteAddr = "192.0.2.10:40000"
	req.Header.Set("Idempotency-Key", key)
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	return w
}

// messagesOf counts the account's stored messages and reads its balance.
func messagesOf(t *testing.T, db *DB, account string) (int, decimal.Decimal) {
	t.Helper()
	var n int
	var balance string
	if err := db.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM sms_messages WHERE account = $1),
		(SELECT balance::text FROM sms_accounts WHERE username = $1)`, account).Scan(&n, &balance); err != nil {
		t.Fatal(err)
	}
	return n, decimal.RequireFromString(balance)
}

// The money case across a kill -9 and across replicas: a submission
// accepted and committed by one server that died before answering is
// answered, by another server on the same database, with the first msgId
// and charged once; tries of one key on two servers at once accept one
// message.
func TestSendSMSIdempotencyKeyAcrossCrashAndReplicas(t *testing.T) {
	t.Parallel()
	dsn, schema := newTestSchema(t)
	dead := newReplica(t, dsn, schema, func(k sms.IdempotencyKeeper) sms.IdempotencyKeeper { return finishKilled{k} })
	if _, err := dead.gw.CreateAccount(t.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("10"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		t.Fatal(err)
	}
	// The first server accepts, commits, and dies before its answer.
	first := dead.post("order-17")
	if first.Code != http.StatusAccepted {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	var accepted struct {
		MsgID    string `json:"msgId"`
		NumParts int    `json:"numParts"`
	}
	if err := json.Unmarshal(first.Body.Bytes(), &accepted); err != nil {
		t.Fatal(err)
	}
	// The client never saw it and retries; a load balancer sends the
	// retry to another server.
	other := newReplica(t, dsn, schema, nil)
	for range 2 {
		w := other.post("order-17")
		if w.Code != http.StatusAccepted || strings.TrimSpace(w.Body.String()) != strings.TrimSpace(first.Body.String()) ||
			w.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Fatalf("retry on another server: %d %v %s; want the first answer %s", w.Code, w.Header(), w.Body, first.Body)
		}
	}
	if n, balance := messagesOf(t, other.db, "shop"); n != 1 || !balance.Equal(decimal.RequireFromString("9.95")) {
		t.Fatalf("%d messages, balance %s; want 1 and 9.95: charged once", n, balance)
	}

	// Two servers, one key, at once.
	var wg sync.WaitGroup
	answers := make([]*httptest.ResponseRecorder, 8)
	live := []replica{newReplica(t, dsn, schema, nil), other}
	for i := range answers {
		wg.Go(func() { answers[i] = live[i%2].post("order-18") })
	}
	wg.Wait()
	var body string
	for _, w := range answers {
		switch w.Code {
		case http.StatusAccepted:
			if body != "" && w.Body.String() != body {
				t.Errorf("two acceptances: %s and %s", body, w.Body)
			}
			body = w.Body.String()
		case http.StatusConflict:
		default:
			t.Errorf("status %d: %s", w.Code, w.Body)
		}
	}
	if n, balance := messagesOf(t, other.db, "shop"); n != 2 || !balance.Equal(decimal.RequireFromString("9.90")) {
		t.Fatalf("%d messages, balance %s; want 2 and 9.90", n, balance)
	}
}

// BenchmarkSendSMSPostgres is one submission through the handler and the
// gateway on PostgreSQL, one caller at a time: without an Idempotency-Key
// (the acceptance's one transaction), with a new key each time (the key's
// record begun and finished around it: two more statements), and one key
// retried (one statement, no acceptance); and without a key again with
// the gateway's metrics, to compare with the first.
func BenchmarkSendSMSPostgres(b *testing.B) {
	dsn, schema := newTestSchema(b)
	db := openTestDB(b, dsn, Options{Schema: schema})
	keys := idempotency.NewService(db.Idempotency(), idempotency.Options{})
	gw := sms.NewGateway(db.SMS(), sms.GatewayOptions{BcryptCost: bcrypt.MinCost, Keys: keys})
	if _, err := gw.CreateAccount(b.Context(), sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "shop", Enabled: true, Balance: decimal.RequireFromString("1000000000"), Currency: "EUR",
		Networks: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
		Prices:   []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.05")}},
	}}); err != nil {
		b.Fatal(err)
	}
	h := bulksmsapi.Handler(gw, bulksmsapi.Options{})
	// The same gateway with its metrics (GatewayOptions.Metrics), for
	// "no key" side by side with and without them.
	metered := bulksmsapi.Handler(sms.NewGateway(db.SMS(), sms.GatewayOptions{BcryptCost: bcrypt.MinCost, Keys: keys, Metrics: prometheus.NewRegistry()}),
		bulksmsapi.Options{})
	run := func(b *testing.B, h http.Handler, key func(i int) string) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			req := httptest.NewRequest(http.MethodPost, bulksmsapi.SendSMSPath, strings.NewReader(keyedSMS))
			req.RemoteAddr = "192.0.2.10:40000"
			if k := key(i); k != "" {
				req.Header.Set("Idempotency-Key", k)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusAccepted {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("no key", func(b *testing.B) { run(b, h, func(int) string { return "" }) })
	b.Run("no key with metrics", func(b *testing.B) { run(b, metered, func(int) string { return "" }) })
	b.Run("new key", func(b *testing.B) { run(b, h, func(i int) string { return "k" + strconv.Itoa(i) + b.Name() }) })
	b.Run("replay", func(b *testing.B) { run(b, h, func(int) string { return "same" }) })
}
