package finance

import (
	"context"

	"github.com/msgkit/msgkit"
)

// Group is a kind of membership an invoice may have: in a netting
// statement, or in a collection under a lead invoice. An invoice is a
// member of at most one group of each kind.
type Group uint8

// The kinds of group.
const (
	// Netting groups invoices under a netting statement (class
	// NETTING_INVOICE): Invoice.NettingInvoiceID.
	Netting Group = iota + 1
	// Collection groups credit and debit notes under a lead invoice:
	// Invoice.CollectionLeadID, with collectionMode member.
	Collection
)

// Link is the group of kind g that inv is a member of, 0 for none.
func (g Group) Link(inv *Invoice) InvoiceID {
	if g == Netting {
		return InvoiceID(inv.NettingInvoiceID)
	}
	return InvoiceID(inv.CollectionLeadID)
}

// Field is the name of the request field that names a group of kind g.
func (g Group) Field() string {
	if g == Netting {
		return "nettingInvoiceId"
	}
	return "collectionLeadId"
}

// what words a group of kind g in messages.
func (g Group) what() string {
	if g == Netting {
		return "netting statement"
	}
	return "collection lead"
}

// The collection modes this package sets: a note collected into a lead
// is a member, the lead a lead while it has members, anything else none.
const (
	CollectionNone   = "none"
	CollectionMember = "member"
	CollectionLead   = "lead"
)

// Codes of the refusals of a membership change.
const (
	// CodeInvalidMembership (Invalid) names the field of a group that
	// is unknown, out of scope, deleted, or that the invoice may not
	// join (class, partner, currency).
	CodeInvalidMembership = "invalid_membership"
	// CodeAlreadyMember (Conflict): the invoice is in another group of
	// the kind; it leaves that one first.
	CodeAlreadyMember = "already_member"
	// CodeStatementClosed (Conflict): the netting statement is closed,
	// and no member joins or leaves it.
	CodeStatementClosed = "statement_closed"
)

// Move is what a Store reads, in one transaction, to move an invoice
// into or out of a group, and what the rules change: Member, and the
// groups Old (the one it is in, nil for none or when it is New) and New
// (the one it joins, nil when it leaves or New is unknown). OldMembers and
// NewMembers are the other members of Old and New (Member excluded) in id
// order, as they are stored.
type Move struct {
	Member     *Invoice
	Old, New   *Invoice
	OldMembers []Invoice
	NewMembers []Invoice
}

// StatementClosed reports whether a netting statement is closed to its
// members: paid in full (paymentStatus closed), or past draft (approved,
// rejected, canceled, archived, imported). A deleted statement is not
// closed but gone: nothing joins it, and its members may leave it.
func StatementClosed(stmt *Invoice) bool {
	return stmt.Status != Deleted && (stmt.PaymentStatus == PaymentClosed || stmt.Status != Draft)
}

// NettingAmounts are the amounts of a statement with members: the sum of
// theirs, a customer-side document's as it is and a supplier-side one's
// negated, so the statement shows what the partner owes net of what it is
// owed. Deleted members, which the rules never leave in a statement, do
// not count.
func NettingAmounts(members []Invoice) Amounts {
	var sum Amounts
	s := sum.list()
	for i := range members {
		m := &members[i]
		if m.Status == Deleted {
			continue
		}
		a, supplier := m.Amounts.list(), ClassDomain(m.Class) == "supplier"
		for k := range s {
			v := *a[k]
			if supplier {
				v = v.Neg()
			}
			*s[k] = s[k].Add(v)
		}
	}
	return sum
}

// Join applies the rules of a move of m.Member into group to of kind g
// (see the package doc, Membership), or out of its group when to is 0,
// and changes m's invoices as the move leaves them. scope confines both
// the member and the groups: a group out of it is unknown.
func Join(g Group, m *Move, to InvoiceID, scope Scope) error {
	mem := m.Member
	if mem.Status == Deleted || !scope.Covers(mem) {
		return notFound(mem.ID)
	}
	if to == 0 {
		return leave(g, m)
	}
	if g.Link(mem) == to {
		return nil // already there: a PUT repeated
	}
	if err := canJoin(g, mem, m.New, to, scope); err != nil {
		return err
	}
	if cur := g.Link(mem); cur != 0 {
		return msgkit.Errorf(msgkit.Conflict, CodeAlreadyMember, "invoice %d is a member of %s %d: it leaves that one first", mem.ID, g.what(), cur)
	}
	if g == Netting {
		mem.NettingInvoiceID = int64(to)
	} else {
		mem.CollectionMode, mem.CollectionLeadID = CollectionMember, int64(to)
	}
	settle(g, m.New, append(m.NewMembers, *mem))
	return nil
}

// canJoin refuses a member or a group that the member may not join.
func canJoin(g Group, mem, grp *Invoice, to InvoiceID, scope Scope) error {
	field := g.Field()
	if grp == nil || grp.Status == Deleted || !scope.Covers(grp) {
		return msgkit.Invalidf(CodeInvalidMembership, field, "%s %d not found", g.what(), to)
	}
	if g == Netting {
		switch {
		case mem.Class == NettingInvoice:
			return msgkit.Invalidf(CodeInvalidMembership, "invoiceid", "invoice %d is a netting statement, which cannot be a member of another", mem.ID)
		case grp.Class != NettingInvoice:
			return msgkit.Invalidf(CodeInvalidMembership, field, "invoice %d is not a netting statement (%s)", to, NettingInvoice)
		case StatementClosed(grp):
			return msgkit.Errorf(msgkit.Conflict, CodeStatementClosed, "netting statement %d is closed (%s, payment %s): no member joins it", to, grp.Status, grp.PaymentStatus)
		}
	} else {
		lead := leadClass(mem.Class)
		switch {
		case lead == "":
			return msgkit.Invalidf(CodeInvalidMembership, "invoiceid", "invoice %d is a %s: only credit and debit notes (%s, %s) are collected", mem.ID, mem.Class, CreditDebitNote, SupplierCrDbNote)
		case grp.Class != lead:
			return msgkit.Invalidf(CodeInvalidMembership, field, "invoice %d is a %s: a %s is collected into a %s", to, grp.Class, mem.Class, lead)
		}
	}
	switch {
	case grp.Customer.ID != mem.Customer.ID:
		return msgkit.Invalidf(CodeInvalidMembership, field, "%s %d is of business partner %d, invoice %d of %d", g.what(), to, grp.Customer.ID, mem.ID, mem.Customer.ID)
	case grp.Currency.Numeric != mem.Currency.Numeric:
		return msgkit.Invalidf(CodeInvalidMembership, field, "%s %d is in %s, invoice %d in %s", g.what(), to, grp.Currency.Code, mem.ID, mem.Currency.Code)
	}
	return nil
}

// leadClass is the class of the lead a note of class c is collected into
// (a note of its side's invoice), "" when c is no note.
func leadClass(c Class) Class {
	switch c {
	case CreditDebitNote:
		return CustomerInvoice
	case SupplierCrDbNote:
		return SupplierInvoice
	}
	return ""
}

// leave takes m.Member out of its group of kind g; a member of none
// leaves nothing (a DELETE repeated).
func leave(g Group, m *Move) error {
	mem := m.Member
	cur := g.Link(mem)
	if cur == 0 {
		return nil
	}
	if g == Netting && m.Old != nil && StatementClosed(m.Old) {
		return msgkit.Errorf(msgkit.Conflict, CodeStatementClosed, "netting statement %d is closed (%s, payment %s): no member leaves it", cur, m.Old.Status, m.Old.PaymentStatus)
	}
	if g == Netting {
		mem.NettingInvoiceID = 0
	} else {
		mem.CollectionMode, mem.CollectionLeadID = CollectionNone, 0
	}
	if m.Old != nil {
		settle(g, m.Old, m.OldMembers)
	}
	return nil
}

// settle sets what a group shows of its members: a statement's amounts
// are their sum (NettingAmounts); a lead is a lead while it has members.
func settle(g Group, grp *Invoice, members []Invoice) {
	if grp == nil || grp.Status == Deleted {
		return // a deleted group shows nothing any more
	}
	if g == Netting {
		grp.Amounts = NettingAmounts(members)
		return
	}
	grp.CollectionMode = CollectionNone
	if len(members) > 0 {
		grp.CollectionMode = CollectionLead
	}
}

// SetGroup moves invoice member into group to of kind g, or out of its
// group of that kind when to is 0, by the rules of Join, in one atomic
// step of the Store (SetMembership), and returns the member as it is
// left. A member unknown, deleted or out of scope is INVOICE_NOTFOUND.
func (s *Service) SetGroup(ctx context.Context, scope Scope, g Group, member, to InvoiceID) (Invoice, error) {
	inv, err := s.store.SetMembership(ctx, g, member, to, func(m *Move) error { return Join(g, m, to, scope) })
	if msgkit.KindOf(err) == msgkit.NotFound {
		return Invoice{}, notFound(member)
	}
	return inv, err
}
