package finance

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// Codes of the finance errors the documents name, and of the rules an
// update or delete breaks.
const (
	CodeInvoiceNotFound = "INVOICE_NOTFOUND"
	CodeUnknownStatus   = "UNKNOWN_STATUS"
	CodeInvalidValue    = "INVALID_VALUE"
	CodeNotEditable     = "invoice_not_editable"
)

// priceDecimals are the decimals an item price keeps when vatInPrice
// changes and the price is converted between net and gross.
const priceDecimals = 4

// Update applies an update request to a stored invoice. Rules:
//   - only drafts, and approved supplier invoices, may be updated, and
//     never collection or netting members (Conflict, code
//     invoice_not_editable);
//   - a netting statement's amounts are its members' (NettingAmounts):
//     an update sends it no items nor amounts, and keeps them;
//   - status may stay, or move from draft to approved;
//   - classification (dataSourceCodeName, domainCodeName,
//     dtsSelectorCodeName, finDocClassCodeName) and payment are set on
//     create only: an update that sends other values is refused;
//   - the currency changes only while the invoice has no items;
//   - items, when sent, replace the invoice's items; an item without a
//     rate takes vatPercent, the request's or the invoice's;
//   - changing vatInPrice without sending items converts the stored
//     items' prices between net and gross at their rates, kept to 4
//     decimals, so that they bill the same;
//   - dates as ResolveDates has it for updates (without invDueDate and
//     invDueDateDays, the due and delivery dates become invDate);
//   - amounts are computed again from the items, or, without items,
//     taken as stated (checked) or kept.
func Update(stored Invoice, in Input, today msgkit.Date, now time.Time) (Invoice, error) {
	if err := editable(stored, "updated"); err != nil {
		return stored, err
	}
	var v invalid
	if checkText(&in, &v); v.e != nil {
		return stored, v.err() // nothing else is read of a text that breaks these
	}
	inv := stored
	inv.Items = append([]Item(nil), stored.Items...)
	for _, f := range []struct {
		name string
		sent *string
		has  string
	}{
		{"finDocClassCodeName", in.Class, string(stored.Class)}, {"dataSourceCodeName", in.DataSource, string(stored.DataSource)},
		{"domainCodeName", in.Domain, string(stored.Domain)}, {"dtsSelectorCodeName", in.Selector, stored.Selector},
	} {
		if f.sent != nil && *f.sent != f.has {
			v.add(f.name, "set on create only: the invoice has %q", f.has)
		}
	}
	if in.Payment != nil {
		v.add("payment", "recorded on create only")
	}
	if in.CustID != nil && *in.CustID != stored.Customer.ID {
		v.add("custID", "the business partner of an invoice does not change")
	}
	if in.Currency != nil && *in.Currency != stored.Currency.Numeric && len(stored.Items) > 0 {
		v.add("currency", "changes only while the invoice has no items")
	}
	applyCommon(&inv, in, &v)
	if in.Status != nil {
		switch s := Status(*in.Status); {
		case s == stored.Status:
		case stored.Status == Draft && s == Approved:
			inv.Status, inv.StatusDt = Approved, now
		default:
			v.add("status", "an update does not move an invoice from %s to %q", stored.Status, *in.Status)
		}
	}
	if in.VatPercent != nil {
		inv.VatPercent = *in.VatPercent
	}
	if in.VatInPrice != nil && Entry(*in.VatInPrice) != stored.VatInPrice && in.Items == nil {
		for i := range inv.Items {
			inv.Items[i].Price = convertPrice(inv.Items[i].Price, inv.Items[i].VatPercent, Entry(*in.VatInPrice))
		}
	}
	if in.Items != nil {
		inv.Items = items(in.Items, inv.VatPercent)
	}
	if d, err := ResolveDates(in.dates(Dates{Inv: stored.InvDate, Delivery: stored.DeliveryDate}), today, false); err != nil {
		v.merge(err)
	} else {
		inv.InvDate, inv.DeliveryDate, inv.InvDueDate = d.Inv, d.Delivery, d.Due
	}
	statementAmounts(stored.Class, in, &v)
	if v.e == nil && stored.Class != NettingInvoice && (len(inv.Items) > 0 || in.AmountNoVat != nil || in.AmountVat != nil || in.Total != nil || in.Items != nil) {
		v.merge(inv.computeAmounts(in))
	}
	if err := v.err(); err != nil {
		return stored, err
	}
	datedDispute(&inv, stored.DisputeStatus, now)
	inv.settlePayment()
	return inv, nil
}

// statementAmounts refuses items and amounts for a netting statement,
// whose amounts are its members' sum (NettingAmounts).
func statementAmounts(c Class, in Input, v *invalid) {
	if c != NettingInvoice {
		return
	}
	for _, f := range []struct {
		name string
		sent bool
	}{{"items", in.Items != nil}, {"amountNoVat", in.AmountNoVat != nil}, {"amountVat", in.AmountVat != nil}, {"total", in.Total != nil}} {
		if f.sent {
			v.add(f.name, "a netting statement's amounts are the sum of its members'")
		}
	}
}

// convertPrice turns a net price into a gross one (to Gross) or back.
func convertPrice(price, vatPercent decimal.Decimal, to Entry) decimal.Decimal {
	f := decimal.NewFromInt(1).Add(vatPercent.Shift(-2))
	if to == Gross {
		return price.Mul(f).Round(priceDecimals)
	}
	return price.DivRound(f, priceDecimals)
}

// editable refuses to change a collection member or a netting member, or
// an invoice past draft (an approved supplier invoice excepted).
func editable(inv Invoice, verb string) error {
	switch {
	case inv.Status == Deleted:
		return msgkit.Errorf(msgkit.NotFound, CodeInvoiceNotFound, "invoice %d not found", inv.ID)
	case inv.CollectionMember():
		return msgkit.Errorf(msgkit.Conflict, CodeNotEditable, "invoice %d is a collection member and cannot be %s", inv.ID, verb)
	case inv.NettingInvoiceID != 0: // its amounts are in the statement's
		return msgkit.Errorf(msgkit.Conflict, CodeNotEditable,
			"invoice %d is a member of netting statement %d and cannot be %s: it leaves the statement first", inv.ID, inv.NettingInvoiceID, verb)
	case verb == "updated" && inv.Status != Draft && !(inv.Status == Approved && inv.Class == SupplierInvoice):
		return msgkit.Errorf(msgkit.Conflict, CodeNotEditable,
			"invoice %d is %s: only drafts and approved supplier invoices can be updated", inv.ID, inv.Status)
	}
	return nil
}

// Delete deletes an invoice logically: its status becomes deleted, and
// it leaves lists and searches. Collection and netting members cannot be
// deleted; a deleted statement or lead takes no member any more, and its
// members may leave it.
func Delete(stored Invoice, now time.Time) (Invoice, error) {
	if err := editable(stored, "deleted"); err != nil {
		return stored, err
	}
	stored.Status, stored.StatusDt = Deleted, now
	return stored, nil
}

// syncStatuses are the sync statuses one invoice may be given; bulkSync
// those a change of many may set.
var (
	syncStatuses = []SyncStatus{SyncNone, SyncWaiting, SyncSyncing, SyncDone, SyncError, SyncMisc, SyncInvalid, SyncExported}
	bulkSync     = []SyncStatus{SyncNone, SyncWaiting, SyncSyncing, SyncError, SyncMisc, SyncExported}
)

// SyncChange is a change of sync status: the status, the report of the
// external system, and the document's sync data, kept as sent.
type SyncChange struct {
	Status       string
	ReportData   json.RawMessage
	DocumentSync json.RawMessage
}

// SetSyncStatus changes an invoice's sync status; many says the change
// is one of a change of many invoices, which may not set done or
// invalid. A value that is no sync status is UNKNOWN_STATUS; a sync
// status that this change may not set is INVALID_VALUE. documentSync,
// when sent, replaces the stored one.
func SetSyncStatus(stored Invoice, c SyncChange, many bool, now time.Time) (Invoice, error) {
	if stored.Status == Deleted {
		return stored, msgkit.Errorf(msgkit.NotFound, CodeInvoiceNotFound, "invoice %d not found", stored.ID)
	}
	s := SyncStatus(c.Status)
	allowed := syncStatuses
	if many {
		allowed = bulkSync
	}
	switch {
	case !slices.Contains(syncStatuses, s):
		return stored, msgkit.Invalidf(CodeUnknownStatus, "status", "unknown sync status %q", c.Status)
	case !slices.Contains(allowed, s):
		return stored, msgkit.Invalidf(CodeInvalidValue, "status", "a change of many invoices sets none, waiting, syncing, error, misc or exported, not %q", c.Status)
	}
	stored.SyncStatus, stored.SyncStatusDt = s, now
	if len(c.DocumentSync) > 0 {
		stored.DocumentSync = c.DocumentSync
	}
	return stored, nil
}

// SetDeliveryStatus changes an invoice's docs delivery status; a value
// outside none, waiting, sending, sent, error and misc is INVALID_VALUE.
func SetDeliveryStatus(stored Invoice, status string, now time.Time) (Invoice, error) {
	if stored.Status == Deleted {
		return stored, msgkit.Errorf(msgkit.NotFound, CodeInvoiceNotFound, "invoice %d not found", stored.ID)
	}
	s := DeliveryStatus(status)
	if !knownDelivery(s) {
		return stored, msgkit.Invalidf(CodeInvalidValue, "status", "docs delivery status is none, waiting, sending, sent, error or misc, not %q", status)
	}
	stored.DocsDeliveryStatus, stored.DeliveryDt = s, now
	return stored, nil
}
