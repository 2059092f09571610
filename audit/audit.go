package audit

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/netip"
	"time"

	"github.com/msgkit/msgkit"
)

// Actor kinds.
const (
	ActorClient = "client" // an API client of the client credentials grant
	ActorUser   = "user"   // a user of the password grant
	ActorSystem = "system" // the platform itself: the bootstrap file, a Go program
)

// Actor is who made a change, and from where.
type Actor struct {
	Kind    string     // ActorClient, ActorUser or ActorSystem
	Subject string     // the client id or username; what the system did
	From    netip.Addr // the caller's address; zero when not over the network
}

type actorKey struct{}

// WithActor returns ctx carrying the actor of the changes made with it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, or the system's.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Kind: ActorSystem}
}

// Entry is one recorded change.
type Entry struct {
	ID         int64 // assigned by the store, increasing
	At         time.Time
	Actor      Actor
	Action     string // create, update, delete, rotate_secret, ...
	Resource   string // tenant, client, user, api_key, ...
	ResourceID string
	// Before and After are the record as JSON before and after the
	// change; nil where there was none (a create's Before, a delete's
	// After).
	Before, After json.RawMessage
}

// Store keeps the entries.
type Store interface {
	// Append stores e with the next id and returns it so.
	Append(ctx context.Context, e Entry) (Entry, error)
	// Entries lists the entries by q (ListSpec), by id unless q sorts
	// them.
	Entries(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Entry], error)
}

// ListSpec is the listing of entries: by time, actor, action and
// resource.
var ListSpec = msgkit.ListSpec{
	Filter: map[string]msgkit.AttrType{
		"id": msgkit.AttrNumber, "at": msgkit.AttrDateTime, "actorKind": msgkit.AttrString, "actor": msgkit.AttrString,
		"from": msgkit.AttrString, "action": msgkit.AttrString, "resource": msgkit.AttrString, "resourceId": msgkit.AttrString,
	},
	Sort:   []string{"id", "at"},
	Search: []string{"actor", "resourceId"},
}

// Attr is attribute attr of e as ListSpec names it, for msgkit.Apply.
func Attr(e Entry, attr string) (msgkit.Value, bool) {
	switch attr {
	case "id":
		return msgkit.IntValue(e.ID), true
	case "at":
		return msgkit.TimeValue(e.At), true
	case "actorKind":
		return msgkit.StringValue(e.Actor.Kind), true
	case "actor":
		return msgkit.StringValue(e.Actor.Subject), true
	case "from":
		if !e.Actor.From.IsValid() {
			return msgkit.StringValue(""), true
		}
		return msgkit.StringValue(e.Actor.From.String()), true
	case "action":
		return msgkit.StringValue(e.Action), true
	case "resource":
		return msgkit.StringValue(e.Resource), true
	case "resourceId":
		return msgkit.StringValue(e.ResourceID), true
	}
	return msgkit.Value{}, false
}

// Options configure a Log.
type Options struct {
	Clock  msgkit.Clock
	Logger *slog.Logger
}

// Log records changes and lists them.
type Log struct {
	store Store
	opts  Options
}

// New returns a Log over store.
func New(store Store, opts Options) *Log {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Log{store: store, opts: opts}
}

// Record records a change made by the actor ctx carries: action on the
// resource with id, the record before and after as JSON (nil for none).
// A failure is logged and returned; the change it tells of stands.
func (l *Log) Record(ctx context.Context, action, resource, id string, before, after any) error {
	e := Entry{At: l.opts.Clock.Now().UTC(), Actor: ActorFrom(ctx), Action: action, Resource: resource, ResourceID: id}
	var err error
	if e.Before, err = encode(before); err == nil {
		e.After, err = encode(after)
	}
	if err == nil {
		_, err = l.store.Append(ctx, e)
	}
	if err != nil {
		l.opts.Logger.ErrorContext(ctx, "audit entry not recorded", "action", action, "resource", resource, "id", id,
			"actor", e.Actor.Subject, "err", err)
	}
	return err
}

// encode is v as JSON; nil (and a nil pointer or slice) is none.
func encode(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, msgkit.Wrap(err, msgkit.Internal, "audit_encode", "the audit record cannot be encoded")
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

// Entries lists the entries by q (ListSpec).
func (l *Log) Entries(ctx context.Context, q msgkit.ListQuery) (msgkit.Page[Entry], error) {
	return l.store.Entries(ctx, q)
}
