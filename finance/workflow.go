package finance

import (
	"slices"
	"strings"
	"time"
)

// The values of the workflow fields an invoice keeps. The documents give
// some of each list (processing none, scheduled, running; collection
// none, member; the samples delivery and disabled) and leave the rest
// open; these complete them as an operator's back office uses them.
const (
	ProcessingNone   = "none"
	SyncModeDisabled = "disabled"
)

// ProcessingStatuses are the values of processingStatus: where the
// platform's own processing of the document (generation, sending) is.
func ProcessingStatuses() []string {
	return []string{ProcessingNone, "scheduled", "running", "done", "error"}
}

// DisputeStatuses are the values of disputeStatus: a partner's dispute of
// the document, from raised to settled.
func DisputeStatuses() []string { return []string{"none", "open", "accepted", "rejected", "closed"} }

// InvoicingDatePolicies are the values of invoicingDatePolicy: which date
// the invoicing date follows (the delivery date, the invoice date, the
// end of the invoiced period).
func InvoicingDatePolicies() []string { return []string{"delivery", "invoice", "period-end"} }

// SyncModes are the values of syncMode: how the document reaches the
// external finance system (not at all, by an operator's request, by the
// platform on its own).
func SyncModes() []string { return []string{SyncModeDisabled, "manual", "automatic"} }

// applyWorkflow sets the workflow fields in asks for, each checked
// against its list; "" clears one (processingStatus back to none). A
// changed dispute status dates the change with the invoice's StatusDt
// clock: the caller's now, which Create and Update put in StatusDt.
func applyWorkflow(inv *Invoice, in Input, v *invalid) {
	for _, f := range []struct {
		name  string
		src   *string
		dst   *string
		clear string
		list  []string
	}{
		{"processingStatus", in.ProcessingStatus, &inv.ProcessingStatus, ProcessingNone, ProcessingStatuses()},
		{"disputeStatus", in.DisputeStatus, &inv.DisputeStatus, "", DisputeStatuses()},
		{"invoicingDatePolicy", in.InvoicingDatePolicy, &inv.InvoicingDatePolicy, "", InvoicingDatePolicies()},
		{"syncMode", in.SyncMode, &inv.SyncMode, "", SyncModes()},
	} {
		switch {
		case f.src == nil:
		case *f.src == "":
			*f.dst = f.clear
		case slices.Contains(f.list, *f.src):
			*f.dst = *f.src
		default:
			v.add(f.name, "unknown %s %q (one of %s)", f.name, *f.src, strings.Join(f.list, ", "))
		}
	}
}

// datedDispute stamps a dispute status that changed from was with now.
func datedDispute(inv *Invoice, was string, now time.Time) {
	if inv.DisputeStatus != was {
		inv.DisputeDt = now
	}
}
