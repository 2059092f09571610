package httpapitest

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/idempotency"
	"github.com/msgkit/msgkit/msgkittest"
)

// Keeper is the fixture's idempotency keeper: an *idempotency.Service
// whose Finish can be held, so that a test sees a request in progress.
type Keeper struct {
	*idempotency.Service
	mu      sync.Mutex
	reached chan struct{}
	release chan struct{}
}

// Hold makes the next Finish tell reached and wait until release is
// called, with its request still holding its key.
func (k *Keeper) Hold() (reached <-chan struct{}, release func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, rel := make(chan struct{}, 1), make(chan struct{})
	k.reached, k.release = r, rel
	return r, sync.OnceFunc(func() { close(rel) })
}

// Finish is the Service's, held when Hold asked.
func (k *Keeper) Finish(ctx context.Context, c idempotency.Claim, a idempotency.Answer) error {
	k.mu.Lock()
	reached, release := k.reached, k.release
	k.reached, k.release = nil, nil
	k.mu.Unlock()
	if reached != nil {
		reached <- struct{}{}
		<-release
	}
	return k.Service.Finish(ctx, c, a)
}

// IdempotentCase is a create of a family, for CheckIdempotent.
type IdempotentCase struct {
	// New returns a request of a create that the handler accepts: the
	// same method, path, headers and body at every call, and no
	// Idempotency-Key.
	New func() *http.Request
	// Other returns the same operation with another body.
	Other func() *http.Request
	// Count tells how many records the creates have made, to see that a
	// replay makes none.
	Count func(t testing.TB) int
	// Golden, when set, names the golden files of the 409 and 422
	// answers under testdata: Golden+"_409.json" and Golden+"_422.json".
	Golden string
}

// CheckIdempotent holds a create of h, a family's handler built with a
// Fixture's Opts (f), to the rules of the Idempotency-Key: without the
// header every request acts; with it the first acts, a retry gets its
// status, body, Content-Type and Location again with Idempotent-Replayed:
// true and acts on nothing, the key with another body is 422
// idempotency_key_reused, a retry while the first runs is 409
// idempotency_key_in_progress with Retry-After, and a header that is no
// key is 400 invalid_idempotency_key; every refusal in fam's body. Pass
// h through the family's Contract, so that every answer is also held to
// the document.
func CheckIdempotent(t *testing.T, f *Fixture, h http.Handler, fam httpapi.Family, c IdempotentCase) {
	t.Helper()
	keyed := func(r *http.Request, key string) *http.Request {
		r.Header.Set("Idempotency-Key", key)
		return r
	}
	success := func(w *httptest.ResponseRecorder, what string) {
		t.Helper()
		if w.Code < 200 || w.Code > 299 {
			t.Fatalf("%s: %d %s, want a success", what, w.Code, w.Body)
		}
	}
	// Keys of this call's own, as a fixture may serve several.
	k1, k2 := "check-"+rand.Text(), "check-"+rand.Text()
	count := c.Count(t)
	made := func(want int, what string) {
		t.Helper()
		if got := c.Count(t); got != count+want {
			t.Fatalf("%s: %d records made, want %d", what, got-count, want)
		}
	}

	success(Serve(h, c.New()), "without a key")
	success(Serve(h, c.New()), "without a key, again")
	made(2, "two creates without a key")

	first := Serve(h, keyed(c.New(), `"`+k1+`"`))
	success(first, "the first request with a key")
	if first.Header().Get(httpapi.ReplayedHeader) != "" {
		t.Errorf("the first answer is marked %s", httpapi.ReplayedHeader)
	}
	made(3, "the first request with a key")
	for _, key := range []string{`"` + k1 + `"`, k1} {
		again := Serve(h, keyed(c.New(), key))
		if again.Code != first.Code || again.Body.String() != first.Body.String() || again.Header().Get(httpapi.ReplayedHeader) != "true" {
			t.Errorf("retry with %s: %d %v %s; want the first answer %d %s, replayed", key, again.Code, again.Header(), again.Body, first.Code, first.Body)
		}
		for _, name := range []string{"Content-Type", "Location"} {
			if again.Header().Get(name) != first.Header().Get(name) {
				t.Errorf("retry: %s %q, the first answer had %q", name, again.Header().Get(name), first.Header().Get(name))
			}
		}
	}
	made(3, "retries")

	reused := Serve(h, keyed(c.Other(), `"`+k1+`"`))
	WantError(t, reused, fam, http.StatusUnprocessableEntity, idempotency.CodeKeyReused)
	WantError(t, Serve(h, keyed(c.New(), `"no key`)), fam, http.StatusBadRequest, idempotency.CodeInvalidKey)
	made(3, "refused requests")

	reached, release := f.Keeper.Hold()
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- Serve(h, keyed(c.New(), k2)) }()
	<-reached
	busy := Serve(h, keyed(c.New(), k2))
	release()
	WantError(t, busy, fam, http.StatusConflict, idempotency.CodeInProgress)
	if busy.Header().Get("Retry-After") == "" {
		t.Error("an answer in progress without Retry-After")
	}
	success(<-done, "the request that held its key")
	made(4, "a request and its retry while it ran")

	if c.Golden != "" {
		msgkittest.Golden(t, filepath.Join("testdata", c.Golden+"_422.json"), Answer(reused))
		msgkittest.Golden(t, filepath.Join("testdata", c.Golden+"_409.json"), Answer(busy))
	}
}
