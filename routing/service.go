package routing

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/msgkit/msgkit"
)

// Store keeps the routes. Every method is one atomic operation.
type Store interface {
	// Create stores r; with r.ID 0 the store gives the smallest id above
	// every stored one (IDsExhausted when there is none). An id taken is
	// Exists.
	Create(ctx context.Context, r Route) (Route, error)
	// Route returns the route of id; NotFound without one.
	Route(ctx context.Context, id int64) (Route, error)
	// Routes lists every route by id.
	Routes(ctx context.Context) ([]Route, error)
	// Update replaces the connection ids of route r.ID; NotFound without
	// one.
	Update(ctx context.Context, r Route) error
	// Delete removes the route of id; NotFound without one.
	Delete(ctx context.Context, id int64) error
}

// Service keeps the routes by the rules of this package: every body is
// read and checked by Fill before the store sees it, so a Go program gets
// what the HTTP family answers.
type Service struct {
	store Store
}

// New returns a Service over store. Routing has no clock and no id source
// of its own (the store numbers routes, atomically), so New takes no
// options.
func New(store Store) *Service { return &Service{store: store} }

// Create stores the route in describes (see Fill): with its id, or the
// smallest above every stored one. An id taken is Conflict (Exists).
func (s *Service) Create(ctx context.Context, in Input) (Route, error) {
	r, _, err := Fill(in)
	if err != nil {
		return Route{}, err
	}
	return s.store.Create(ctx, r)
}

// Route returns the route of id; NotFound without one.
func (s *Service) Route(ctx context.Context, id int64) (Route, error) {
	return s.store.Route(ctx, id)
}

// Routes lists every route by id.
func (s *Service) Routes(ctx context.Context) ([]Route, error) {
	return s.store.Routes(ctx)
}

// Update replaces the connection ids of route id with in's (see Fill) and
// returns the route. An id in in, if any, must be id.
func (s *Service) Update(ctx context.Context, id int64, in Input) (Route, error) {
	r, hasID, err := Fill(in)
	if err != nil {
		return Route{}, err
	}
	if hasID && r.ID != id {
		return Route{}, msgkit.Invalidf(CodeInvalidRoute, "id", "id %d is not the path's %d", r.ID, id)
	}
	r.ID = id
	if err := s.store.Update(ctx, r); err != nil {
		return Route{}, err
	}
	return r, nil
}

// Delete removes the route of id; NotFound without one.
func (s *Service) Delete(ctx context.Context, id int64) error {
	return s.store.Delete(ctx, id)
}

// ParseID reads a route id written as text (a path's): one that no route
// can have (not a whole number from 1) is NotFound, as an unknown one is.
func ParseID(raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, msgkit.Errorf(msgkit.NotFound, CodeRouteNotFound, "route %q not found", raw)
	}
	return id, nil
}

// InputOf is r as a body: its connection ids as strings, and its id when
// it has one. A Go program builds its creates and updates with it.
func InputOf(r Route) Input {
	str := func(v string) json.RawMessage {
		b, _ := json.Marshal(v) // a string always encodes
		return b
	}
	in := Input{Sigtran: str(r.Sigtran), SMPP: str(r.SMPP), ESME: str(r.ESME)}
	if r.ID != 0 {
		in.ID = json.RawMessage(strconv.FormatInt(r.ID, 10))
	}
	return in
}
