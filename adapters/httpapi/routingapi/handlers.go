package routingapi

import (
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/routing"
)

type api struct {
	b Backend
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
	id, err := routing.ParseID(r.PathValue("id"))
	if err != nil {
		return 0, err
	}
	return id, noParams(r)
}

// readRoute decodes a create or update body; the service checks it.
func readRoute(w http.ResponseWriter, r *http.Request) (routing.Input, error) {
	var in routing.Input
	err := httpapi.DecodeJSON(w, r, &in, httpapi.DecodeOptions{})
	return in, err
}

func (a *api) create(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	in, err := readRoute(w, r)
	if err != nil {
		return err
	}
	rt, err := a.b.Routes.Create(r.Context(), in)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, routeOf(rt))
}

func (a *api) list(w http.ResponseWriter, r *http.Request) error {
	if err := noParams(r); err != nil {
		return err
	}
	rs, err := a.b.Routes.Routes(r.Context())
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
	rt, err := a.b.Routes.Route(r.Context(), id)
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
	in, err := readRoute(w, r)
	if err != nil {
		return err
	}
	if _, err := a.b.Routes.Update(r.Context(), id, in); err != nil {
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
	if err := a.b.Routes.Delete(r.Context(), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
