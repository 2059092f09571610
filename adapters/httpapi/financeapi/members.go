package financeapi

import (
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/finance"
)

// groupBody is the body of a join: {"nettingInvoiceId": n} or
// {"collectionLeadId": n}, as the route's group says; other members are
// ignored, as in every finance body.
type groupBody struct {
	NettingInvoiceID *int64 `json:"nettingInvoiceId"`
	CollectionLeadID *int64 `json:"collectionLeadId"`
}

// join serves PUT …/netting and …/collection: the invoice joins the
// group the body names (finance.Service.SetGroup).
func (a *api) join(g finance.Group) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := invoiceAt(r)
		if err != nil {
			return err
		}
		var body groupBody
		if err := httpapi.DecodeJSON(w, r, &body, httpapi.DecodeOptions{}); err != nil {
			return err
		}
		to := body.NettingInvoiceID
		if g == finance.Collection {
			to = body.CollectionLeadID
		}
		switch {
		case to == nil:
			return msgkit.Invalidf(finance.CodeInvalidMembership, g.Field(), "%s is required", g.Field())
		case *to < 1:
			return msgkit.Invalidf(finance.CodeInvalidMembership, g.Field(), "%s must be a positive integer, not %d", g.Field(), *to)
		}
		return a.move(w, r, g, id, finance.InvoiceID(*to))
	}
}

// leave serves DELETE …/netting and …/collection: the invoice leaves its
// group of the kind.
func (a *api) leave(g finance.Group) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, err := invoiceAt(r)
		if err != nil {
			return err
		}
		return a.move(w, r, g, id, 0)
	}
}

func (a *api) move(w http.ResponseWriter, r *http.Request, g finance.Group, id, to finance.InvoiceID) error {
	scope, err := a.changeScope(r)
	if err != nil {
		return err
	}
	inv, err := a.b.Service.SetGroup(r.Context(), scope, g, id, to)
	if err != nil {
		return err
	}
	return a.answer(w, r, inv)
}
