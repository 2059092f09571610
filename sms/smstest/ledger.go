package smstest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func ledgerTests() []storeTest {
	return []storeTest{
		{"LedgerTopUpAndAdjust", testLedgerTopUpAndAdjust},
		{"LedgerChargesAndListing", testLedgerListing},
		{"LedgerCreditLimit", testLedgerCreditLimit},
		{"LedgerRetentionCarries", testLedgerRetention},
		{"LedgerExport", testLedgerExport},
		{"LedgerLawUnderConcurrency", testLedgerConcurrency},
		{"LedgerLawProperty", testLedgerProperty},
	}
}

// AddBalance adds delta to the balance as an adjustment entry (actor
// "test") and returns the new balance; a result below the floor is 113.
// Tests top accounts up with it.
func AddBalance(ctx context.Context, s interface {
	sms.LedgerStore
	Account(ctx context.Context, username string) (sms.Account, error)
}, username string, delta decimal.Decimal) (decimal.Decimal, error) {
	a, err := s.Account(ctx, username)
	if err != nil {
		return decimal.Decimal{}, err
	}
	e, err := s.ApplyLedger(ctx, sms.LedgerEntry{Account: username, Kind: sms.LedgerAdjustment, Amount: delta,
		Currency: a.Currency, Actor: "test", At: t0})
	if err != nil {
		return decimal.Decimal{}, err
	}
	return e.BalanceAfter.Decimal, nil
}

// RequireLaw fails tb unless the account's balance is the sum of its
// entries, read whole by an export, and Reconcile reports nothing.
func RequireLaw(tb testing.TB, s Store, username string) {
	tb.Helper()
	ctx := context.Background()
	a, err := s.Account(ctx, username)
	if err != nil {
		tb.Fatal(err)
	}
	sum := decimal.Zero
	credit := sms.NewCredit(s, sms.CreditOptions{ExportPage: 50})
	for e, err := range credit.Export(ctx, username, time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) {
		if err != nil {
			tb.Fatal(err)
		}
		sum = sum.Add(e.Amount)
	}
	if !sum.Equal(a.Balance) {
		tb.Fatalf("account %s: balance %s, sum of entries %s", username, a.Balance, sum)
	}
	d, err := s.Reconcile(ctx, username)
	if err != nil || len(d) != 0 {
		tb.Fatalf("Reconcile(%s) = %+v, %v; want nothing", username, d, err)
	}
}

func newCredit(s Store) *sms.Credit {
	return sms.NewCredit(s, sms.CreditOptions{Clock: func() time.Time { return t0 }})
}

func testLedgerTopUpAndAdjust(t *testing.T, s Store) {
	ctx := t.Context()
	if err := s.CreateAccount(ctx, Account("shop", "1.00")); err != nil {
		t.Fatal(err)
	}
	c := newCredit(s)
	e, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("2.50"), Currency: "EUR", Actor: "client:crm", Note: "invoice 42"})
	if err != nil {
		t.Fatal(err)
	}
	if e.ID <= 0 || e.Kind != sms.LedgerTopUp || !e.Amount.Equal(dec("2.50")) || !e.BalanceAfter.Valid || !e.BalanceAfter.Decimal.Equal(dec("3.50")) ||
		e.Actor != "client:crm" || e.Note != "invoice 42" || !e.At.Equal(t0us) {
		t.Fatalf("top-up entry %+v", e)
	}
	e2, err := c.Adjust(ctx, sms.Change{Account: "shop", Amount: dec("-3.50"), Currency: "EUR", Actor: "operator:ana"})
	if err != nil || !e2.BalanceAfter.Decimal.IsZero() || e2.ID <= e.ID {
		t.Fatalf("adjustment to zero = %+v, %v", e2, err)
	}
	requireBalance(t, s, "shop", "0")

	for _, tc := range []struct {
		name  string
		do    func() error
		kind  msgkit.Kind
		field string
	}{
		{"zero adjustment", func() error {
			_, err := c.Adjust(ctx, sms.Change{Account: "shop", Amount: dec("0"), Currency: "EUR", Actor: "a"})
			return err
		}, msgkit.Invalid, "amount"},
		{"negative top-up", func() error {
			_, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("-1"), Currency: "EUR", Actor: "a"})
			return err
		}, msgkit.Invalid, "amount"},
		{"other currency", func() error {
			_, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("1"), Currency: "USD", Actor: "a"})
			return err
		}, msgkit.Invalid, "currency"},
		{"no actor", func() error {
			_, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("1"), Currency: "EUR"})
			return err
		}, msgkit.Invalid, "actor"},
		{"long note", func() error {
			_, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("1"), Currency: "EUR", Actor: "a", Note: string(make([]byte, 501))})
			return err
		}, msgkit.Invalid, "note"},
		{"unknown account", func() error {
			_, err := c.TopUp(ctx, sms.Change{Account: "nobody", Amount: dec("1"), Currency: "EUR", Actor: "a"})
			return err
		}, msgkit.NotFound, ""},
	} {
		err := tc.do()
		requireKind(t, err, tc.kind)
		if tc.field != "" {
			if e, ok := err.(*msgkit.Error); !ok || len(e.Fields) == 0 || e.Fields[0].Name != tc.field || e.Code != sms.CodeLedgerInvalid {
				t.Errorf("%s: %#v, want code %s naming %s", tc.name, err, sms.CodeLedgerInvalid, tc.field)
			}
		}
	}
	_, err = c.Adjust(ctx, sms.Change{Account: "shop", Amount: dec("-0.0001"), Currency: "EUR", Actor: "a"})
	requireCode(t, err, sms.CodeNoCredit)
	requireBalance(t, s, "shop", "0")
	page, err := c.Entries(ctx, "shop", msgkit.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []sms.LedgerKind
	for _, e := range page.Items {
		kinds = append(kinds, e.Kind)
	}
	if want := []sms.LedgerKind{sms.LedgerCarried, sms.LedgerTopUp, sms.LedgerAdjustment}; fmt.Sprint(kinds) != fmt.Sprint(want) || page.Total != 3 {
		t.Fatalf("entries %v (total %d), want %v: the opening balance, the top-up, the adjustment", kinds, page.Total, want)
	}
	if o := page.Items[0]; o.Actor != sms.ActorOpening || !o.Amount.Equal(dec("1")) || o.BalanceAfter.Valid {
		t.Errorf("opening entry %+v", o)
	}
	RequireLaw(t, s, "shop")
}

func testLedgerListing(t *testing.T, s Store) {
	ctx := t.Context()
	for _, u := range []string{"shop", "other"} {
		if err := s.CreateAccount(ctx, Account(u, "0")); err != nil {
			t.Fatal(err)
		}
	}
	c := newCredit(s)
	if _, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("10"), Currency: "EUR", Actor: "a"}); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		m := Message(fmt.Sprintf("m-%d", i), "shop", "0.05")
		m.SubmittedAt = t0us.Add(time.Duration(i+1) * time.Minute)
		if err := s.Accept(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Accept(ctx, Message("elsewhere", "other", "0")); err != nil {
		t.Fatal(err)
	}
	list := func(q msgkit.ListQuery) msgkit.Page[sms.LedgerEntry] {
		t.Helper()
		p, err := c.Entries(ctx, "shop", q)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := list(msgkit.ListQuery{})
	if all.Total != 5 || all.Items[0].Kind != sms.LedgerTopUp {
		t.Fatalf("entries %+v", all)
	}
	for i, e := range all.Items[1:] {
		if e.Kind != sms.LedgerCharge || e.MessageID != sms.MessageID(fmt.Sprintf("m-%d", i)) || !e.Amount.Equal(dec("-0.10")) ||
			e.Currency != "EUR" || e.BalanceAfter.Valid || !e.At.Equal(t0us.Add(time.Duration(i+1)*time.Minute)) || e.ID <= all.Items[i].ID {
			t.Errorf("charge %d: %+v", i, e)
		}
	}
	str := msgkit.StringValue
	for _, tc := range []struct {
		name string
		q    msgkit.ListQuery
		want []sms.MessageID // "" for the top-up
	}{
		{"kind", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "kind", Op: msgkit.OpEq, Values: []msgkit.Value{str("charge")}}}}, []sms.MessageID{"m-0", "m-1", "m-2", "m-3"}},
		{"message", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "messageId", Op: msgkit.OpEq, Values: []msgkit.Value{str("m-2")}}}}, []sms.MessageID{"m-2"}},
		{"time range", msgkit.ListQuery{Filters: []msgkit.Filter{
			{Attr: "at", Op: msgkit.OpGte, Values: []msgkit.Value{msgkit.TimeValue(t0us.Add(2 * time.Minute))}},
			{Attr: "at", Op: msgkit.OpLte, Values: []msgkit.Value{msgkit.TimeValue(t0us.Add(3 * time.Minute))}},
		}}, []sms.MessageID{"m-1", "m-2"}},
		{"amount", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "amount", Op: msgkit.OpGt, Values: []msgkit.Value{msgkit.IntValue(0)}}}}, []sms.MessageID{""}},
		{"id descending, paged", msgkit.ListQuery{PageNumber: 2, PageSize: 2, Sort: []msgkit.SortKey{{Attr: "id", Desc: true}}}, []sms.MessageID{"m-1", "m-0"}},
		{"at descending", msgkit.ListQuery{PageNumber: 1, PageSize: 2, Sort: []msgkit.SortKey{{Attr: "at", Desc: true}}}, []sms.MessageID{"m-3", "m-2"}},
	} {
		p := list(tc.q)
		var got []sms.MessageID
		for _, e := range p.Items {
			got = append(got, e.MessageID)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if p := list(msgkit.ListQuery{PageNumber: 1, PageSize: 2}); p.Total != 5 || len(p.Items) != 2 {
		t.Errorf("a page of 2: %d items of %d", len(p.Items), p.Total)
	}
	if p, err := c.Entries(ctx, "nobody", msgkit.ListQuery{}); err != nil || p.Total != 0 {
		t.Errorf("an unknown account's entries: %+v, %v", p, err)
	}
	RequireLaw(t, s, "shop")
	RequireLaw(t, s, "other")
}

// A postpaid account accepts down to exactly -CreditLimit and refuses a
// charge one part beyond, with nothing changed.
func testLedgerCreditLimit(t *testing.T, s Store) {
	ctx := t.Context()
	a := Account("post", "0.10")
	a.CreditLimit = dec("0.50")
	if err := s.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // 3 × 2 parts × 0.10 = 0.60: down to -0.50
		if err := s.Accept(ctx, Message(fmt.Sprintf("m-%d", i), "post", "0.10")); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	requireBalance(t, s, "post", "-0.50")
	one := Message("one-part", "post", "0.0001")
	one.Parts, one.Charged = one.Parts[:1], one.PartPrice
	requireCode(t, s.Accept(ctx, one), sms.CodeNoCredit)
	requireBalance(t, s, "post", "-0.50")
	if _, err := s.Message(ctx, "one-part"); !isNotFound(err) {
		t.Errorf("a refused message is stored: %v", err)
	}
	c := newCredit(s)
	_, err := c.Adjust(ctx, sms.Change{Account: "post", Amount: dec("-0.0001"), Currency: "EUR", Actor: "a"})
	requireCode(t, err, sms.CodeNoCredit)
	if _, err := c.TopUp(ctx, sms.Change{Account: "post", Amount: dec("0.0001"), Currency: "EUR", Actor: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Accept(ctx, one); err != nil {
		t.Fatalf("after a top-up of one part: %v", err)
	}
	requireBalance(t, s, "post", "-0.50")
	RequireLaw(t, s, "post")

	low := Account("low", "-0.51")
	low.CreditLimit = dec("0.50")
	requireKind(t, s.CreateAccount(ctx, low), msgkit.Invalid)
	neg := Account("neg", "0")
	neg.CreditLimit = dec("-1")
	requireKind(t, s.CreateAccount(ctx, neg), msgkit.Invalid)
	low.Balance = dec("-0.50")
	if err := s.CreateAccount(ctx, low); err != nil {
		t.Fatalf("a balance at the floor: %v", err)
	}
	RequireLaw(t, s, "low")
}

func isNotFound(err error) bool { return msgkit.KindOf(err) == msgkit.NotFound }

// Retention removes messages and carries their charges: the law holds.
func testLedgerRetention(t *testing.T, s Store) {
	ctx := t.Context()
	if err := s.CreateAccount(ctx, Account("shop", "5")); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		id := fmt.Sprintf("m-%d", i)
		if err := s.Accept(ctx, Message(id, "shop", "0.05")); err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			FinishMessage(t, s, id, 2, sms.StateDelivered, t1, false)
		}
	}
	RequireLaw(t, s, "shop")
	if n := forget(t, s, t1.Add(time.Second), 100); n != 2 {
		t.Fatalf("forgot %d, want 2", n)
	}
	RequireLaw(t, s, "shop")
	p, err := s.LedgerEntries(ctx, "shop", msgkit.ListQuery{Filters: []msgkit.Filter{{Attr: "kind", Op: msgkit.OpEq, Values: []msgkit.Value{msgkit.StringValue("carried")}}}})
	if err != nil {
		t.Fatal(err)
	}
	var carried decimal.Decimal
	for _, e := range p.Items {
		if e.Actor == sms.ActorRetention {
			carried = carried.Add(e.Amount)
		}
	}
	if !carried.Equal(dec("-0.20")) {
		t.Errorf("carried %s, want -0.20 (entries %+v)", carried, p.Items)
	}
	requireBalance(t, s, "shop", "4.70")
}

var (
	t1   = t0.Add(10 * time.Minute)
	t0us = t0.Truncate(time.Microsecond) // t0 as stores keep it
)

// The export reads every entry of the range once, in the ledger's
// order, page after page.
func testLedgerExport(t *testing.T, s Store) {
	ctx := t.Context()
	if err := s.CreateAccount(ctx, Account("shop", "1")); err != nil {
		t.Fatal(err)
	}
	clock := t0us
	c := sms.NewCredit(s, sms.CreditOptions{Clock: func() time.Time { return clock }, ExportPage: 3})
	for i := range 12 {
		clock = t0us.Add(time.Duration(i/2)*time.Second + time.Millisecond) // two entries a second
		if i%3 == 0 {
			m := Message(fmt.Sprintf("m-%d", i), "shop", "0.01")
			m.SubmittedAt = clock
			if err := s.Accept(ctx, m); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := c.TopUp(ctx, sms.Change{Account: "shop", Amount: dec("1"), Currency: "EUR", Actor: "a", Note: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []sms.LedgerEntry
	for e, err := range c.Export(ctx, "shop", t0us.Add(time.Second), t0us.Add(5*time.Second)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 8 { // seconds 1 to 4, two each
		t.Fatalf("exported %d entries, want 8: %+v", len(got), got)
	}
	for i := 1; i < len(got); i++ {
		if p, e := got[i-1], got[i]; e.At.Before(p.At) || (e.At.Equal(p.At) && e.ID <= p.ID) {
			t.Errorf("entry %d (%v, %d) after (%v, %d)", i, e.At, e.ID, p.At, p.ID)
		}
	}
	for e, err := range c.Export(ctx, "shop", t0, t0.Add(time.Hour)) {
		if err != nil {
			t.Fatal(err)
		}
		_ = e
		break // stopping early is allowed
	}
	RequireLaw(t, s, "shop")
}

// 1,000 concurrent submissions of one account, with top-ups from other
// goroutines: afterwards the balance is the sum of the entries, every
// accepted message charged once and every refused one not at all.
func testLedgerConcurrency(t *testing.T, s Store) {
	ctx := t.Context()
	if err := s.CreateAccount(ctx, Account("busy", "10")); err != nil {
		t.Fatal(err)
	}
	c := newCredit(s)
	const n, topUps = 1000, 20
	errs := make([]error, n)
	var wg sync.WaitGroup
	var toppedUp atomic.Int64
	for i := range n {
		wg.Go(func() { errs[i] = s.Accept(ctx, Message(fmt.Sprintf("m-%04d", i), "busy", "0.05")) })
		if i%(n/topUps) == n/topUps/2 {
			wg.Go(func() {
				if _, err := c.TopUp(ctx, sms.Change{Account: "busy", Amount: dec("1"), Currency: "EUR", Actor: "client:crm"}); err != nil {
					t.Error(err)
					return
				}
				toppedUp.Add(1)
			})
		}
	}
	wg.Wait()
	accepted := 0
	for i, err := range errs {
		_, lookErr := s.Message(ctx, sms.MessageID(fmt.Sprintf("m-%04d", i)))
		switch {
		case err == nil:
			accepted++
			if lookErr != nil {
				t.Errorf("accepted message %d: %v", i, lookErr)
			}
		case sms.CodeOf(err) == sms.CodeNoCredit:
			if !isNotFound(lookErr) {
				t.Errorf("refused message %d is stored: %v", i, lookErr)
			}
		default:
			t.Errorf("message %d: %v", i, err)
		}
	}
	spent := dec("0.10").Mul(decimal.NewFromInt(int64(accepted)))
	want := dec("10").Add(decimal.NewFromInt(toppedUp.Load())).Sub(spent)
	requireBalance(t, s, "busy", want.String())
	if accepted == 0 || accepted == n {
		t.Errorf("%d of %d accepted; the test wants some refused for credit", accepted, n)
	}
	RequireLaw(t, s, "busy")
}

// The law as a property: any interleaving of top-ups, adjustments,
// acceptances (some refused for credit) and retention runs leaves every
// account's balance the sum of its entries.
func testLedgerProperty(t *testing.T, s Store) {
	ctx := t.Context()
	var run atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		r := run.Add(1)
		user := fmt.Sprintf("p-%d", r)
		a := Account(user, rapid.SampledFrom([]string{"0", "0.30", "2"}).Draw(rt, "balance"))
		a.CreditLimit = dec(rapid.SampledFrom([]string{"0", "0.25"}).Draw(rt, "limit"))
		if err := s.CreateAccount(ctx, a); err != nil {
			rt.Fatal(err)
		}
		c := newCredit(s)
		amount := func(label string) decimal.Decimal {
			return decimal.New(rapid.Int64Range(1, 200).Draw(rt, label), -2)
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for i := range steps {
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				if _, err := c.TopUp(ctx, sms.Change{Account: user, Amount: amount("topUp"), Currency: "EUR", Actor: "p"}); err != nil {
					rt.Fatal(err)
				}
			case 1:
				d := amount("adjust")
				if rapid.Bool().Draw(rt, "negative") {
					d = d.Neg()
				}
				before, _ := s.Account(ctx, user)
				_, err := c.Adjust(ctx, sms.Change{Account: user, Amount: d, Currency: "EUR", Actor: "p"})
				if err != nil && sms.CodeOf(err) != sms.CodeNoCredit {
					rt.Fatal(err)
				}
				if (err == nil) != before.Covers(d.Neg()) {
					rt.Fatalf("adjustment %s of balance %s (limit %s): %v", d, before.Balance, before.CreditLimit, err)
				}
			case 2, 3:
				m := Message(fmt.Sprintf("%s-m%d", user, i), user, amount("price").String())
				before, _ := s.Account(ctx, user)
				err := s.Accept(ctx, m)
				if err != nil && sms.CodeOf(err) != sms.CodeNoCredit {
					rt.Fatal(err)
				}
				if (err == nil) != before.Covers(m.Charged) {
					rt.Fatalf("charge %s of balance %s (limit %s): %v", m.Charged, before.Balance, before.CreditLimit, err)
				}
				if err == nil && rapid.Bool().Draw(rt, "finish") {
					FinishMessage(t, s, string(m.ID), 2, sms.StateDelivered, t1, false)
				}
			case 4:
				if _, err := s.ForgetFinished(ctx, t1.Add(time.Second), rapid.IntRange(1, 5).Draw(rt, "limit")); err != nil {
					rt.Fatal(err)
				}
			}
		}
		RequireLaw(t, s, user)
		after, err := s.Account(ctx, user)
		if err != nil {
			rt.Fatal(err)
		}
		if after.Balance.LessThan(after.CreditLimit.Neg()) {
			rt.Fatalf("balance %s below the floor %s", after.Balance, after.CreditLimit.Neg())
		}
	})
	if d, err := s.Reconcile(ctx, ""); err != nil || len(d) != 0 {
		t.Fatalf("Reconcile of every account = %+v, %v", d, err)
	}
}
