package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/idempotency"
)

// creates is a family of one create route whose handler counts what it
// made and answers 201 with a Location, unless the body asks for another
// answer ("fail 500", "fail 400", "panic", "big", "block").
type creates struct {
	made    atomic.Int32
	started chan struct{} // "block" tells it holds the key
	release chan struct{} // "block" waits for it
}

const thingsPath = "/news/v1/services/{serviceUuid}/things"

func thingsURL(svc msgkit.ServiceUUID) string {
	return strings.Replace(thingsPath, "{serviceUuid}", string(svc), 1)
}

func (c *creates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		httpapi.WriteError(w, r, httpapi.CDS, err)
		return
	}
	switch b := body.String(); {
	case strings.HasPrefix(b, "fail "):
		status, _ := strconv.Atoi(strings.TrimPrefix(b, "fail "))
		httpapi.WriteError(w, r, httpapi.CDS, &httpapi.StatusError{Status: status, Err: msgkit.New(msgkit.Invalid, "refused", "refused")})
		return
	case b == "panic":
		panic("handler broke")
	case b == "big":
		w.WriteHeader(http.StatusCreated)
		w.Write(make([]byte, idempotency.MaxAnswerBytes+1))
		c.made.Add(1)
		return
	case b == "block":
		c.started <- struct{}{}
		<-c.release
	}
	n := c.made.Add(1)
	w.Header().Set("Location", "/things/"+strconv.Itoa(int(n)))
	httpapi.WriteJSON(w, http.StatusCreated, map[string]any{"id": n, "body": body.String()})
}

func newCreates(t *testing.T, opts httpapi.Options) (*creates, http.Handler) {
	c := &creates{started: make(chan struct{}), release: make(chan struct{})}
	h := httpapi.FamilyHandler(opts, httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: thingsPath, Privileges: []auth.Privilege{auth.PrivNews, auth.PrivFinanceBalanceView}, MaxBody: 4 << 20, Idempotent: true, Handler: c},
	}})
	return c, h
}

func post(token, key, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, thingsURL(httpapitest.TenantA), strings.NewReader(body))
	httpapitest.Bearer(r, token)
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	return r
}

func TestIdempotentReplay(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)

	// Without a key every request acts, and nothing is kept.
	for range 2 {
		if w := httpapitest.Serve(h, post(tok, "", `{"a":1}`)); w.Code != http.StatusCreated || w.Header().Get(httpapi.ReplayedHeader) != "" {
			t.Fatalf("without a key: %d %v %s", w.Code, w.Header(), w.Body)
		}
	}
	if c.made.Load() != 2 {
		t.Fatalf("%d made without keys, want 2", c.made.Load())
	}

	first := httpapitest.Serve(h, post(tok, `"k-1"`, `{"a":1}`))
	if first.Code != http.StatusCreated || first.Header().Get(httpapi.ReplayedHeader) != "" {
		t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
	}
	for _, key := range []string{`"k-1"`, `k-1`, ` "k-1"	`} { // one key however it is spelled
		again := httpapitest.Serve(h, post(tok, key, `{"a":1}`))
		if again.Code != first.Code || again.Body.String() != first.Body.String() ||
			again.Header().Get("Location") != first.Header().Get("Location") ||
			again.Header().Get("Content-Type") != "application/json" || again.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Errorf("retry with %s: %d %v %s; want the first answer %d %v %s, replayed", key, again.Code, again.Header(), again.Body, first.Code, first.Header(), first.Body)
		}
		if again.Header().Get("X-Request-Id") == first.Header().Get("X-Request-Id") {
			t.Error("the replay has the first request's id")
		}
	}
	if c.made.Load() != 3 {
		t.Errorf("%d made, want 3: the retries acted", c.made.Load())
	}

	// Another body, query or method under the key is another request.
	reused := httpapitest.Serve(h, post(tok, `"k-1"`, `{"a":2}`))
	httpapitest.WantError(t, reused, httpapi.CDS, http.StatusUnprocessableEntity, idempotency.CodeKeyReused)
	r := post(tok, `"k-1"`, `{"a":1}`)
	r.URL.RawQuery = "x=1"
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.CDS, http.StatusUnprocessableEntity, idempotency.CodeKeyReused)
	r = post(tok, `"k-1"`, `{"a":1}`)
	r.Header.Set("Content-Type", "text/plain")
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.CDS, http.StatusUnprocessableEntity, idempotency.CodeKeyReused)
	if c.made.Load() != 3 {
		t.Errorf("%d made, want 3: a refused request acted", c.made.Load())
	}
}

// A key is its sender's: another client, or the same client for another
// tenant, has keys of its own.
func TestIdempotentScope(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	for _, tok := range []string{f.Token(t, httpapitest.ClientID), f.Token(t, httpapitest.Newsless)} {
		if w := httpapitest.Serve(h, post(tok, "same", `{}`)); w.Code != http.StatusCreated || w.Header().Get(httpapi.ReplayedHeader) != "" {
			t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
		}
	}
	if c.made.Load() != 2 {
		t.Errorf("%d made, want one per client", c.made.Load())
	}
	recs := 0
	for _, scope := range []string{"client:" + httpapitest.ClientID + " service:" + string(httpapitest.TenantA), "client:" + httpapitest.Newsless + " service:" + string(httpapitest.TenantA)} {
		if _, err := f.Keys.Record(t.Context(), scope, "same"); err == nil {
			recs++
		}
	}
	if recs != 2 {
		t.Errorf("%d records in the clients' scopes, want 2", recs)
	}
}

func TestIdempotentBadKeys(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)
	for _, key := range []string{`""`, `a b`, `"unterminated`, `"x";p=1`, strings.Repeat("k", 256)} {
		w := httpapitest.Serve(h, post(tok, key, `{}`))
		m := httpapitest.WantError(t, w, httpapi.CDS, http.StatusBadRequest, idempotency.CodeInvalidKey)
		if items, _ := m["items"].([]any); len(items) != 1 || items[0].(map[string]any)["name"] != "Idempotency-Key" {
			t.Errorf("key %q: items %v do not name the header", key, m["items"])
		}
	}
	r := post(tok, "a", `{}`)
	r.Header.Add("Idempotency-Key", "b")
	httpapitest.WantError(t, httpapitest.Serve(h, r), httpapi.CDS, http.StatusBadRequest, idempotency.CodeInvalidKey)
	// A body over the route's limit is 413 before anything is kept.
	httpapitest.WantError(t, httpapitest.Serve(h, post(tok, "big-body", strings.Repeat("x", 4<<20+1))), httpapi.CDS,
		http.StatusRequestEntityTooLarge, httpapi.CodeRequestTooLarge)
	if c.made.Load() != 0 {
		t.Errorf("%d made by refused requests", c.made.Load())
	}
	if _, err := f.Keys.Record(t.Context(), "client:"+httpapitest.ClientID+" service:"+string(httpapitest.TenantA), "big-body"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("the key of a refused body was kept: %v", err)
	}
}

// Only what a request did is remembered: after an error answer or a
// panic the same request under the key runs again.
func TestIdempotentForgetsFailures(t *testing.T) {
	for _, body := range []string{"fail 400", "fail 409", "fail 500", "fail 503", "panic", "big"} {
		t.Run(body, func(t *testing.T) {
			f := httpapitest.NewFixture(t)
			c, h := newCreates(t, f.Opts)
			tok := f.Token(t, httpapitest.ClientID)
			var statuses []int
			for range 2 {
				w := httptest.NewRecorder()
				func() {
					defer func() { recover() }() // outside Recover, the panic reaches the test
					h.ServeHTTP(w, post(tok, "k", body))
				}()
				statuses = append(statuses, w.Code)
				if w.Header().Get(httpapi.ReplayedHeader) != "" {
					t.Errorf("a %s answer was replayed", body)
				}
			}
			if statuses[0] != statuses[1] {
				t.Errorf("statuses %v: the retry did not run as the first", statuses)
			}
			if body == "big" && c.made.Load() != 2 {
				t.Errorf("%d made: an answer over the limit was replayed", c.made.Load())
			}
		})
	}
}

func TestIdempotentInProgress(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- httpapitest.Serve(h, post(tok, "slow", "block")) }()
	<-c.started // the first request holds the key
	f.Clock.Advance(30 * time.Second)
	w := httpapitest.Serve(h, post(tok, "slow", "block"))
	httpapitest.WantError(t, w, httpapi.CDS, http.StatusConflict, idempotency.CodeInProgress)
	if got := w.Header().Get("Retry-After"); got != "90" {
		t.Errorf("Retry-After = %q, want 90 (the lease's rest)", got)
	}
	close(c.release)
	first := <-done
	if first.Code != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	again := httpapitest.Serve(h, post(tok, "slow", "block"))
	if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() || c.made.Load() != 1 {
		t.Errorf("after the first: %d %s, %d made", again.Code, again.Body, c.made.Load())
	}
}

// Two requests with one key at once: one acts, the other is refused 409
// or, when it comes after the answer, gets it again.
func TestIdempotentConcurrent(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() { codes[i] = httpapitest.Serve(h, post(tok, "race", `{}`)).Code })
	}
	wg.Wait()
	for _, code := range codes {
		if code != http.StatusCreated && code != http.StatusConflict {
			t.Errorf("status %d", code)
		}
	}
	if c.made.Load() != 1 {
		t.Errorf("%d made, want 1 (statuses %v)", c.made.Load(), codes)
	}
}

// A request whose process died holds its key until the lease runs out;
// then a retry acts. A day after the first request the key is free.
func TestIdempotentLeaseAndExpiry(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, h := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)
	svc := f.Opts.Idempotency
	scope := "client:" + httpapitest.ClientID + " service:" + string(httpapitest.TenantA)
	r := post(tok, "died", `{}`)
	fp := idempotency.FingerprintOf([]byte(r.Method), []byte(r.URL.EscapedPath()), nil, []byte("application/json"), []byte(`{}`))
	if _, err := svc.Begin(t.Context(), idempotency.Request{Scope: scope, Key: "died", Fingerprint: fp}); err != nil {
		t.Fatal(err) // the request that died
	}
	httpapitest.WantError(t, httpapitest.Serve(h, post(tok, "died", `{}`)), httpapi.CDS, http.StatusConflict, idempotency.CodeInProgress)
	f.Clock.Advance(idempotency.DefaultLease)
	first := httpapitest.Serve(h, post(tok, "died", `{}`))
	if first.Code != http.StatusCreated || c.made.Load() != 1 {
		t.Fatalf("after the lease: %d %s, %d made", first.Code, first.Body, c.made.Load())
	}
	f.Clock.Advance(idempotency.DefaultTTL - idempotency.DefaultLease - time.Second)
	tok = f.Token(t, httpapitest.ClientID) // the first has expired
	if w := httpapitest.Serve(h, post(tok, "died", `{}`)); w.Header().Get(httpapi.ReplayedHeader) != "true" || c.made.Load() != 1 {
		t.Fatalf("a second before the day ends: %d %v, %d made", w.Code, w.Header(), c.made.Load())
	}
	f.Clock.Advance(time.Second)
	if w := httpapitest.Serve(h, post(tok, "died", `{}`)); w.Code != http.StatusCreated || w.Header().Get(httpapi.ReplayedHeader) != "" || c.made.Load() != 2 {
		t.Fatalf("after the day: %d %v, %d made", w.Code, w.Header(), c.made.Load())
	}
}

// failingKeeper fails Finish, or Begin, as a store that is down would.
type failingKeeper struct {
	httpapi.IdempotencyKeeper
	begin, finish bool
	abandoned     atomic.Int32
}

func (k *failingKeeper) Begin(ctx context.Context, req idempotency.Request) (idempotency.Claim, error) {
	if k.begin {
		return idempotency.Claim{}, msgkit.Wrap(errors.New("connection refused"), msgkit.Unavailable, "", "the database is down")
	}
	return k.IdempotencyKeeper.Begin(ctx, req)
}

func (k *failingKeeper) Finish(ctx context.Context, c idempotency.Claim, a idempotency.Answer) error {
	if k.finish {
		return msgkit.Wrap(errors.New("connection reset"), msgkit.Internal, "storage_error", "storage error")
	}
	return k.IdempotencyKeeper.Finish(ctx, c, a)
}

func (k *failingKeeper) Abandon(ctx context.Context, c idempotency.Claim) error {
	k.abandoned.Add(1)
	return k.IdempotencyKeeper.Abandon(ctx, c)
}

func TestIdempotentStoreFailures(t *testing.T) {
	f := httpapitest.NewFixture(t)
	keeper := &failingKeeper{IdempotencyKeeper: f.Opts.Idempotency, finish: true}
	opts := f.Opts
	opts.Idempotency = keeper
	c, h := newCreates(t, opts)
	tok := f.Token(t, httpapitest.ClientID)
	// The answer could not be kept: the client has it, and the key is
	// forgotten rather than stuck.
	if w := httpapitest.Serve(h, post(tok, "k", `{}`)); w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if keeper.abandoned.Load() != 1 {
		t.Errorf("%d abandoned, want 1", keeper.abandoned.Load())
	}
	keeper.finish = false
	if w := httpapitest.Serve(h, post(tok, "k", `{}`)); w.Code != http.StatusCreated || w.Header().Get(httpapi.ReplayedHeader) != "" || c.made.Load() != 2 {
		t.Errorf("retry: %d %v, %d made", w.Code, w.Header(), c.made.Load())
	}
	// A keeper that cannot begin refuses the request before it acts.
	keeper.begin = true
	httpapitest.WantError(t, httpapitest.Serve(h, post(tok, "k2", `{}`)), httpapi.CDS, http.StatusServiceUnavailable, "unavailable")
	if c.made.Load() != 2 {
		t.Errorf("%d made, want 2", c.made.Load())
	}
}

// A client that goes away after its request acted leaves the answer
// kept all the same.
func TestIdempotentClientGone(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c, _ := newCreates(t, f.Opts)
	tok := f.Token(t, httpapitest.ClientID)
	ctx, cancel := context.WithCancel(context.Background())
	gone := httpapi.FamilyHandler(f.Opts, httpapi.FamilySpec{Family: httpapi.CDS, Auth: httpapi.AuthBearer, Tenant: true, Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: thingsPath, Privileges: []auth.Privilege{auth.PrivNews}, Idempotent: true,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.ServeHTTP(w, r); cancel() })},
	}})
	httpapitest.Serve(gone, post(tok, "k", `{}`).WithContext(ctx))
	w := httpapitest.Serve(gone, post(tok, "k", `{}`))
	if w.Header().Get(httpapi.ReplayedHeader) != "true" || c.made.Load() != 1 {
		t.Errorf("retry after the client went away: %d %v, %d made", w.Code, w.Header(), c.made.Load())
	}
}

func TestIdempotentWithoutKeeper(t *testing.T) {
	f := httpapitest.NewFixture(t)
	opts := f.Opts
	opts.Idempotency = nil
	c, h := newCreates(t, opts)
	tok := f.Token(t, httpapitest.ClientID)
	if w := httpapitest.Serve(h, post(tok, "", `{}`)); w.Code != http.StatusCreated {
		t.Fatalf("without a key: %d %s", w.Code, w.Body)
	}
	httpapitest.WantError(t, httpapitest.Serve(h, post(tok, "k", `{}`)), httpapi.CDS, http.StatusNotImplemented, httpapi.CodeNotImplemented)
	if c.made.Load() != 1 {
		t.Errorf("%d made, want 1", c.made.Load())
	}
}

// An API key is a scope of its own.
func TestIdempotentAPIKeyScope(t *testing.T) {
	f := httpapitest.NewFixture(t)
	c := &creates{}
	h := httpapi.FamilyHandler(f.Opts, httpapi.FamilySpec{Family: httpapi.Routing, Auth: httpapi.AuthAPIKey, Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: "/smsmtinbound/v1/things", Idempotent: true, Handler: c},
	}})
	var firstBody string
	for i := range 2 {
		r := httptest.NewRequest(http.MethodPost, "/smsmtinbound/v1/things", strings.NewReader(`{}`))
		r.Header.Set("X-API-Key", httpapitest.APIKeyValue)
		r.Header.Set("Idempotency-Key", "k")
		w := httpapitest.Serve(h, r)
		if i == 0 {
			firstBody = w.Body.String()
		} else if w.Body.String() != firstBody || w.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Errorf("retry: %d %v %s", w.Code, w.Header(), w.Body)
		}
	}
	if c.made.Load() != 1 {
		t.Errorf("%d made, want 1", c.made.Load())
	}
}

func TestIdempotentNeedsAuthentication(t *testing.T) {
	defer func() {
		if v, _ := recover().(string); !strings.Contains(v, "idempotent") {
			t.Errorf("recovered %q, want a panic about the idempotent route", v)
		}
	}()
	httpapi.FamilyHandler(httpapi.Options{}, httpapi.FamilySpec{Family: httpapi.UIProxy, Auth: httpapi.AuthNone, Routes: []httpapi.Route{
		{Method: http.MethodPost, Path: "/ui/v1/mock/things", Idempotent: true, Handler: http.NotFoundHandler()},
	}})
}
