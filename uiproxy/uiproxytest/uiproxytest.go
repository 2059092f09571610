// Package uiproxytest is the store contract of package uiproxy: every
// uiproxy.Store passes Run, so that memstore and pgstore behave
// alike.
package uiproxytest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/uiproxy"
)

// Run runs the contract against stores newStore makes, each
// empty.
func Run(t *testing.T, newStore func(t *testing.T) uiproxy.Store) {
	s := newStore(t)
	ctx := t.Context()
	if cs, err := s.List(ctx, msgkit.ListQuery{}); err != nil || len(cs.Items) != 0 || cs.Total != 0 {
		t.Fatalf("an empty store lists %v, %v", cs, err)
	}
	g := uiproxy.Component{
		ID: "invoices", Type: uiproxy.Grid, Service: "6f1e0c3a-2b4d-4e5f-8a9b-0c1d2e3f4a5b", CacheTTL: 30 * time.Second, URL: "https://api.customer.example/{referenceId}/invoices?page={pageNumber}&t={tenant}",
		Fixed: map[string]string{"tenant": "acme"}, TokenHeader: "X-Token", Token: "s3cret", Timeout: 3 * time.Second,
		Columns: []uiproxy.Column{{Name: "id", Kind: uiproxy.Number, Filterable: true, Sortable: true}, {Name: "url", Kind: uiproxy.String}},
	}
	k := uiproxy.Component{ID: "balance", Type: uiproxy.KPI, URL: "https://api.customer.example/kpi/{referenceId}", Token: "t"}
	for _, c := range []uiproxy.Component{g, k} {
		if err := s.Put(ctx, c); err != nil {
			t.Fatalf("Put(%s): %v", c.ID, err)
		}
	}
	got, err := s.Component(ctx, "invoices")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g, got); diff != "" {
		t.Errorf("the grid read back differs (-want +got):\n%s", diff)
	}
	got.Fixed["tenant"], got.Columns[0].Name = "changed", "changed"
	if again, _ := s.Component(ctx, "invoices"); again.Fixed["tenant"] != "acme" || again.Columns[0].Name != "id" {
		t.Error("a component read back shares memory with the store")
	}
	page, err := s.List(ctx, msgkit.ListQuery{})
	cs := page.Items
	if err != nil || len(cs) != 2 || cs[0].ID != "balance" || cs[1].ID != "invoices" || page.Total != 2 {
		t.Fatalf("List = %+v, %v (want by id)", page, err)
	}
	if diff := cmp.Diff(k, cs[0]); diff != "" {
		t.Errorf("the KPI listed differs (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name string
		q    msgkit.ListQuery
		want []string
	}{
		{"the tenant's", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "service", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue(string(g.Service))}}}}, []string{"invoices"}},
		{"without a tenant", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "service", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("")}}}}, []string{"balance"}},
		{"KPIs", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "type", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("KPI")}}}}, []string{"balance"}},
		{"by type descending, one a page", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "type", Desc: true}}, PageNumber: 1, PageSize: 1}, []string{"invoices"}},
	} {
		page, err := s.List(ctx, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range page.Items {
			got = append(got, c.ID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	g.URL, g.Columns = "https://other.example/{referenceId}", g.Columns[:1]
	if err := s.Put(ctx, g); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Component(ctx, "invoices"); got.URL != g.URL || len(got.Columns) != 1 {
		t.Errorf("a replaced component: %+v", got)
	}
	if err := s.Delete(ctx, "balance"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Component(ctx, "balance"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("a deleted component: %v", err)
	}
	if err := s.Delete(ctx, "balance"); msgkit.KindOf(err) != msgkit.NotFound {
		t.Errorf("deleting twice: %v", err)
	}
}
