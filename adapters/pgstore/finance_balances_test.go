package pgstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/finance"
)

// TestFinanceBalanceListingsCoverSpec holds the balance and sheet
// listings to their specs: every attribute, with its type, and nothing
// else.
func TestFinanceBalanceListingsCoverSpec(t *testing.T) {
	t.Parallel()
	asOf := financeDay("2026-01-01")
	balances, _ := balanceTable(finance.Scope{All: true}, finance.BalanceOptions{AsOf: &asOf})
	sheet, _, err := sheetTable(finance.SheetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table *listTable
		spec  msgkit.ListSpec
	}{{balances, finance.BalanceSpec()}, {sheet, finance.SheetSpec()}} {
		if err := c.table.checkSpec(c.spec); err != nil {
			t.Fatal(err)
		}
		if len(c.table.Attrs) != len(c.spec.Filter) {
			t.Fatalf("the listing maps %d attributes, the spec has %d", len(c.table.Attrs), len(c.spec.Filter))
		}
	}
}

// balanceDay is the asOf of the balances compared with memstore's.
var balanceDay = financeDay("2026-06-30")

// balanceInvoices are invoices of four partners with every code finance
// gives an id to, codes it does not know, empty ones, every status,
// amounts of several scales, due dates on every edge of the aging buckets
// (seen from balanceDay) and partner data that changes from one document
// to the next, so that sums, scales, keys, buckets and the latest
// document's data all have something to tell apart. Seeded: the same
// invoices every run.
func balanceInvoices() []finance.Invoice {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(n int) int { return rng.IntN(n) }
	classes := []finance.Class{finance.CustomerInvoice, finance.SupplierInvoice, finance.NettingInvoice, finance.ControlInvoice,
		finance.CreditDebitNote, finance.SupplierCrDbNote, "", "OTHER"}
	statuses := []finance.Status{finance.Approved, finance.Archived, finance.Imported, finance.Approved, finance.Draft,
		finance.Deleted, finance.Rejected, finance.Canceled, ""}
	domains := []finance.Domain{finance.Bulk, finance.BulkMNP, "", "bulk"}
	sources := []finance.DataSource{finance.Prepaid, finance.Postpaid, finance.FinanceSource, finance.SupplierInvoiceSource,
		finance.PostpaidSupplierInvoice, finance.PostpaidControl, "", "OTHER"}
	selectors := []string{finance.PartPayment, "", "other"}
	amounts := []string{"1.50", "-2", "0.001", "100", "0.0450", "-0.5", "0", "0.00", "98765432109876543210.123456789"}
	late := []int{-5, 0, 1, 30, 31, 60, 61, 90, 91, 120, 121, 400}
	texts := []string{"", "a", "B", "ä"}
	var currencies []finance.Currency
	for _, code := range []string{"EUR", "JPY", "KWD"} {
		c, _ := finance.CurrencyByCode(code)
		currencies = append(currencies, c)
	}
	currencies = append(currencies, finance.Currency{})
	var out []finance.Invoice
	for i := range 240 {
		inv := distinctInvoice()
		inv.UID = fmt.Sprintf("uid-%d", i)
		inv.Customer.ID = int64(1 + pick(4))
		inv.Customer.Name, inv.Customer.ShortName, inv.Customer.Type = texts[pick(4)], fmt.Sprint("s", i), texts[pick(4)]
		inv.Customer.City, inv.OwnerID = fmt.Sprint("city ", i), int64(pick(3))
		inv.Class, inv.Status = classes[pick(len(classes))], statuses[pick(len(statuses))]
		inv.Domain, inv.DataSource, inv.Selector = domains[pick(len(domains))], sources[pick(len(sources))], selectors[pick(3)]
		inv.InvType, inv.Currency = int64(pick(3)), currencies[pick(len(currencies))]
		inv.InvNumberFix, inv.PaymentStatus = fmt.Sprint("N-", pick(20)), []finance.PaymentStatus{"", finance.PaymentOpen, finance.PaymentClosed}[pick(3)]
		a := func() string { return amounts[pick(len(amounts))] }
		inv.AmountNoVat, inv.AmountVat, inv.Vat, inv.Rounding = dec(a()), dec(a()), dec(a()), dec(a())
		inv.Total, inv.TotalPaid, inv.TotalUnpaid, inv.VatPercent = dec(a()), dec(a()), dec(a()), dec(a())
		inv.InvDueDate = balanceDay.AddDays(-late[pick(len(late))])
		if pick(10) == 0 {
			inv.InvDueDate = msgkit.Date{} // days late from 1970-01-01
		}
		inv.InvDate = financeDay("2026-01-01").AddDays(pick(12) * 15)
		if pick(10) == 0 {
			inv.InvDate = msgkit.Date{}
		}
		out = append(out, storedInvoice(inv))
	}
	return out
}

// balancesCompared compares what memstore and PostgreSQL list: decimals
// by value and scale, values by value.
var balancesCompared = cmp.Options{
	sameInvoice,
	cmp.Comparer(func(a, b msgkit.Value) bool { return a.Equal(b) || a.IsNull() && b.IsNull() }),
}

// TestFinanceBalancesMatchMemstore sums balances and lists sheets of the
// same invoices from memstore (finance's own sums) and PostgreSQL, for
// every grouping attribute, both sides, with and without asOf, in several
// scopes, sorted by every attribute and filtered, and wants the same
// pages, scales included. It also holds the codes' ids to finance's.
func TestFinanceBalancesMatchMemstore(t *testing.T) {
	if testing.Short() {
		t.Skip("compares some thousand listings with memstore; the full suite runs it")
	}
	t.Parallel()
	ctx := t.Context()
	pg, mem := newTestDB(t).Finance(), memstore.New().Finance()
	for _, inv := range balanceInvoices() {
		a, err := pg.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		b, err := mem.CreateInvoice(ctx, inv)
		if err != nil {
			t.Fatal(err)
		}
		if a.ID != b.ID {
			t.Fatalf("ids %d and %d: the stores must number alike", a.ID, b.ID)
		}
	}

	groups := [][]string{nil, {"domainCodeName", "dataSourceCodeName"}, finance.GroupAttrNames()}
	for _, g := range finance.GroupAttrNames() {
		groups = append(groups, []string{g})
	}
	positive, _ := msgkit.NumberValue("0")
	scopes := []finance.Scope{{All: true}, {Partners: []int64{2, 4}}, {}}
	compared := 0
	for _, group := range groups {
		for _, asOf := range []*msgkit.Date{nil, &balanceDay} {
			for _, side := range []finance.Side{finance.Customers, finance.Suppliers} {
				o := finance.BalanceOptions{Side: side, Group: group, AsOf: asOf}
				queries := []msgkit.ListQuery{{},
					{Filters: []msgkit.Filter{{Attr: "totalUnpaid", Op: msgkit.OpGt, Values: []msgkit.Value{positive}}}},
					{Filters: []msgkit.Filter{{Attr: "bizPartnerName", Op: msgkit.OpIsNull}}, Sort: []msgkit.SortKey{{Attr: "total"}}},
					{Filters: []msgkit.Filter{{Attr: "currencyCode", Op: msgkit.OpIn, Values: []msgkit.Value{msgkit.StringValue("EUR"), msgkit.StringValue("KWD")}}}},
				}
				for _, attr := range finance.BalanceSpec().Sort {
					if side == finance.Suppliers { // the customers' balances are the more varied
						break
					}
					if finance.CheckBalanceQuery(msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: attr}}}, group) != nil {
						continue
					}
					queries = append(queries,
						msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: attr}}},
						msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: attr, Desc: true}}, PageNumber: 2, PageSize: 3},
						msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: attr, Op: msgkit.OpIsNull}}},
					)
				}
				for _, scope := range scopes {
					for i, q := range queries {
						if !scope.All && i > 1 {
							break
						}
						want, err := mem.Balances(ctx, scope, o, q)
						if err != nil {
							t.Fatal(err)
						}
						got, err := pg.Balances(ctx, scope, o, q)
						if err != nil {
							t.Fatalf("%+v, %s: %v", o, describeListQuery(q), err)
						}
						if diff := cmp.Diff(want, got, balancesCompared); diff != "" {
							t.Fatalf("%+v, scope %+v, %s (-memstore +postgres):\n%s", o, scope, describeListQuery(q), diff)
						}
						compared += len(want.Items)
					}
				}
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d balances compared", compared)
	}

	start, end := financeDay("2026-02-01"), financeDay("2026-04-30")
	rows := 0
	for partner := range int64(5) {
		for _, side := range []finance.Side{finance.Customers, finance.Suppliers} {
			for _, dates := range [][2]*msgkit.Date{{nil, nil}, {&start, nil}, {nil, &end}, {&start, &end}} {
				for _, desc := range []bool{false, true} {
					o := finance.SheetOptions{Side: side, Partner: partner + 1, Start: dates[0], End: dates[1], Desc: desc}
					queries := []msgkit.ListQuery{{},
						{Filters: []msgkit.Filter{{Attr: "total", Op: msgkit.OpGt, Values: []msgkit.Value{positive}}}, PageNumber: 2, PageSize: 2},
					}
					for _, attr := range finance.SheetSpec().Sort {
						if partner > 1 || dates[0] != nil || dates[1] != nil {
							break // two partners' whole sheets suffice for the sorts
						}
						queries = append(queries, msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: attr}}},
							msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: attr, Desc: true}}, PageNumber: 2, PageSize: 3})
					}
					for _, scope := range scopes {
						for i, q := range queries {
							if !scope.All && i > 1 {
								break
							}
							want, err := mem.Sheet(ctx, scope, o, q)
							if err != nil {
								t.Fatal(err)
							}
							got, err := pg.Sheet(ctx, scope, o, q)
							if err != nil {
								t.Fatalf("sheet %+v, %s: %v", o, describeListQuery(q), err)
							}
							if diff := cmp.Diff(want, got, balancesCompared); diff != "" {
								t.Fatalf("sheet %+v, scope %+v, %s (-memstore +postgres):\n%s", o, scope, describeListQuery(q), diff)
							}
							rows += len(want.Items)
						}
					}
				}
			}
		}
	}
	if rows < 500 {
		t.Fatalf("only %d sheet rows compared", rows)
	}
}

// The store refuses what memstore refuses, and a sheet bound no date
// column can hold.
func TestFinanceBalancesRefuse(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestDB(t).Finance()
	all := finance.Scope{All: true}
	positive, _ := msgkit.NumberValue("1")
	eqTotal := msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "total", Op: msgkit.OpEq, Values: []msgkit.Value{positive}}}}
	sortDomain := msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "domainId"}}}
	for name, err := range map[string]error{
		"unknown group":        second(s.Balances(ctx, all, finance.BalanceOptions{Group: []string{"color"}}, msgkit.ListQuery{})),
		"equality on amounts":  second(s.Balances(ctx, all, finance.BalanceOptions{}, eqTotal)),
		"sort on no group":     second(s.Balances(ctx, all, finance.BalanceOptions{}, sortDomain)),
		"sheet equality":       second(s.Sheet(ctx, all, finance.SheetOptions{Partner: 1}, eqTotal)),
		"sheet out of scope":   second(s.Sheet(ctx, finance.Scope{}, finance.SheetOptions{Partner: 1}, eqTotal)),
		"sheet start not date": second(s.Sheet(ctx, all, finance.SheetOptions{Partner: 1, Start: &msgkit.Date{Year: 2026, Month: 2, Day: 30}}, msgkit.ListQuery{})),
		"sheet end not date":   second(s.Sheet(ctx, all, finance.SheetOptions{Partner: 1, End: &msgkit.Date{}}, msgkit.ListQuery{})),
	} {
		if !errors.Is(err, msgkit.Invalid) {
			t.Errorf("%s: error %v, want Invalid", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
