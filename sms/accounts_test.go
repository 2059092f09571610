package sms_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func day(s string) msgkit.Date {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// The price of a day is the longest prefix among the lines that hold
// that day, both ends included.
func TestPriceForDay(t *testing.T) {
	a := sms.Account{Prices: []sms.Price{
		{Prefix: "386", Price: decimal.RequireFromString("0.05")},
		{Prefix: "38640", Price: decimal.RequireFromString("0.04"), ValidTo: day("2026-11-30")},
		{Prefix: "38640", Price: decimal.RequireFromString("0.03"), ValidFrom: day("2026-12-01"), ValidTo: day("2026-12-31")},
		{Prefix: "49", Price: decimal.RequireFromString("0.07"), ValidFrom: day("2027-01-01")},
	}}
	for _, tt := range []struct {
		to, on, want string
		ok           bool
	}{
		{"+38640123456", "2026-11-30", "0.04", true},
		{"+38640123456", "2026-12-01", "0.03", true},
		{"+38640123456", "2026-12-31", "0.03", true},
		{"+38640123456", "2027-01-01", "0.05", true}, // no 38640 line then: the country's
		{"+38651123456", "2026-12-15", "0.05", true},
		{"+4915112345678", "2026-12-31", "", false},
		{"+4915112345678", "2027-01-01", "0.07", true},
	} {
		got, ok := a.PriceFor(sms.MSISDN(tt.to), day(tt.on))
		if ok != tt.ok || ok && got.String() != tt.want {
			t.Errorf("%s on %s: %s %v, want %s %v", tt.to, tt.on, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckPrices(t *testing.T) {
	p := func(prefix, from, to string) sms.Price {
		l := sms.Price{Prefix: prefix, Price: decimal.RequireFromString("0.01")}
		if from != "" {
			l.ValidFrom = day(from)
		}
		if to != "" {
			l.ValidTo = day(to)
		}
		return l
	}
	for _, tt := range []struct {
		name  string
		lines []sms.Price
		field string // "" valid
	}{
		{"one after another", []sms.Price{p("386", "", "2026-11-30"), p("386", "2026-12-01", "")}, ""},
		{"two prefixes", []sms.Price{p("386", "", ""), p("38640", "", "")}, ""},
		{"overlap by a day", []sms.Price{p("386", "", "2026-12-01"), p("386", "2026-12-01", "")}, "prices[1]"},
		{"two open lines", []sms.Price{p("386", "", ""), p("386", "", "")}, "prices[1]"},
		{"inside another", []sms.Price{p("386", "2026-01-01", "2026-12-31"), p("386", "2026-06-01", "2026-06-30")}, "prices[1]"},
		{"ends before it starts", []sms.Price{p("386", "2026-12-02", "2026-12-01")}, "prices[0].validTo"},
		{"not digits", []sms.Price{p("+386", "", "")}, "prices[0].prefix"},
		{"too long", []sms.Price{p("1234567890123456", "", "")}, "prices[0].prefix"},
		{"negative", []sms.Price{{Prefix: "1", Price: decimal.RequireFromString("-0.01")}}, "prices[0].price"},
	} {
		err := sms.CheckPrices(tt.lines)
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.field != "" && (msgkit.CodeOf(err) != sms.CodeAccountInvalid || !hasField(err, tt.field)):
			t.Errorf("%s: %v, want a refusal naming %s", tt.name, err, tt.field)
		}
	}
}

func hasField(err error, name string) bool {
	e, ok := err.(*msgkit.Error)
	if !ok {
		return false
	}
	for _, f := range e.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// recorder keeps what an Auditor is given.
type trail struct{ actions []string }

func (r *trail) Record(_ context.Context, action, resource, id string, _, _ any) error {
	r.actions = append(r.actions, action+" "+resource+" "+id)
	return nil
}

// Accounts change by the rules of an account; a credit limit the balance
// is already below is refused; suspending refuses submissions once the
// gateway reads the account again.
func TestAccountsUpdate(t *testing.T) {
	f := newFixture(t)
	rec := &trail{}
	accts := sms.NewAccounts(f.store, sms.AccountsOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, Audit: rec})
	ctx := t.Context()
	off, on := false, true
	if _, err := accts.Update(ctx, "shop", sms.AccountChange{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute) // past the gateway's CredentialTTL
	if _, err := f.gw.Submit(ctx, valid()); sms.CodeOf(err) != sms.CodeNoAccount {
		t.Errorf("a suspended account's submission: %v", err)
	}
	if _, err := accts.Update(ctx, "shop", sms.AccountChange{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	if _, err := f.gw.Submit(ctx, valid()); err != nil {
		t.Errorf("a resumed account's submission: %v", err)
	}
	// The balance is 10 less one part: a credit limit floor above it
	// needs a top-up first.
	limit := decimal.RequireFromString("-1")
	if _, err := accts.Update(ctx, "shop", sms.AccountChange{CreditLimit: &limit}); !hasField(err, "creditLimit") {
		t.Errorf("a negative credit limit: %v", err)
	}
	for _, bad := range []sms.AccountChange{
		{Throughput: ptr(-1)}, {MaxParts: ptr(256)}, {Validity: ptr(8 * 24 * time.Hour)},
		{Tenant: ptr(msgkit.ServiceUUID("not-a-uuid"))}, {Networks: ptr([]netip.Prefix{{}})},
		{Prices: ptr([]sms.Price{{Prefix: "1", Price: decimal.Zero}, {Prefix: "1", Price: decimal.Zero}})},
		{Password: ptr("")}, {Password: ptr(strings.Repeat("x", 73))},
	} {
		if _, err := accts.Update(ctx, "shop", bad); msgkit.CodeOf(err) != sms.CodeAccountInvalid {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := accts.Update(ctx, "nobody", sms.AccountChange{Enabled: &on}); msgkit.CodeOf(err) != sms.CodeAccountNotFound {
		t.Errorf("an unknown account: %v", err)
	}
	pw := "new password"
	if _, err := accts.Update(ctx, "shop", sms.AccountChange{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Minute)
	sub := valid()
	sub.Password = pw
	if _, err := f.gw.Submit(ctx, sub); err != nil {
		t.Errorf("the new password: %v", err)
	}
	if got := strings.Join(rec.actions, ", "); got != "suspend sms_account shop, resume sms_account shop, update sms_account shop" {
		t.Errorf("recorded: %s", got)
	}
}

func ptr[T any](v T) *T { return &v }

// tenants is a TenantStatus of a fixed set of suspended tenants.
type tenants map[msgkit.ServiceUUID]bool

func (ts tenants) TenantSuspended(_ context.Context, id msgkit.ServiceUUID) (bool, error) {
	return ts[id], nil
}

// A suspended tenant's accounts are refused as disabled ones within the
// gateway's CredentialTTL; other accounts go on.
func TestTenantSuspensionRefusesAccounts(t *testing.T) {
	f := newFixture(t)
	const shop = msgkit.ServiceUUID("6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90")
	suspended := tenants{}
	f.gw = sms.NewGateway(f.store, sms.GatewayOptions{Clock: f.clock.Now, BcryptCost: bcrypt.MinCost, Tenants: suspended})
	f.account(t, "tenant-shop", func(a *sms.Account) { a.Tenant = shop })
	ctx := t.Context()
	sub := valid()
	sub.Username = "tenant-shop"
	if _, err := f.gw.Submit(ctx, sub); err != nil {
		t.Fatal(err)
	}
	suspended[shop] = true
	f.clock.Advance(2 * time.Minute)
	if _, err := f.gw.Submit(ctx, sub); sms.CodeOf(err) != sms.CodeNoAccount {
		t.Errorf("a suspended tenant's account: %v", err)
	}
	if _, err := f.gw.Submit(ctx, valid()); err != nil {
		t.Errorf("an account of no tenant: %v", err)
	}
}
