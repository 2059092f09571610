package uiproxy_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// mapStore is a Store in a map, for the proxy's tests.
type mapStore struct {
	mu sync.Mutex
	m  map[string]uiproxy.Component
}

func (s *mapStore) Put(_ context.Context, c uiproxy.Component) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[c.ID] = c
	return nil
}

func (s *mapStore) Component(_ context.Context, id string) (uiproxy.Component, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if !ok {
		return c, uiproxy.ComponentNotFound(id)
	}
	return c, nil
}

func (s *mapStore) List(_ context.Context, q msgkit.ListQuery) (msgkit.Page[uiproxy.Component], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := slices.SortedFunc(maps.Values(s.m), func(a, b uiproxy.Component) int { return strings.Compare(a.ID, b.ID) })
	return msgkit.Apply(all, q, uiproxy.ComponentAttr)
}

func (s *mapStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; !ok {
		return uiproxy.ComponentNotFound(id)
	}
	delete(s.m, id)
	return nil
}

// mockFetcher answers every call from the mock operations, reading the
// call's URL as the mock handler would, and counts the calls.
type mockFetcher struct {
	mu    sync.Mutex
	calls []uiproxy.Call
	fail  error
}

func (f *mockFetcher) Fetch(_ context.Context, call uiproxy.Call, _ time.Duration) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	if f.fail != nil {
		return nil, f.fail
	}
	u, err := url.Parse(call.URL)
	if err != nil {
		return nil, err
	}
	if strings.Contains(u.Path, "/kpi/") {
		return json.Marshal(uiproxy.MockKPI("k", u.Query().Get("reference_id")))
	}
	q, err := uiproxy.MockQuery(u.Query())
	if err != nil {
		return nil, err
	}
	page, err := uiproxy.MockGrid("g", u.Query().Get("reference_id"), q, u)
	if err != nil {
		return nil, err
	}
	return json.Marshal(page)
}

func (f *mockFetcher) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

type viewer []msgkit.ServiceUUID

func (v viewer) ActsFor(svc msgkit.ServiceUUID) bool { return slices.Contains(v, svc) }

const otherTenant msgkit.ServiceUUID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

func newProxy(t *testing.T, now *time.Time) (*uiproxy.Proxy, *mockFetcher) {
	t.Helper()
	f := &mockFetcher{}
	p := uiproxy.NewProxy(&mapStore{m: map[string]uiproxy.Component{}}, f, uiproxy.Options{Clock: func() time.Time { return *now }, MaxCached: 4})
	for _, c := range []uiproxy.Component{
		{ID: "invoices", Type: uiproxy.Grid, Service: tenant, Token: "s3cret", URL: "https://customer.example/grid/{componentId}?reference_id={referenceId}&page_number={pageNumber}&page_size={pageSize}&sort={sort}", Columns: uiproxy.MockColumns()},
		{ID: "balance", Type: uiproxy.KPI, Service: tenant, TokenHeader: "X-Token", Token: "s3cret", URL: "https://customer.example/kpi/{componentId}?reference_id={referenceId}"},
	} {
		if err := p.Put(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	return p, f
}

func TestProxyGrid(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p, f := newProxy(t, &now)
	ctx := t.Context()
	q, _ := url.ParseQuery("reference_id=ACME-1&page_number=2&page_size=5&sort=-id&gt(id)=10")
	page, err := p.Grid(ctx, viewer{tenant}, "invoices", q, "/ui/v1/grid/invoices")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.calls[0].URL; got != "https://customer.example/grid/invoices?reference_id=ACME-1&page_number=2&page_size=5&sort=-id&gt%28id%29=10&token=s3cret" {
		t.Errorf("the customer call %s", got)
	}
	if ids := numbers(t, page); !slices.Equal(ids, []string{"37", "36", "35", "34", "33"}) {
		t.Errorf("rows %v", ids)
	}
	// The links are the proxy's: the UI's query with the page, no
	// customer address, no token.
	l := page.Meta.Pagination.Links
	want := func(n string) string {
		return "/ui/v1/grid/invoices?gt%28id%29=10&page_number=" + n + "&page_size=5&reference_id=ACME-1&sort=-id"
	}
	if *l.First != want("1") || *l.Prev != want("1") || *l.Next != want("3") || *l.Last != want("7") {
		t.Errorf("links %s %s %s %s", *l.First, *l.Prev, *l.Next, *l.Last)
	}
	last, _ := p.Grid(ctx, viewer{tenant}, "invoices", url.Values{"page_number": {"9"}, "page_size": {"5"}}, "/g")
	if last.Meta.Pagination.Links.Next != nil || *last.Meta.Pagination.Links.Prev != "/g?page_number=8&page_size=5" {
		t.Errorf("the last page's links %+v", last.Meta.Pagination.Links)
	}

	// A request that breaks a rule is refused before any call.
	calls := f.count()
	for _, bad := range []string{"lt(url)=x", "sort=nope", "gt(id)=ten", "page_size=1000", "frobnicate(id)=1"} {
		q, _ := url.ParseQuery(bad)
		if _, err := p.Grid(ctx, viewer{tenant}, "invoices", q, "/g"); msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if f.count() != calls {
		t.Errorf("refused requests called the customer")
	}

	// Other tenants and the wrong type see nothing.
	for _, c := range []struct {
		v    viewer
		id   string
		grid bool
	}{{viewer{otherTenant}, "invoices", true}, {viewer{}, "invoices", true}, {viewer{tenant}, "balance", true}, {viewer{tenant}, "invoices", false}, {viewer{tenant}, "nope", true}} {
		var err error
		if c.grid {
			_, err = p.Grid(ctx, c.v, c.id, nil, "/g")
		} else {
			_, err = p.KPI(ctx, c.v, c.id, nil)
		}
		if msgkit.KindOf(err) != msgkit.NotFound || msgkit.CodeOf(err) != "component_not_found" {
			t.Errorf("%v %s: %v", c.v, c.id, err)
		}
	}
	if f.count() != calls {
		t.Errorf("requests for unseen components called the customer")
	}

	// A failed call is the fetcher's error.
	f.fail = msgkit.New(msgkit.Unavailable, "customer_unreachable", "down")
	if _, err := p.Grid(ctx, viewer{tenant}, "invoices", nil, "/g"); msgkit.CodeOf(err) != "customer_unreachable" {
		t.Errorf("a failed call: %v", err)
	}
}

func numbers(t *testing.T, page uiproxy.GridPage) []string {
	var out []string
	for _, r := range rows(t, page) {
		out = append(out, r["id"].(json.Number).String())
	}
	return out
}

func TestProxyKPI(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p, f := newProxy(t, &now)
	k, err := p.KPI(t.Context(), viewer{tenant}, "balance", url.Values{"reference_id": {"A 1"}})
	if err != nil || k != uiproxy.MockKPI("k", "A 1") {
		t.Fatalf("%+v %v", k, err)
	}
	if c := f.calls[0]; c.URL != "https://customer.example/kpi/balance?reference_id=A+1" || c.TokenHeader != "X-Token" || c.Token != "s3cret" {
		t.Errorf("the call %+v", c)
	}
	if _, err := p.KPI(t.Context(), viewer{tenant}, "balance", url.Values{"page_number": {"2"}}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("a KPI with paging: %v", err)
	}
}

// TestProxyCache: off by default; with a CacheTTL an identical request
// within it is answered from the cache, a different one is not, and a
// Put, a Delete or the time running out forgets it; failures are not
// kept; the cache stays within MaxCached.
func TestProxyCache(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p, f := newProxy(t, &now)
	ctx := t.Context()
	ask := func(query string) {
		t.Helper()
		q, _ := url.ParseQuery(query)
		if _, err := p.Grid(ctx, viewer{tenant}, "invoices", q, "/g"); err != nil {
			t.Fatal(err)
		}
	}
	ask("reference_id=1")
	ask("reference_id=1")
	if f.count() != 2 {
		t.Fatalf("without a CacheTTL: %d calls", f.count())
	}
	c, _ := p.Component(ctx, viewer{tenant}, "invoices", uiproxy.Grid)
	c.CacheTTL = time.Minute
	if err := p.Put(ctx, c); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	steps := []struct {
		query   string
		advance time.Duration
		calls   int
	}{
		{"reference_id=1", 0, 1},
		{"reference_id=1", 59 * time.Second, 1},
		{"reference_id=1&page_number=2", 0, 2},
		{"reference_id=2", 0, 3},
		{"reference_id=1", time.Second, 4}, // a minute after the first: expired
		{"reference_id=1", 0, 4},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		ask(s.query)
		if f.count() != s.calls {
			t.Fatalf("step %d (%s): %d calls, want %d", i, s.query, f.count(), s.calls)
		}
	}
	if err := p.Put(ctx, c); err != nil {
		t.Fatal(err)
	}
	ask("reference_id=1")
	if f.count() != 5 {
		t.Errorf("a Put kept the cache: %d calls", f.count())
	}
	for i := range 10 { // MaxCached 4: the cache makes room
		ask("reference_id=x" + string(rune('a'+i)))
	}
	ask("reference_id=xj")
	if f.count() != 15 {
		t.Errorf("the newest answer was not kept: %d calls", f.count())
	}
	f.fail = msgkit.New(msgkit.Unavailable, "customer_unreachable", "down")
	for range 2 {
		if _, err := p.Grid(ctx, viewer{tenant}, "invoices", url.Values{"reference_id": {"new"}}, "/g"); err == nil {
			t.Fatal("a failure was answered")
		}
	}
	if f.count() != 17 {
		t.Errorf("a failure was cached: %d calls", f.count())
	}
	f.fail = nil
	if err := p.Delete(ctx, "invoices"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Grid(ctx, viewer{tenant}, "invoices", url.Values{"reference_id": {"1"}}, "/g"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("a deleted component: %v", err)
	}
	if err := p.Put(ctx, uiproxy.Component{ID: "bad"}); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("Put of an invalid component: %v", err)
	}
}

// fixedFetcher answers every call with one body.
type fixedFetcher []byte

func (f fixedFetcher) Fetch(context.Context, uiproxy.Call, time.Duration) ([]byte, error) {
	return f, nil
}

// BenchmarkProxyGrid is the proxy's own work for a page of ten rows, the
// customer call left out: the component read, the request checked, the
// call built, the answer checked, the links made.
func BenchmarkProxyGrid(b *testing.B) {
	page, err := uiproxy.MockGrid("invoices", "ACME-1", msgkit.ListQuery{PageNumber: 1, PageSize: 10}, &url.URL{Path: "/grid"})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(page)
	p := uiproxy.NewProxy(&mapStore{m: map[string]uiproxy.Component{}}, fixedFetcher(body), uiproxy.Options{})
	if err := p.Put(context.Background(), uiproxy.Component{ID: "invoices", Type: uiproxy.Grid, Service: tenant, URL: "https://customer.example/grid?r={referenceId}&p={pageNumber}&s={sort}", Columns: uiproxy.MockColumns()}); err != nil {
		b.Fatal(err)
	}
	q := url.Values{"reference_id": {"ACME-1"}, "sort": {"-id"}, "gt(id)": {"3"}}
	b.ReportAllocs()
	for b.Loop() {
		got, err := p.Grid(context.Background(), viewer{tenant}, "invoices", q, "/ui/v1/grid/invoices")
		if err != nil || len(got.Data) != 10 {
			b.Fatal(err)
		}
		if _, err := json.Marshal(got); err != nil {
			b.Fatal(err)
		}
	}
}
