package httpapi

import (
	"container/list"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/msgkit/msgkit"
	"golang.org/x/time/rate"
)

// DefaultMaxRateKeys bounds how many keys a Limiter remembers.
const DefaultMaxRateKeys = 10000

// RateLimit configures a Limiter: a token bucket per key that refills at
// Rate tokens a second up to Burst.
type RateLimit struct {
	Rate  rate.Limit // tokens a second; rate.Inf lets everything through; <= 0 is invalid, callers choose defaults
	Burst int        // bucket size; <= 0: Rate rounded up, at least 1
	// MaxKeys bounds the buckets kept (default DefaultMaxRateKeys). The least
	// recently used bucket is dropped first; a key that comes back starts
	// with a full bucket.
	MaxKeys int
	// Headers adds X-Ratelimit-Limit (Burst), X-Ratelimit-Remaining (whole
	// tokens left) and X-Ratelimit-Reset (seconds until the bucket is full)
	// to every answer.
	Headers bool
}

// Limiter is a set of token buckets, one per key, bounded in number.
// It is safe for concurrent use.
type Limiter struct {
	cfg   RateLimit
	clock msgkit.Clock

	mu   sync.Mutex
	lru  *list.List // of *limiterEntry, most recently used first
	keys map[string]*list.Element
}

type limiterEntry struct {
	key string
	lim *rate.Limiter
}

// NewLimiter returns a Limiter reading time from clock (nil: the system
// clock). It panics when cfg.Rate is not positive.
func NewLimiter(cfg RateLimit, clock msgkit.Clock) *Limiter {
	if !(cfg.Rate > 0) {
		panic("httpapi: RateLimit.Rate must be positive")
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 1
		if cfg.Rate != rate.Inf && float64(cfg.Rate) > 1 {
			cfg.Burst = int(math.Min(math.Ceil(float64(cfg.Rate)), math.MaxInt32))
		}
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultMaxRateKeys
	}
	return &Limiter{cfg: cfg, clock: clock, lru: list.New(), keys: make(map[string]*list.Element)}
}

// Decision is the outcome of Limiter.Allow.
type Decision struct {
	Allowed    bool
	Limit      int           // the burst
	Remaining  int           // whole tokens left after this request
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // when refused: until one token is available
}

// Allow takes one token from key's bucket.
func (l *Limiter) Allow(key string) Decision {
	now := l.clock.Now()
	lim := l.bucket(key)
	ok := lim.AllowN(now, 1)
	d := Decision{Allowed: ok, Limit: l.cfg.Burst, Remaining: l.cfg.Burst}
	if l.cfg.Rate == rate.Inf {
		return d
	}
	tokens := lim.TokensAt(now)
	d.Remaining = int(math.Max(0, math.Floor(tokens)))
	perToken := float64(time.Second) / float64(l.cfg.Rate)
	d.Reset = time.Duration(math.Max(0, float64(l.cfg.Burst)-tokens) * perToken)
	if !ok {
		d.RetryAfter = time.Duration(math.Max(0, 1-tokens) * perToken)
	}
	return d
}

// Len returns how many buckets are kept.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

func (l *Limiter) bucket(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.keys[key]; ok {
		l.lru.MoveToFront(el)
		return el.Value.(*limiterEntry).lim
	}
	e := &limiterEntry{key: key, lim: rate.NewLimiter(l.cfg.Rate, l.cfg.Burst)}
	l.keys[key] = l.lru.PushFront(e)
	for l.lru.Len() > l.cfg.MaxKeys {
		oldest := l.lru.Back()
		l.lru.Remove(oldest)
		delete(l.keys, oldest.Value.(*limiterEntry).key)
	}
	return e.lim
}

// LimitRate answers 429 in the family's body, with Retry-After, when the
// bucket of key(r) is empty, and sets the X-Ratelimit-* headers when the
// limiter's configuration asks for them.
func LimitRate(fam Family, l *Limiter, key func(*http.Request) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d := l.Allow(key(r))
			if l.cfg.Headers {
				h := w.Header()
				h.Set("X-Ratelimit-Limit", strconv.Itoa(d.Limit))
				h.Set("X-Ratelimit-Remaining", strconv.Itoa(d.Remaining))
				h.Set("X-Ratelimit-Reset", strconv.FormatInt(int64((d.Reset+time.Second-1)/time.Second), 10))
			}
			if !d.Allowed {
				WriteError(w, r, fam, &StatusError{
					RetryAfter: d.RetryAfter,
					Err:        msgkit.New(msgkit.RateLimited, CodeRateLimited, "too many requests; retry later"),
				})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// ByClientIP keys a Limiter by ClientIP(r, trusted).
func ByClientIP(trusted []netip.Prefix) func(*http.Request) string {
	return func(r *http.Request) string { return "ip:" + ClientIP(r, trusted).String() }
}

// BySubject keys a Limiter by the principal Bearer authenticated, or by
// client IP when there is none.
func BySubject(trusted []netip.Prefix) func(*http.Request) string {
	return func(r *http.Request) string {
		if p, ok := PrincipalFrom(r.Context()); ok {
			return "sub:" + strconv.Itoa(int(p.Kind)) + ":" + p.Subject
		}
		return "ip:" + ClientIP(r, trusted).String()
	}
}

// ClientIP returns the address of the client: the peer of r.RemoteAddr,
// unless that peer is in trusted. Then X-Forwarded-For is read from the right
// and the first address outside trusted is the client; if every hop is
// trusted, the leftmost one is. A hop that does not parse stops the walk at
// the last trusted hop, so a client cannot inject an address before it.
// IPv4-mapped IPv6 addresses are unmapped. A RemoteAddr that does not parse
// gives the zero Addr.
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	addr, ok := parseHop(r.RemoteAddr)
	if !ok {
		return netip.Addr{}
	}
	if len(trusted) == 0 || !inPrefixes(trusted, addr) {
		return addr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(strings.TrimSpace(hops[i]))
		if !ok {
			return addr
		}
		addr = a
		if !inPrefixes(trusted, a) {
			return a
		}
	}
	return addr
}

// parseHop reads an address with or without a port.
func parseHop(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	return netip.Addr{}, false
}

func inPrefixes(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
