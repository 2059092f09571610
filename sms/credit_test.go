package sms_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smstest"
)

// CreateAccount keeps the floor: a balance down to -CreditLimit, never a
// negative limit.
func TestCreateAccountCreditLimit(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, balance, limit string
		field                string // "" when created
	}{
		{"prepaid at zero", "0", "0", ""},
		{"postpaid in credit", "-5", "10", ""},
		{"postpaid at the floor", "-10", "10", ""},
		{"below the floor", "-10.01", "10", "balance"},
		{"negative prepaid", "-0.01", "0", "balance"},
		{"negative limit", "0", "-1", "creditLimit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := smstest.Account("acct-"+tc.name, tc.balance)
			a.PasswordHash = ""
			a.CreditLimit = decimal.RequireFromString(tc.limit)
			_, err := f.gw.CreateAccount(t.Context(), sms.AccountSpec{Account: a, Password: "pw"})
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e, ok := err.(*msgkit.Error)
			if !ok || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != tc.field {
				t.Fatalf("error %#v, want Invalid naming %s", err, tc.field)
			}
		})
	}
}

// A postpaid account submits through the gateway down to exactly
// -CreditLimit, then is refused with 113 and charged nothing.
func TestSubmitPostpaid(t *testing.T) {
	f := newFixture(t)
	f.account(t, "post", func(a *sms.Account) {
		a.Balance, a.CreditLimit = decimal.Zero, decimal.RequireFromString("0.12")
	})
	sub := valid()
	sub.Username = "post"
	for i := range 3 { // 0.04 a part
		if _, err := f.gw.Submit(t.Context(), sub); err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	if _, err := f.gw.Submit(t.Context(), sub); sms.CodeOf(err) != sms.CodeNoCredit {
		t.Fatalf("below the floor: %v, want 113", err)
	}
	a, err := f.store.Account(t.Context(), "post")
	if err != nil || !a.Balance.Equal(decimal.RequireFromString("-0.12")) {
		t.Fatalf("balance %s, %v; want -0.12", a.Balance, err)
	}
	smstest.RequireLaw(t, f.store, "post")
}
