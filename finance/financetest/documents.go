package financetest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// DocumentStore is a finance store that keeps the export's operator data
// and lists finance documents.
type DocumentStore interface {
	finance.Store
	finance.ExportStore
	finance.DocumentStore
}

// runDocumentStoreTests is the contract of the finance documents export:
// a store's documents are what finance.DocumentOf makes of its invoices
// and the operator data put into it, listed as msgkit.Apply lists them
// over finance.DocumentValue, for every attribute and operator.
func runDocumentStoreTests(t *testing.T, newStore func(t *testing.T) DocumentStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s DocumentStore)
	}{
		{"EveryField", testDocumentFields},
		{"DataSourceRules", testDocumentSourceRules},
		{"Connections", testDocumentConnections},
		{"Traffic", testDocumentTraffic},
		{"ScopeAndDeleted", testDocumentScope},
		{"Search", testDocumentSearch},
		{"Operators", testDocumentOperators},
		{"SortsAndPages", testDocumentSorts},
		{"Refuses", testDocumentRefuses},
		{"Copies", testDocumentCopies},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// ExportModel is what a test put into a store: its invoices as stored and
// the operator data, from which it tells what the store must list.
type ExportModel struct {
	Invoices []finance.Invoice
	owners   map[int64]finance.Partner
	partners map[int64]finance.PartnerExport
	types    map[int64]finance.DocumentType
	domestic map[finance.InvoiceID]finance.DomesticRate
	accounts map[int64]finance.BillingAccount
	records  map[finance.SourceRef]int64
	traffic  map[finance.InvoiceID][]finance.TrafficReport
}

// NewExportModel returns an empty model.
func NewExportModel() *ExportModel {
	return &ExportModel{owners: map[int64]finance.Partner{}, partners: map[int64]finance.PartnerExport{},
		types: map[int64]finance.DocumentType{}, domestic: map[finance.InvoiceID]finance.DomesticRate{},
		accounts: map[int64]finance.BillingAccount{}, records: map[finance.SourceRef]int64{},
		traffic: map[finance.InvoiceID][]finance.TrafficReport{}}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Create stores inv in s and in the model; a UID an invoice of the model
// has already gets a suffix, -n for the model's nth invoice, as UIDs are
// unique.
func (m *ExportModel) Create(t testing.TB, s DocumentStore, inv finance.Invoice) finance.Invoice {
	t.Helper()
	if inv.UID == "" || slices.ContainsFunc(m.Invoices, func(o finance.Invoice) bool { return o.UID == inv.UID }) {
		inv.UID = fmt.Sprintf("%s-%d", inv.UID, len(m.Invoices)+1)
	}
	got, err := s.CreateInvoice(t.Context(), inv)
	must(t, err)
	m.Invoices = append(m.Invoices, got)
	return got
}

// Partner stores a partner (an owner, to the export).
func (m *ExportModel) Partner(t testing.TB, s DocumentStore, p finance.Partner) {
	t.Helper()
	must(t, s.PutPartner(t.Context(), p))
	m.owners[p.ID] = p
}

// Account stores a billing account.
func (m *ExportModel) Account(t testing.TB, s DocumentStore, a finance.BillingAccount) {
	t.Helper()
	must(t, s.PutBillingAccount(t.Context(), a))
	m.accounts[a.ID] = a
}

// Record links a record to an account.
func (m *ExportModel) Record(t testing.TB, s DocumentStore, r finance.SourceRef, account int64) {
	t.Helper()
	must(t, s.PutSourceRecord(t.Context(), r, account))
	m.records[r] = account
}

// Traffic stores a document's traffic reports.
func (m *ExportModel) Traffic(t testing.TB, s DocumentStore, doc finance.InvoiceID, rows []finance.TrafficReport) {
	t.Helper()
	must(t, s.PutTrafficReports(t.Context(), doc, rows))
	m.traffic[doc] = rows
}

// PartnerExport stores a partner's export data.
func (m *ExportModel) PartnerExport(t testing.TB, s DocumentStore, p finance.PartnerExport) {
	t.Helper()
	must(t, s.PutPartnerExport(t.Context(), p))
	m.partners[p.PartnerID] = p
}

// Type stores a document type.
func (m *ExportModel) Type(t testing.TB, s DocumentStore, dt finance.DocumentType) {
	t.Helper()
	must(t, s.PutDocumentType(t.Context(), dt))
	m.types[dt.ID] = dt
}

// Domestic stores a document's domestic rate.
func (m *ExportModel) Domestic(t testing.TB, s DocumentStore, doc finance.InvoiceID, r finance.DomesticRate) {
	t.Helper()
	must(t, s.PutDomestic(t.Context(), doc, r))
	m.domestic[doc] = r
}

// Data is the operator data of inv.
func (m *ExportModel) Data(inv *finance.Invoice) finance.DocumentData {
	d := finance.DocumentData{Partner: m.partners[inv.Customer.ID], Traffic: m.traffic[inv.ID]}
	if p, ok := m.owners[inv.OwnerID]; ok {
		d.Owner = &p
	}
	if dt, ok := m.types[inv.InvType]; ok {
		d.Type = &dt
	}
	if r, ok := m.domestic[inv.ID]; ok {
		d.Domestic = &r
	}
	for _, ref := range finance.DocumentSources(inv) {
		if id, ok := m.records[ref]; ok {
			if a, ok := m.accounts[id]; ok {
				if d.Accounts == nil {
					d.Accounts = map[finance.SourceRef]finance.BillingAccount{}
				}
				d.Accounts[ref] = a
			}
		}
	}
	return d
}

// Documents is what a store must list for scope and q.
func (m *ExportModel) Documents(t testing.TB, scope finance.Scope, q finance.DocumentQuery) msgkit.Page[finance.Document] {
	t.Helper()
	var docs []finance.Document
	for i := range m.Invoices {
		inv := &m.Invoices[i]
		if inv.Status != finance.Deleted && scope.Sees(inv.Customer.ID) {
			docs = append(docs, finance.DocumentOf(inv, m.Data(inv), q.Traffic))
		}
	}
	slices.SortFunc(docs, func(a, b finance.Document) int { return cmp.Compare(a.ID, b.ID) })
	page, err := msgkit.Apply(docs, q.Listing(), finance.DocumentValue)
	must(t, err)
	return page
}

// SameDocuments compares documents: decimals by value and scale, times
// as instants, raw JSON byte for byte.
var SameDocuments = same

// Check lists q from s and wants what the model lists.
func (m *ExportModel) Check(t testing.TB, s finance.DocumentStore, scope finance.Scope, q finance.DocumentQuery) msgkit.Page[finance.Document] {
	t.Helper()
	want := m.Documents(t, scope, q)
	got, err := s.Documents(t.Context(), scope, q)
	if err != nil {
		t.Fatalf("%s: %v", DescribeDocumentQuery(q), err)
	}
	if diff := gocmp.Diff(want, got, same); diff != "" {
		t.Fatalf("%s, scope %+v (-want +got):\n%s", DescribeDocumentQuery(q), scope, diff)
	}
	return got
}

// DescribeDocumentQuery renders q for a failure's message.
func DescribeDocumentQuery(q finance.DocumentQuery) string {
	var parts []string
	for _, f := range q.List.Filters {
		var vals []string
		for _, v := range f.Values {
			vals = append(vals, v.String())
		}
		parts = append(parts, fmt.Sprintf("%s(%s)=%s", f.Op, f.Attr, strings.Join(vals, ",")))
	}
	for _, k := range q.List.Sort {
		parts = append(parts, fmt.Sprintf("sort=%s desc=%v", k.Attr, k.Desc))
	}
	return fmt.Sprintf("%s q=%q traffic=%v page %d size %d", strings.Join(parts, " "), q.Search, q.Traffic, q.List.PageNumber, q.List.PageSize)
}

func mustCurrency(code string) finance.Currency {
	c, ok := finance.CurrencyByCode(code)
	if !ok {
		panic(code)
	}
	return c
}

// account is a billing account with both kinds of connections.
func account(id, partner int64) finance.BillingAccount {
	return finance.BillingAccount{ID: id, InstanceID: 1, BizPartnerID: partner, Currency: mustCurrency("EUR"), BillingType: "POSTPAID",
		Name: fmt.Sprintf("account %d", id),
		CustomAttributes: []finance.CustomAttribute{{CodeName: "costCenter", Value: json.RawMessage(`"CC-1"`)},
			{CodeName: "terms", Value: json.RawMessage(`{"days": 30, "note":"ünï"}`)}},
		SMSConnections: []finance.Connection{{ID: id*10 + 1, InstanceID: 2, Name: "smpp", AuthName: "auth", Protocol: "SMPP"},
			{ID: id*10 + 2, InstanceID: 3, Name: "http", AuthName: "auth2", Protocol: "HTTP"}},
		MNPConnections: []finance.Connection{{ID: id*10 + 5, InstanceID: 4, Name: "mnp", AuthName: "mnpauth", Protocol: "HTTP"}}}
}

func trafficRows(n int) []finance.TrafficReport {
	rows := make([]finance.TrafficReport, n)
	for i := range rows {
		rows[i] = finance.TrafficReport{BizPartnerID: 1, BizPartnerBriefName: "acme", BizPartnerExtRefID: "EXT-1", BillingAccountID: 500,
			BillingAccountName: "main", CountryID: 756, CountryName: "Switzerland", CountryCode2: "CH", OperatorID: int64(10 + i),
			OperatorName: fmt.Sprint("op ", i), MCC: "228", MNC: []string{"01", "001", "1"}[i%3],
			StartDt: t0, EndDt: t0.Add(24 * time.Hour), SMSCount: int64(1000 * (i + 1)), Currency: mustCurrency("CHF"),
			Price: d("0.0450"), TotalAmount: d(fmt.Sprint(45*(i+1), ".00"))}
	}
	return rows
}

// testDocumentFields puts an invoice and every kind of operator data and
// wants every field of its document, with and without traffic.
func testDocumentFields(t *testing.T, s DocumentStore) {
	m := NewExportModel()
	inv := sample(1)
	inv.Class, inv.DataSource, inv.Selector, inv.SyncStatus = finance.CustomerInvoice, finance.Postpaid, "", finance.SyncExported
	inv.InvNumberFix = "INV-2026/000123"
	inv.Items = append(inv.Items, finance.Item{Name: "fee", Quantity: d("1"), Price: d("5.5000"), DataSourceID: 1,
		DataSourceForeignKey: "21", TotalNoVat: d("5.50"), TotalVat: d("5.94")})
	inv.Items[0].DataSourceID, inv.Items[0].DataSourceForeignKey = 0, "55"
	stored := m.Create(t, s, inv)
	m.Partner(t, s, finance.Partner{ID: 2, Name: "Operator AG", ShortName: "op"})
	m.PartnerExport(t, s, finance.PartnerExport{PartnerID: 1, ExternalRefID: "EXT-1",
		CustomAttributes: []finance.CustomAttribute{{CodeName: "segment", Value: json.RawMessage(`{"tier":"gold"}`)}}})
	m.Type(t, s, finance.DocumentType{ID: 3, Name: "Customer invoice BULK", SelfBilling: true})
	m.Domestic(t, s, stored.ID, finance.DomesticRate{Currency: mustCurrency("CHF"), Rate: d("0.93125")})
	m.Account(t, s, account(500, 1))
	m.Account(t, s, account(600, 1))
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 10}, 500)
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 55}, 600)
	m.Record(t, s, finance.SourceRef{Kind: finance.CreditRecord, ID: 21}, 500) // item 2: PREPAID
	m.Traffic(t, s, stored.ID, trafficRows(3))

	all := finance.Scope{All: true}
	page := m.Check(t, s, all, finance.DocumentQuery{})
	if len(page.Items) != 1 || page.Total != 1 {
		t.Fatalf("%d documents of %d", len(page.Items), page.Total)
	}
	doc := page.Items[0]
	// A few fields spelled out, so that the contract does not rest on
	// DocumentOf alone.
	switch {
	case doc.OwnerBpName != "Operator AG" || doc.BizPartnerExternalRefID != "EXT-1" || doc.DocumentTypeName != "Customer invoice BULK" ||
		doc.SelfBilling != "yes" || doc.NumberMask != "INV-2026/######" || doc.NumberNum == nil || *doc.NumberNum != 123:
		t.Fatalf("document's looked-up fields: %+v", doc)
	case doc.Domestic == nil || doc.Domestic.AmountNoVat.String() != "93.17" || doc.DomesticCurrency.Code != "CHF":
		t.Fatalf("domestic amounts %+v", doc.Domestic)
	case doc.Source == nil || doc.Source.ID != 10 || doc.Source.Account == nil || doc.Source.Account.ID != 500:
		t.Fatalf("dataSource %+v", doc.Source)
	case doc.Items[0].Source == nil || doc.Items[0].Source.Account.ID != 600 || len(doc.Items[0].Source.Account.SMSConnections) != 2 ||
		doc.Items[1].Source == nil || doc.Items[1].Source.ID != 21 || doc.Items[1].DataSourceCodeName != finance.Prepaid:
		t.Fatalf("items %+v", doc.Items)
	case string(doc.DocumentSync) != `{"ext":"X-1","n":[1,2]}` || doc.TrafficReports != nil:
		t.Fatalf("documentSync %s, traffic %v", doc.DocumentSync, doc.TrafficReports)
	}
	withTraffic := m.Check(t, s, all, finance.DocumentQuery{Traffic: true})
	if got := withTraffic.Items[0].TrafficReports; len(got) != 3 || got[1].MNC != "001" || got[2].MNC != "1" || got[0].MNC != "01" {
		t.Fatalf("traffic reports %+v", got)
	}
	// Later puts replace earlier ones.
	m.Type(t, s, finance.DocumentType{ID: 3, Name: "renamed"})
	a := account(500, 1)
	a.Name, a.SMSConnections, a.CustomAttributes = "renamed", nil, nil
	m.Account(t, s, a)
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 55}, 500)
	m.Traffic(t, s, stored.ID, trafficRows(1))
	m.Domestic(t, s, stored.ID, finance.DomesticRate{Currency: mustCurrency("JPY"), Rate: d("160.5")})
	m.PartnerExport(t, s, finance.PartnerExport{PartnerID: 1})
	m.Check(t, s, all, finance.DocumentQuery{Traffic: true})
}

// testDocumentSourceRules stores an invoice of every data source and
// selector with both records and wants dataSource by the data source rules (RecordKindOf).
func testDocumentSourceRules(t *testing.T, s DocumentStore) {
	m := NewExportModel()
	m.Account(t, s, account(1, 1))
	m.Account(t, s, account(2, 1))
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 10}, 1)
	m.Record(t, s, finance.SourceRef{Kind: finance.CreditRecord, ID: 10}, 2) // the same id, the other kind
	m.Record(t, s, finance.SourceRef{Kind: finance.CreditRecord, ID: 11}, 2)
	type want struct {
		id      int64
		account int64
	}
	var wants []*want
	for _, ds := range append(finance.DataSources(), "OTHER") {
		for _, sel := range []string{"", finance.PartPayment, "other"} {
			inv := sample(1)
			inv.DataSource, inv.Selector, inv.Domain = ds, sel, finance.Bulk
			inv.SourceRecord = &finance.SourceRecord{BillingRecordID: 10, CreditRecordID: 11}
			inv.Items = nil
			m.Create(t, s, inv)
			switch finance.RecordKindOf(ds, sel) {
			case finance.BillingRecord:
				wants = append(wants, &want{10, 1})
			case finance.CreditRecord:
				wants = append(wants, &want{11, 2})
			default:
				wants = append(wants, nil)
			}
		}
	}
	page := m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{List: msgkit.ListQuery{PageNumber: 1, PageSize: 50}})
	for i, doc := range page.Items {
		w, got := wants[i], doc.Source
		if (w == nil) != (got == nil) || w != nil && (got.ID != w.id || got.Account == nil || got.Account.ID != w.account ||
			got.Account.SMSConnections != nil || got.Account.MNPConnections != nil) {
			t.Errorf("%s/%q: dataSource %+v, want %+v", doc.DataSource, doc.Selector, got, w)
		}
	}
	// A record without an account, and an account not stored.
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 12}, 99)
	inv := sample(1)
	inv.DataSource, inv.Selector, inv.SourceRecord = finance.Postpaid, "", &finance.SourceRecord{BillingRecordID: 12}
	m.Create(t, s, inv)
	inv.SourceRecord = &finance.SourceRecord{BillingRecordID: 13}
	m.Create(t, s, inv)
	page = m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{List: msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "id", Desc: true}}, PageSize: 2}})
	for _, doc := range page.Items {
		if doc.Source == nil || doc.Source.Account != nil {
			t.Errorf("a record whose account is unknown: %+v", doc.Source)
		}
	}
}

// testDocumentConnections wants an item's account with the connections
// of the document's domain, cut to id and name for POSTPAID-CONTROL.
func testDocumentConnections(t *testing.T, s DocumentStore) {
	m := NewExportModel()
	m.Account(t, s, account(7, 1))
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 70}, 7)
	for _, c := range []struct {
		domain finance.Domain
		ds     finance.DataSource
	}{{finance.Bulk, finance.Postpaid}, {finance.BulkMNP, finance.Postpaid}, {"", finance.Postpaid},
		{finance.Bulk, finance.PostpaidControl}, {finance.BulkMNP, finance.PostpaidControl}} {
		inv := sample(1)
		inv.Domain, inv.DataSource, inv.Selector, inv.Class = c.domain, c.ds, "", finance.ControlInvoice
		inv.Items[0].DataSourceID, inv.Items[0].DataSourceForeignKey = 0, "70"
		m.Create(t, s, inv)
	}
	page := m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{})
	full := account(7, 1)
	for _, doc := range page.Items {
		a := doc.Items[0].Source.Account
		var wantSMS, wantMNP []finance.Connection
		switch doc.Domain {
		case finance.Bulk:
			wantSMS = full.SMSConnections
		case finance.BulkMNP:
			wantMNP = full.MNPConnections
		}
		if doc.DataSource == finance.PostpaidControl {
			wantSMS = []finance.Connection{{ID: 71, Name: "smpp"}, {ID: 72, Name: "http"}}[:len(wantSMS)]
			wantMNP = []finance.Connection{{ID: 75, InstanceID: 4, Name: "mnp"}}[:len(wantMNP)]
		}
		if diff := gocmp.Diff([2][]finance.Connection{wantSMS, wantMNP}, [2][]finance.Connection{a.SMSConnections, a.MNPConnections},
			gocmp.Comparer(func(a, b []finance.Connection) bool { return slices.Equal(a, b) })); diff != "" {
			t.Errorf("%s %s: connections (-want +got):\n%s", doc.Domain, doc.DataSource, diff)
		}
	}
}

// testDocumentTraffic wants traffic reports only when asked and only for
// customer POSTPAID and control POSTPAID-CONTROL documents.
func testDocumentTraffic(t *testing.T, s DocumentStore) {
	m := NewExportModel()
	for _, class := range []finance.Class{finance.CustomerInvoice, finance.ControlInvoice, finance.SupplierInvoice, finance.CreditDebitNote} {
		for _, ds := range []finance.DataSource{finance.Postpaid, finance.PostpaidControl, finance.Prepaid} {
			inv := sample(1)
			inv.Class, inv.DataSource = class, ds
			got := m.Create(t, s, inv)
			if ds != finance.Prepaid || class == finance.CustomerInvoice {
				m.Traffic(t, s, got.ID, trafficRows(2))
			}
		}
	}
	all := finance.Scope{All: true}
	for _, q := range []finance.DocumentQuery{{}, {Traffic: true}, {Traffic: true, List: msgkit.ListQuery{PageNumber: 2, PageSize: 5}}} {
		page := m.Check(t, s, all, q)
		for _, doc := range page.Items {
			eligible := doc.Class == finance.CustomerInvoice && doc.DataSource == finance.Postpaid ||
				doc.Class == finance.ControlInvoice && doc.DataSource == finance.PostpaidControl
			if (doc.TrafficReports != nil) != (q.Traffic && eligible) || doc.TrafficReports != nil && len(doc.TrafficReports) != 2 {
				t.Errorf("%s %s traffic %v: %d rows (nil %v)", doc.Class, doc.DataSource, q.Traffic, len(doc.TrafficReports), doc.TrafficReports == nil)
			}
		}
	}
	// An eligible document without rows embeds an empty list.
	inv := sample(1)
	inv.Class, inv.DataSource = finance.CustomerInvoice, finance.Postpaid
	got := m.Create(t, s, inv)
	page := m.Check(t, s, all, finance.DocumentQuery{Traffic: true, List: msgkit.ListQuery{Filters: []msgkit.Filter{
		{Op: msgkit.OpEq, Attr: "id", Values: []msgkit.Value{msgkit.IntValue(int64(got.ID))}}}}})
	if len(page.Items) != 1 || page.Items[0].TrafficReports == nil || len(page.Items[0].TrafficReports) != 0 {
		t.Fatalf("an eligible document without rows: %+v", page.Items)
	}
}

// testDocumentScope: a partner out of scope is never seen, whatever the
// query, and deleted invoices are not documents.
func testDocumentScope(t *testing.T, s DocumentStore) {
	m := NewExportModel()
	for i, p := range []int64{1, 2, 3, 2, 1} {
		inv := sample(p)
		if i == 4 {
			inv.Status = finance.Deleted
		}
		m.Create(t, s, inv)
	}
	m.PartnerExport(t, s, finance.PartnerExport{PartnerID: 2, ExternalRefID: "EXT-2"})
	search := finance.DocumentQuery{Search: "uid-"}
	byPartner := finance.DocumentQuery{List: msgkit.ListQuery{Filters: []msgkit.Filter{
		{Op: msgkit.OpIn, Attr: "bizPartnerId", Values: []msgkit.Value{msgkit.IntValue(1), msgkit.IntValue(3)}}}}}
	for _, tc := range []struct {
		scope finance.Scope
		total int
	}{{finance.Scope{All: true}, 4}, {finance.Scope{Partners: []int64{2}}, 2}, {finance.Scope{Partners: []int64{1, 3}}, 2}, {finance.Scope{}, 0}} {
		for _, q := range []finance.DocumentQuery{{}, search, byPartner, {Traffic: true}} {
			page := m.Check(t, s, tc.scope, q)
			for _, doc := range page.Items {
				if !tc.scope.Sees(doc.BizPartnerID) || doc.Status == finance.Deleted {
					t.Fatalf("scope %+v listed %+v", tc.scope, doc)
				}
			}
			if q.Search == "" && len(q.List.Filters) == 0 && page.Total != tc.total {
				t.Fatalf("scope %+v: %d documents, want %d", tc.scope, page.Total, tc.total)
			}
		}
	}
	// Deleting an invoice takes its document away.
	_, err := s.UpdateInvoice(t.Context(), m.Invoices[0].ID, func(inv finance.Invoice) (finance.Invoice, error) {
		inv.Status = finance.Deleted
		return inv, nil
	})
	must(t, err)
	m.Invoices[0].Status = finance.Deleted
	if page := m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{}); page.Total != 3 {
		t.Fatalf("after a delete: %d documents", page.Total)
	}
}

// seedDocuments stores a varied set of invoices and operator data: every
// class, data source, selector, domain and status, empty and non-empty
// texts, amounts of several scales, numbers with and without digits,
// dates and times present and absent.
func seedDocuments(t *testing.T, s DocumentStore) *ExportModel {
	m := NewExportModel()
	classes := append(finance.Classes(), "")
	sources := append(finance.DataSources(), "")
	statuses := []finance.Status{finance.Approved, finance.Draft, finance.Archived, finance.Deleted, finance.Imported, finance.Rejected}
	syncs := []finance.SyncStatus{finance.SyncDone, finance.SyncNone, finance.SyncError, finance.SyncWaiting, finance.SyncExported}
	numbers := []string{"INV-2026/000123", "", "ABC", "2026-7-B", "X0000", "inv-2026/000124"}
	names := []string{"ACME", "acme ltd", "", "Ünïcode", "Beta"}
	amounts := []string{"100.00", "-20.5", "0", "1234.5678", "0.00", "99.99"}
	for i := range 30 {
		inv := sample(int64(1 + i%4))
		inv.Class, inv.DataSource = classes[i%len(classes)], sources[i%len(sources)]
		inv.Selector = []string{"", finance.PartPayment, ""}[i%3]
		inv.Domain = []finance.Domain{finance.Bulk, finance.BulkMNP, ""}[i%3]
		inv.Status, inv.SyncStatus = statuses[i%len(statuses)], syncs[i%len(syncs)]
		inv.PaymentStatus = []finance.PaymentStatus{finance.PaymentOpen, finance.PaymentClosed, ""}[i%3]
		inv.DocsDeliveryStatus = []finance.DeliveryStatus{finance.DeliverySent, "", finance.DeliveryError}[i%3]
		inv.InvNumberFix = numbers[i%len(numbers)]
		inv.UID = fmt.Sprintf("uid-%02d", i)
		inv.Customer.Name, inv.Customer.ShortName = names[i%len(names)], names[(i+2)%len(names)]
		inv.Customer.City, inv.Customer.Address, inv.Customer.Attn = names[(i+1)%len(names)], fmt.Sprint("Street ", i%7), names[(i+3)%len(names)]
		inv.Customer.Post, inv.Customer.VatNumber, inv.Customer.Type = []string{"3000", "", "8001"}[i%3], fmt.Sprint("VAT", i%5), []string{"customer", "supplier", ""}[i%3]
		inv.Customer.Country = []int{756, 276, 0}[i%3]
		inv.Lang, inv.Comment = []string{"de", "en", ""}[i%3], fmt.Sprint("note ", i)
		inv.InvType, inv.OwnerID, inv.InstanceID = int64(1+i%4), int64(i%3), int64(1+i%2)
		inv.Currency = []finance.Currency{mustCurrency("EUR"), mustCurrency("CHF"), mustCurrency("JPY"), {}}[i%4]
		a := d(amounts[i%len(amounts)])
		inv.AmountNoVat, inv.AmountVat, inv.Vat = a, d(amounts[(i+1)%len(amounts)]), d(amounts[(i+2)%len(amounts)])
		inv.Rounding, inv.Total = d(amounts[(i+3)%len(amounts)]), d(amounts[(i+4)%len(amounts)])
		inv.TotalPaid, inv.TotalUnpaid, inv.VatPercent = d(amounts[(i+5)%len(amounts)]), a, d([]string{"19.6", "8.10", "0"}[i%3])
		inv.InvDate = day("2026-01-01").AddDays(i * 3)
		inv.DeliveryDate, inv.InvDueDate = inv.InvDate.AddDays(-1), inv.InvDate.AddDays(30)
		inv.InvPeriodStart, inv.InvPeriodEnd = day("2025-12-01").AddDays(i%5*31), day("2025-12-31").AddDays(i%5*31)
		inv.InsertDt, inv.StatusDt = t0.Add(time.Duration(i)*time.Hour), t0.Add(time.Duration(30-i)*time.Minute)
		inv.SyncStatusDt, inv.DeliveryDt = t0.Add(time.Duration(i%4)*time.Second), t0.Add(time.Duration(i)*time.Millisecond)
		inv.Payment.PaymentDate = day("2026-02-01").AddDays(i % 4)
		inv.SourceRecord = &finance.SourceRecord{BillingRecordID: int64(10 + i%3), CreditRecordID: int64(20 + i%3)}
		inv.DocumentSync = json.RawMessage(fmt.Sprintf(`{"ext":"X-%d"}`, i))
		switch i % 5 {
		case 0:
			inv.InvDate, inv.DeliveryDate, inv.InvPeriodStart = msgkit.Date{}, msgkit.Date{}, msgkit.Date{}
		case 1:
			inv.SyncStatusDt, inv.DeliveryDt, inv.Payment, inv.SourceRecord = time.Time{}, time.Time{}, nil, nil
		case 2:
			inv.DocumentSync = nil
		case 3:
			inv.Payment.PaymentDate = msgkit.Date{}
		}
		got := m.Create(t, s, inv)
		if i%3 != 2 {
			m.Domestic(t, s, got.ID, finance.DomesticRate{Currency: []finance.Currency{mustCurrency("EUR"), mustCurrency("KWD")}[i%2],
				Rate: d([]string{"1.0650", "0.305", "2"}[i%3])})
		}
		if i%4 == 0 {
			m.Traffic(t, s, got.ID, trafficRows(1+i%3))
		}
	}
	m.Partner(t, s, finance.Partner{ID: 0, Name: "Operator", ShortName: "op"})
	m.Partner(t, s, finance.Partner{ID: 2, Name: "Co-owner AG", ShortName: ""})
	for p := range int64(3) {
		m.PartnerExport(t, s, finance.PartnerExport{PartnerID: p + 1, ExternalRefID: []string{"EXT-1", "", "ext-3"}[p],
			CustomAttributes: []finance.CustomAttribute{{CodeName: "c", Value: json.RawMessage(`"v"`)}}})
	}
	m.Type(t, s, finance.DocumentType{ID: 1, Name: "Type one", SelfBilling: true})
	m.Type(t, s, finance.DocumentType{ID: 2, Name: "Type two"})
	m.Type(t, s, finance.DocumentType{ID: 3, Name: ""})
	for i := range int64(3) {
		m.Account(t, s, account(100+i, 1))
		m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 10 + i}, 100+i)
		m.Record(t, s, finance.SourceRef{Kind: finance.CreditRecord, ID: 20 + i}, 102-i)
	}
	return m
}

// SeedDocuments is seedDocuments for the stores' own tests.
func SeedDocuments(t *testing.T, s DocumentStore) *ExportModel { return seedDocuments(t, s) }

// OperatorQueries are, for every attribute of finance.DocumentSpec, a
// query per operator that applies to its type, with values drawn from
// docs (so that each can match) and a value no document has.
func OperatorQueries(docs []finance.Document) []msgkit.ListQuery {
	spec := finance.DocumentSpec()
	var out []msgkit.ListQuery
	for _, name := range finance.DocumentAttrNames() {
		typ := spec.Filter[name]
		var vals []msgkit.Value
		for _, doc := range docs {
			if v, _ := finance.DocumentValue(doc, name); !v.IsNull() && !slices.ContainsFunc(vals, v.Equal) {
				vals = append(vals, v)
			}
		}
		slices.SortFunc(vals, msgkit.Value.Compare)
		lo, mid, hi := msgkit.Null(), msgkit.Null(), msgkit.Null()
		if len(vals) > 0 {
			lo, mid, hi = vals[len(vals)/4], vals[len(vals)/2], vals[len(vals)*3/4]
		}
		for _, op := range msgkit.Ops() {
			var args [][]msgkit.Value
			switch op {
			case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
				args = [][]msgkit.Value{nil}
			case msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain:
				if typ != msgkit.AttrString {
					continue
				}
				args = [][]msgkit.Value{{msgkit.StringValue("")}, {msgkit.StringValue("zz-none")}}
				if s := mid.Str(); s != "" {
					r := []rune(strings.ToUpper(s))
					part := map[msgkit.Op]string{msgkit.OpStartsWith: string(r[:(len(r)+1)/2]), msgkit.OpEndsWith: string(r[len(r)/2:]),
						msgkit.OpContains: string(r[len(r)/3 : (2*len(r)+2)/3]), msgkit.OpDoesNotContain: string(r[len(r)/3 : (2*len(r)+2)/3])}[op]
					args = append(args, []msgkit.Value{msgkit.StringValue(part)})
				}
			case msgkit.OpIn, msgkit.OpNotIn:
				if mid.IsNull() {
					continue
				}
				args = [][]msgkit.Value{{mid}, {lo, hi}}
			case msgkit.OpBetween, msgkit.OpNotBetween:
				if mid.IsNull() {
					continue
				}
				args = [][]msgkit.Value{{lo, hi}, {mid, mid}}
			default:
				if mid.IsNull() {
					continue
				}
				args = [][]msgkit.Value{{mid}, {lo}}
			}
			for _, a := range args {
				out = append(out, msgkit.ListQuery{Filters: []msgkit.Filter{{Op: op, Attr: name, Values: a}}})
			}
		}
	}
	return out
}

// testDocumentOperators runs every operator on every attribute.
func testDocumentOperators(t *testing.T, s DocumentStore) {
	m := seedDocuments(t, s)
	all := finance.Scope{All: true}
	docs := m.Documents(t, all, finance.DocumentQuery{}).Items
	matched := 0
	for _, q := range OperatorQueries(docs) {
		page := m.Check(t, s, all, finance.DocumentQuery{List: q})
		matched += page.Total
	}
	if matched == 0 {
		t.Fatal("no filter matched a document")
	}
	// Two filters hold together, and the scope with them.
	q := finance.DocumentQuery{List: msgkit.ListQuery{Filters: []msgkit.Filter{
		{Op: msgkit.OpEq, Attr: "domainCodeName", Values: []msgkit.Value{msgkit.StringValue("BULK")}},
		{Op: msgkit.OpIsNotNull, Attr: "domesticTotal"}}}}
	if page := m.Check(t, s, finance.Scope{Partners: []int64{1, 2}}, q); page.Total == 0 {
		t.Fatal("two filters matched nothing")
	}
}

// testDocumentSorts sorts by every attribute both ways, with id breaking
// ties, and pages.
func testDocumentSorts(t *testing.T, s DocumentStore) {
	m := seedDocuments(t, s)
	all := finance.Scope{All: true}
	for _, name := range finance.DocumentAttrNames() {
		for _, desc := range []bool{false, true} {
			m.Check(t, s, all, finance.DocumentQuery{List: msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: name, Desc: desc}}}})
			m.Check(t, s, all, finance.DocumentQuery{List: msgkit.ListQuery{PageNumber: 2, PageSize: 7,
				Sort: []msgkit.SortKey{{Attr: name, Desc: desc}, {Attr: "documentDate", Desc: !desc}}}})
		}
	}
	// Pages: the totals count every document, a page past the end is
	// empty, and the pages together are the whole listing.
	whole := m.Check(t, s, all, finance.DocumentQuery{List: msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "status"}}}})
	var joined []finance.Document
	for n := 1; n <= 4; n++ {
		page := m.Check(t, s, all, finance.DocumentQuery{List: msgkit.ListQuery{PageNumber: n, PageSize: 10, Sort: []msgkit.SortKey{{Attr: "status"}}}})
		if page.Total != whole.Total || page.Total != 25 {
			t.Fatalf("page %d: total %d, want %d", n, page.Total, whole.Total)
		}
		joined = append(joined, page.Items...)
	}
	if diff := gocmp.Diff(whole.Items, joined, same); diff != "" {
		t.Fatalf("the pages differ from the whole (-whole +pages):\n%s", diff)
	}
	// The HTTP layer's parse refuses a page above 50.
	if _, err := finance.ParseDocumentQuery(url.Values{"page_size": {"51"}}); !errors.Is(err, msgkit.Invalid) {
		t.Fatalf("page_size 51: %v", err)
	}
	q, err := finance.ParseDocumentQuery(url.Values{"page_size": {"50"}, "sort": {"-total"}})
	must(t, err)
	m.Check(t, s, all, q)
}

// testDocumentSearch searches the search attributes, case-insensitively.
func testDocumentSearch(t *testing.T, s DocumentStore) {
	m := seedDocuments(t, s)
	for _, tc := range []struct {
		q    string
		want bool // some document matches
	}{{"acme", true}, {"ÜNÏ", true}, {"ext-", true}, {"UID-0", true}, {"inv-2026", true}, {"APPROVED", true}, {"op", true},
		{"co-owner", true}, {"vat1", true}, {"note 1", false}, {"zz-none", false}, {"%", false}, {"a\x00", false}} {
		for _, scope := range []finance.Scope{{All: true}, {Partners: []int64{2}}} {
			page := m.Check(t, s, scope, finance.DocumentQuery{Search: tc.q, List: msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "bizPartnerName"}}}})
			if scope.All && (page.Total > 0) != tc.want {
				t.Errorf("q=%q: %d documents", tc.q, page.Total)
			}
		}
	}
	q, err := finance.ParseDocumentQuery(url.Values{"q": {"Acme"}, "status": {"approved"}})
	must(t, err)
	if page := m.Check(t, s, finance.Scope{All: true}, q); page.Total == 0 {
		t.Fatal("q with a filter found nothing")
	}
}

// testDocumentRefuses: operator data the export cannot show is Invalid,
// and stores nothing.
func testDocumentRefuses(t *testing.T, s DocumentStore) {
	ctx := t.Context()
	bad := []finance.CustomAttribute{{CodeName: "n", Value: json.RawMessage(`12`)}}
	a := account(1, 1)
	a.CustomAttributes = bad
	for name, err := range map[string]error{
		"account attribute": s.PutBillingAccount(ctx, a),
		"partner attribute": s.PutPartnerExport(ctx, finance.PartnerExport{PartnerID: 1, CustomAttributes: bad}),
		"domestic rate":     s.PutDomestic(ctx, 1, finance.DomesticRate{Currency: mustCurrency("EUR")}),
		"domestic currency": s.PutDomestic(ctx, 1, finance.DomesticRate{Rate: d("1")}),
		"traffic currency":  s.PutTrafficReports(ctx, 1, []finance.TrafficReport{{Currency: finance.Currency{Numeric: 978}}}),
		"record kind":       s.PutSourceRecord(ctx, finance.SourceRef{ID: 1}, 1),
	} {
		if e, ok := errors.AsType[*msgkit.Error](err); !ok || e.Kind != msgkit.Invalid || e.Code != finance.CodeInvalidExportData {
			t.Errorf("%s: %v, want Invalid %s", name, err, finance.CodeInvalidExportData)
		}
	}
	m := NewExportModel()
	inv := sample(1)
	inv.DataSource, inv.Selector, inv.Class = finance.Postpaid, "", finance.CustomerInvoice
	m.Create(t, s, inv)
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 10}, 1)
	page := m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{Traffic: true})
	if doc := page.Items[0]; doc.Source.Account != nil || doc.BizPartner.CustomAttributes == nil || len(doc.BizPartner.CustomAttributes) != 0 ||
		doc.Domestic != nil || len(doc.TrafficReports) != 0 {
		t.Fatalf("refused data was stored: %+v", doc)
	}
}

// testDocumentCopies: what a caller does to what it put or got does not
// reach the store.
func testDocumentCopies(t *testing.T, s DocumentStore) {
	ctx := t.Context()
	m := NewExportModel()
	inv := sample(1)
	inv.DataSource, inv.Selector, inv.Class, inv.Domain = finance.Postpaid, "", finance.CustomerInvoice, finance.Bulk
	inv.Items[0].DataSourceID, inv.Items[0].DataSourceForeignKey = 0, "10"
	stored := m.Create(t, s, inv)
	a := account(1, 1)
	m.Account(t, s, a)
	m.Record(t, s, finance.SourceRef{Kind: finance.BillingRecord, ID: 10}, 1)
	rows := trafficRows(2)
	m.Traffic(t, s, stored.ID, rows)
	p := finance.PartnerExport{PartnerID: 1, ExternalRefID: "E", CustomAttributes: []finance.CustomAttribute{{CodeName: "c", Value: json.RawMessage(`"v"`)}}}
	m.PartnerExport(t, s, p)
	// The model keeps its own copies: the store must not share the ones
	// changed below.
	m.accounts[1], m.traffic[stored.ID], m.partners[1] = account(1, 1), trafficRows(2), finance.PartnerExport{PartnerID: 1, ExternalRefID: "E",
		CustomAttributes: []finance.CustomAttribute{{CodeName: "c", Value: json.RawMessage(`"v"`)}}}
	a.SMSConnections[0].Name, a.CustomAttributes[0].Value[1] = "changed", 'X'
	rows[0].MNC, p.CustomAttributes[0].Value[1] = "changed", 'X'
	got, err := s.Documents(ctx, finance.Scope{All: true}, finance.DocumentQuery{Traffic: true})
	must(t, err)
	got.Items[0].Items[0].Source.Account.SMSConnections[0].Name = "changed"
	got.Items[0].Source.Account.CustomAttributes[0].Value[1] = 'X'
	got.Items[0].BizPartner.CustomAttributes[0].Value[1] = 'X'
	got.Items[0].TrafficReports[0].MNC = "changed"
	got.Items[0].DocumentSync[1] = 'X'
	m.Check(t, s, finance.Scope{All: true}, finance.DocumentQuery{Traffic: true})
}
