package finance

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func cur(t interface{ Fatalf(string, ...any) }, code string) Currency {
	c, ok := CurrencyByCode(code)
	if !ok {
		t.Fatalf("no currency %s", code)
	}
	return c
}

// lines makes one line of quantity 1 per amount, at rate percent.
func lines(rate string, amounts ...string) []Line {
	var ls []Line
	for _, a := range amounts {
		ls = append(ls, Line{Quantity: d("1"), Price: d(a), VatPercent: d(rate)})
	}
	return ls
}

// The worked examples: net and VAT of gross and net entries, credit
// notes, the one-rounding-per-rate rule, cash rounding, zero and three
// decimal currencies.
func TestComputeExamples(t *testing.T) {
	tests := []struct {
		name       string
		currency   string
		entry      Entry
		cash       bool
		lines      []Line
		net, vat   string
		gross      string
		total, rnd string
	}{
		{"gross 24.99 at 20%", "EUR", Gross, false, lines("20", "24.99"), "20.83", "4.16", "24.99", "24.99", "0.00"},
		{"gross 2.99 at 4%", "EUR", Gross, false, lines("4", "2.99"), "2.88", "0.11", "2.99", "2.99", "0.00"},
		{"gross 4.00 at 19.6%", "EUR", Gross, false, lines("19.6", "4.00"), "3.34", "0.66", "4.00", "4.00", "0.00"},
		// Per line, 0.199+0.038+0.568+0.045+0.105+0.287 would round to 1.26.
		{"six nets at 10%: VAT once", "EUR", Net, false, lines("10", "1.99", "0.38", "5.68", "0.45", "1.05", "2.87"), "12.42", "1.24", "13.66", "13.66", "0.00"},
		{"credit note gross -24.99 at 20%", "EUR", Gross, false, lines("20", "-24.99"), "-20.83", "-4.16", "-24.99", "-24.99", "0.00"},
		{"999.99 at 15% CHF cash", "CHF", Net, true, lines("15", "999.99"), "999.99", "150.00", "1149.99", "1150.00", "0.01"},
		{"CHF cash rounds down", "CHF", Net, true, lines("8.1", "10.00"), "10.00", "0.81", "10.81", "10.80", "-0.01"},
		{"CHF without cash", "CHF", Net, false, lines("7.7", "10.00"), "10.00", "0.77", "10.77", "10.77", "0.00"},
		{"negative cash rounding symmetric", "CHF", Net, true, lines("8.1", "-10.00"), "-10.00", "-0.81", "-10.81", "-10.80", "0.01"},
		{"0%", "EUR", Net, false, lines("0", "10.00", "5.55"), "15.55", "0.00", "15.55", "15.55", "0.00"},
		{"19% gross", "EUR", Gross, false, lines("19", "119.00", "0.01"), "100.01", "19.00", "119.01", "119.01", "0.00"},
		{"25% SEK cash to the krona", "SEK", Net, true, lines("25", "99.90"), "99.90", "24.98", "124.88", "125.00", "0.12"},
		{"JPY no decimals, gross", "JPY", Gross, false, lines("10", "1000"), "909", "91", "1000", "1000", "0"},
		{"KWD three decimals", "KWD", Net, false, lines("5", "1.005"), "1.005", "0.050", "1.055", "1.055", "0.000"},
		{"two rates", "EUR", Net, false, append(lines("19", "10.00"), lines("7", "10.00")...), "20.00", "2.60", "22.60", "22.60", "0.00"},
		{"quantity times price rounded per item", "EUR", Net, false,
			[]Line{{Quantity: d("3"), Price: d("0.3333"), VatPercent: d("20")}, {Quantity: d("0.5"), Price: d("0.05"), VatPercent: d("20")}},
			"1.03", "0.21", "1.24", "1.24", "0.00"}, // 0.9999 -> 1.00, 0.025 -> 0.03
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cur(t, tc.currency)
			got := Compute(tc.lines, tc.entry, c, tc.cash)
			for _, f := range []struct {
				name string
				got  decimal.Decimal
				want string
			}{{"net", got.AmountNoVat, tc.net}, {"vat", got.Vat, tc.vat}, {"gross", got.AmountVat, tc.gross}, {"total", got.Total, tc.total}, {"rounding", got.Rounding, tc.rnd}} {
				if !f.got.Equal(d(f.want)) {
					t.Errorf("%s = %s, want %s", f.name, f.got, f.want)
				}
				if s := c.Amount(f.got); mustJSON(t, s) != f.want {
					t.Errorf("%s writes %s, want %s", f.name, mustJSON(t, s), f.want)
				}
			}
		})
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Many items: one VAT rounding per rate, whatever the count.
func TestComputeManyItems(t *testing.T) {
	ls := lines("20", strings.Split(strings.Repeat("0.01,", 999)+"0.01", ",")...)
	got := Compute(ls, Net, cur(t, "EUR"), false)
	if !got.AmountNoVat.Equal(d("10.00")) || !got.Vat.Equal(d("2.00")) {
		t.Errorf("1000 items of 0.01 at 20%%: %s + %s, want 10.00 + 2.00 (per item, VAT would be 0.00)", got.AmountNoVat, got.Vat)
	}
}

func TestRoundHalfAwayFromZero(t *testing.T) {
	eur, chf, jpy := cur(t, "EUR"), cur(t, "CHF"), cur(t, "JPY")
	for _, tc := range []struct {
		c       Currency
		in, out string
		cash    bool
	}{
		{eur, "20.825", "20.83", false}, {eur, "-20.825", "-20.83", false}, {eur, "20.8249", "20.82", false},
		{jpy, "0.5", "1", false}, {jpy, "-0.5", "-1", false},
		{chf, "1149.975", "1150.00", true}, {chf, "1149.974", "1149.95", true}, {chf, "-0.025", "-0.05", true}, {chf, "0.024", "0.00", true},
	} {
		got := tc.c.Round(d(tc.in))
		if tc.cash {
			got = tc.c.CashRound(d(tc.in))
		}
		if !got.Equal(d(tc.out)) {
			t.Errorf("%s %s (cash %v) = %s, want %s", tc.c, tc.in, tc.cash, got, tc.out)
		}
	}
}

func TestCurrencies(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Currencies() {
		if seen[c.Code] || len(c.Code) != 3 || c.Numeric <= 0 || c.Decimals < 0 || c.Decimals > 3 {
			t.Errorf("bad currency %+v", c)
		}
		seen[c.Code] = true
		if n, ok := CurrencyByNumeric(c.Numeric); !ok || n.Code != c.Code {
			t.Errorf("CurrencyByNumeric(%d) = %v", c.Numeric, n)
		}
		if c.Cash.Sign() != 0 && !c.Fits(c.Cash) {
			t.Errorf("%s: cash step %s finer than the minor unit", c, c.Cash)
		}
	}
	if eur, _ := CurrencyByNumeric(978); eur.Code != "EUR" || eur.Decimals != 2 {
		t.Errorf("978 = %+v", eur)
	}
}

// The laws of every document's totals, for any lines, entry, currency
// and cash rounding: vat = amountVat - amountNoVat, rounding = total -
// amountVat, every amount in the minor unit, the breakdown adds up, VAT
// rounded once per rate, a credit note the exact negative of its invoice.
func TestComputeLaws(t *testing.T) {
	rates := []string{"0", "4", "7", "7.7", "8.1", "10", "15", "19", "19.6", "20", "21", "25", "27"}
	currs := []string{"EUR", "CHF", "JPY", "KWD", "SEK", "USD"}
	rapid.Check(t, func(t *rapid.T) {
		c := cur(t, rapid.SampledFrom(currs).Draw(t, "currency"))
		e := Entry(rapid.IntRange(0, 1).Draw(t, "entry"))
		cash := rapid.Bool().Draw(t, "cash")
		n := rapid.IntRange(0, 30).Draw(t, "lines")
		ls := make([]Line, n)
		for i := range ls {
			ls[i] = Line{
				Quantity:   decimal.New(rapid.Int64Range(1, 100000).Draw(t, "qty"), -rapid.Int32Range(0, 3).Draw(t, "qty scale")),
				Price:      decimal.New(rapid.Int64Range(-10000000, 10000000).Draw(t, "price"), -rapid.Int32Range(0, 4).Draw(t, "price scale")),
				VatPercent: d(rapid.SampledFrom(rates).Draw(t, "rate")),
			}
		}
		got := Compute(ls, e, c, cash)
		if !got.Vat.Equal(got.AmountVat.Sub(got.AmountNoVat)) {
			t.Fatalf("vat %s != amountVat %s - amountNoVat %s", got.Vat, got.AmountVat, got.AmountNoVat)
		}
		if !got.Rounding.Equal(got.Total.Sub(got.AmountVat)) {
			t.Fatalf("rounding %s != total %s - amountVat %s", got.Rounding, got.Total, got.AmountVat)
		}
		for _, a := range []decimal.Decimal{got.AmountNoVat, got.Vat, got.AmountVat, got.Total, got.Rounding} {
			if !c.Fits(a) {
				t.Fatalf("%s has more decimals than %s", a, c)
			}
		}
		if !cash && got.Rounding.Sign() != 0 || got.Rounding.Abs().Mul(decimal.NewFromInt(2)).GreaterThan(c.Cash) {
			t.Fatalf("rounding %s beyond half the cash step %s", got.Rounding, c.Cash)
		}
		var base, vat, sum decimal.Decimal
		for _, r := range got.ByRate {
			base, vat = base.Add(r.Base), vat.Add(r.Vat)
			rateSum := decimal.Zero
			for _, l := range ls {
				if l.VatPercent.Equal(r.VatPercent) {
					rateSum = rateSum.Add(LineAmount(l, c))
				}
			}
			want := c.Round(r.Base.Mul(r.VatPercent.Shift(-2)))
			if e == Gross {
				want = rateSum.Sub(r.Base)
				if !r.Base.Add(r.Vat).Equal(rateSum) {
					t.Fatalf("rate %s: base + vat %s != the gross of its items %s", r.VatPercent, r.Base.Add(r.Vat), rateSum)
				}
			} else if !r.Base.Equal(rateSum) {
				t.Fatalf("rate %s: base %s != the net of its items %s", r.VatPercent, r.Base, rateSum)
			}
			if !r.Vat.Equal(want) {
				t.Fatalf("rate %s: vat %s, want %s", r.VatPercent, r.Vat, want)
			}
			sum = sum.Add(rateSum)
		}
		if !base.Equal(got.AmountNoVat) || !vat.Equal(got.Vat) {
			t.Fatalf("the breakdown adds to %s + %s, not %s + %s", base, vat, got.AmountNoVat, got.Vat)
		}
		neg := make([]Line, len(ls))
		for i, l := range ls {
			neg[i] = l
			neg[i].Price = l.Price.Neg()
		}
		credit := Compute(neg, e, c, cash)
		for _, p := range [][2]decimal.Decimal{{credit.AmountNoVat, got.AmountNoVat}, {credit.Vat, got.Vat}, {credit.Total, got.Total}, {credit.Rounding, got.Rounding}} {
			if !p[0].Equal(p[1].Neg()) {
				t.Fatalf("the credit note's %s is not the negative of %s", p[0], p[1])
			}
		}
	})
}

func TestToDomestic(t *testing.T) {
	got := ToDomestic(Compute(lines("15", "999.99"), Net, cur(t, "CHF"), true), d("1.0637"), cur(t, "EUR"))
	// 999.99 * 1.0637 = 1063.689363, 1149.99 * 1.0637 = 1223.244363, 1150.00 * 1.0637 = 1223.255
	if !got.AmountNoVat.Equal(d("1063.69")) || !got.AmountVat.Equal(d("1223.24")) || !got.Total.Equal(d("1223.26")) || !got.Rounding.Equal(d("0.02")) {
		t.Errorf("ToDomestic = %+v", got)
	}
}

func TestResolveDates(t *testing.T) {
	today := date("2025-01-31")
	days := func(n int) *int { return &n }
	for _, tc := range []struct {
		name     string
		in       Dates
		creating bool
		due      string
		delivery string
		field    string
	}{
		{"due days from invDate", Dates{Inv: date("2025-01-31"), DueDays: days(30)}, true, "2025-03-02", "2025-01-31", ""},
		{"leap year", Dates{Inv: date("2024-01-31"), Delivery: date("2024-01-31"), DueDays: days(30)}, true, "2024-03-01", "2024-01-31", ""},
		{"due date wins", Dates{Inv: date("2025-01-10"), Due: date("2025-02-01"), DueDays: days(90)}, true, "2025-02-01", "2025-01-31", ""},
		{"neither on create", Dates{Inv: date("2025-01-10")}, true, "", "", "invDueDate"},
		{"neither on update", Dates{Inv: date("2025-01-10"), Delivery: date("2025-01-20")}, false, "2025-01-10", "2025-01-10", ""},
		{"due on the delivery date", Dates{Inv: date("2025-01-10"), Delivery: date("2025-01-20"), Due: date("2025-01-20")}, true, "", "", "invDueDate"},
		{"due before delivery", Dates{Delivery: date("2025-02-20"), DueDays: days(10)}, false, "", "", "invDueDate"},
		{"zero days, delivery today", Dates{DueDays: days(0)}, true, "", "", "invDueDate"},
		{"negative days", Dates{DueDays: days(-1)}, true, "", "", "invDueDateDays"},
	} {
		got, err := ResolveDates(tc.in, today, tc.creating)
		if tc.field != "" {
			var e *msgkit.Error
			if !errors.As(err, &e) || e.Kind != msgkit.Invalid || e.Fields[0].Name != tc.field {
				t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.field)
			}
			continue
		}
		if err != nil || got.Due != date(tc.due) || got.Delivery != date(tc.delivery) || got.DueDays != nil {
			t.Errorf("%s: %+v, %v; want due %s, delivery %s", tc.name, got, err, tc.due, tc.delivery)
		}
	}
}

func date(s string) msgkit.Date {
	v, err := msgkit.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestCheckGiven(t *testing.T) {
	eur, chf := cur(t, "EUR"), cur(t, "CHF")
	g := func(net, gross, total string) Given {
		return Given{AmountNoVat: d(net), AmountVat: d(gross), Total: d(total)}
	}
	for _, tc := range []struct {
		name   string
		given  Given
		c      Currency
		lines  []Line
		fields []string
	}{
		{"consistent", g("100.00", "120.00", "120.00"), eur, nil, nil},
		{"credit note", g("-100.00", "-120.00", "-120.00"), eur, nil, nil},
		{"cash rounded total", g("999.99", "1149.99", "1150.00"), chf, nil, nil},
		{"too many decimals", g("100.001", "120.00", "120.00"), eur, nil, []string{"amountNoVat"}},
		{"opposite signs", g("100.00", "-120.00", "-120.00"), eur, nil, []string{"amountVat"}},
		{"negative VAT", g("120.00", "100.00", "100.00"), eur, nil, []string{"amountVat"}},
		{"total far from gross", g("100.00", "120.00", "121.00"), eur, nil, []string{"total"}},
		{"total beyond cash rounding", g("100.00", "120.00", "120.03"), chf, nil, []string{"total"}},
		{"items agree", g("12.42", "13.66", "13.66"), eur, lines("10", "1.99", "0.38", "5.68", "0.45", "1.05", "2.87"), nil},
		{"items disagree (VAT per line)", g("12.42", "13.68", "13.68"), eur, lines("10", "1.99", "0.38", "5.68", "0.45", "1.05", "2.87"), []string{"amountVat"}},
	} {
		err := CheckGiven(tc.given, tc.c, tc.lines, Net)
		var names []string
		var e *msgkit.Error
		if errors.As(err, &e) {
			for _, f := range e.Fields {
				names = append(names, f.Name)
			}
		}
		if strings.Join(names, ",") != strings.Join(tc.fields, ",") {
			t.Errorf("%s: %v, want fields %v", tc.name, err, tc.fields)
		}
	}
}

func TestAmountJSON(t *testing.T) {
	var a Amount
	for in, want := range map[string]string{"1.5": "1.5", "1.50": "1.50", "-0.0450": "-0.0450", "12": "12", "1e2": "100"} {
		if err := json.Unmarshal([]byte(in), &a); err != nil || mustJSON(t, a) != want {
			t.Errorf("%s reads as %s, %v; want %s", in, mustJSON(t, a), err, want)
		}
	}
	for _, in := range []string{`"1.50"`, `null`, `1e999999999`, `true`, `1.` + strings.Repeat("0", 50)} {
		if err := json.Unmarshal([]byte(in), &a); err == nil {
			t.Errorf("%s read as an amount", in)
		}
	}
	if got := mustJSON(t, cur(t, "EUR").Amount(d("1.5"))); got != "1.50" {
		t.Errorf("EUR 1.5 writes %s, want 1.50", got)
	}
}

// An amount read from JSON is the number written, exactly: what it
// accepts writes back to the same value, and nothing panics.
func FuzzAmountJSON(f *testing.F) {
	for _, s := range []string{"1.50", "-0.0450", "12", "1e2", "1E-3", `"1"`, "null", "0.1e20", "-0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Amount
		if err := json.Unmarshal(b, &a); err != nil {
			return
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var again Amount
		if err := json.Unmarshal(out, &again); err != nil || !again.Value.Equal(a.Value) {
			t.Fatalf("%s wrote %s, read back %v, %v", b, out, again.Value, err)
		}
	})
}
