package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/auth"
	"github.com/msgkit/msgkit/finance"
	"github.com/prometheus/client_golang/prometheus"
)

// The finance interface's own lists, copied from it word for word: the
// invoice listing's filter attributes, its sort attributes, the
// attributes q searches, and the balances' grouping attributes.
// TestFinanceListingAttributes tries every one through HTTP on both
// stores, so none can be missed or refused.
var (
	documentedInvoiceFilters = strings.Split("amountNoVat, amountVat, classCodeName, collectionLeadId, collectionLeadNumber, collectionMode, currency, custCountry, custID, custName, custPOBox, custShortName, customerType, dataSourceCodeName, disputeStatus, docsDeliveryStatus, documentSync, domainCodeName, domainName, dtsSelectorCodeName, dtsSelectorId, externalRefId, id, invDate, invDueDate, invNumber, invPeriod, invPeriodEnd, invPeriodStart, invType, invTypeName, invUid, invoiceTypeName, invoicingDate, invoicingDatePolicy, nettingInvoiceId, nettingInvoicePaymentStatus, nettingInvoiceStatus, overDueDate, ownerBpBriefName, ownerBpName, ownerId, paymentStatus, processingStatus, rounding, selfBilling, status, statusDt, syncMode, syncStatus, syncStatusDt, total, totalPaid, totalUnpaid, vat", ", ")
	documentedInvoiceSorts   = strings.Split("amountNoVat, amountVat, collectionLeadId, collectionMode, currency, custID, customerShortName, deliveryDate, disputeStatus, documentSync, externalRefId, id, invDate, invDueDate, invNumber, invPeriod, invPeriodEnd, invPeriodStart, invUid, invoiceType, invoiceTypeName, invoicingDate, invoicingDatePolicy, nettingInvoiceId, nettingInvoicePaymentStatus, nettingInvoiceStatus, overDueDate, ownerBpBriefName, ownerBpName, ownerId, paymentStatus, processingStatus, rounding, status, total, totalUnpaid, vat", ", ")
	documentedInvoiceSearch  = strings.Split("custName, customerShortName, invUid, ownerBpBriefName, ownerBpName, ownerId, status", ", ")
	documentedBalanceGroups  = strings.Split("domainId, domainCodeName, docClassId, docClassCodeName, docClassDomain, docClassArea, dataSourceId, dataSourceCodeName, documentTypeId, documentTypeName, documentTypeSelfBilling, documentTypeDtsSelectorId, documentTypeDtsSelectorCodeName", ", ")
)

// The listing's partners' references in the operator's systems, which
// the invoice answer does not carry: the oracle of externalRefId.
var listingRefs = map[float64]string{1001: "ERP-1001", 2001: "ERP-2001"}

// answerName is the invoice answer's field that says what a listing
// attribute reads: the field of the same name, or of the name the
// attribute stands for (customerShortName is custShortName, ...).
func answerName(attr string) string {
	switch attr {
	case "customerShortName":
		return "custShortName"
	case "invoiceType":
		return "invType"
	case "invoiceTypeName":
		return "invTypeName"
	case "nettingInvoicePaymentStatus":
		return "nettingPaymentStatus"
	}
	return attr
}

// invoiceField is what an invoice answer says of a listing attribute
// (answerName; externalRefId, which the answer does not carry, from the
// partners' references); nil is null, as is an empty text, which the
// listing reads as null.
func invoiceField(inv map[string]any, attr string) any {
	switch attr {
	case "externalRefId":
		if ref, ok := listingRefs[inv["custID"].(float64)]; ok {
			return ref
		}
		return nil
	case "documentSync":
		if inv[attr] == nil {
			return nil
		}
		b, _ := json.Marshal(inv[attr])
		return string(b)
	}
	v := inv[answerName(attr)]
	if s, isText := v.(string); isText && s == "" {
		return nil
	}
	return v
}

// TestFinanceListingAttributes lists invoices through HTTP, on each
// store, by every filter, sort and search attribute the interface names
// and balances by every grouping it names, and checks each answer against
// what the invoices' own answers say: eq(attr)=v lists exactly the
// invoices whose answer has v, isnull(attr) those whose answer has null,
// sort=attr and sort=-attr order the answers by it, q finds an invoice by
// each searched attribute, and balances grouped by an attribute sum to
// the ungrouped balance.
func TestFinanceListingAttributes(t *testing.T) {
	for name, cfgOf := range walkStores(t) {
		t.Run(name, func(t *testing.T) {
			l := newListingWorld(t, cfgOf(t))
			all := l.list(t, url.Values{"page_size": {"100"}, "sort": {"id"}})
			if len(all) < 6 {
				t.Fatalf("only %d invoices", len(all))
			}
			for _, attr := range slices.Concat(documentedInvoiceFilters, documentedInvoiceSorts, documentedInvoiceSearch) {
				if _, ok := all[0][answerName(attr)]; !ok && attr != "externalRefId" {
					t.Fatalf("the invoice answer has no field for %s", attr)
				}
			}
			ids := func(invs []map[string]any) []float64 {
				out := []float64{}
				for _, inv := range invs {
					out = append(out, inv["id"].(float64))
				}
				slices.Sort(out)
				return out
			}
			for _, attr := range documentedInvoiceFilters {
				var values []any
				var nulls []map[string]any
				for _, inv := range all {
					v := invoiceField(inv, attr)
					if v == nil {
						nulls = append(nulls, inv)
					} else if !slices.ContainsFunc(values, func(x any) bool { return sameValue(x, v) }) {
						values = append(values, v)
					}
				}
				if len(values) == 0 || len(values) == 1 && len(nulls) == 0 {
					t.Errorf("%s: the invoices take %d values of it and %d nulls: too few to show the filter", attr, len(values), len(nulls))
				}
				got := l.list(t, url.Values{"page_size": {"100"}, "isnull(" + attr + ")": {""}})
				if !slices.Equal(ids(got), ids(nulls)) {
					t.Errorf("isnull(%s): %v, want %v", attr, ids(got), ids(nulls))
				}
				for _, v := range values {
					var want []map[string]any
					for _, inv := range all {
						if x := invoiceField(inv, attr); x != nil && sameValue(x, v) {
							want = append(want, inv)
						}
					}
					got := l.list(t, url.Values{"page_size": {"100"}, "eq(" + attr + ")": {queryValue(v)}})
					if !slices.Equal(ids(got), ids(want)) {
						t.Errorf("eq(%s)=%s: %v, want %v", attr, queryValue(v), ids(got), ids(want))
					}
				}
			}
			for _, attr := range documentedInvoiceSorts {
				for _, desc := range []bool{false, true} {
					key := attr
					if desc {
						key = "-" + attr
					}
					got := l.list(t, url.Values{"page_size": {"100"}, "sort": {key}})
					if len(got) != len(all) {
						t.Fatalf("sort=%s: %d invoices, want %d", key, len(got), len(all))
					}
					checkOrder(t, key, got, attr, desc)
				}
			}
			for _, attr := range documentedInvoiceSearch {
				var inv map[string]any
				for _, x := range all {
					if invoiceField(x, attr) != nil && (attr != "ownerId" || x[attr].(float64) != 0) {
						inv = x
						break
					}
				}
				if inv == nil {
					t.Fatalf("q by %s: no invoice has one", attr)
				}
				text := queryValue(invoiceField(inv, attr))
				got := l.list(t, url.Values{"page_size": {"100"}, "q": {strings.ToUpper(text)}})
				if !slices.Contains(ids(got), inv["id"].(float64)) {
					t.Errorf("q=%s (its %s): %v lacks invoice %v", text, attr, ids(got), inv["id"])
				}
				for _, x := range got {
					if !matchesSearch(x, text) {
						t.Errorf("q=%s lists invoice %v, which none of %v matches", text, x["id"], documentedInvoiceSearch)
					}
				}
			}
			total := l.balanceTotals(t, "")
			for _, attr := range documentedBalanceGroups {
				if got := l.balanceTotals(t, attr); !got.Equal(total) {
					t.Errorf("balances grouped by %s sum to %s, ungrouped %s", attr, got, total)
				}
			}
		})
	}
}

// sameValue compares two answer values: numbers by value.
func sameValue(a, b any) bool {
	if x, ok := a.(float64); ok {
		y, ok := b.(float64)
		return ok && decimal.NewFromFloat(x).Equal(decimal.NewFromFloat(y))
	}
	return a == b
}

// queryValue is an answer value as a filter's value.
func queryValue(v any) string {
	if f, ok := v.(float64); ok {
		return decimal.NewFromFloat(f).String()
	}
	return fmt.Sprint(v)
}

// matchesSearch reports whether q=text finds inv: a searched text
// contains it (case-insensitively) or the owner id is it.
func matchesSearch(inv map[string]any, text string) bool {
	for _, attr := range documentedInvoiceSearch {
		v := invoiceField(inv, attr)
		switch v := v.(type) {
		case string:
			if strings.Contains(strings.ToLower(v), strings.ToLower(text)) {
				return true
			}
		case float64:
			if queryValue(v) == text {
				return true
			}
		}
	}
	return false
}

// checkOrder wants invs ordered by attr: nulls together at one end, the
// rest in order (numbers by value, texts byte by byte).
func checkOrder(t *testing.T, key string, invs []map[string]any, attr string, desc bool) {
	t.Helper()
	var values []any
	var nulls []int // positions
	for i, inv := range invs {
		if v := invoiceField(inv, attr); v == nil {
			nulls = append(nulls, i)
		} else {
			values = append(values, v)
		}
	}
	first, last := true, true // the nulls are a prefix, a suffix
	for k, i := range nulls {
		first = first && i == k
		last = last && i == len(invs)-len(nulls)+k
	}
	if !first && !last {
		t.Errorf("sort=%s: nulls at %v of %d, not together at one end", key, nulls, len(invs))
	}
	for i := 1; i < len(values); i++ {
		c := compareValues(values[i-1], values[i])
		if desc {
			c = -c
		}
		if c > 0 {
			t.Errorf("sort=%s: %v before %v", key, values[i-1], values[i])
			return
		}
	}
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case float64:
		return decimal.NewFromFloat(x).Cmp(decimal.NewFromFloat(b.(float64)))
	case string:
		return strings.Compare(x, b.(string))
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

// listingWorld is a platform on one store with invoices that give every
// listing attribute values of its own, and a token that sees and manages
// them all.
type listingWorld struct {
	api   http.Handler
	token string
}

func newListingWorld(t *testing.T, cfg config) *listingWorld {
	t.Helper()
	ctx := context.Background()
	cfg.demo, cfg.bcryptCost = false, bcrypt.MinCost
	cfg.getenv = func(string) string { return "" }
	logger := slog.New(slog.DiscardHandler)
	st, err := openStores(ctx, cfg, nil, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.close)
	p := newPlatform(st, cfg, prometheus.NewRegistry(), logger)
	l := &listingWorld{api: p.apiHandler()}
	a := auth.New(st.auth, auth.Options{BcryptCost: bcrypt.MinCost})
	if _, _, err := a.CreateClient(ctx, auth.ClientSpec{ID: "listing", Secret: walkSecret, Networks: mustPrefixes(t, "192.0.2.0/24"),
		Privileges: auth.Privileges()}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"listing"}, "client_secret": {walkSecret}}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	l.call(t, http.MethodPost, httpapi.TokenPath, "application/x-www-form-urlencoded", form.Encode(), &tok)
	l.token = tok.AccessToken
	l.seed(t, ctx, st.finance)
	return l
}

// call serves one request and wants 200, decoding the answer into out.
func (l *listingWorld) call(t *testing.T, method, target, contentType, body string, out any) {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.RemoteAddr = walkRemote
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	if l.token != "" {
		r.Header.Set("Authorization", "Bearer "+l.token)
	}
	rec := httptest.NewRecorder()
	l.api.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
	}
}

// list lists invoices with query v.
func (l *listingWorld) list(t *testing.T, v url.Values) []map[string]any {
	t.Helper()
	var page struct {
		Data []map[string]any `json:"data"`
	}
	l.call(t, http.MethodGet, "/finance/sit/v1/invoices?"+v.Encode(), "", "", &page)
	return page.Data
}

// balanceTotals sums the totals of every customer balance grouped by
// group ("" ungrouped).
func (l *listingWorld) balanceTotals(t *testing.T, group string) decimal.Decimal {
	t.Helper()
	v := url.Values{"page_size": {"100"}}
	if group != "" {
		v.Set("group", group)
	}
	var page struct {
		Data []map[string]any `json:"data"`
	}
	l.call(t, http.MethodGet, "/finance/sit/v1/balances/biz-partners/customers?"+v.Encode(), "", "", &page)
	sum := decimal.Zero
	for _, b := range page.Data {
		if _, ok := b[group]; group != "" && !ok {
			t.Errorf("a balance grouped by %s lacks it: %v", group, b)
		}
		sum = sum.Add(decimal.NewFromFloat(b["total"].(float64)))
	}
	return sum
}

// seed stores the operator data (partners, owners, their references,
// document types) and makes invoices and their memberships through the
// API whose values differ
// in every listing attribute: classes, data sources and selectors, dates
// past due and not, the workflow values, owners, a sync document, and a
// netting statement and a collection lead with members.
func (l *listingWorld) seed(t *testing.T, ctx context.Context, st financeStore) {
	t.Helper()
	ex, ok := st.(finance.ExportStore)
	if !ok {
		t.Fatal("the finance store keeps no export data")
	}
	for _, p := range []finance.Partner{
		{ID: 1001, Name: "Alpha Shop d.o.o.", ShortName: "Alpha", POBox: "PO 11", Country: 705, Type: "customer"},
		{ID: 1002, Name: "Beta Retail", ShortName: "Beta", Country: 191, Type: "reseller"},
		{ID: 2001, Name: "Gamma Carrier", ShortName: "Gamma", Country: 276, Type: "supplier"},
		{ID: 500, Name: "Owner North", ShortName: "North"},
		{ID: 600, Name: "Owner South", ShortName: "South"},
	} {
		if err := st.PutPartner(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for id, ref := range listingRefs {
		if err := ex.PutPartnerExport(ctx, finance.PartnerExport{PartnerID: int64(id), ExternalRefID: ref}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ty := range []finance.DocumentType{{ID: 11, Name: "Invoice"}, {ID: 12, Name: "Self-billed invoice", SelfBilling: true}, {ID: 13, Name: "Statement"}} {
		if err := ex.PutDocumentType(ctx, ty); err != nil {
			t.Fatal(err)
		}
	}
	post := func(class, body string) float64 {
		var inv map[string]any
		l.call(t, http.MethodPost, "/finance/sit/v1/invoices?classCodeName="+class, "application/json", body, &inv)
		return inv["id"].(float64)
	}
	items := `"items":[{"name":"SMS","quantity":1000,"price":0.05},{"name":"Fee","quantity":1,"price":25}]`
	lead := post("CUSTOMER_INVOICE", `{"custID":1001,"currency":978,"invType":11,"invNumberFix":"INV-2026-0001","invDate":"2026-01-10","deliveryDate":"2026-01-10","invDueDate":"2026-02-10",
		"invoicingDate":"2026-01-11","invPeriodStart":"2026-01-01","invPeriodEnd":"2026-01-31","invPeriod":"January","vatPercent":22,"status":"approved",
		"dataSourceCodeName":"POSTPAID","domainCodeName":"BULK","ownerId":500,"processingStatus":"scheduled","disputeStatus":"open",
		"invoicingDatePolicy":"delivery","syncMode":"manual",`+items+`}`)
	post("CUSTOMER_INVOICE", `{"custID":1002,"currency":840,"invType":12,"invNumberFix":"INV-2026-0002","invDate":"2026-03-01","deliveryDate":"2026-03-01","invDueDateDays":3650,
		"vatPercent":9.5,"status":"approved","dataSourceCodeName":"POSTPAID","dtsSelectorCodeName":"PART-PAYMENT","domainCodeName":"BULK-MNP",
		"ownerId":600,"processingStatus":"running","disputeStatus":"closed","invoicingDatePolicy":"invoice","custPOBox":"PO 77",
		"payment":{"fullyPaid":true,"paymentDate":"2026-03-05"},`+items+`}`)
	supplier := post("SUPPLIER_INVOICE", `{"custID":2001,"currency":756,"invType":11,"invDate":"2026-02-01","deliveryDate":"2026-02-01","invDueDate":"2026-02-20",
		"supplierInvNumber":"G-77","amountNoVat":100,"amountVat":122.02,"total":122.00,"dataSourceCodeName":"SUPPLIER-INVOICE","domainCodeName":"BULK"}`)
	stmt := post("NETTING_INVOICE", `{"custID":1001,"currency":978,"invType":13,"invNumberFix":"NET-2026-0001","invDueDateDays":30,"invDate":"2026-02-28","deliveryDate":"2026-02-28",
		"dataSourceCodeName":"FINANCE","domainCodeName":"BULK"}`)
	note := post("CREDIT_DEBIT_NOTE", `{"custID":1001,"currency":978,"invType":11,"invNumberFix":"CN-2026-0001","invDueDateDays":15,"invDate":"2026-02-15","deliveryDate":"2026-02-15",
		"vatPercent":22,"status":"approved","dataSourceCodeName":"PREPAID","domainCodeName":"BULK","syncMode":"automatic",
		"items":[{"name":"Refund","quantity":-1,"price":10}]}`)
	post("CUSTOMER_INVOICE", `{"custID":1002,"currency":978,"invType":11,"invNumberFix":"DRAFT-9","invDueDateDays":10,"vatPercent":22,
		"dataSourceCodeName":"POSTPAID","domainCodeName":"BULK",`+items+`}`)
	var sync map[string]any
	l.call(t, http.MethodPut, fmt.Sprintf("/finance/sit/v1/invoices/%v/sync-status", supplier), "application/json",
		`{"status":"done","documentSync":{"externalId":"FIN-77"}}`, &sync)
	l.call(t, http.MethodPut, fmt.Sprintf("/finance/sit/v1/invoices/%v/docs-delivery-status", lead), "application/json", `{"status":"sent"}`, nil)
	// Memberships: the lead and the note in the statement, the note
	// collected into the lead.
	for _, m := range []struct {
		id   float64
		path string
		body string
	}{{lead, "netting", `{"nettingInvoiceId":%v}`}, {note, "netting", `{"nettingInvoiceId":%v}`}, {note, "collection", `{"collectionLeadId":%v}`}} {
		group := stmt
		if m.path == "collection" {
			group = lead
		}
		l.call(t, http.MethodPut, fmt.Sprintf("/finance/sit/v1/invoices/%v/%s", m.id, m.path), "application/json", fmt.Sprintf(m.body, group), nil)
	}
	var lst map[string]any
	l.call(t, http.MethodGet, fmt.Sprintf("/finance/sit/v1/invoices/%v", note), "", "", &lst)
	if lst["nettingInvoiceNumber"] != "NET-2026-0001" || lst["collectionLeadNumber"] != "INV-2026-0001" {
		t.Fatalf("the note's answer names statement %v and lead %v", lst["nettingInvoiceNumber"], lst["collectionLeadNumber"])
	}
}
