package memstore

import (
	"context"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/msgkit/msgkit/routing"
)

// RoutingStore keeps the inbound MT routes.
type RoutingStore struct {
	mu     sync.RWMutex
	routes map[int64]routing.Route
}

var _ routing.Store = (*RoutingStore)(nil)

func newRoutingStore() *RoutingStore { return &RoutingStore{routes: map[int64]routing.Route{}} }

// Create stores r, giving it the smallest id above every stored one when
// it has none.
func (s *RoutingStore) Create(_ context.Context, r routing.Route) (routing.Route, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.ID == 0 {
		var top int64
		for id := range s.routes {
			top = max(top, id)
		}
		if top == math.MaxInt64 {
			return routing.Route{}, routing.IDsExhausted(top)
		}
		r.ID = top + 1
	}
	if _, ok := s.routes[r.ID]; ok {
		return routing.Route{}, routing.Exists(r.ID)
	}
	s.routes[r.ID] = r
	return r, nil
}

// Route returns a route.
func (s *RoutingStore) Route(_ context.Context, id int64) (routing.Route, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.routes[id]
	if !ok {
		return routing.Route{}, routing.NotFound(id)
	}
	return r, nil
}

// Routes lists the routes by id.
func (s *RoutingStore) Routes(context.Context) ([]routing.Route, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]routing.Route, 0, len(s.routes))
	for _, id := range slices.Sorted(maps.Keys(s.routes)) {
		out = append(out, s.routes[id])
	}
	return out, nil
}

// Update replaces a route's connection ids.
func (s *RoutingStore) Update(_ context.Context, r routing.Route) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.routes[r.ID]; !ok {
		return routing.NotFound(r.ID)
	}
	s.routes[r.ID] = r
	return nil
}

// Delete removes a route.
func (s *RoutingStore) Delete(_ context.Context, id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.routes[id]; !ok {
		return routing.NotFound(id)
	}
	delete(s.routes, id)
	return nil
}
