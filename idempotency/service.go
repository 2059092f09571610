package idempotency

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/msgkit/msgkit"
)

// Store keeps the records of keys. Every method is safe for replicas
// sharing one store: the compare-and-set methods (Create, Replace,
// Release) are what lets exactly one request act on a key.
type Store interface {
	// Create saves rec, unless a record of rec's Scope and Key is live at
	// rec.Created (its Expires is after it): that record is returned, with
	// created false, and nothing changes. An expired record of the scope
	// and key is replaced.
	Create(ctx context.Context, rec Record) (existing Record, created bool, err error)
	// Replace saves next in place of the record held names when that
	// record is still pending with held's Scope, Key, Ref and Attempt,
	// and reports whether it did. next has held's Scope and Key.
	Replace(ctx context.Context, held, next Record) (bool, error)
	// Release deletes the record held names when it is still pending with
	// held's Scope, Key, Ref and Attempt, and reports whether it did.
	Release(ctx context.Context, held Record) (bool, error)
	// Purge deletes the records that expired at or before now and says
	// how many.
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// Defaults of Options.
const (
	DefaultTTL   = 24 * time.Hour
	DefaultLease = 2 * time.Minute
)

// Options configure a Service; zero values choose the defaults.
type Options struct {
	Clock msgkit.Clock
	// TTL is how long a key binds its request: DefaultTTL, 24 hours.
	TTL time.Duration
	// Lease is how long a pending record belongs to its request: another
	// request with the key is refused as in progress until then, and may
	// take the record over after (its first request died).
	// DefaultLease, 2 minutes: longer than a request runs (servers time
	// out writes after a minute).
	Lease time.Duration
	// NewRef makes the Ref of a new record; default a random UUID.
	NewRef func() string
	Logger *slog.Logger
}

// Service runs the rules of idempotency keys over a Store: one request
// per scope, key and fingerprint acts; the others get its answer.
type Service struct {
	store Store
	opts  Options
}

// NewService returns a Service over store.
func NewService(store Store, opts Options) *Service {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.NewRef == nil {
		opts.NewRef = uuid.NewString
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, opts: opts}
}

// Request is what Begin needs of a request with a key.
type Request struct {
	Scope       string
	Key         Key
	Fingerprint Fingerprint
}

// Claim is the outcome of Begin: the record, and whether the request
// acts or answers again.
type Claim struct {
	Record Record
	// Replay: the key's request was answered; give Record.Answer again
	// and do nothing else.
	Replay bool
}

// TakenOver reports whether the claim took over the lease of an earlier
// request that did not finish: that request may have acted before it
// died, which a caller whose action takes Record.Ref can find out.
func (c Claim) TakenOver() bool { return !c.Replay && c.Record.Attempt > 1 }

// now is the clock's time in UTC to the microsecond, which both stores
// keep exactly.
func (s *Service) now() time.Time { return s.opts.Clock.Now().UTC().Truncate(time.Microsecond) }

// beginTries bounds Begin's reading again after losing a race for a
// record to another request.
const beginTries = 4

// Begin decides what a request with a key does:
//   - No live record of its scope and key: a pending record is made, with
//     a new Ref, and the request acts (Claim.Replay false); it then calls
//     Finish with its answer, or Abandon.
//   - A live record with another fingerprint: Conflict
//     idempotency_key_reused (HTTP answers it 422).
//   - A done record: Claim.Replay, the answer to give again.
//   - A pending record whose lease runs: Conflict
//     idempotency_key_in_progress (409), whose RetryAfter is the lease's
//     rest.
//   - A pending record whose lease ran out (its request died, or failed
//     without a word): the request takes the lease over, keeping Ref,
//     and acts (Claim.TakenOver).
//
// On a refusal the Claim still holds the live record. Errors of the store
// are returned as they are.
func (s *Service) Begin(ctx context.Context, req Request) (Claim, error) {
	now := s.now()
	rec := Record{
		Scope: req.Scope, Key: req.Key, Fingerprint: req.Fingerprint, Ref: s.opts.NewRef(), Attempt: 1,
		State: Pending, Created: now, LeaseUntil: now.Add(s.opts.Lease), Expires: now.Add(s.opts.TTL),
	}
	if err := rec.Check(); err != nil {
		return Claim{}, err
	}
	for range beginTries {
		got, created, err := s.store.Create(ctx, rec)
		if err != nil {
			return Claim{}, err
		}
		if created {
			return Claim{Record: rec}, nil
		}
		switch {
		case got.Fingerprint != req.Fingerprint:
			return Claim{Record: got}, msgkit.New(msgkit.Conflict, CodeKeyReused,
				"the Idempotency-Key was sent with another request; use a new key for a new request")
		case got.State == Done:
			return Claim{Record: got, Replay: true}, nil
		case now.Before(got.LeaseUntil):
			return Claim{Record: got}, inProgress(got.LeaseUntil.Sub(now))
		}
		next := got
		next.Attempt++
		next.LeaseUntil = now.Add(s.opts.Lease)
		ok, err := s.store.Replace(ctx, got, next)
		if err != nil {
			return Claim{}, err
		}
		if ok {
			return Claim{Record: next}, nil
		}
		// Another request finished, released or took the record over
		// since it was read: read it again.
	}
	return Claim{Record: rec}, inProgress(time.Second)
}

// Finish records the answer of a claim's request, so that retries get it.
// A claim another request took over (its lease had run out) or released
// records nothing: Conflict idempotency_claim_lost.
func (s *Service) Finish(ctx context.Context, c Claim, a Answer) error {
	next := c.Record
	next.State = Done
	next.Answer = a
	if err := next.Check(); err != nil {
		return err
	}
	ok, err := s.store.Replace(ctx, c.Record, next)
	if err != nil {
		return err
	}
	if !ok {
		return msgkit.New(msgkit.Conflict, CodeClaimLost, "the idempotency key's record is no longer this request's")
	}
	return nil
}

// Abandon forgets a claim's key, so that a retry runs as a new request:
// for a request that did nothing (it was refused) or failed. A claim
// another request took over is left to it.
func (s *Service) Abandon(ctx context.Context, c Claim) error {
	_, err := s.store.Release(ctx, c.Record)
	return err
}

// Purge deletes the records expired now, for a periodic job, and says
// how many.
func (s *Service) Purge(ctx context.Context) (int, error) {
	n, err := s.store.Purge(ctx, s.now())
	return int(n), err
}

// busy is the cause of an in-progress refusal: how long the lease runs.
type busy struct{ wait time.Duration }

func (b busy) Error() string { return "the lease runs for " + b.wait.String() }

func inProgress(wait time.Duration) error {
	return msgkit.Wrap(busy{wait}, msgkit.Conflict, CodeInProgress,
		"a request with this Idempotency-Key is still being processed; retry later")
}

// RetryAfter is how long an in-progress refusal's lease still runs:
// after it, a retry gets the first request's answer or takes over.
func RetryAfter(err error) (time.Duration, bool) {
	b, ok := errors.AsType[busy](err)
	return b.wait, ok
}
