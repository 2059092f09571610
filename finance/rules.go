package finance

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// Input is the body of a create or update request: nil is a field the
// request leaves out.
type Input struct {
	CustID     *int64
	InstanceID *int64
	Customer   PartnerInput
	InvType    *int64
	TemplateID *int64
	Lang       *string

	InvDate        *msgkit.Date
	InvoicingDate  *msgkit.Date
	DeliveryDate   *msgkit.Date
	InvDueDate     *msgkit.Date
	InvDueDateDays *int
	InvPeriodStart *msgkit.Date
	InvPeriodEnd   *msgkit.Date

	InvNumberFix      *string
	SupplierInvNumber *string
	InvPeriod         *string
	OwnerVatNumber    *string

	Currency    *int
	VatInPrice  *int
	VatInTotal  *int
	VatPercent  *decimal.Decimal // update only
	AmountNoVat *decimal.Decimal
	AmountVat   *decimal.Decimal
	Total       *decimal.Decimal

	Status             *string
	DocsDeliveryStatus *string
	Comment            *string
	ReminderStatus     *string

	// OwnerID is the partner that issues the document (a stored
	// partner; 0: the operator itself).
	OwnerID *int64
	// Workflow values (see Invoice): each one of its list, or "" to
	// clear it (ProcessingStatus goes back to none).
	ProcessingStatus    *string
	DisputeStatus       *string
	InvoicingDatePolicy *string
	SyncMode            *string

	// Classification: create only.
	DataSource *string // dataSourceCodeName
	Domain     *string // domainCodeName
	Selector   *string // dtsSelectorCodeName
	Class      *string // finDocClassCodeName

	Items        []ItemInput
	Payment      *Payment // create only
	SourceRecord *SourceRecord
}

// PartnerInput overrides stored partner data field by field.
type PartnerInput struct {
	Name, Attn, Address, Address2, Post, City, POBox, VatNumber *string
	Country                                                     *int
}

// ItemInput is an item of a request.
type ItemInput struct {
	Name                 string
	ItemType             int
	Quantity             decimal.Decimal
	QuantityMore         decimal.Decimal
	QuantityMode         int
	MeasureUnit          int
	Price                decimal.Decimal
	VatPercent           *decimal.Decimal // the invoice's vatPercent when absent
	Status               string
	DataSourceID         int64
	DataSourceForeignKey string
	DtsSelectorID        int64
}

// invalid collects the problems of one request.
type invalid struct{ e *msgkit.Error }

func (v *invalid) add(field, format string, args ...any) {
	if v.e == nil {
		v.e = &msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidInvoice}
	}
	f := msgkit.Invalidf(CodeInvalidInvoice, field, format, args...)
	if v.e.Message == "" {
		v.e.Message = f.Message
	}
	v.e.Fields = append(v.e.Fields, f.Fields...)
}

func (v *invalid) merge(err error) {
	if err == nil {
		return
	}
	e, ok := err.(*msgkit.Error)
	if !ok || len(e.Fields) == 0 {
		v.add("", "%v", err)
		return
	}
	for _, f := range e.Fields {
		v.add(f.Name, "%s", f.Message)
	}
}

// Text limits of invoices: names, numbers and codes at most MaxTextLen
// characters, comments at most MaxCommentLen; every text valid UTF-8
// without the NUL character, which neither store could hold alike.
const (
	MaxTextLen    = 255
	MaxCommentLen = 1000
)

// checkText names every text of in over its limit or not storable.
func checkText(in *Input, v *invalid) {
	check := func(field string, s *string, limit int) {
		switch {
		case s == nil:
		case !utf8.ValidString(*s) || strings.ContainsRune(*s, 0):
			v.add(field, "%s must be valid UTF-8 without the NUL character", field)
		case utf8.RuneCountInString(*s) > limit:
			v.add(field, "%s is longer than %d characters", field, limit)
		}
	}
	for _, f := range []struct {
		name string
		s    *string
	}{
		{"lang", in.Lang}, {"invNumberFix", in.InvNumberFix}, {"supplierInvNumber", in.SupplierInvNumber},
		{"invPeriod", in.InvPeriod}, {"ownerVatNumber", in.OwnerVatNumber}, {"status", in.Status},
		{"docsDeliveryStatus", in.DocsDeliveryStatus}, {"reminderStatus", in.ReminderStatus},
		{"processingStatus", in.ProcessingStatus}, {"disputeStatus", in.DisputeStatus},
		{"invoicingDatePolicy", in.InvoicingDatePolicy}, {"syncMode", in.SyncMode},
		{"dataSourceCodeName", in.DataSource}, {"domainCodeName", in.Domain}, {"dtsSelectorCodeName", in.Selector},
		{"finDocClassCodeName", in.Class}, {"custName", in.Customer.Name}, {"custAttn", in.Customer.Attn},
		{"custAddress", in.Customer.Address}, {"custAddress2", in.Customer.Address2}, {"custPost", in.Customer.Post},
		{"custCity", in.Customer.City}, {"custPOBox", in.Customer.POBox}, {"custVatNumber", in.Customer.VatNumber},
	} {
		check(f.name, f.s, MaxTextLen)
	}
	check("comment", in.Comment, MaxCommentLen)
	for i := range in.Items {
		it := &in.Items[i]
		p := "items[" + strconv.Itoa(i) + "]."
		check(p+"name", &it.Name, MaxTextLen)
		check(p+"status", &it.Status, MaxTextLen)
		check(p+"dataSourceForeignKey", &it.DataSourceForeignKey, MaxTextLen)
	}
	if in.Payment != nil {
		check("payment.comment", &in.Payment.Comment, MaxCommentLen)
		check("payment.paymentReference", &in.Payment.PaymentReference, MaxTextLen)
	}
}

func (v *invalid) err() error {
	if v.e == nil {
		return nil
	}
	return v.e
}

// Create builds a new invoice of class from a create request, with the
// stored data of its partner (custID's) and today and now for defaults
// and timestamps. Rules (besides the dates of ResolveDates):
//   - custID is required; currency must be known;
//   - a supplier invoice (SUPPLIER_INVOICE) needs invDate, invDueDate,
//     supplierInvNumber, currency, invType, amountNoVat, amountVat and
//     total, takes invNumberFix from supplierInvNumber, and is approved
//     unless the request says draft; its amounts are checked with
//     CheckGiven;
//   - other classes need invNumberFix and start as drafts; their amounts
//     are the items' totals (Compute), or, without items, the stated
//     amounts checked as a supplier's;
//   - a netting statement (NETTING_INVOICE) has no items nor amounts of
//     its own: they are the sum of its members' (NettingAmounts), zero
//     until the first joins;
//   - status may be draft or approved on create;
//   - vatPercent, which the documents name for updates, is accepted on
//     create too: it is the rate of the items that give none (the items
//     of the documents carry no rate of their own);
//   - the data source selector PART-PAYMENT applies to POSTPAID only;
//   - a payment marks the invoice paid in full (closed) or leaves it open.
func Create(in Input, class Class, partner Partner, today msgkit.Date, now time.Time) (Invoice, error) {
	var v invalid
	if checkText(&in, &v); v.e != nil {
		return Invoice{}, v.err() // nothing else is read of a text that breaks these
	}
	inv := Invoice{Class: class, Customer: partner, Status: Draft, PaymentStatus: PaymentNone,
		SyncStatus: SyncNone, DocsDeliveryStatus: DeliveryNone, CollectionMode: "none", ProcessingStatus: ProcessingNone,
		SyncMode: SyncModeDisabled, InsertDt: now, StatusDt: now}
	if !slices.Contains(Classes(), class) {
		v.add("classCodeName", "unknown document class %q", class)
	}
	if in.Class != nil && Class(*in.Class) != class {
		v.add("finDocClassCodeName", "%q differs from classCodeName %q", *in.Class, class)
	}
	supplier := class == SupplierInvoice
	if in.CustID == nil {
		v.add("custID", "required")
	} else {
		inv.Customer.ID = *in.CustID
	}
	if supplier {
		for _, m := range []struct {
			name    string
			missing bool
		}{
			{"invDate", in.InvDate == nil}, {"invDueDate", in.InvDueDate == nil},
			{"supplierInvNumber", in.SupplierInvNumber == nil || *in.SupplierInvNumber == ""},
			{"currency", in.Currency == nil}, {"invType", in.InvType == nil},
			{"amountNoVat", in.AmountNoVat == nil}, {"amountVat", in.AmountVat == nil}, {"total", in.Total == nil},
		} {
			if m.missing {
				v.add(m.name, "required for a supplier invoice")
			}
		}
		inv.Status = Approved
	} else if in.InvNumberFix == nil || *in.InvNumberFix == "" {
		v.add("invNumberFix", "required")
	}
	if in.Currency == nil && !supplier {
		v.add("currency", "required")
	}
	applyCommon(&inv, in, &v)
	if in.VatPercent != nil {
		inv.VatPercent = *in.VatPercent // the rate of items without their own
	}
	if in.Status != nil {
		switch s := Status(*in.Status); s {
		case Draft, Approved:
			inv.Status = s
		default:
			v.add("status", "an invoice is created draft or approved, not %q", *in.Status)
		}
	}
	classify(&inv, in, &v)
	if supplier && in.SupplierInvNumber != nil {
		inv.InvNumberFix = *in.SupplierInvNumber
	}
	if !supplier || in.InvDueDate != nil { // a supplier's missing due date is reported above
		if d, err := ResolveDates(in.dates(Dates{}), today, true); err != nil {
			v.merge(err)
		} else {
			inv.InvDate, inv.DeliveryDate, inv.InvDueDate = d.Inv, d.Delivery, d.Due
		}
	}
	statementAmounts(class, in, &v)
	if v.e == nil {
		inv.Items = items(in.Items, inv.VatPercent)
		v.merge(inv.computeAmounts(in))
	}
	if p := in.Payment; p != nil && v.e == nil {
		inv.Payment = p
		if p.FullyPaid {
			inv.TotalPaid = inv.Total
		}
	}
	datedDispute(&inv, "", now)
	inv.settlePayment()
	return inv, v.err()
}

// applyCommon copies the fields a create and an update treat alike.
func applyCommon(inv *Invoice, in Input, v *invalid) {
	setInt := func(dst *int64, src *int64) {
		if src != nil {
			*dst = *src
		}
	}
	setStr := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	setDate := func(dst *msgkit.Date, src *msgkit.Date) {
		if src != nil {
			*dst = *src
		}
	}
	setInt(&inv.InstanceID, in.InstanceID)
	setInt(&inv.OwnerID, in.OwnerID)
	setInt(&inv.InvType, in.InvType)
	setInt(&inv.TemplateID, in.TemplateID)
	setStr(&inv.Lang, in.Lang)
	setStr(&inv.InvNumberFix, in.InvNumberFix)
	setStr(&inv.SupplierInvNumber, in.SupplierInvNumber)
	setStr(&inv.InvPeriod, in.InvPeriod)
	setStr(&inv.OwnerVatNumber, in.OwnerVatNumber)
	setStr(&inv.Comment, in.Comment)
	setStr(&inv.ReminderStatus, in.ReminderStatus)
	setDate(&inv.InvoicingDate, in.InvoicingDate)
	setDate(&inv.InvPeriodStart, in.InvPeriodStart)
	setDate(&inv.InvPeriodEnd, in.InvPeriodEnd)
	c := &inv.Customer
	for _, f := range []struct {
		dst *string
		src *string
	}{{&c.Name, in.Customer.Name}, {&c.Attn, in.Customer.Attn}, {&c.Address, in.Customer.Address}, {&c.Address2, in.Customer.Address2},
		{&c.Post, in.Customer.Post}, {&c.City, in.Customer.City}, {&c.POBox, in.Customer.POBox}, {&c.VatNumber, in.Customer.VatNumber}} {
		setStr(f.dst, f.src)
	}
	if in.Customer.Country != nil {
		c.Country = *in.Customer.Country
	}
	if in.Currency != nil {
		cur, ok := CurrencyByNumeric(*in.Currency)
		if !ok {
			v.add("currency", "unknown currency %d (ISO 4217 numeric code)", *in.Currency)
		}
		inv.Currency = cur
	}
	for _, f := range []struct {
		name string
		dst  *int
		src  *int
	}{{"vatInPrice", (*int)(nil), in.VatInPrice}, {"vatInTotal", &inv.VatInTotal, in.VatInTotal}} {
		if f.src == nil {
			continue
		}
		if *f.src != 0 && *f.src != 1 {
			v.add(f.name, "0 or 1, not %d", *f.src)
			continue
		}
		if f.dst != nil {
			*f.dst = *f.src
		} else {
			inv.VatInPrice = Entry(*f.src)
		}
	}
	if in.DocsDeliveryStatus != nil {
		if s := DeliveryStatus(*in.DocsDeliveryStatus); knownDelivery(s) {
			inv.DocsDeliveryStatus = s
		} else {
			v.add("docsDeliveryStatus", "unknown docs delivery status %q", *in.DocsDeliveryStatus)
		}
	}
	if in.SourceRecord != nil {
		inv.SourceRecord = in.SourceRecord
	}
	applyWorkflow(inv, in, v)
	if in.VatPercent != nil && (in.VatPercent.Sign() < 0 || in.VatPercent.GreaterThan(decimal.NewFromInt(100))) {
		v.add("vatPercent", "a rate from 0 to 100 percent, not %s", in.VatPercent)
	}
	if in.InvPeriodStart != nil && in.InvPeriodEnd != nil && in.InvPeriodEnd.Before(*in.InvPeriodStart) {
		v.add("invPeriodEnd", "the period ends %s, before it starts %s", *in.InvPeriodEnd, *in.InvPeriodStart)
	}
	for i, it := range in.Items {
		if it.Quantity.Sign() == 0 {
			v.add(itemField(i, "quantity"), "required, and not zero")
		}
		if it.VatPercent != nil && (it.VatPercent.Sign() < 0 || it.VatPercent.GreaterThan(decimal.NewFromInt(100))) {
			v.add(itemField(i, "vatPercent"), "a rate from 0 to 100 percent, not %s", it.VatPercent)
		}
	}
}

func itemField(i int, name string) string {
	return "items[" + strconv.Itoa(i) + "]." + name
}

func knownDelivery(s DeliveryStatus) bool {
	switch s {
	case DeliveryNone, DeliveryWaiting, DeliverySending, DeliverySent, DeliveryError, DeliveryMisc:
		return true
	}
	return false
}

// classify sets the data source, domain and selector of a create.
func classify(inv *Invoice, in Input, v *invalid) {
	if in.DataSource != nil {
		switch ds := DataSource(*in.DataSource); {
		case slices.Contains(DataSources(), ds):
			inv.DataSource = ds
		default:
			v.add("dataSourceCodeName", "unknown data source %q", *in.DataSource)
		}
	}
	if in.Domain != nil {
		switch d := Domain(*in.Domain); {
		case slices.Contains(Domains(), d):
			inv.Domain = d
		default:
			v.add("domainCodeName", "unknown domain %q", *in.Domain)
		}
	}
	if in.Selector != nil && *in.Selector != "" {
		switch {
		case *in.Selector != PartPayment:
			v.add("dtsSelectorCodeName", "unknown selector %q", *in.Selector)
		case inv.DataSource != Postpaid:
			v.add("dtsSelectorCodeName", "%s applies to POSTPAID documents only", PartPayment)
		default:
			inv.Selector = PartPayment
		}
	}
}

// items turns request items into stored ones, rate given or defaulted.
func items(in []ItemInput, defaultRate decimal.Decimal) []Item {
	out := make([]Item, 0, len(in))
	for _, it := range in {
		rate := defaultRate
		if it.VatPercent != nil {
			rate = *it.VatPercent
		}
		out = append(out, Item{Name: it.Name, ItemType: it.ItemType, Quantity: it.Quantity, QuantityMore: it.QuantityMore,
			QuantityMode: it.QuantityMode, MeasureUnit: it.MeasureUnit, Price: it.Price, VatPercent: rate, Status: it.Status,
			DataSourceID: it.DataSourceID, DataSourceForeignKey: it.DataSourceForeignKey, DtsSelectorID: it.DtsSelectorID})
	}
	return out
}

// computeAmounts sets the amounts: from the items when there are any
// (and a supplier's stated amounts must agree with them), else as stated.
func (inv *Invoice) computeAmounts(in Input) error {
	lines := make([]Line, len(inv.Items))
	for i, it := range inv.Items {
		lines[i] = Line{Quantity: it.Quantity, Price: it.Price, VatPercent: it.VatPercent}
	}
	if in.AmountNoVat != nil || in.AmountVat != nil || in.Total != nil {
		g := Given{}
		for _, p := range []struct {
			dst *decimal.Decimal
			src *decimal.Decimal
		}{{&g.AmountNoVat, in.AmountNoVat}, {&g.AmountVat, in.AmountVat}, {&g.Total, in.Total}} {
			if p.src != nil {
				*p.dst = *p.src
			}
		}
		if err := CheckGiven(g, inv.Currency, lines, inv.VatInPrice); err != nil {
			return err
		}
		if len(lines) == 0 {
			inv.AmountNoVat, inv.AmountVat, inv.Total = g.AmountNoVat, g.AmountVat, g.Total
			inv.Vat, inv.Rounding = g.AmountVat.Sub(g.AmountNoVat), g.Total.Sub(g.AmountVat)
			return nil
		}
	}
	t := Compute(lines, inv.VatInPrice, inv.Currency, inv.CashRound)
	inv.AmountNoVat, inv.Vat, inv.AmountVat, inv.Rounding, inv.Total = t.AmountNoVat, t.Vat, t.AmountVat, t.Rounding, t.Total
	for i := range inv.Items {
		l := lines[i]
		amount := LineAmount(l, inv.Currency)
		rate := l.VatPercent.Shift(-2)
		if inv.VatInPrice == Gross {
			inv.Items[i].TotalVat = amount
			inv.Items[i].TotalNoVat = amount.DivRound(decimal.NewFromInt(1).Add(rate), inv.Currency.Decimals)
		} else {
			inv.Items[i].TotalNoVat = amount
			inv.Items[i].TotalVat = inv.Currency.Round(amount.Mul(decimal.NewFromInt(1).Add(rate)))
		}
	}
	return nil
}

// settlePayment derives the unpaid total and the payment status: closed
// when paid in full, open for an approved invoice with something to pay,
// none for a draft.
func (inv *Invoice) settlePayment() {
	inv.TotalUnpaid = inv.Total.Sub(inv.TotalPaid)
	switch {
	case inv.TotalPaid.Sign() != 0 && inv.TotalUnpaid.Sign() == 0:
		inv.PaymentStatus = PaymentClosed
	case inv.Status == Approved:
		inv.PaymentStatus = PaymentOpen
	default:
		inv.PaymentStatus = PaymentNone
	}
}

// dates are base with the dates the request gives.
func (in Input) dates(base Dates) Dates {
	if in.InvDate != nil {
		base.Inv = *in.InvDate
	}
	if in.DeliveryDate != nil {
		base.Delivery = *in.DeliveryDate
	}
	if in.InvDueDate != nil {
		base.Due = *in.InvDueDate
	}
	base.DueDays = in.InvDueDateDays
	return base
}
