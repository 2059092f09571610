package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
)

// The example's finance section applies through the Service, and again
// on a restart against the same store without error or change; broken
// records are refused naming them.
func TestBootstrapFinance(t *testing.T) {
	ctx := t.Context()
	raw, err := os.ReadFile("bootstrap.example.json")
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	st := memstore.New().Finance()
	svc := finance.NewService(st, finance.Options{Tenants: st, Partners: st, Export: st, ConfigStore: st, Documents: st})
	first, err := bootstrapFinance(ctx, svc, file["finance"])
	if err != nil || first != 7 {
		t.Fatalf("the example's finance section: %d records, %v; want 7", first, err)
	}
	p1, _ := svc.Partner(ctx, 1001)
	if n, err := bootstrapFinance(ctx, svc, file["finance"]); err != nil || n != first {
		t.Fatalf("again: %d, %v", n, err)
	}
	p2, err := svc.Partner(ctx, 1001)
	if err != nil || p2.Service != "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90" || p2.Export.ExternalRefID != "ERP-1001" || p1.Name != p2.Name {
		t.Errorf("the partner after two starts: %+v, %v", p2, err)
	}
	if ids, _ := st.PartnersOf(ctx, []msgkit.ServiceUUID{p2.Service}); len(ids) != 1 || ids[0] != 1001 {
		t.Errorf("the tenant's partners: %v", ids)
	}
	if cs, _ := st.Configs(ctx); len(cs) != 2 {
		t.Errorf("configs %v, want the example's two", cs)
	}

	for _, tt := range []struct{ section, says string }{
		{`{"partners": [{"id": 1, "name": "A"}, {"id": 2}]}`, "finance.partners[1]"},
		{`{"partners": [{"id": 1, "name": "A", "colour": "red"}]}`, "colour"},
		{`{"billingAccounts": [{"id": 1, "bizPartnerId": 1, "currency": "XYZ"}]}`, "finance.billingAccounts[0]: unknown currency"},
		{`{"sourceRecords": [{"kind": "debit", "id": 1, "billingAccountId": 1}]}`, "finance.sourceRecords[0]: kind"},
		{`{"documentTypes": [{"id": 1, "name": "T", "selfBilling": "sometimes"}]}`, "finance.documentTypes[0]: selfBilling"},
		{`{"configs": [{"typeId": 1, "templateLang": "en", "name": "C", "domainCodeName": "SMS", "dataSourceCodeName": "POSTPAID", "docClassCodeName": "CUSTOMER_INVOICE"}]}`, "finance.configs[0]"},
		{`[]`, "finance:"},
	} {
		if _, err := bootstrapFinance(ctx, svc, json.RawMessage(tt.section)); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want an error naming %q", tt.section, err, tt.says)
		}
	}
}
