package memstore

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// UIProxyStore keeps the UI components' configurations.
type UIProxyStore struct {
	mu         sync.RWMutex
	components map[string]uiproxy.Component
}

var _ uiproxy.Store = (*UIProxyStore)(nil)

func newUIProxyStore() *UIProxyStore {
	return &UIProxyStore{components: map[string]uiproxy.Component{}}
}

func cloneComponent(c uiproxy.Component) uiproxy.Component {
	c.Fixed = maps.Clone(c.Fixed)
	c.Columns = slices.Clone(c.Columns)
	return c
}

// Put stores a component, replacing one of its id.
func (s *UIProxyStore) Put(_ context.Context, c uiproxy.Component) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.components[c.ID] = cloneComponent(c)
	return nil
}

// Component returns a component.
func (s *UIProxyStore) Component(_ context.Context, id string) (uiproxy.Component, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.components[id]
	if !ok {
		return uiproxy.Component{}, uiproxy.ComponentNotFound(id)
	}
	return cloneComponent(c), nil
}

// List lists the components by q, by id unless q sorts them.
func (s *UIProxyStore) List(_ context.Context, q msgkit.ListQuery) (msgkit.Page[uiproxy.Component], error) {
	s.mu.RLock()
	all := make([]uiproxy.Component, 0, len(s.components))
	for _, id := range slices.Sorted(maps.Keys(s.components)) {
		all = append(all, s.components[id])
	}
	s.mu.RUnlock()
	page, err := msgkit.Apply(all, q, uiproxy.ComponentAttr)
	for i, c := range page.Items {
		page.Items[i] = cloneComponent(c)
	}
	return page, err
}

// Delete removes a component.
func (s *UIProxyStore) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.components[id]; !ok {
		return uiproxy.ComponentNotFound(id)
	}
	delete(s.components, id)
	return nil
}
