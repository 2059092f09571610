package finance

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

var (
	now      = time.Date(2025, 1, 31, 9, 0, 0, 0, time.UTC)
	todayFin = date("2025-01-31")
	acme     = Partner{ID: 7, Name: "ACME", City: "Bern"}
)

func ptr[T any](v T) *T { return &v }

func dp(s string) *decimal.Decimal { return ptr(d(s)) }

func dateP(s string) *msgkit.Date { return ptr(date(s)) }

// supplierInput is the minimal supplier invoice body.
func supplierInput() Input {
	return Input{CustID: ptr(int64(7)), Currency: ptr(978), InvType: ptr(int64(3)), InvDate: dateP("2025-01-20"),
		InvDueDate: dateP("2025-02-20"), SupplierInvNumber: ptr("S-100"),
		AmountNoVat: dp("100.00"), AmountVat: dp("120.00"), Total: dp("120.00")}
}

// fields names the fields of an Invalid error, or its code for another.
func fields(err error) string {
	var e *msgkit.Error
	if !errors.As(err, &e) {
		return "not a msgkit error: " + err.Error()
	}
	if e.Kind != msgkit.Invalid {
		return e.Kind.String() + " " + e.Code
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	return strings.Join(names, ",")
}

func TestCreateSupplierInvoice(t *testing.T) {
	inv, err := Create(supplierInput(), SupplierInvoice, acme, todayFin, now)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != Approved || inv.InvNumberFix != "S-100" || inv.Customer.Name != "ACME" || inv.Currency.Code != "EUR" ||
		!inv.Vat.Equal(d("20.00")) || !inv.TotalUnpaid.Equal(d("120.00")) || inv.PaymentStatus != PaymentOpen ||
		inv.InvDueDate != date("2025-02-20") || inv.DeliveryDate != todayFin {
		t.Errorf("created %+v", inv)
	}
	// Every mandatory field, missing.
	_, err = Create(Input{}, SupplierInvoice, acme, todayFin, now)
	if got, want := fields(err), "custID,invDate,invDueDate,supplierInvNumber,currency,invType,amountNoVat,amountVat,total"; got != want {
		t.Errorf("empty supplier invoice: %s, want %s", got, want)
	}
	in := supplierInput()
	in.Total = dp("121.00")
	if got := fields(Create2(in, SupplierInvoice)); got != "total" {
		t.Errorf("inconsistent total: %s", got)
	}
	in = supplierInput()
	in.InvDueDate = dateP("2025-01-31") // the delivery date (today)
	if got := fields(Create2(in, SupplierInvoice)); got != "invDueDate" {
		t.Errorf("due on delivery: %s", got)
	}
	in = supplierInput()
	in.Status = ptr("draft")
	if inv, _ := Create(in, SupplierInvoice, acme, todayFin, now); inv.Status != Draft || inv.PaymentStatus != PaymentNone {
		t.Errorf("a supplier draft: %s, %s", inv.Status, inv.PaymentStatus)
	}
	in.Status = ptr("archived")
	if got := fields(Create2(in, SupplierInvoice)); got != "status" {
		t.Errorf("created archived: %s", got)
	}
	in = supplierInput()
	in.Customer.Name = ptr("ACME Europe")
	in.Payment = &Payment{FullyPaid: true, PaymentDate: date("2025-01-30")}
	inv, _ = Create(in, SupplierInvoice, acme, todayFin, now)
	if inv.Customer.Name != "ACME Europe" || inv.Customer.City != "Bern" || inv.PaymentStatus != PaymentClosed || !inv.TotalUnpaid.IsZero() {
		t.Errorf("override and payment: %+v", inv)
	}
}

// Create2 is Create's error alone.
func Create2(in Input, c Class) error {
	_, err := Create(in, c, acme, todayFin, now)
	return err
}

func TestCreateOtherClasses(t *testing.T) {
	// The minimal netting invoice body.
	in := Input{CustID: ptr(int64(7)), InvNumberFix: ptr("N-1"), Currency: ptr(756), InvDueDateDays: ptr(30), InvType: ptr(int64(4)), TemplateID: ptr(int64(2))}
	inv, err := Create(in, NettingInvoice, acme, todayFin, now)
	if err != nil || inv.Status != Draft || inv.InvDueDate != date("2025-03-02") || inv.InvDate != todayFin || !inv.Total.IsZero() {
		t.Fatalf("netting invoice: %+v, %v", inv, err)
	}
	// Amounts from the items: VAT once per rate.
	in = Input{CustID: ptr(int64(7)), InvNumberFix: ptr("C-1"), Currency: ptr(978), InvDueDateDays: ptr(14), VatPercent: dp("10")}
	for _, p := range []string{"1.99", "0.38", "5.68", "0.45", "1.05", "2.87"} {
		in.Items = append(in.Items, ItemInput{Name: "sms", Quantity: d("1"), Price: d(p)})
	}
	inv, err = Create(in, CustomerInvoice, acme, todayFin, now)
	if err != nil || !inv.AmountNoVat.Equal(d("12.42")) || !inv.Vat.Equal(d("1.24")) || !inv.Total.Equal(d("13.66")) {
		t.Fatalf("customer invoice: %s + %s = %s, %v", inv.AmountNoVat, inv.Vat, inv.Total, err)
	}
	for _, tc := range []struct {
		name string
		in   Input
		c    Class
		want string
	}{
		{"no invNumberFix", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvDueDateDays: ptr(1)}, CustomerInvoice, "invNumberFix"},
		{"no due date", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x")}, CustomerInvoice, "invDueDate,invDueDateDays"},
		{"unknown currency", Input{CustID: ptr(int64(7)), Currency: ptr(999), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1)}, CustomerInvoice, "currency"},
		{"vatInPrice 2", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1), VatInPrice: ptr(2)}, CustomerInvoice, "vatInPrice"},
		{"part payment on prepaid", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1),
			DataSource: ptr("PREPAID"), Selector: ptr("PART-PAYMENT")}, CustomerInvoice, "dtsSelectorCodeName"},
		{"unknown domain", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1), Domain: ptr("SMS")}, CustomerInvoice, "domainCodeName"},
		{"unknown class", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1)}, "RECEIPT", "classCodeName"},
		{"zero quantity", Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1),
			Items: []ItemInput{{Price: d("1")}}}, CustomerInvoice, "items[0].quantity"},
	} {
		if got := fields(Create2(tc.in, tc.c)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	in = Input{CustID: ptr(int64(7)), Currency: ptr(978), InvNumberFix: ptr("x"), InvDueDateDays: ptr(1), DataSource: ptr("POSTPAID"), Selector: ptr("PART-PAYMENT"), Domain: ptr("BULK")}
	if inv, err := Create(in, CustomerInvoice, acme, todayFin, now); err != nil || inv.Selector != PartPayment || inv.Domain != Bulk {
		t.Errorf("postpaid part payment: %+v, %v", inv, err)
	}
}

func TestUpdate(t *testing.T) {
	base := func() Invoice {
		in := Input{CustID: ptr(int64(7)), InvNumberFix: ptr("C-1"), Currency: ptr(978), InvDueDateDays: ptr(14), VatPercent: dp("20"),
			Items: []ItemInput{{Quantity: d("1"), Price: d("100.00")}}}
		inv, err := Create(in, CustomerInvoice, acme, todayFin, now)
		if err != nil {
			t.Fatal(err)
		}
		inv.ID = 1
		return inv
	}
	later := now.Add(time.Hour)
	// No due date nor days: due and delivery become invDate.
	inv, err := Update(base(), Input{InvDate: dateP("2025-02-03"), Comment: ptr("checked")}, todayFin, later)
	if err != nil || inv.InvDueDate != date("2025-02-03") || inv.DeliveryDate != date("2025-02-03") || inv.Comment != "checked" {
		t.Fatalf("update: %+v, %v", inv, err)
	}
	// invDate with invDueDateDays.
	inv, err = Update(base(), Input{InvDate: dateP("2025-02-03"), InvDueDateDays: ptr(10)}, todayFin, later)
	if err != nil || inv.InvDueDate != date("2025-02-13") {
		t.Fatalf("invDate and days: %v, %v", inv.InvDueDate, err)
	}
	// vatInPrice: the prices become gross and bill the same.
	inv, err = Update(base(), Input{VatInPrice: ptr(1)}, todayFin, later)
	if err != nil || !inv.Items[0].Price.Equal(d("120")) || !inv.AmountNoVat.Equal(d("100.00")) || !inv.Total.Equal(d("120.00")) {
		t.Fatalf("vatInPrice: price %s, %s / %s, %v", inv.Items[0].Price, inv.AmountNoVat, inv.Total, err)
	}
	// Items replaced; the new vatPercent applies to items without a rate.
	inv, err = Update(base(), Input{VatPercent: dp("10"), Items: []ItemInput{{Quantity: d("2"), Price: d("5.00")}, {Quantity: d("1"), Price: d("1.00"), VatPercent: dp("20")}}}, todayFin, later)
	if err != nil || !inv.AmountNoVat.Equal(d("11.00")) || !inv.Vat.Equal(d("1.20")) {
		t.Fatalf("items: %s + %s, %v", inv.AmountNoVat, inv.Vat, err)
	}
	// Draft to approved.
	inv, err = Update(base(), Input{Status: ptr("approved")}, todayFin, later)
	if err != nil || inv.Status != Approved || inv.PaymentStatus != PaymentOpen || !inv.StatusDt.Equal(later) {
		t.Fatalf("approve: %+v, %v", inv, err)
	}
	approved := inv
	for _, tc := range []struct {
		name   string
		stored Invoice
		in     Input
		want   string
	}{
		{"approved customer invoice", approved, Input{Comment: ptr("x")}, "conflict invoice_not_editable"},
		{"currency with items", base(), Input{Currency: ptr(756)}, "currency"},
		{"class", base(), Input{Class: ptr("SUPPLIER_INVOICE")}, "finDocClassCodeName"},
		{"payment", base(), Input{Payment: &Payment{FullyPaid: true}}, "payment"},
		{"back to draft", func() Invoice { i := base(); i.Class, i.Status = SupplierInvoice, Approved; return i }(), Input{Status: ptr("draft")}, "status"},
		{"collection member", func() Invoice { i := base(); i.CollectionMode = "member"; return i }(), Input{}, "conflict invoice_not_editable"},
		{"deleted", func() Invoice { i := base(); i.Status = Deleted; return i }(), Input{}, "not found INVOICE_NOTFOUND"},
		{"due not after delivery", base(), Input{InvDueDate: dateP("2025-01-01")}, "invDueDate"},
	} {
		_, err := Update(tc.stored, tc.in, todayFin, later)
		if got := fields(err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// An approved supplier invoice may be updated; its currency too, without items.
	sup, _ := Create(supplierInput(), SupplierInvoice, acme, todayFin, now)
	if inv, err := Update(sup, Input{Currency: ptr(756), InvDueDate: dateP("2025-03-01")}, todayFin, later); err != nil || inv.Currency.Code != "CHF" {
		t.Errorf("supplier update: %v, %v", inv.Currency, err)
	}
}

func TestDeleteAndStatusChanges(t *testing.T) {
	inv, _ := Create(supplierInput(), SupplierInvoice, acme, todayFin, now)
	del, err := Delete(inv, now)
	if err != nil || del.Status != Deleted {
		t.Fatalf("delete: %v, %v", del.Status, err)
	}
	if _, err := Delete(del, now); fields(err) != "not found INVOICE_NOTFOUND" {
		t.Errorf("delete twice: %v", err)
	}
	member := inv
	member.CollectionMode = "member"
	if _, err := Delete(member, now); fields(err) != "conflict invoice_not_editable" {
		t.Errorf("delete a member: %v", err)
	}
	sync := json.RawMessage(`{"externalId":"X-1"}`)
	got, err := SetSyncStatus(inv, SyncChange{Status: "done", DocumentSync: sync}, false, now)
	if err != nil || got.SyncStatus != SyncDone || string(got.DocumentSync) != string(sync) {
		t.Errorf("sync done: %v, %v", got.SyncStatus, err)
	}
	for _, tc := range []struct {
		status string
		many   bool
		code   string
	}{{"finished", false, CodeUnknownStatus}, {"done", true, CodeInvalidValue}, {"invalid", true, CodeInvalidValue}, {"exported", true, ""}} {
		_, err := SetSyncStatus(inv, SyncChange{Status: tc.status}, tc.many, now)
		if msgkit.CodeOf(err) != tc.code {
			t.Errorf("sync %s (many %v): %v, want code %q", tc.status, tc.many, err, tc.code)
		}
	}
	if _, err := SetSyncStatus(del, SyncChange{Status: "done"}, false, now); msgkit.CodeOf(err) != CodeInvoiceNotFound {
		t.Errorf("sync of a deleted invoice: %v", err)
	}
	if got, err := SetDeliveryStatus(inv, "sent", now); err != nil || got.DocsDeliveryStatus != DeliverySent {
		t.Errorf("delivery sent: %v", err)
	}
	if _, err := SetDeliveryStatus(inv, "delivered", now); msgkit.CodeOf(err) != CodeInvalidValue {
		t.Errorf("delivery delivered: %v", err)
	}
}

// Every text an invoice keeps has a maximum, and none holds the NUL
// character or invalid UTF-8, on create and update alike, so both stores
// answer every input the same; a refused text is named, never quoted.
func TestTextLimits(t *testing.T) {
	long, nul := strings.Repeat("x", MaxTextLen+1), "C-\x00"
	in := func(change func(*Input)) Input {
		in := Input{CustID: ptr(int64(7)), InvNumberFix: ptr("C-1"), Currency: ptr(978), InvDueDateDays: ptr(14),
			Items: []ItemInput{{Name: "sms", Quantity: d("1"), Price: d("1")}}}
		change(&in)
		return in
	}
	for _, tc := range []struct {
		name   string
		change func(*Input)
		want   string
	}{
		{"invoice number at the limit", func(in *Input) { in.InvNumberFix = ptr(strings.Repeat("é", MaxTextLen)) }, ""},
		{"invoice number too long", func(in *Input) { in.InvNumberFix = &long }, "invNumberFix"},
		{"NUL in the invoice number", func(in *Input) { in.InvNumberFix = &nul }, "invNumberFix"},
		{"invalid UTF-8", func(in *Input) { in.Lang = ptr("\xff") }, "lang"},
		{"item name too long", func(in *Input) { in.Items[0].Name = long }, "items[0].name"},
		{"a long code", func(in *Input) { in.Domain = &long }, "domainCodeName"},
		{"a partner's name", func(in *Input) { in.Customer.Name = &long }, "custName"},
		{"comment at its limit", func(in *Input) { in.Comment = ptr(strings.Repeat("c", MaxCommentLen)) }, ""},
		{"comment too long", func(in *Input) { in.Comment = ptr(strings.Repeat("c", MaxCommentLen+1)) }, "comment"},
	} {
		_, err := Create(in(tc.change), CustomerInvoice, acme, todayFin, now)
		if got := ""; err != nil {
			got = fields(err)
			if got != tc.want {
				t.Errorf("create, %s: %s, want %s", tc.name, got, tc.want)
			}
			if strings.Contains(err.Error(), strings.Repeat("x", 40)) || strings.Contains(err.Error(), "\x00") {
				t.Errorf("create, %s: the error quotes the text: %.100s", tc.name, err)
			}
		} else if tc.want != "" {
			t.Errorf("create, %s: accepted, want %s refused", tc.name, tc.want)
		}
	}
	stored, err := Create(in(func(*Input) {}), CustomerInvoice, acme, todayFin, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Update(stored, Input{InvNumberFix: &long}, todayFin, now); fields(err) != "invNumberFix" {
		t.Errorf("update with a long invoice number: %v", err)
	}
	if _, err := Update(stored, Input{Comment: &nul}, todayFin, now); fields(err) != "comment" {
		t.Errorf("update with NUL in the comment: %v", err)
	}
}
