package finance

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

// sameDoc compares documents: decimals by value and scale, times as
// instants.
var sameDoc = cmp.Options{
	cmp.Comparer(func(a, b decimal.Decimal) bool { return a.Equal(b) && a.Exponent() == b.Exponent() }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) }),
}

func TestRecordKindOf(t *testing.T) {
	want := map[DataSource][3]RecordKind{ // selector "", PART-PAYMENT, another
		Prepaid:                 {CreditRecord, CreditRecord, CreditRecord},
		Postpaid:                {BillingRecord, CreditRecord, NoRecord},
		FinanceSource:           {NoRecord, NoRecord, NoRecord},
		SupplierInvoiceSource:   {NoRecord, NoRecord, NoRecord},
		PostpaidSupplierInvoice: {NoRecord, NoRecord, NoRecord},
		PostpaidControl:         {BillingRecord, BillingRecord, BillingRecord},
		"":                      {NoRecord, NoRecord, NoRecord},
		"OTHER":                 {NoRecord, NoRecord, NoRecord},
	}
	for ds, kinds := range want {
		for i, sel := range []string{"", PartPayment, "other"} {
			if got := RecordKindOf(ds, sel); got != kinds[i] {
				t.Errorf("RecordKindOf(%q, %q) = %d, want %d", ds, sel, got, kinds[i])
			}
		}
	}
}

// exportInvoice is an invoice with every field the export reads set.
func exportInvoice(t *testing.T) Invoice {
	return Invoice{
		ID: 42, InstanceID: 1, OwnerID: 9, UID: "uid-42",
		Class: CustomerInvoice, DataSource: Postpaid, Domain: Bulk,
		Customer: Partner{ID: 7, Name: "ACME", ShortName: "acme", Attn: "Ann", Address: "Main 1", Address2: "c/o",
			Post: "3000", City: "Bern", POBox: "12", VatNumber: "CHE-1", Country: 756, Type: "customer"},
		InvType: 101, Lang: "de", InvNumberFix: "INV-2026/000123",
		InvDate: date("2026-01-31"), DeliveryDate: date("2026-01-30"), InvDueDate: date("2026-03-02"),
		InvPeriodStart: date("2026-01-01"), InvPeriodEnd: date("2026-01-31"),
		Currency: cur(t, "CHF"), VatPercent: d("8.10"),
		Amounts: Amounts{AmountNoVat: d("100.00"), AmountVat: d("108.10"), Vat: d("8.10"), Rounding: d("0.00"),
			Total: d("108.10"), TotalPaid: d("8.10"), TotalUnpaid: d("100.00")},
		Status: Approved, PaymentStatus: PaymentOpen, SyncStatus: SyncDone, DocsDeliveryStatus: DeliverySent,
		Comment: "note", DocumentSync: json.RawMessage(`{"ext":1}`),
		Items: []Item{
			{Name: "sms", Quantity: d("1000"), MeasureUnit: 3, Price: d("0.1000"), DataSourceForeignKey: "55",
				TotalNoVat: d("100.00"), TotalVat: d("108.10")},
			{Name: "fee", Quantity: d("1"), Price: d("0"), DataSourceID: 3, DataSourceForeignKey: "x"},
		},
		Payment:      &Payment{PaymentDate: date("2026-02-01")},
		SourceRecord: &SourceRecord{BillingRecordID: 10, CreditRecordID: 20},
		InsertDt:     time.Date(2026, 1, 31, 8, 0, 0, 0, time.UTC), StatusDt: time.Date(2026, 1, 31, 9, 0, 0, 0, time.UTC),
		SyncStatusDt: time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC), DeliveryDt: time.Date(2026, 2, 2, 9, 0, 0, 0, time.UTC),
	}
}

func exportAccount(t *testing.T) BillingAccount {
	return BillingAccount{ID: 500, InstanceID: 1, BizPartnerID: 7, Currency: cur(t, "CHF"), BillingType: "POSTPAID", Name: "main",
		CustomAttributes: []CustomAttribute{{CodeName: "cc", Value: json.RawMessage(`"A-1"`)}},
		SMSConnections:   []Connection{{ID: 1, InstanceID: 2, Name: "smpp-1", AuthName: "acme1", Protocol: "SMPP"}},
		MNPConnections:   []Connection{{ID: 3, InstanceID: 4, Name: "mnp-1", AuthName: "acme-mnp", Protocol: "HTTP"}}}
}

// TestDocumentOf checks every field of a document against the invoice
// and the operator data it is made of.
func TestDocumentOf(t *testing.T) {
	inv := exportInvoice(t)
	acct := exportAccount(t)
	owner := Partner{ID: 9, Name: "Operator AG", ShortName: "op"}
	traffic := []TrafficReport{{BizPartnerID: 7, MCC: "228", MNC: "01", SMSCount: 10, Currency: cur(t, "CHF"), Price: d("0.05"), TotalAmount: d("0.50")}}
	data := DocumentData{
		Owner:    &owner,
		Partner:  PartnerExport{PartnerID: 7, ExternalRefID: "EXT-7", CustomAttributes: []CustomAttribute{{CodeName: "seg", Value: json.RawMessage(`{"a":1}`)}}},
		Type:     &DocumentType{ID: 101, Name: "Invoice BULK", SelfBilling: true},
		Domestic: &DomesticRate{Currency: cur(t, "EUR"), Rate: d("1.0650")},
		Accounts: map[SourceRef]BillingAccount{{BillingRecord, 10}: acct, {BillingRecord, 55}: acct},
		Traffic:  traffic,
	}
	num := int64(123)
	docAcct := acct
	docAcct.SMSConnections, docAcct.MNPConnections = nil, nil
	itemAcct := acct
	itemAcct.MNPConnections = nil
	want := Document{
		ID: 42, UUID: "uid-42", InstanceID: 1, OwnerID: 9, OwnerBpName: "Operator AG", OwnerBpBriefName: "op",
		BizPartnerID: 7, BizPartnerCountry: 756, BizPartnerExternalRefID: "EXT-7",
		BizPartner: BizPartner{Name: "ACME", BriefName: "acme", PartnerType: "customer", Attn: "Ann", Address: "Main 1", Post: "3000",
			City: "Bern", VatNumber: "CHE-1", CustomAttributes: data.Partner.CustomAttributes},
		Number: "INV-2026/000123", NumberMask: "INV-2026/######", NumberNum: &num,
		Currency: cur(t, "CHF"), DomesticCurrency: cur(t, "EUR"),
		Domestic: &Domestic{Rate: d("1.0650"), AmountNoVat: d("106.50"), AmountVat: d("115.13"), Total: d("115.13"), Rounding: d("0.00")},
		Lang:     "de", DocumentType: 101, DocumentTypeName: "Invoice BULK", SelfBilling: "yes",
		Domain: Bulk, DomainID: 1, Class: CustomerInvoice, ClassDomain: "customer", ClassArea: "invoice",
		DataSource: Postpaid, DataSourceID: 2, Note: "note",
		DocumentDate: date("2026-01-31"), DeliveryDate: date("2026-01-30"), DueDate: date("2026-03-02"),
		PeriodStart: date("2026-01-01"), PeriodEnd: date("2026-01-31"),
		InsertDt: inv.InsertDt, StatusDt: inv.StatusDt, PaymentStatusDate: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		SyncStatusDt: inv.SyncStatusDt, DocsDeliveryStatusDate: inv.DeliveryDt,
		Amounts: inv.Amounts, VatPercent: d("8.10"),
		Status: Approved, PaymentStatus: PaymentOpen, SyncStatus: SyncDone, DocsDeliveryStatus: DeliverySent,
		DocumentSync: json.RawMessage(`{"ext":1}`),
		Source:       &DocumentSource{ID: 10, Account: &docAcct},
		Items: []DocumentItem{
			{ID: 1, DocumentID: 42, OrdNum: 1, Name: "sms", Quantity: d("1000"), MeasureUnit: 3, Price: d("0.1000"),
				TotalNoVat: d("100.00"), TotalVat: d("108.10"), DataSourceID: 2, DataSourceCodeName: Postpaid, DataSourceForeignKey: "55",
				Source: &ItemSource{ID: 55, DocumentID: 42, Account: &itemAcct}},
			{ID: 2, DocumentID: 42, OrdNum: 2, Name: "fee", Quantity: d("1"), Price: d("0"), DataSourceID: 3,
				DataSourceCodeName: FinanceSource, DataSourceForeignKey: "x"},
		},
		TrafficReports: traffic,
	}
	got := DocumentOf(&inv, data, true)
	if diff := cmp.Diff(want, got, sameDoc); diff != "" {
		t.Fatalf("DocumentOf (-want +got):\n%s", diff)
	}
	// The document shares no memory with its sources.
	got.BizPartner.CustomAttributes[0].Value[1] = 'X'
	got.Items[0].Source.Account.SMSConnections[0].Name = "X"
	got.Source.Account.CustomAttributes[0].Value[1] = 'X'
	got.DocumentSync[1] = 'X'
	got.TrafficReports[0].MNC = "X"
	if string(data.Partner.CustomAttributes[0].Value) != `{"a":1}` || acct.SMSConnections[0].Name != "smpp-1" ||
		string(acct.CustomAttributes[0].Value) != `"A-1"` || string(inv.DocumentSync) != `{"ext":1}` || traffic[0].MNC != "01" {
		t.Fatal("a change to the document reached the data it was made of")
	}

	// Without operator data: the parts it gives are empty or null, and
	// the lists are empty, never nil.
	bare := DocumentOf(&inv, DocumentData{}, false)
	if bare.OwnerBpName != "" || bare.DocumentTypeName != "" || bare.SelfBilling != "no" || bare.Domestic != nil ||
		bare.BizPartner.CustomAttributes == nil || bare.Source == nil || bare.Source.Account != nil ||
		bare.Items[0].Source == nil || bare.Items[0].Source.Account != nil || bare.TrafficReports != nil {
		t.Fatalf("a document without operator data: %+v", bare)
	}
}

// TestDocumentSource holds DocumentOf to the data source rules for
// every data source and selector, with and without a source record.
func TestDocumentSource(t *testing.T) {
	acct := exportAccount(t)
	data := DocumentData{Accounts: map[SourceRef]BillingAccount{{BillingRecord, 10}: acct, {CreditRecord, 20}: acct}}
	for _, ds := range append(DataSources(), "", "OTHER") {
		for _, sel := range []string{"", PartPayment, "other"} {
			inv := exportInvoice(t)
			inv.DataSource, inv.Selector = ds, sel
			var want *DocumentSource
			switch RecordKindOf(ds, sel) {
			case BillingRecord:
				want = &DocumentSource{ID: 10}
			case CreditRecord:
				want = &DocumentSource{ID: 20}
			}
			got := DocumentOf(&inv, data, false).Source
			if (got == nil) != (want == nil) || got != nil && (got.ID != want.ID || got.Account == nil || got.Account.ID != acct.ID ||
				got.Account.SMSConnections != nil || got.Account.MNPConnections != nil) {
				t.Errorf("%s/%q: dataSource %+v, want id %+v with the account and no connections", ds, sel, got, want)
			}
			inv.SourceRecord = nil
			if got := DocumentOf(&inv, data, false).Source; got != nil {
				t.Errorf("%s/%q without a source record: dataSource %+v", ds, sel, got)
			}
		}
	}
}

// TestDocumentConnections: an item's account shows the connections of the
// document's domain; a POSTPAID-CONTROL document's only their id and name
// (and instance for MNP).
func TestDocumentConnections(t *testing.T) {
	acct := exportAccount(t)
	sms, mnp := acct.SMSConnections, acct.MNPConnections
	for _, tc := range []struct {
		domain   Domain
		ds       DataSource
		sms, mnp []Connection
	}{
		{Bulk, Postpaid, sms, nil},
		{BulkMNP, Postpaid, nil, mnp},
		{"", Postpaid, nil, nil},
		{Bulk, PostpaidControl, []Connection{{ID: 1, Name: "smpp-1"}}, nil},
		{BulkMNP, PostpaidControl, nil, []Connection{{ID: 3, InstanceID: 4, Name: "mnp-1"}}},
	} {
		inv := exportInvoice(t)
		inv.Domain, inv.DataSource, inv.Class = tc.domain, tc.ds, ControlInvoice
		doc := DocumentOf(&inv, DocumentData{Accounts: map[SourceRef]BillingAccount{{BillingRecord, 55}: acct}}, false)
		got := doc.Items[0].Source.Account
		if diff := cmp.Diff([2][]Connection{tc.sms, tc.mnp}, [2][]Connection{got.SMSConnections, got.MNPConnections}); diff != "" {
			t.Errorf("%s %s: connections (-want +got):\n%s", tc.domain, tc.ds, diff)
		}
	}
}

// TestDocumentTraffic: traffic reports are embedded when asked, for
// customer POSTPAID and control POSTPAID-CONTROL documents only.
func TestDocumentTraffic(t *testing.T) {
	rows := []TrafficReport{{MNC: "001"}}
	for _, class := range append(Classes(), "") {
		for _, ds := range append(DataSources(), "") {
			eligible := class == CustomerInvoice && ds == Postpaid || class == ControlInvoice && ds == PostpaidControl
			inv := exportInvoice(t)
			inv.Class, inv.DataSource = class, ds
			for _, asked := range []bool{false, true} {
				got := DocumentOf(&inv, DocumentData{Traffic: rows}, asked).TrafficReports
				if (got != nil) != (asked && eligible) {
					t.Errorf("%s %s asked %v: traffic %v", class, ds, asked, got)
				}
			}
			if got := DocumentOf(&inv, DocumentData{}, true).TrafficReports; eligible && (got == nil || len(got) != 0) {
				t.Errorf("%s %s without rows: %v, want an empty list", class, ds, got)
			}
		}
	}
}

func TestDocumentSyncShown(t *testing.T) {
	for _, s := range []SyncStatus{SyncNone, SyncWaiting, SyncSyncing, SyncDone, SyncError, SyncMisc, SyncInvalid, SyncExported, ""} {
		inv := exportInvoice(t)
		inv.SyncStatus = s
		got := DocumentOf(&inv, DocumentData{}, false).DocumentSync
		want := slices.Contains([]SyncStatus{SyncDone, SyncError, SyncMisc, SyncExported, SyncInvalid}, s)
		if (got != nil) != want {
			t.Errorf("sync status %q: documentSync %s", s, got)
		}
	}
}

func TestNumberParts(t *testing.T) {
	for _, tc := range []struct {
		number, mask string
		num          string // "" for none
	}{
		{"INV-2026/000123", "INV-2026/######", "123"},
		{"2026-7-B", "2026-#-B", "7"},
		{"ABC", "ABC", ""},
		{"0000", "####", "0"},
		{"Nº 12 ä", "Nº ## ä", "12"},
		{"X" + strings.Repeat("9", 18), "X" + strings.Repeat("#", 18), strings.Repeat("9", 18)},
		{"X" + strings.Repeat("9", 19), "X" + strings.Repeat("#", 19), ""},
		{"X00" + strings.Repeat("9", 18), "X" + strings.Repeat("#", 20), strings.Repeat("9", 18)},
	} {
		mask, num := NumberParts(tc.number)
		got := ""
		if num != nil {
			got = strconv.FormatInt(*num, 10)
		}
		if mask != tc.mask || got != tc.num {
			t.Errorf("NumberParts(%q) = %q, %s; want %q, %s", tc.number, mask, got, tc.mask, tc.num)
		}
	}
}

// The mask is the number with the digits of one run replaced, and the
// run's value is the number.
func TestNumberPartsLaw(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		number := rapid.StringMatching(`[A-Z0-9/ä-]{0,24}`).Draw(t, "number")
		mask, num := NumberParts(number)
		if len(mask) != len(number) {
			t.Fatalf("mask %q of %q has another length", mask, number)
		}
		var run []byte
		for i := range number {
			switch {
			case mask[i] == '#' && number[i] != '#':
				if !isDigit(number[i]) {
					t.Fatalf("mask %q hides a non-digit of %q", mask, number)
				}
				run = append(run, number[i])
			case mask[i] != number[i]:
				t.Fatalf("mask %q changes %q", mask, number)
			}
		}
		if strings.ContainsAny(mask[strings.LastIndexByte(mask, '#')+1:], "0123456789") {
			t.Fatalf("mask %q of %q leaves digits after the run", mask, number)
		}
		switch n := strings.TrimLeft(string(run), "0"); {
		case len(run) == 0 || len(n) > 18:
			if num != nil {
				t.Fatalf("%q has number %d", number, *num)
			}
		case num == nil || strconv.FormatInt(*num, 10) != cmpOr(n, "0"):
			t.Fatalf("%q has number %v, want %s", number, num, n)
		}
	})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// documentAttrNames are the documents' filter and sort attributes of the export,
// as the documents list them (65 names).
var documentAttrNames = strings.Split("amountNoVat, amountVat, bizPartnerAddress, bizPartnerAttn, bizPartnerBriefName, bizPartnerCity, "+
	"bizPartnerCountry, bizPartnerExternalRefId, bizPartnerId, bizPartnerName, bizPartnerPost, bizPartnerType, bizPartnerVatNumber, "+
	"currency, currencyCode, dataSourceCodeName, dataSourceId, dataSourceSelector, deliveryDate, disputeStatus, docsDeliveryStatus, "+
	"docsDeliveryStatusDate, documentClassArea, documentClassCodeName, documentClassDomain, documentDate, documentNumber, "+
	"documentNumberMask, documentNumberNum, documentSync, documentType, documentTypeName, documentUuid, domainCodeName, domainId, "+
	"domesticAmountNoVat, domesticAmountVat, domesticCurrency, domesticCurrencyCode, domesticCurrencyRate, domesticRounding, "+
	"domesticTotal, dueDate, id, insertDt, instanceId, lang, ownerBpBriefName, ownerBpName, ownerId, paymentStatus, paymentStatusDate, "+
	"periodEnd, periodStart, rounding, selfBilling, status, statusDt, syncStatus, syncStatusDt, total, totalPaid, totalUnpaid, vat, "+
	"vatPercent", ", ")

func TestDocumentSpec(t *testing.T) {
	spec := DocumentSpec()
	if len(documentAttrNames) != 65 {
		t.Fatalf("%d names", len(documentAttrNames))
	}
	if diff := cmp.Diff(documentAttrNames, spec.Sort); diff != "" {
		t.Fatalf("sort attributes (-documents +spec):\n%s", diff)
	}
	if diff := cmp.Diff(documentAttrNames, slices.Sorted(func(yield func(string) bool) {
		for name := range spec.Filter {
			if !yield(name) {
				return
			}
		}
	})); diff != "" {
		t.Fatalf("filter attributes (-documents +spec):\n%s", diff)
	}
	if spec.MaxPageSize != 50 || spec.DefaultPageSize != 10 {
		t.Fatalf("page sizes %d, %d", spec.DefaultPageSize, spec.MaxPageSize)
	}
	types := map[string]msgkit.AttrType{"documentDate": msgkit.AttrDate, "insertDt": msgkit.AttrDateTime, "id": msgkit.AttrNumber,
		"domesticTotal": msgkit.AttrNumber, "documentSync": msgkit.AttrString, "selfBilling": msgkit.AttrString,
		"documentNumberNum": msgkit.AttrNumber, "paymentStatusDate": msgkit.AttrDateTime, "periodEnd": msgkit.AttrDate}
	for name, typ := range types {
		if spec.Filter[name] != typ {
			t.Errorf("%s is a %s, want %s", name, spec.Filter[name], typ)
		}
	}
	// Every attribute reads a value of its type (or null) from a full
	// document and from an empty one.
	inv := exportInvoice(t)
	inv.Selector = PartPayment
	full := DocumentOf(&inv, DocumentData{Domestic: &DomesticRate{Currency: cur(t, "EUR"), Rate: d("1")},
		Type: &DocumentType{Name: "n"}, Owner: &Partner{Name: "o", ShortName: "o"}, Partner: PartnerExport{ExternalRefID: "e"}}, false)
	for _, name := range documentAttrNames {
		for _, doc := range []Document{full, {}} {
			v, ok := DocumentValue(doc, name)
			if !ok || !v.IsNull() && v.Type() != spec.Filter[name] {
				t.Errorf("%s reads %v (%v)", name, v, ok)
			}
		}
		if v, _ := DocumentValue(full, name); v.IsNull() && name != "disputeStatus" {
			t.Errorf("%s is null in a full document", name)
		}
	}
	if _, ok := DocumentValue(full, "custName"); ok {
		t.Error("an unknown attribute reads")
	}
}

// Every operator parses on the attributes of the types it applies to.
func TestParseDocumentQueryOperators(t *testing.T) {
	sample := map[msgkit.AttrType][2]string{
		msgkit.AttrString: {"a", "b"}, msgkit.AttrNumber: {"1", "2.5"}, msgkit.AttrDate: {"2026-01-01", "2026-02-01"},
		msgkit.AttrDateTime: {"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"},
	}
	spec := DocumentSpec()
	for _, name := range documentAttrNames {
		typ := spec.Filter[name]
		for _, op := range msgkit.Ops() {
			pattern := slices.Contains([]msgkit.Op{msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain}, op)
			val := sample[typ][0]
			switch op {
			case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
				val = ""
			case msgkit.OpBetween, msgkit.OpNotBetween, msgkit.OpIn, msgkit.OpNotIn:
				val = sample[typ][0] + "," + sample[typ][1]
			}
			q, err := ParseDocumentQuery(url.Values{fmt.Sprintf("%s(%s)", op, name): {val}})
			switch {
			case pattern && typ != msgkit.AttrString:
				if !errors.Is(err, msgkit.Invalid) {
					t.Errorf("%s(%s) on a %s: %v, want Invalid", op, name, typ, err)
				}
			case err != nil:
				t.Errorf("%s(%s): %v", op, name, err)
			case len(q.List.Filters) != 1 || q.List.Filters[0].Op != op:
				t.Errorf("%s(%s) parsed as %+v", op, name, q.List.Filters)
			}
		}
	}
}

func TestParseDocumentQuery(t *testing.T) {
	for _, tc := range []struct {
		query   string
		want    DocumentQuery
		invalid []string // the fields named, in order
	}{
		{"", DocumentQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 10}}, nil},
		{"embed=trafficReports&q=Acme&page_size=50&sort=-documentDate",
			DocumentQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 50, Sort: []msgkit.SortKey{{Attr: "documentDate", Desc: true}},
				Search: msgkit.Search{Text: "Acme", Attrs: DocumentSearchAttrs()}}, Search: "Acme", Traffic: true}, nil},
		{"embed=&embed=trafficReports,trafficReports", DocumentQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 10}, Traffic: true}, nil},
		{"embed=items", DocumentQuery{}, []string{"embed"}},
		{"embed=trafficReports,", DocumentQuery{}, []string{"embed"}},
		{"embed=TrafficReports", DocumentQuery{}, []string{"embed"}},
		{"page_size=51", DocumentQuery{}, []string{"page_size"}},
		{"page_size=51&embed=x", DocumentQuery{}, []string{"page_size", "embed"}},
		{"q=a&q=b", DocumentQuery{}, []string{"q"}},
		{"custName=x", DocumentQuery{}, []string{"custName"}},
	} {
		v, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseDocumentQuery(v)
		if tc.invalid == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.query, err)
			} else if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.query, diff)
			}
			continue
		}
		e, ok := errors.AsType[*msgkit.Error](err)
		if !ok || e.Kind != msgkit.Invalid || e.Code != msgkit.CodeInvalidQuery {
			t.Errorf("%s: error %v, want Invalid %s", tc.query, err, msgkit.CodeInvalidQuery)
			continue
		}
		var names []string
		for _, f := range e.Fields {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, tc.invalid) {
			t.Errorf("%s: fields %v, want %v", tc.query, names, tc.invalid)
		}
	}
}

func TestDocumentQueryListing(t *testing.T) {
	q := DocumentQuery{List: msgkit.ListQuery{PageSize: 5, Search: msgkit.Search{Text: "stale"}}, Search: "acme"}
	got := q.Listing()
	if got.PageSize != 5 || got.Search.Text != "acme" || !slices.Equal(got.Search.Attrs, DocumentSearchAttrs()) {
		t.Fatalf("Listing = %+v", got)
	}
	if (DocumentQuery{List: msgkit.ListQuery{Search: msgkit.Search{Text: "stale"}}}).Listing().Search.Text != "" {
		t.Fatal("an empty Search searched")
	}
	for _, a := range DocumentSearchAttrs() {
		if DocumentSpec().Filter[a] != msgkit.AttrString {
			t.Errorf("searched attribute %s is not a string attribute", a)
		}
	}
}

func TestCheckExportData(t *testing.T) {
	eur := cur(t, "EUR")
	bad := func(v string) []CustomAttribute { return []CustomAttribute{{CodeName: "c", Value: json.RawMessage(v)}} }
	for _, tc := range []struct {
		name   string
		err    error
		fields []string
	}{
		{"good account", CheckBillingAccount(BillingAccount{Currency: eur, CustomAttributes: bad(` "s" `)}), nil},
		{"object value", CheckPartnerExport(PartnerExport{CustomAttributes: bad(`{"a":[1]}`)}), nil},
		{"number value", CheckPartnerExport(PartnerExport{CustomAttributes: bad(`12`)}), []string{"customAttributes[0].value"}},
		{"array value", CheckBillingAccount(BillingAccount{CustomAttributes: bad(`[]`)}), []string{"customAttributes[0].value"}},
		{"broken value", CheckBillingAccount(BillingAccount{CustomAttributes: bad(`{"a"`)}), []string{"customAttributes[0].value"}},
		{"no code name", CheckBillingAccount(BillingAccount{CustomAttributes: []CustomAttribute{{Value: json.RawMessage(`"x"`)}}}),
			[]string{"customAttributes[0].codeName"}},
		{"unknown currency", CheckBillingAccount(BillingAccount{Currency: Currency{Numeric: 1, Code: "XXX"}}), []string{"currency"}},
		{"domestic", CheckDomesticRate(DomesticRate{Currency: eur, Rate: d("0.9")}), nil},
		{"domestic none", CheckDomesticRate(DomesticRate{Rate: d("0")}), []string{"domesticCurrency", "domesticCurrencyRate"}},
		{"traffic", CheckTrafficReports([]TrafficReport{{}, {Currency: Currency{Numeric: 978}}}), []string{"trafficReports[1].currency"}},
	} {
		var names []string
		if e, ok := errors.AsType[*msgkit.Error](tc.err); ok {
			if e.Kind != msgkit.Invalid || e.Code != CodeInvalidExportData {
				t.Errorf("%s: %v", tc.name, e)
			}
			for _, f := range e.Fields {
				names = append(names, f.Name)
			}
		} else if tc.err != nil {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
		if !slices.Equal(names, tc.fields) {
			t.Errorf("%s: fields %v, want %v", tc.name, names, tc.fields)
		}
	}
}

func ExampleNumberParts() {
	mask, num := NumberParts("INV-2026/000123")
	fmt.Println(mask, *num)
	// Output: INV-2026/###### 123
}
