package finance

import (
	"context"

	"github.com/msgkit/msgkit"
)

// Store keeps invoices and the business partners they name. Every method
// is one atomic operation.
type Store interface {
	// PutPartner creates or replaces a business partner's stored data.
	PutPartner(ctx context.Context, p Partner) error
	// Partner returns a partner; an unknown one is NotFound.
	Partner(ctx context.Context, id int64) (Partner, error)
	// CreateInvoice stores inv under a new id, larger than every id
	// before it, and returns it with the id.
	CreateInvoice(ctx context.Context, inv Invoice) (Invoice, error)
	// Invoice returns an invoice, deleted ones included; an unknown id is
	// NotFound.
	Invoice(ctx context.Context, id InvoiceID) (Invoice, error)
	// UpdateInvoice runs change on the stored invoice and stores what it
	// returns, atomically: nothing else changes the invoice in between.
	// An error from change is returned and nothing is stored.
	UpdateInvoice(ctx context.Context, id InvoiceID, change func(Invoice) (Invoice, error)) (Invoice, error)
	// ListInvoices lists the invoices that are not deleted, of the
	// partners in scope (all when scope.All), filtered, sorted and paged
	// by q over the attributes of InvoiceSpec (store order: id).
	ListInvoices(ctx context.Context, q msgkit.ListQuery, scope Scope) (msgkit.Page[Invoice], error)
}

// Scope is what a caller may see: every partner's documents, or only
// those of the partners it owns (the -own privileges).
type Scope struct {
	All      bool
	Partners []int64
}

// Sees reports whether scope covers partner.
func (s Scope) Sees(partner int64) bool {
	if s.All {
		return true
	}
	for _, p := range s.Partners {
		if p == partner {
			return true
		}
	}
	return false
}
