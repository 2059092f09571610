package pgstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sync/errgroup"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
)

// TestFinanceDocumentListingCoversSpec holds the documents listing to
// its spec: every attribute, with its type, and nothing else.
func TestFinanceDocumentListingCoversSpec(t *testing.T) {
	t.Parallel()
	spec := finance.DocumentSpec()
	for _, table := range []*listTable{&documentsAll, &documentsOwn} {
		if err := table.checkSpec(spec); err != nil {
			t.Fatal(err)
		}
		if len(table.Attrs) != len(spec.Filter) {
			t.Fatalf("the listing maps %d attributes, the spec has %d", len(table.Attrs), len(spec.Filter))
		}
	}
}

// documentSeed is invoices and operator data to put into two stores
// alike; the maps by invoice are by the invoice's index.
type documentSeed struct {
	invoices []finance.Invoice
	owners   []finance.Partner
	accounts []finance.BillingAccount
	records  map[finance.SourceRef]int64
	exports  []finance.PartnerExport
	types    []finance.DocumentType
	domestic map[int]finance.DomesticRate
	traffic  map[int][]finance.TrafficReport
}

// put stores the seed in s; fresh stores number the invoices alike.
func (sd *documentSeed) put(t *testing.T, s financetest.DocumentStore) {
	ctx := t.Context()
	for i, inv := range sd.invoices {
		got, err := s.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != finance.InvoiceID(i+1) {
			t.Fatalf("invoice %d has id %d", i, got.ID)
		}
	}
	for _, p := range sd.owners {
		must(t, s.PutPartner(ctx, p))
	}
	for _, a := range sd.accounts {
		must(t, s.PutBillingAccount(ctx, a))
	}
	for r, a := range sd.records {
		must(t, s.PutSourceRecord(ctx, r, a))
	}
	for _, p := range sd.exports {
		must(t, s.PutPartnerExport(ctx, p))
	}
	for _, dt := range sd.types {
		must(t, s.PutDocumentType(ctx, dt))
	}
	for i, r := range sd.domestic {
		must(t, s.PutDomestic(ctx, finance.InvoiceID(i+1), r))
	}
	for i, rows := range sd.traffic {
		must(t, s.PutTrafficReports(ctx, finance.InvoiceID(i+1), rows))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// documentTexts are texts that tell the stores' string handling apart:
// empty, case and Unicode folding (ß, the Kelvin sign), digits, and
// characters a LIKE or a regular expression would read as patterns.
var documentTexts = []string{"", "acme", "ACME Ltd", "ß-Straße", "\u212aelvin", "kelvin", "50% _off_", `a\b.c*`, "Ünïcode", "2026"}

// documentSeedOf draws a seed of n invoices from rng.
func documentSeedOf(rng *rand.Rand, n int) *documentSeed {
	pick := func(k int) int { return rng.IntN(k) }
	text := func() string { return documentTexts[pick(len(documentTexts))] }
	classes := append(finance.Classes(), "", "OTHER")
	sources := append(finance.DataSources(), "", "OTHER")
	statuses := []finance.Status{finance.Approved, finance.Draft, finance.Deleted, finance.Archived, finance.Imported, finance.Rejected, ""}
	syncs := []finance.SyncStatus{finance.SyncNone, finance.SyncWaiting, finance.SyncDone, finance.SyncError, finance.SyncMisc,
		finance.SyncInvalid, finance.SyncExported, ""}
	numbers := []string{"", "INV-2026/000123", "INV-2026/000124", "Nº 12 ä", "ABC", "0000", "X" + strings.Repeat("9", 19),
		"X00" + strings.Repeat("7", 18), "2026-7-B", "12"}
	amounts := []string{"0", "0.00", "1.50", "-2", "0.005", "100.0450", "-0.5", "98765432.125", "0.015", "12.345"}
	rates := []string{"1", "0.5", "1.0650", "0.123456789", "160.5", "2.5"}
	currencies := []finance.Currency{{}}
	for _, code := range []string{"EUR", "JPY", "KWD", "CHF"} {
		c, _ := finance.CurrencyByCode(code)
		currencies = append(currencies, c)
	}
	sd := &documentSeed{records: map[finance.SourceRef]int64{}, domestic: map[int]finance.DomesticRate{}, traffic: map[int][]finance.TrafficReport{}}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range n {
		inv := distinctInvoice()
		inv.Customer.ID = int64(1 + pick(5))
		inv.Customer.Name, inv.Customer.ShortName, inv.Customer.Type = text(), text(), text()
		inv.Customer.Attn, inv.Customer.Address, inv.Customer.Post, inv.Customer.City, inv.Customer.VatNumber = text(), text(), text(), text(), text()
		inv.Customer.Country = []int{0, 756, 276}[pick(3)]
		inv.UID, inv.Lang, inv.Comment = fmt.Sprintf("uid-%03d", i), []string{"", "en", "de"}[pick(3)], text()
		inv.OwnerID, inv.InstanceID, inv.InvType = int64(pick(4)), int64(pick(3)), int64(pick(5))
		inv.Class, inv.DataSource, inv.Status = classes[pick(len(classes))], sources[pick(len(sources))], statuses[pick(len(statuses))]
		inv.Domain = []finance.Domain{finance.Bulk, finance.BulkMNP, "", "bulk"}[pick(4)]
		inv.Selector = []string{"", finance.PartPayment, "other"}[pick(3)]
		inv.SyncStatus, inv.InvNumberFix = syncs[pick(len(syncs))], numbers[pick(len(numbers))]
		inv.PaymentStatus = []finance.PaymentStatus{"", finance.PaymentOpen, finance.PaymentClosed, finance.PaymentOnHold}[pick(4)]
		inv.DocsDeliveryStatus = []finance.DeliveryStatus{"", finance.DeliverySent, finance.DeliveryError}[pick(3)]
		inv.Currency = currencies[pick(len(currencies))]
		a := func() string { return amounts[pick(len(amounts))] }
		inv.AmountNoVat, inv.AmountVat, inv.Vat, inv.Rounding = dec(a()), dec(a()), dec(a()), dec(a())
		inv.Total, inv.TotalPaid, inv.TotalUnpaid, inv.VatPercent = dec(a()), dec(a()), dec(a()), dec(a())
		date := func() msgkit.Date {
			if pick(6) == 0 {
				return msgkit.Date{}
			}
			return financeDay("2026-01-01").AddDays(pick(90))
		}
		inv.InvDate, inv.DeliveryDate, inv.InvDueDate, inv.InvPeriodStart, inv.InvPeriodEnd = date(), date(), date(), date(), date()
		instant := func() time.Time {
			if pick(5) == 0 {
				return time.Time{}
			}
			return t0.Add(time.Duration(pick(1000)) * time.Minute)
		}
		inv.InsertDt, inv.StatusDt, inv.SyncStatusDt, inv.DeliveryDt = instant(), instant(), instant(), instant()
		inv.Payment = nil
		if pick(3) > 0 {
			inv.Payment = &finance.Payment{PaymentDate: date(), Comment: "p"}
		}
		inv.SourceRecord = nil
		if pick(4) > 0 {
			inv.SourceRecord = &finance.SourceRecord{BillingRecordID: int64(pick(4)), CreditRecordID: int64(pick(4))}
		}
		inv.DocumentSync = nil
		if pick(3) > 0 {
			inv.DocumentSync = json.RawMessage(fmt.Sprintf(`{"ext":"%s-%d"}`, []string{"X", "x", "Y"}[pick(3)], pick(9)))
		}
		inv.Items = nil
		for j := range pick(3) {
			inv.Items = append(inv.Items, finance.Item{Name: text(), Quantity: dec(a()), Price: dec(a()), DataSourceID: int64(pick(8)),
				DataSourceForeignKey: []string{"", "1", "2", "3", "x", "01"}[pick(6)], MeasureUnit: j, TotalNoVat: dec(a()), TotalVat: dec(a())})
		}
		sd.invoices = append(sd.invoices, storedInvoice(inv))
		if pick(3) > 0 {
			sd.domestic[i] = finance.DomesticRate{Currency: currencies[1+pick(len(currencies)-1)], Rate: dec(rates[pick(len(rates))])}
		}
		if pick(3) == 0 {
			var rows []finance.TrafficReport
			for j := range 1 + pick(3) {
				rows = append(rows, finance.TrafficReport{BizPartnerID: inv.Customer.ID, BizPartnerBriefName: text(), MCC: "228",
					MNC: []string{"01", "001", "1"}[j%3], StartDt: instant(), EndDt: instant(), SMSCount: int64(pick(1000)),
					Currency: currencies[pick(len(currencies))], Price: dec(a()), TotalAmount: dec(a()), OperatorName: text()})
			}
			sd.traffic[i] = rows
		}
	}
	for id := range int64(4) {
		if pick(4) > 0 {
			sd.owners = append(sd.owners, finance.Partner{ID: id, Name: text(), ShortName: text()})
		}
	}
	for id := range int64(6) {
		if pick(4) > 0 {
			sd.exports = append(sd.exports, finance.PartnerExport{PartnerID: id, ExternalRefID: text(),
				CustomAttributes: []finance.CustomAttribute{{CodeName: "c", Value: json.RawMessage(`{"k": "` + text() + `"}`)}}})
		}
		if pick(4) > 0 {
			sd.types = append(sd.types, finance.DocumentType{ID: id, Name: text(), SelfBilling: pick(2) == 0})
		}
	}
	eur, _ := finance.CurrencyByCode("EUR")
	for id := range int64(3) {
		sd.accounts = append(sd.accounts, finance.BillingAccount{ID: 100 + id, InstanceID: id, BizPartnerID: id, Currency: eur,
			BillingType: text(), Name: text(), CustomAttributes: []finance.CustomAttribute{{CodeName: "a", Value: json.RawMessage(`"v"`)}},
			SMSConnections: []finance.Connection{{ID: id, InstanceID: 1, Name: text(), AuthName: text(), Protocol: "SMPP"}},
			MNPConnections: []finance.Connection{{ID: 10 + id, InstanceID: 2, Name: text(), AuthName: text(), Protocol: "HTTP"}}})
	}
	for id := range int64(4) {
		sd.records[finance.SourceRef{Kind: finance.BillingRecord, ID: id}] = 100 + int64(pick(4)) // 103: no such account
		sd.records[finance.SourceRef{Kind: finance.CreditRecord, ID: id}] = 100 + int64(pick(4))
	}
	return sd
}

// TestFinanceDocumentsMatchMemstore lists the documents of the same
// seeded invoices and operator data from memstore and PostgreSQL, with
// every operator on every attribute, every sort both ways, searches and
// scopes, and wants the same pages, scales included.
func TestFinanceDocumentsMatchMemstore(t *testing.T) {
	if testing.Short() {
		t.Skip("compares every operator and sort with memstore; the full suite runs it")
	}
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Finance(), memstore.New().Finance()
	sd := documentSeedOf(rand.New(rand.NewPCG(3, 5)), 120)
	sd.put(t, pg)
	sd.put(t, mem)

	all := finance.Scope{All: true}
	docs, err := mem.Documents(ctx, all, finance.DocumentQuery{})
	must(t, err)
	var queries []finance.DocumentQuery
	for _, q := range financetest.OperatorQueries(docs.Items) {
		queries = append(queries, finance.DocumentQuery{List: q})
	}
	operators := len(queries)
	for _, name := range finance.DocumentAttrNames() {
		for _, desc := range []bool{false, true} {
			queries = append(queries, finance.DocumentQuery{List: msgkit.ListQuery{PageNumber: 3, PageSize: 9,
				Sort: []msgkit.SortKey{{Attr: name, Desc: desc}, {Attr: "bizPartnerName", Desc: !desc}}}, Traffic: desc})
		}
	}
	for _, text := range documentTexts[1:] {
		queries = append(queries, finance.DocumentQuery{Search: text, List: msgkit.ListQuery{PageNumber: 1, PageSize: 50}},
			finance.DocumentQuery{Search: strings.ToUpper(text[:1]), Traffic: true, List: msgkit.ListQuery{PageNumber: 2, PageSize: 20}})
	}
	// The queries run on eight connections at once: they only read.
	var compared atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, scope := range []finance.Scope{all, {Partners: []int64{2, 4}}, {}} {
		for i, q := range queries {
			if !scope.All && i%13 != 0 {
				continue
			}
			g.Go(func() error {
				want, err := mem.Documents(gctx, scope, q)
				if err != nil {
					return err
				}
				got, err := pg.Documents(gctx, scope, q)
				if err != nil {
					return fmt.Errorf("%s: %w", financetest.DescribeDocumentQuery(q), err)
				}
				// Whole documents for a quarter of the filters and every
				// other query (cmp.Diff costs more than both listings);
				// ids and totals for every query.
				if whole := i%4 == 0 || i >= operators; whole || want.Total != got.Total || !slices.Equal(docIDs(want.Items), docIDs(got.Items)) {
					if diff := cmp.Diff(want, got, financetest.SameDocuments); diff != "" {
						return fmt.Errorf("%s, scope %+v (-memstore +postgres):\n%s", financetest.DescribeDocumentQuery(q), scope, diff)
					}
				}
				compared.Add(int64(len(want.Items)))
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := compared.Load(); n < 3000 {
		t.Fatalf("only %d documents compared", n)
	}
}

func docIDs(docs []finance.Document) []finance.InvoiceID {
	ids := make([]finance.InvoiceID, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return ids
}

// TestFinanceDocumentsMatchMemstoreRandomly: for any query rapid draws
// (up to three filters with any operator on any attribute, values drawn
// from the documents or beside them, up to two sort keys, a search, a
// page and a scope), memstore and PostgreSQL list the same page.
func TestFinanceDocumentsMatchMemstoreRandomly(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Finance(), memstore.New().Finance()
	sd := documentSeedOf(rand.New(rand.NewPCG(11, 13)), 80)
	sd.put(t, pg)
	sd.put(t, mem)
	docs, err := mem.Documents(ctx, finance.Scope{All: true}, finance.DocumentQuery{})
	must(t, err)
	spec := finance.DocumentSpec()
	names := finance.DocumentAttrNames()
	// Each attribute's values, and some no document has.
	values := map[string][]msgkit.Value{}
	for _, name := range names {
		for _, doc := range docs.Items {
			if v, _ := finance.DocumentValue(doc, name); !v.IsNull() {
				values[name] = append(values[name], v)
			}
		}
		switch spec.Filter[name] {
		case msgkit.AttrString:
			values[name] = append(values[name], msgkit.StringValue("zz"), msgkit.StringValue(""))
		case msgkit.AttrNumber:
			for _, s := range []string{"-1", "0", "0.5", "123", "99999999999"} {
				v, _ := msgkit.NumberValue(s)
				values[name] = append(values[name], v)
			}
		case msgkit.AttrDate:
			values[name] = append(values[name], msgkit.DateValue(financeDay("2026-02-01")))
		case msgkit.AttrDateTime:
			values[name] = append(values[name], msgkit.TimeValue(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
		}
	}
	pattern := []msgkit.Op{msgkit.OpStartsWith, msgkit.OpContains, msgkit.OpEndsWith, msgkit.OpDoesNotContain}
	rapid.Check(t, func(rt *rapid.T) {
		var q finance.DocumentQuery
		for range rapid.IntRange(0, 3).Draw(rt, "filters") {
			name := rapid.SampledFrom(names).Draw(rt, "attr")
			typ := spec.Filter[name]
			op := rapid.SampledFrom(msgkit.Ops()).Draw(rt, "op")
			if slices.Contains(pattern, op) && typ != msgkit.AttrString {
				op = msgkit.OpEq
			}
			val := func() msgkit.Value {
				v := rapid.SampledFrom(values[name]).Draw(rt, "value")
				if slices.Contains(pattern, op) {
					r := []rune(v.Str())
					lo := rapid.IntRange(0, len(r)).Draw(rt, "from")
					hi := rapid.IntRange(lo, len(r)).Draw(rt, "to")
					s := string(r[lo:hi])
					if rapid.Bool().Draw(rt, "upper") {
						s = strings.ToUpper(s)
					}
					return msgkit.StringValue(s)
				}
				return v
			}
			f := msgkit.Filter{Op: op, Attr: name}
			switch op {
			case msgkit.OpIsNull, msgkit.OpIsNotNull, msgkit.OpIsEmpty, msgkit.OpIsNotEmpty:
			case msgkit.OpBetween, msgkit.OpNotBetween:
				lo, hi := val(), val()
				if lo.Compare(hi) > 0 {
					lo, hi = hi, lo
				}
				f.Values = []msgkit.Value{lo, hi}
			case msgkit.OpIn, msgkit.OpNotIn:
				for range rapid.IntRange(1, 3).Draw(rt, "n") {
					f.Values = append(f.Values, val())
				}
			default:
				f.Values = []msgkit.Value{val()}
			}
			q.List.Filters = append(q.List.Filters, f)
		}
		for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 2, func(s string) string { return s }).Draw(rt, "sort") {
			q.List.Sort = append(q.List.Sort, msgkit.SortKey{Attr: name, Desc: rapid.Bool().Draw(rt, "desc")})
		}
		if rapid.IntRange(0, 3).Draw(rt, "search") == 0 {
			q.Search = rapid.SampledFrom(documentTexts[1:]).Draw(rt, "q")
		}
		q.List.PageNumber = rapid.IntRange(1, 4).Draw(rt, "page")
		q.List.PageSize = rapid.IntRange(1, 50).Draw(rt, "size")
		q.Traffic = rapid.Bool().Draw(rt, "traffic")
		scope := rapid.SampledFrom([]finance.Scope{{All: true}, {Partners: []int64{1, 3}}, {Partners: []int64{5}}}).Draw(rt, "scope")
		want, err := mem.Documents(ctx, scope, q)
		if err != nil {
			rt.Fatal(err)
		}
		got, err := pg.Documents(ctx, scope, q)
		if err != nil {
			rt.Fatalf("%s: %v", financetest.DescribeDocumentQuery(q), err)
		}
		if diff := cmp.Diff(want, got, financetest.SameDocuments); diff != "" {
			rt.Fatalf("%s, scope %+v (-memstore +postgres):\n%s", financetest.DescribeDocumentQuery(q), scope, diff)
		}
	})
}

// The store refuses text PostgreSQL cannot hold, naming the field.
func TestFinanceDocumentsRefuseText(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).Finance()
	for name, err := range map[string]error{
		"account name":   s.PutBillingAccount(ctx, finance.BillingAccount{ID: 1, Name: "\xff"}),
		"connection":     s.PutBillingAccount(ctx, finance.BillingAccount{ID: 1, SMSConnections: []finance.Connection{{AuthName: "a\x00"}}}),
		"attribute":      s.PutPartnerExport(ctx, finance.PartnerExport{CustomAttributes: []finance.CustomAttribute{{CodeName: "\xff", Value: json.RawMessage(`"v"`)}}}),
		"external ref":   s.PutPartnerExport(ctx, finance.PartnerExport{ExternalRefID: "\x00"}),
		"type name":      s.PutDocumentType(ctx, finance.DocumentType{Name: "\xff"}),
		"traffic report": s.PutTrafficReports(ctx, 1, []finance.TrafficReport{{MNC: "\xff"}}),
	} {
		if e, ok := errorsAsMsgkit(err); !ok || e.Kind != msgkit.Invalid || e.Code != finance.CodeInvalidExportData || len(e.Fields) == 0 {
			t.Errorf("%s: %v, want Invalid %s naming the field", name, err, finance.CodeInvalidExportData)
		}
	}
}

func errorsAsMsgkit(err error) (*msgkit.Error, bool) { return errors.AsType[*msgkit.Error](err) }
