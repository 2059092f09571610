package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/financeapi"
	"github.com/msgkit/msgkit/finance"
)

// financeStore is what the finance family runs on: invoices, balances,
// sheets, file records, the tenants of partners, the documents export and
// the operator's reference data in one, as memstore's and pgstore's
// finance stores are.
type financeStore interface {
	finance.Store
	finance.BalanceStore
	finance.SheetStore
	finance.FileStore
	finance.PartnerTenants
	finance.DocumentStore
	finance.ExportStore
	finance.PartnerStore
	finance.ConfigStore
}

// financeFamily is finance under /finance/sit/v1/ and its file upload
// under /invoice-docs/v2/, with files kept in blobs; its bootstrap section
// finance is the reference data invoices need (bootstrapFinance); its demo
// is two business partners of the demo tenant and a few invoices.
func financeFamily(opts httpapi.Options, st financeStore, blobs finance.BlobStore, logger *slog.Logger) family {
	svc := finance.NewService(st, finance.Options{Logger: logger, Balances: st, Sheets: st, Files: st, Blobs: blobs, Documents: st, Tenants: st,
		Partners: st, Export: st, ConfigStore: st})
	h := financeapi.Handler(opts, financeapi.Backend{Service: svc})
	return family{
		name: "finance",
		api:  map[string]http.Handler{financeapi.BasePath: h, financeapi.UploadBasePath: h},
		docs: []apiDoc{{"finance", financeapi.OpenAPI(), restServers}},
		sections: []section{{"finance", func(ctx context.Context, raw json.RawMessage, _ secretSource) (int, error) {
			return bootstrapFinance(ctx, svc, raw)
		}}},
		demo: func(ctx context.Context, d *demoCredentials) error { return financeDemo(ctx, svc, d.Service) },
	}
}

// The demo's business partners: a customer and a supplier of the demo
// tenant.
const (
	demoCustomer = 1001
	demoSupplier = 2001
)

// financeDemo puts two partners of the demo tenant and makes a customer
// invoice (approved, 20 % VAT), a supplier invoice (approved) and a draft,
// so that the listing, balances and sheets have something to show.
func financeDemo(ctx context.Context, svc *finance.Service, tenant msgkit.ServiceUUID) error {
	for _, p := range []finance.Partner{
		{ID: demoCustomer, Name: "Demo Shop d.o.o.", ShortName: "Demo Shop", Address: "Main Street 1", Post: "1000", City: "Ljubljana", Country: 705, VatNumber: "SI12345678", Type: "customer"},
		{ID: demoSupplier, Name: "Demo Carrier Ltd", ShortName: "Demo Carrier", Address: "Harbour Road 9", Post: "10000", City: "Zagreb", Country: 191, Type: "supplier"},
	} {
		if _, err := svc.PutPartner(ctx, finance.PartnerRecord{Partner: p, Service: tenant}); err != nil {
			return fmt.Errorf("demo partner: %w", err)
		}
	}
	eur, days, one := 978, 30, decimal.NewFromInt(1)
	today := msgkit.DateOf(time.Now().UTC())
	due := today.AddDays(30)
	approved, rate := "approved", decimal.NewFromInt(20)
	ptr := func(n int64) *int64 { return &n }
	for _, inv := range []struct {
		class finance.Class
		in    finance.Input
	}{
		{finance.CustomerInvoice, finance.Input{CustID: ptr(demoCustomer), Currency: &eur, InvDueDateDays: &days, Status: &approved,
			InvNumberFix: strptr("DEMO-2026-0001"), VatPercent: &rate, DataSource: strptr(string(finance.Postpaid)), Domain: strptr(string(finance.Bulk)),
			Items: []finance.ItemInput{{Name: "SMS traffic", Quantity: decimal.NewFromInt(1200), Price: decimal.RequireFromString("0.045")},
				{Name: "Monthly fee", Quantity: one, Price: decimal.RequireFromString("25.00")}}}},
		{finance.CustomerInvoice, finance.Input{CustID: ptr(demoCustomer), Currency: &eur, InvDueDateDays: &days,
			InvNumberFix: strptr("DEMO-2026-0002"), VatPercent: &rate, DataSource: strptr(string(finance.Postpaid)), Domain: strptr(string(finance.Bulk)),
			Items: []finance.ItemInput{{Name: "SMS traffic", Quantity: decimal.NewFromInt(300), Price: decimal.RequireFromString("0.045")}}}},
		{finance.SupplierInvoice, finance.Input{CustID: ptr(demoSupplier), Currency: &eur, InvDate: &today, InvDueDate: &due, InvType: ptr(2),
			SupplierInvNumber: strptr("DC-778"), AmountNoVat: dec("100.00"), AmountVat: dec("120.00"), Total: dec("120.00"),
			DataSource: strptr(string(finance.SupplierInvoiceSource)), Domain: strptr(string(finance.Bulk))}},
	} {
		if _, err := svc.Create(ctx, finance.Scope{All: true}, inv.class, inv.in); err != nil {
			return fmt.Errorf("demo invoice: %w", err)
		}
	}
	return nil
}

func strptr(s string) *string { return &s }

func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}
