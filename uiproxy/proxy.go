package uiproxy

import (
	"cmp"
	"context"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/prometheus/client_golang/prometheus"
)

// Fetcher makes a customer call: the body of a 2xx answer, else an error
// of kind Unavailable that names neither the URL nor the token. The
// adapter's fetcher checks every address it dials.
type Fetcher interface {
	Fetch(ctx context.Context, call Call, timeout time.Duration) ([]byte, error)
}

// Viewer is who asks for a component's data: it sees the components of
// the tenants it acts for (auth.Principal is one).
type Viewer interface {
	ActsFor(svc msgkit.ServiceUUID) bool
}

// Options configure a Proxy; zero values choose the defaults.
type Options struct {
	// Clock times cached answers; nil: the system clock.
	Clock msgkit.Clock
	// MaxCached bounds the cached answers of all components together;
	// default 10,000.
	MaxCached int
	// Audit records every Put and Delete; nil records none.
	// *audit.Log satisfies it.
	Audit Auditor
	// Metrics is where the proxy registers its metrics (the package
	// doc's Metrics); nil: none, at no cost. Registering two proxies on
	// one registry panics: a process runs one.
	Metrics prometheus.Registerer
}

// Auditor records an administrative change: the action on the resource
// with id, the record before and after (nil for none). The actor travels
// in ctx; a failure is the auditor's to log.
type Auditor interface {
	Record(ctx context.Context, action, resource, id string, before, after any) error
}

// componentView is a component as the audit trail shows it: never its
// address template, token or fixed values, which may carry the
// customer's secrets.
type componentView struct {
	ID          string             `json:"id"`
	Type        Type               `json:"type"`
	Service     msgkit.ServiceUUID `json:"service"`
	TokenHeader string             `json:"tokenHeader,omitempty"`
	Columns     int                `json:"columns"`
}

func viewOf(c Component) componentView {
	return componentView{ID: c.ID, Type: c.Type, Service: c.Service, TokenHeader: c.TokenHeader, Columns: len(c.Columns)}
}

// Proxy answers UI components' data requests from their customers' APIs:
// it finds the component, checks that the viewer acts for its tenant,
// reads the request against the configuration, calls the customer,
// checks the answer and answers in one shape. It is safe for concurrent
// use.
type Proxy struct {
	store Store
	fetch Fetcher
	clock msgkit.Clock
	cache *cache
	audit Auditor
	// metrics are nil without Options.Metrics.
	metrics *metrics
}

// NewProxy returns a proxy over the components of st, calling customers
// through f.
func NewProxy(st Store, f Fetcher, opts Options) *Proxy {
	p := &Proxy{store: st, fetch: f, clock: opts.Clock, cache: newCache(cmp.Or(opts.MaxCached, 10_000)), audit: opts.Audit}
	if p.audit == nil {
		p.audit = noAudit{}
	}
	if opts.Metrics != nil {
		p.metrics = newMetrics(opts.Metrics)
	}
	return p
}

// Put checks c (Check) and stores it, replacing a component of its id;
// the answers cached for that id are forgotten, so a changed
// configuration shows at once on this proxy (on others sharing the store
// within the component's CacheTTL). A component put as it is stored
// is neither stored again nor recorded; its cached answers still go.
func (p *Proxy) Put(ctx context.Context, c Component) error {
	if err := c.Check(); err != nil {
		return err
	}
	before, err := p.store.Component(ctx, c.ID)
	if err != nil && msgkit.KindOf(err) != msgkit.NotFound {
		return err
	}
	if err == nil && before.equal(c) {
		// Nothing to store or record (the bootstrap file puts its
		// components at every start); the cache goes all the same, so a
		// put flushes it.
		p.cache.forget(c.ID)
		return nil
	}
	if err := p.store.Put(ctx, c); err != nil {
		return err
	}
	p.cache.forget(c.ID)
	if err == nil {
		_ = p.audit.Record(ctx, "update", "ui_component", c.ID, viewOf(before), viewOf(c))
	} else {
		_ = p.audit.Record(ctx, "create", "ui_component", c.ID, nil, viewOf(c))
	}
	return nil
}

type noAudit struct{}

func (noAudit) Record(context.Context, string, string, string, any, any) error { return nil }

// List lists the components by q (ComponentListSpec), whoever's they are:
// the operator's listing. Callers that show them leave out URL, Fixed and
// Token.
func (p *Proxy) List(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Component], error) {
	return p.store.List(ctx, q)
}

// Get returns a component whoever's it is: the operator's read.
func (p *Proxy) Get(ctx context.Context, id string) (Component, error) {
	return p.store.Component(ctx, id)
}

// Delete removes a component and its cached answers.
func (p *Proxy) Delete(ctx context.Context, id string) error {
	before, err := p.store.Component(ctx, id)
	if err != nil {
		return err
	}
	if err := p.store.Delete(ctx, id); err != nil {
		return err
	}
	p.cache.forget(id)
	_ = p.audit.Record(ctx, "delete", "ui_component", id, viewOf(before), nil)
	return nil
}

// Component returns component id of type t when v acts for its tenant;
// any other component is NotFound, so that a caller learns nothing of
// other tenants' components. t "" accepts either type.
func (p *Proxy) Component(ctx context.Context, v Viewer, id string, t Type) (Component, error) {
	c, err := p.store.Component(ctx, id)
	if err != nil {
		return Component{}, err
	}
	if !v.ActsFor(c.Service) || t != "" && c.Type != t {
		return Component{}, ComponentNotFound(id)
	}
	return c, nil
}

// Grid answers a grid request (the UI's query parameters q, see
// ParseRequest) of component id. The page's links are the proxy's own:
// self (the path the UI asked, without query) with q and the page
// number, so that the UI pages through the proxy and never sees a
// customer address; next is given where the customer says there is a
// next page.
func (p *Proxy) Grid(ctx context.Context, v Viewer, id string, q url.Values, self string) (GridPage, error) {
	c, err := p.Component(ctx, v, id, Grid)
	if err != nil {
		return GridPage{}, err
	}
	r, err := ParseRequest(c, q)
	if err != nil {
		return GridPage{}, err
	}
	call := Build(c, r)
	page, err := cached(ctx, p, c, call, func(body []byte) (GridPage, error) { return ParseGrid(c, body) })
	if err != nil {
		return GridPage{}, err
	}
	page.Meta.Pagination = ownLinks(page.Meta.Pagination, r, q, self)
	return page, nil
}

// KPI answers a KPI request (reference_id, language, locale) of
// component id.
func (p *Proxy) KPI(ctx context.Context, v Viewer, id string, q url.Values) (KPIValue, error) {
	c, err := p.Component(ctx, v, id, KPI)
	if err != nil {
		return KPIValue{}, err
	}
	r, err := ParseRequest(c, q)
	if err != nil {
		return KPIValue{}, err
	}
	return cached(ctx, p, c, Build(c, r), ParseKPI)
}

// cached answers call from the cache when c keeps answers and one is
// fresh, else from the customer, keeping a good answer for c.CacheTTL.
// Only checked answers are kept: a failure is asked again next time.
func cached[T any](ctx context.Context, p *Proxy, c Component, call Call, parse func([]byte) (T, error)) (T, error) {
	key := call.TokenHeader + "\n" + call.URL
	if c.CacheTTL > 0 {
		if v, ok := p.cache.get(c.ID, key, p.clock.Now()); ok {
			return v.(T), nil
		}
	}
	var began time.Time
	if p.metrics != nil {
		began = p.clock.Now()
	}
	body, err := p.fetch.Fetch(ctx, call, c.Timeout)
	if err != nil {
		p.metrics.called(began, p.clock, err, false)
		var zero T
		return zero, err
	}
	v, err := parse(body)
	p.metrics.called(began, p.clock, err, true)
	if err == nil && c.CacheTTL > 0 {
		p.cache.put(c.ID, key, v, p.clock.Now(), c.CacheTTL)
	}
	return v, err
}

// ownLinks replaces the customer's links of p by the proxy's: first,
// last (when the customer gives the number of pages), prev and next.
func ownLinks(p Pagination, r Request, q url.Values, self string) Pagination {
	current := cmp.Or(p.CurrentPage, r.PageNumber)
	v := url.Values{}
	for k, vals := range q {
		if k != msgkit.ParamPaging {
			v[k] = vals
		}
	}
	v.Set(msgkit.ParamPageSize, strconv.Itoa(r.PageSize))
	link := func(n int) *string {
		v.Set(msgkit.ParamPageNumber, strconv.Itoa(n))
		s := self + "?" + v.Encode()
		return &s
	}
	next := p.Links.Next != nil || p.TotalPages > 0 && current < p.TotalPages
	p.Links = Links{First: link(1)}
	if p.TotalPages > 0 {
		p.Links.Last = link(p.TotalPages)
	}
	if current > 1 {
		p.Links.Prev = link(current - 1)
	}
	if next && (p.TotalPages == 0 || current < p.TotalPages) {
		p.Links.Next = link(current + 1)
	}
	return p
}

// cache keeps checked answers per component until they expire, at most
// max of them: a full cache drops its expired answers, then any.
type cache struct {
	mu      sync.Mutex
	max     int
	n       int
	entries map[string]map[string]cacheEntry // component id → call key → answer
}

type cacheEntry struct {
	v       any
	expires time.Time
}

func newCache(max int) *cache {
	return &cache{max: max, entries: map[string]map[string]cacheEntry{}}
}

func (c *cache) get(id, key string, now time.Time) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id][key]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	return e.v, true
}

func (c *cache) put(id, key string, v any, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= c.max {
		c.evict(now)
	}
	m := c.entries[id]
	if m == nil {
		m = map[string]cacheEntry{}
		c.entries[id] = m
	}
	if _, ok := m[key]; !ok {
		c.n++
	}
	m[key] = cacheEntry{v: v, expires: now.Add(ttl)}
}

// evict makes room: the expired answers go; if that leaves more than
// half of max, whole components' answers go, whichever map iteration
// meets first, until at most half are left.
func (c *cache) evict(now time.Time) {
	for id, m := range c.entries {
		for k, e := range m {
			if !now.Before(e.expires) {
				delete(m, k)
				c.n--
			}
		}
		if len(m) == 0 {
			delete(c.entries, id)
		}
	}
	for id, m := range c.entries {
		if c.n <= c.max/2 {
			return
		}
		c.n -= len(m)
		delete(c.entries, id)
	}
}

func (c *cache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n -= len(c.entries[id])
	delete(c.entries, id)
}
