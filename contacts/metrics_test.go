package contacts_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/msgkit/msgkit/contacts"
)

// The import counter adds each stored import's result by outcome; an
// import that failed adds nothing.
func TestImportMetrics(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	e := newServiceEnv(true)
	svc := e.svc.WithMetrics(reg)
	list := must(svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp("L")}))(t)
	imp := func(resolve, body string) {
		t.Helper()
		o, err := contacts.ParseImportQuery(url.Values{"list_uuid": {list.UUID}, "resolve_duplicate": {resolve}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Import(ctx, tenant, o, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	imp("update", `[{"mobile":"+38640123456"},{"mobile":"+38640123457"},{"mobile":"not a number"}]`)
	imp("skip", `[{"mobile":"+38640123456"},{"mobile":"+38640123458"}]`)
	imp("optout", `[{"mobile":"+38640123457"}]`)
	o, _ := contacts.ParseImportQuery(url.Values{"list_uuid": {"7b1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b92"}})
	if _, err := svc.Import(ctx, tenant, o, strings.NewReader(`[{"mobile":"+38640123459"}]`)); err == nil {
		t.Fatal("an import into no list was stored")
	}
	if _, err := e.svc.Import(ctx, tenant, o, strings.NewReader(`[{"mobile":"+38640123459"}]`)); err == nil {
		t.Fatal("an import into no list was stored")
	}
	want := `
# HELP msgkit_cds_import_rows_total Items of the CDS imports stored, by outcome as the import's result counts them.
# TYPE msgkit_cds_import_rows_total counter
msgkit_cds_import_rows_total{outcome="created"} 3
msgkit_cds_import_rows_total{outcome="deleted"} 0
msgkit_cds_import_rows_total{outcome="invalid"} 1
msgkit_cds_import_rows_total{outcome="opted_in"} 0
msgkit_cds_import_rows_total{outcome="opted_out"} 1
msgkit_cds_import_rows_total{outcome="skipped"} 1
msgkit_cds_import_rows_total{outcome="subscribed"} 0
msgkit_cds_import_rows_total{outcome="unsubscribed"} 0
msgkit_cds_import_rows_total{outcome="updated"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if e.svc.WithMetrics(nil) != e.svc {
		t.Error("WithMetrics(nil) made another service")
	}
}
