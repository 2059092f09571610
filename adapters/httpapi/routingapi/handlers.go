package routingapi

import (
	"net/http"
	"strconv"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/routing"
)

type api struct {
	store routing.Store
}

// routeJSON is a route as the interface answers it: connection ids as
// strings.
type routeJSON struct {
	ID      int64  `json:"id"`
	Sigtran string `json:"sigtran_connect_id"`
	SMPP    string `json:"smpp_connect_id"`
	ESME    string `json:"esme_connect_id"`
}

func routeOf(r routing.Route) routeJSON {
	return routeJSON{ID: r.ID, Sigtran: r.Sigtran, SMPP: r.SMPP, ESME: r.ESME}
}

// noParams refuses query parameters: no operation takes one.
func noParams(r *http.Request) error {
	for key := range r.URL.Query() {
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "unknown query parameter %q; this operation takes none", key)
	}
	return nil
}

// idAt reads the path's id: a malformed one is 404, as no route has it.
func idAt(r *http.Request) (int64, error) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return 0, msgkit.Errorf(msgkit.NotFound, "route_not_found", "route %q not found", raw)
	}
	return id, noParams(r)
}

// readRoute decodes and checks a create or update body.
func readRoute(w http.ResponseWriter, r *http.Request) (routing.Route, bool, error) {
	var in routing.Input
	if err := httpapi.DecodeJSON(w, r, &in, httpapi.DecodeOptions{}); err != nil {
		return routing.Route{}, false, err
	}
	return routing.Fill(in)
}

func (a *api) create(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	rt, _, err := readRoute(w, r)
	if err != nil {
		return err
	}
	if rt, err = a.store.Create(r.Context(), rt); err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, routeOf(rt))
}

func (a *api) list(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	rs, err := a.store.Routes(r.Context())
	if err != nil {
		return err
	}
	out := make([]routeJSON, len(rs))
	for i, rt := range rs {
		out[i] = routeOf(rt)
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

func (a *api) get(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r)
	if err != nil {
		return err
	}
	rt, err := a.store.Route(r.Context(), id)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, routeOf(rt))
}

func (a *api) update(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r)
	if err != nil {
		return err
	}
	rt, hasID, err := readRoute(w, r)
	if err != nil {
		return err
	}
	if hasID && rt.ID != id {
		return msgkit.Invalidf(routing.CodeInvalidRoute, "id", "id %d is not the path's %d", rt.ID, id)
	}
	rt.ID = id
	if err := a.store.Update(r.Context(), rt); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (a *api) delete(w http.ResponseWriter, r *http.Request) error {
	id, err := idAt(r)
	if err != nil {
		return err
	}
	if err := a.store.Delete(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
