package uiproxyapi

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/egress"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/uiproxy"
)

type api struct {
	b Backend
}

// customerCodes are the codes of a customer call that failed: the
// customer's fault or its network's, answered 502.
var customerCodes = []string{egress.CodeUnreachable, egress.CodeAddressRefused, egress.CodeStatus, egress.CodeTooLarge, egress.CodeRedirect, uiproxy.CodeBadAnswer}

// badGateway answers a failed customer call 502; it maps every failure
// the family answers (FamilySpec.Errors).
func badGateway(err error) error {
	if msgkit.KindOf(err) == msgkit.Unavailable && slices.Contains(customerCodes, msgkit.CodeOf(err)) {
		return &httpapi.StatusError{Status: http.StatusBadGateway, Err: err}
	}
	return err
}

// query reads the query string strictly: a malformed one is refused
// rather than read in part.
func query(r *http.Request) (url.Values, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, msgkit.Invalidf(msgkit.CodeInvalidQuery, "query", "the query string is malformed")
	}
	return v, nil
}

func (a *api) grid(w http.ResponseWriter, r *http.Request) error {
	v, err := query(r)
	if err != nil {
		return err
	}
	p, _ := httpapi.PrincipalFrom(r.Context())
	page, err := a.b.Proxy.Grid(r.Context(), p, r.PathValue("gridComponentId"), v, r.URL.EscapedPath())
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, page)
}

func (a *api) kpi(w http.ResponseWriter, r *http.Request) error {
	v, err := query(r)
	if err != nil {
		return err
	}
	p, _ := httpapi.PrincipalFrom(r.Context())
	k, err := a.b.Proxy.KPI(r.Context(), p, r.PathValue("kpiComponentId"), v)
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, k)
}

// componentJSON is what a UI learns of a component to draw it: never its
// customer address or token.
type componentJSON struct {
	ID      string       `json:"id"`
	Type    uiproxy.Type `json:"type"`
	Columns []columnJSON `json:"columns"`
}

type columnJSON struct {
	Name       string             `json:"name"`
	Kind       uiproxy.ColumnKind `json:"kind"`
	Filterable bool               `json:"filterable"`
	Sortable   bool               `json:"sortable"`
	// Operators are the filter operators the column takes; [] when it is
	// not filterable.
	Operators []msgkit.Op `json:"operators"`
}

func (a *api) component(w http.ResponseWriter, r *http.Request) error {
	if r.URL.RawQuery != "" {
		return msgkit.Invalidf(msgkit.CodeInvalidQuery, "query", "this operation takes no query parameters")
	}
	p, _ := httpapi.PrincipalFrom(r.Context())
	c, err := a.b.Proxy.Component(r.Context(), p, r.PathValue("componentId"), "")
	if err != nil {
		return err
	}
	out := componentJSON{ID: c.ID, Type: c.Type, Columns: make([]columnJSON, len(c.Columns))}
	for i, col := range c.Columns {
		ops := []msgkit.Op{}
		if col.Filterable {
			ops = uiproxy.Operators(col.Kind)
		}
		out.Columns[i] = columnJSON{Name: col.Name, Kind: col.Kind, Filterable: col.Filterable, Sortable: col.Sortable, Operators: ops}
	}
	return httpapi.WriteJSON(w, http.StatusOK, out)
}

// mockGrid is the mock grid data operation: the mock rows filtered,
// sorted and paged as asked.
func mockGrid(w http.ResponseWriter, r *http.Request) error {
	v, err := query(r)
	if err != nil {
		return err
	}
	q, err := uiproxy.MockQuery(v)
	if err != nil {
		return err
	}
	ref := cmp.Or(v.Get(uiproxy.ParamReferenceID), v.Get(uiproxy.ParamResourceID))
	page, err := uiproxy.MockGrid(r.PathValue("gridComponentId"), ref, q, &url.URL{Path: r.URL.Path, RawQuery: r.URL.RawQuery})
	if err != nil {
		return err
	}
	return httpapi.WriteJSON(w, http.StatusOK, page)
}

// mockKPI is the mock KPI data operation.
func mockKPI(w http.ResponseWriter, r *http.Request) error {
	v, err := query(r)
	if err != nil {
		return err
	}
	for key := range v {
		switch key {
		case uiproxy.ParamReferenceID, uiproxy.ParamResourceID, uiproxy.ParamLanguage, uiproxy.ParamLocale, "token":
		default:
			return msgkit.Invalidf(msgkit.CodeInvalidQuery, key, "the KPI takes reference_id, language and locale only, not %q", key)
		}
	}
	ref := cmp.Or(v.Get(uiproxy.ParamReferenceID), v.Get(uiproxy.ParamResourceID))
	return httpapi.WriteJSON(w, http.StatusOK, uiproxy.MockKPI(r.PathValue("kpiComponentId"), ref))
}
