package financeapi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/msgkit/msgkit/finance/financetest"
)

// Each of the documents' 13 grouping attributes groups the balances of
// both sides over HTTP (the answers checked against the OpenAPI
// document) into the groups financetest.Groupings lists, and filters
// and sorts when grouped by.
func TestBalancesGroupedByEachAttribute(t *testing.T) {
	e := newEnv(t)
	financetest.SeedGrouping(t, e.store)
	groupings := financetest.Groupings()
	if len(groupings) != 13 {
		t.Fatalf("%d grouping attributes, the documents list 13", len(groupings))
	}
	for _, g := range groupings {
		for _, side := range []struct {
			path string
			want []string
		}{{"customers", g.Customers}, {"suppliers", g.Suppliers}} {
			m := decode(t, e.do(t, admin, "GET", BasePath+"balances/biz-partners/"+side.path+"?group="+g.Attr+"&sort=-"+g.Attr, ""), 200)
			var got []string
			for _, b := range m["data"].([]any) {
				v, ok := b.(map[string]any)[g.Attr]
				if !ok {
					t.Fatalf("%s %s: a balance without %s: %v", g.Attr, side.path, g.Attr, b)
				}
				got = append(got, jsonText(v))
			}
			if len(got) != len(side.want) || !sameValues(got, slices.Clone(side.want)) {
				t.Errorf("%s %s: groups %q, want %q", g.Attr, side.path, got, side.want)
			}
		}
	}
	m := decode(t, e.do(t, admin, "GET", BasePath+"balances/biz-partners/customers?group=docClassArea,documentTypeSelfBilling&docClassArea=invoice", ""), 200)
	for _, b := range m["data"].([]any) {
		if b := b.(map[string]any); b["docClassArea"] != "invoice" || b["documentTypeSelfBilling"] == nil {
			t.Errorf("filtered by docClassArea=invoice: %v", b)
		}
	}
	if n := len(m["data"].([]any)); n != 2 {
		t.Errorf("invoices self-billing and not: %d balances, want 2", n)
	}
	wantFinanceError(t, e.bad(t, admin, "GET", BasePath+"balances/biz-partners/customers?docClassArea=invoice", ""), 400, "docClassArea")
}

// jsonText is a decoded JSON value as financetest.Groupings writes it.
func jsonText(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

func sameValues(a, b []string) bool {
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
