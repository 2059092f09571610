package finance

import (
	"context"
	"slices"

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
	// before it, and returns it with the id. An empty UID is Invalid
	// (invoice_invalid, naming invUid); a UID another invoice has is
	// Conflict (invoice_exists).
	CreateInvoice(ctx context.Context, inv Invoice) (Invoice, error)
	// Invoice returns an invoice, deleted ones included; an unknown id is
	// NotFound.
	Invoice(ctx context.Context, id InvoiceID) (Invoice, error)
	// UpdateInvoice runs change on the stored invoice and stores what it
	// returns, atomically: nothing else changes the invoice in between.
	// An error from change is returned and nothing is stored. The id and
	// the UID stay as stored, whatever change returns.
	UpdateInvoice(ctx context.Context, id InvoiceID, change func(Invoice) (Invoice, error)) (Invoice, error)
	// SetMembership moves invoice member into group to of kind g, or
	// out of its group of that kind when to is 0, in one transaction: it
	// reads the member, the group it is in and group to (see Move:
	// an unknown group is nil) and the other members of both, runs move,
	// and stores the three invoices as move leaves them, ids and UIDs as
	// stored, and returns the member. Nothing else changes any of them in
	// between, and no other move changes the groups' members. An unknown
	// member is NotFound; an error from move is returned as it is and
	// nothing is stored.
	SetMembership(ctx context.Context, g Group, member, to InvoiceID, move func(*Move) error) (Invoice, error)
	// ListInvoices lists the views (ViewOf, on the day today) of the
	// invoices that are not deleted, of the partners in scope (all when
	// scope.All), searched, filtered, sorted and paged by q over the
	// attributes of InvoiceSpec as InvoiceValue reads them (store order:
	// id).
	ListInvoices(ctx context.Context, q msgkit.ListQuery, scope Scope, today msgkit.Date) (msgkit.Page[View], error)
	// InvoiceData looks up, for each of invs in order, what ViewOf reads
	// beside it: the owner, the partner's export data, the type, the
	// domestic rate, the netting statement, the collection lead and the
	// lead's statement (not the accounts or traffic of the export).
	InvoiceData(ctx context.Context, invs []Invoice) ([]DocumentData, error)
}

// Scope is what a caller may see and change: every partner's documents,
// or only those of the partners its tenants are (the -own privileges);
// and, for changes, every class or only Classes (the class-specific
// manage privileges). Listings and balances read All and Partners only.
type Scope struct {
	All      bool
	Partners []int64
	Classes  []Class // changes only; none: every class
}

// Sees reports whether scope covers partner.
func (s Scope) Sees(partner int64) bool {
	return s.All || slices.Contains(s.Partners, partner)
}

// Covers reports whether scope covers inv: its partner and its class.
func (s Scope) Covers(inv *Invoice) bool {
	return s.Sees(inv.Customer.ID) && (len(s.Classes) == 0 || slices.Contains(s.Classes, inv.Class))
}

// PartnerTenants links business partners to the tenants (serviceUuid)
// whose messaging accounts they are, so that a caller with an -own
// privilege sees the documents of its tenants' partners and no others.
type PartnerTenants interface {
	// SetPartnerTenant links partner to svc, replacing any link it had;
	// an empty svc unlinks it.
	SetPartnerTenant(ctx context.Context, partner int64, svc msgkit.ServiceUUID) error
	// PartnersOf lists the partners linked to any of services, ascending.
	PartnersOf(ctx context.Context, services []msgkit.ServiceUUID) ([]int64, error)
}

// OwnScope is the scope of a caller with an -own privilege acting for
// services: the partners linked to them.
func OwnScope(ctx context.Context, t PartnerTenants, services []msgkit.ServiceUUID) (Scope, error) {
	ids, err := t.PartnersOf(ctx, services)
	if err != nil {
		return Scope{}, err
	}
	return Scope{Partners: ids}, nil
}
