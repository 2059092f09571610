package smstest

import (
	"errors"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func accountAdminTests() []storeTest {
	return []storeTest{
		{"AccountListing", testAccountListing},
		{"UpdateAccount", testUpdateAccount},
	}
}

func date(s string) msgkit.Date {
	d, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func testAccountListing(t *testing.T, s Store) {
	for i, name := range []string{"b-shop", "a-shop", "c-shop"} {
		a := Account(name, "1")
		a.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
		a.Enabled = i != 2
		if i == 1 {
			a.Tenant = "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"
		}
		if err := s.CreateAccount(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	names := func(q msgkit.ListQuery) ([]string, int) {
		t.Helper()
		page, err := s.Accounts(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range page.Items {
			out = append(out, a.Username)
		}
		return out, page.Total
	}
	eq := func(attr string, v msgkit.Value) []msgkit.Filter {
		return []msgkit.Filter{{Attr: attr, Op: msgkit.OpEq, Values: []msgkit.Value{v}}}
	}
	for _, tt := range []struct {
		name  string
		q     msgkit.ListQuery
		want  []string
		total int
	}{
		{"by username", msgkit.ListQuery{}, []string{"a-shop", "b-shop", "c-shop"}, 3},
		{"suspended", msgkit.ListQuery{Filters: eq("enabled", msgkit.BoolValue(false))}, []string{"c-shop"}, 1},
		{"the tenant's", msgkit.ListQuery{Filters: eq("tenant", msgkit.StringValue("6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"))}, []string{"a-shop"}, 1},
		{"without a tenant", msgkit.ListQuery{Filters: eq("tenant", msgkit.StringValue(""))}, []string{"b-shop", "c-shop"}, 2},
		{"newest first, page 2 of 2", msgkit.ListQuery{Sort: []msgkit.SortKey{{Attr: "createdAt", Desc: true}}, PageNumber: 2, PageSize: 2}, []string{"b-shop"}, 3},
	} {
		got, total := names(tt.q)
		if diff := gocmp.Diff(tt.want, got); diff != "" || total != tt.total {
			t.Errorf("%s (-want +got), total %d:\n%s", tt.name, total, diff)
		}
	}
	page, err := s.Accounts(t.Context(), msgkit.ListQuery{Filters: eq("username", msgkit.StringValue("a-shop"))})
	if err != nil || len(page.Items) != 1 {
		t.Fatal(page, err)
	}
	want, _ := s.Account(t.Context(), "a-shop")
	if diff := gocmp.Diff(want, page.Items[0], equate); diff != "" {
		t.Errorf("a listed account differs from the read one (-read +listed):\n%s", diff)
	}
}

func testUpdateAccount(t *testing.T, s Store) {
	if err := s.CreateAccount(t.Context(), Account("shop", "10")); err != nil {
		t.Fatal(err)
	}
	if _, err := AddBalance(t.Context(), s, "shop", dec("5")); err != nil {
		t.Fatal(err)
	}
	before, err := s.Account(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateAccount(t.Context(), "shop", func(a *sms.Account) error {
		a.Enabled, a.Throughput, a.MaxParts, a.Validity = false, 7, 3, time.Hour
		a.Tenant = "0b7e3c1a-9d2f-4c6e-b8a1-5f4e3d2c1b0a"
		a.CreditLimit = dec("100")
		a.InboundURL = "https://shop.example/mo?k=1"
		a.Networks = a.Networks[:1]
		a.BlacklistedSenderWords = nil
		a.Prices = []sms.Price{{Prefix: "386", Price: dec("0.031"), ValidFrom: date("2026-12-01")}}
		a.PasswordHash = "$2a$04$changedchangedchangedchu5Cq2Zk0bF2bS0mB0D3Y5yW8bZK1ZQzS"
		// Not the update's to change:
		a.Username, a.Balance, a.Currency, a.CreatedAt = "other", dec("1000000"), "USD", t0.Add(time.Hour)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.Account(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(got, read, equate); diff != "" {
		t.Errorf("the update's answer and the stored account differ (-answer +stored):\n%s", diff)
	}
	want := before
	want.Enabled, want.Throughput, want.MaxParts, want.Validity = false, 7, 3, time.Hour
	want.Tenant, want.CreditLimit, want.Networks, want.BlacklistedSenderWords = "0b7e3c1a-9d2f-4c6e-b8a1-5f4e3d2c1b0a", dec("100"), before.Networks[:1], nil
	want.Prices = []sms.Price{{Prefix: "386", Price: dec("0.031"), ValidFrom: date("2026-12-01")}}
	want.InboundURL = "https://shop.example/mo?k=1"
	want.PasswordHash = "$2a$04$changedchangedchangedchu5Cq2Zk0bF2bS0mB0D3Y5yW8bZK1ZQzS"
	if diff := gocmp.Diff(want, read, equate); diff != "" {
		t.Errorf("updated account (-want +got):\n%s", diff)
	}
	boom := errors.New("refused")
	if _, err := s.UpdateAccount(t.Context(), "shop", func(a *sms.Account) error {
		a.Throughput = 99
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("fn's error: %v", err)
	}
	if again, _ := s.Account(t.Context(), "shop"); again.Throughput != 7 {
		t.Errorf("a refused update saved throughput %d", again.Throughput)
	}
	_, err = s.UpdateAccount(t.Context(), "nobody", func(*sms.Account) error { return nil })
	requireKind(t, err, msgkit.NotFound)
	requireBalance(t, s, "shop", "15")
}
