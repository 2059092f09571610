package financeapi

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// nettingBody is a netting statement of partner cust in EUR.
func nettingBody(cust int64) string {
	return fmt.Sprintf(`{"custID": %d, "invNumberFix": "N-1", "currency": 978, "invDueDateDays": 30, "invType": 4, "templateId": 2}`, cust)
}

// noteBody is a credit note of partner cust: -5.00 EUR.
func noteBody(cust int64) string {
	return fmt.Sprintf(`{"custID": %d, "invNumberFix": "CN-1", "currency": 978, "invDueDateDays": 30, "amountNoVat": -5.00, "amountVat": -5.00, "total": -5.00}`, cust)
}

// listed is the ids a listing answers.
func (e *env) listed(t *testing.T, query string) []int64 {
	t.Helper()
	var ids []int64
	for _, inv := range decode(t, e.do(t, admin, "GET", BasePath+"invoices?"+query, ""), 200)["data"].([]any) {
		ids = append(ids, id(inv.(map[string]any)))
	}
	return ids
}

func TestNetting(t *testing.T) {
	e := newEnv(t)
	stmt := id(e.create(t, "NETTING_INVOICE", nettingBody(custB)))
	cust := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	supp := id(e.create(t, "SUPPLIER_INVOICE", strings.Replace(supplierBody, "2001", fmt.Sprint(custB), 1)))
	path := func(n int64) string { return fmt.Sprintf("%sinvoices/%d/netting", BasePath, n) }
	join := fmt.Sprintf(`{"nettingInvoiceId": %d}`, stmt)
	for _, n := range []int64{cust, supp} {
		m := decode(t, e.do(t, admin, "PUT", path(n), join), 200)
		if m["id"] != float64(n) || m["nettingInvoiceId"] != float64(stmt) {
			t.Fatalf("joined: id %v, nettingInvoiceId %v", m["id"], m["nettingInvoiceId"])
		}
	}
	// 24.99 owed by the partner, 120.00 owed to it.
	w := e.do(t, admin, "GET", fmt.Sprintf("%sinvoices/%d", BasePath, stmt), "")
	for _, amt := range []string{`"total":-95.01`, `"amountNoVat":-79.17`, `"totalUnpaid":-95.01`} {
		if !strings.Contains(w.Body.String(), amt) {
			t.Errorf("statement lacks %s: %s", amt, w.Body)
		}
	}
	if got := e.listed(t, fmt.Sprintf("nettingInvoiceId=%d", stmt)); fmt.Sprint(got) != fmt.Sprint([]int64{cust, supp}) {
		t.Errorf("nettingInvoiceId=%d lists %v", stmt, got)
	}
	// A member is not updated; a second statement is a conflict.
	wantFinanceError(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d", BasePath, cust), `{"comment": "x"}`), 409, "netting statement")
	other := id(e.create(t, "NETTING_INVOICE", nettingBody(custB)))
	wantFinanceError(t, e.do(t, admin, "PUT", path(cust), fmt.Sprintf(`{"nettingInvoiceId": %d}`, other)), 409, "leaves that one first")
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"no statement", `{}`, 400, "nettingInvoiceId"},
		{"zero", `{"nettingInvoiceId": 0}`, 400, "nettingInvoiceId"},
		{"a string", `{"nettingInvoiceId": "7"}`, 400, "nettingInvoiceId"},
		{"not JSON", `{"nettingInvoiceId": `, 400, ""},
		{"unknown statement", `{"nettingInvoiceId": 999}`, 400, "nettingInvoiceId"},
		{"not a statement", fmt.Sprintf(`{"nettingInvoiceId": %d}`, supp), 400, "nettingInvoiceId"},
		{"a statement as member", join, 400, "invoiceid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			member := other
			if tc.name != "a statement as member" {
				member = id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
			}
			wantFinanceError(t, e.bad(t, admin, "PUT", path(member), tc.body), tc.status, tc.says)
		})
	}
	wantFinanceError(t, e.do(t, admin, "PUT", path(999), join), 404, "INVOICE_NOTFOUND")
	wantFinanceError(t, e.bad(t, admin, "PUT", BasePath+"invoices/x/netting", join), 400, "invoiceid")
	// Leaving, twice: the second changes nothing.
	for range 2 {
		m := decode(t, e.do(t, admin, "DELETE", path(cust), ""), 200)
		if m["nettingInvoiceId"] != nil {
			t.Fatalf("left: nettingInvoiceId %v", m["nettingInvoiceId"])
		}
	}
	if got := e.listed(t, fmt.Sprintf("nettingInvoiceId=%d", stmt)); fmt.Sprint(got) != fmt.Sprint([]int64{supp}) {
		t.Errorf("after leaving, nettingInvoiceId=%d lists %v", stmt, got)
	}
	// An approved statement is closed.
	decode(t, e.do(t, admin, "PUT", fmt.Sprintf("%sinvoices/%d", BasePath, stmt), `{"status": "approved"}`), 200)
	wantFinanceError(t, e.do(t, admin, "DELETE", path(supp), ""), 409, "closed")
	wantFinanceError(t, e.do(t, admin, "PUT", path(cust), join), 409, "closed")
}

func TestCollection(t *testing.T) {
	e := newEnv(t)
	lead := id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB)))
	note := id(e.create(t, "CREDIT_DEBIT_NOTE", noteBody(custB)))
	path := func(n int64) string { return fmt.Sprintf("%sinvoices/%d/collection", BasePath, n) }
	join := fmt.Sprintf(`{"collectionLeadId": %d}`, lead)
	m := decode(t, e.do(t, admin, "PUT", path(note), join), 200)
	if m["collectionMode"] != "member" || m["collectionLeadId"] != float64(lead) {
		t.Fatalf("joined: %v %v", m["collectionMode"], m["collectionLeadId"])
	}
	if m := decode(t, e.do(t, admin, "GET", fmt.Sprintf("%sinvoices/%d", BasePath, lead), ""), 200); m["collectionMode"] != "lead" {
		t.Errorf("lead's collectionMode %v", m["collectionMode"])
	}
	for _, q := range []string{fmt.Sprintf("collectionLeadId=%d", lead), "collectionMode=member"} {
		if got := e.listed(t, q); fmt.Sprint(got) != fmt.Sprint([]int64{note}) {
			t.Errorf("%s lists %v", q, got)
		}
	}
	wantFinanceError(t, e.do(t, admin, "DELETE", fmt.Sprintf("%sinvoices/%d", BasePath, note), ""), 409, "collection member")
	for _, tc := range []struct {
		name, body string
		member     int64
		says       string
	}{
		{"no lead", `{}`, note, "collectionLeadId"},
		{"negative", `{"collectionLeadId": -1}`, note, "collectionLeadId"},
		{"a number as text", `{"collectionLeadId": "1"}`, note, "collectionLeadId"},
		{"an invoice as member", join, id(e.create(t, "CUSTOMER_INVOICE", customerBody(custB))), "invoiceid"},
		{"another partner's note", join, id(e.create(t, "CREDIT_DEBIT_NOTE", noteBody(custOther))), "collectionLeadId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantFinanceError(t, e.bad(t, admin, "PUT", path(tc.member), tc.body), 400, tc.says)
		})
	}
	m = decode(t, e.do(t, admin, "DELETE", path(note), ""), 200)
	if m["collectionMode"] != "none" || m["collectionLeadId"] != nil {
		t.Errorf("left: %v %v", m["collectionMode"], m["collectionLeadId"])
	}
	if m := decode(t, e.do(t, admin, "GET", fmt.Sprintf("%sinvoices/%d", BasePath, lead), ""), 200); m["collectionMode"] != "none" {
		t.Errorf("lead without members: collectionMode %v", m["collectionMode"])
	}
}

// Another tenant's invoices: a member answers as an unknown invoice, a
// statement or lead as an unknown one, and nothing changes.
func TestMembershipStaysInScope(t *testing.T) {
	e := newEnv(t)
	answer := func(w *httptest.ResponseRecorder, n int64) string {
		return fmt.Sprint(w.Code, " ", strings.ReplaceAll(w.Body.String(), fmt.Sprintf(" %d", n), " {id}"))
	}
	for _, g := range []struct {
		route, field, groupClass, groupBody, memberClass string
		member                                           func(int64) string
	}{
		{"netting", "nettingInvoiceId", "NETTING_INVOICE", nettingBody(custOther), "CUSTOMER_INVOICE", customerBody},
		{"collection", "collectionLeadId", "CUSTOMER_INVOICE", customerBody(custOther), "CREDIT_DEBIT_NOTE", noteBody},
	} {
		t.Run(g.route, func(t *testing.T) {
			theirs := id(e.create(t, g.groupClass, g.groupBody))
			mine := id(e.create(t, g.memberClass, g.member(custB)))
			theirMember := id(e.create(t, g.memberClass, g.member(custOther)))
			path := func(n int64) string { return fmt.Sprintf("%sinvoices/%d/%s", BasePath, n, g.route) }
			body := func(n int64) string { return fmt.Sprintf(`{"%s": %d}`, g.field, n) }
			got := e.do(t, ownManager, "PUT", path(mine), body(theirs))
			wantFinanceError(t, got, 400, g.field, "not found")
			if a, b := answer(got, theirs), answer(e.do(t, ownManager, "PUT", path(mine), body(999)), 999); a != b {
				t.Errorf("another tenant's group answers %s, an unknown one %s", a, b)
			}
			for _, method := range []string{"PUT", "DELETE"} {
				b := ""
				if method == "PUT" {
					b = body(theirs)
				}
				got := e.do(t, ownManager, method, path(theirMember), b)
				wantFinanceError(t, got, 404, "INVOICE_NOTFOUND")
				if a, u := answer(got, theirMember), answer(e.do(t, ownManager, method, path(999), b), 999); a != u {
					t.Errorf("%s another tenant's member answers %s, an unknown one %s", method, a, u)
				}
			}
			if got := e.listed(t, fmt.Sprintf("%s=%d", g.field, theirs)); len(got) != 0 {
				t.Errorf("another tenant's group got members %v", got)
			}
		})
	}
}
