package finance

import (
	"github.com/msgkit/msgkit"
)

// CodeInvalidInvoice is the code of a request that breaks an invoice rule.
const CodeInvalidInvoice = "invalid_invoice"

// Dates are an invoice's dates as a request leaves them: a zero Date is
// one the request does not give, and DueDays is nil when invDueDateDays
// is absent.
type Dates struct {
	Inv      msgkit.Date // invDate
	Delivery msgkit.Date // deliveryDate
	Due      msgkit.Date // invDueDate
	DueDays  *int        // invDueDateDays
}

// ResolveDates applies the due-date rules to the dates of a create
// (creating) or of an update merged over the stored invoice, today
// giving the defaults:
//   - invDate and deliveryDate default to today;
//   - invDueDate wins over invDueDateDays, which counts days from invDate
//     (2025-01-31 + 30 days is 2025-03-02);
//   - on create, one of them is required;
//   - on update without either, invDueDate and deliveryDate become
//     invDate;
//   - a due date the request sets, or counts, must fall after the
//     delivery date.
//
// The result has Due set and DueDays nil. A broken rule is an Invalid
// *msgkit.Error naming the fields.
func ResolveDates(d Dates, today msgkit.Date, creating bool) (Dates, error) {
	if d.Inv.IsZero() {
		d.Inv = today
	}
	if d.DueDays != nil && *d.DueDays < 0 {
		return d, msgkit.Invalidf(CodeInvalidInvoice, "invDueDateDays", "invDueDateDays must not be negative, not %d", *d.DueDays)
	}
	switch {
	case !d.Due.IsZero():
	case d.DueDays != nil:
		d.Due = d.Inv.AddDays(*d.DueDays)
	case creating:
		return d, (&msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidInvoice,
			Message: "an invoice needs invDueDate or invDueDateDays"}).
			WithField("invDueDate", "missing", "give the due date, or invDueDateDays to count it from invDate").
			WithField("invDueDateDays", "missing", "")
	default:
		d.Due, d.Delivery = d.Inv, d.Inv
		return d, nil
	}
	d.DueDays = nil
	if d.Delivery.IsZero() {
		d.Delivery = today
	}
	if !d.Due.After(d.Delivery) {
		return d, msgkit.Invalidf(CodeInvalidInvoice, "invDueDate", "the due date %s must be after the delivery date %s", d.Due, d.Delivery)
	}
	return d, nil
}
