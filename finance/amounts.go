package finance

import (
	"slices"

	"github.com/shopspring/decimal"
)

// Entry says whether item prices include VAT: the documents' vatInPrice,
// 0 for net prices, 1 for gross.
type Entry uint8

// The entries.
const (
	Net   Entry = 0
	Gross Entry = 1
)

// Line is one item of a document: quantity times price, at a VAT rate in
// percent (20 for 20 %). Its price is net or gross as the document's
// Entry says.
type Line struct {
	Quantity   decimal.Decimal
	Price      decimal.Decimal
	VatPercent decimal.Decimal
}

// RateTotal is the net base and VAT of one rate of a document.
type RateTotal struct {
	VatPercent decimal.Decimal
	Base       decimal.Decimal // net
	Vat        decimal.Decimal
}

// Totals are a document's amounts, each rounded to the currency's minor
// unit: AmountNoVat (net), Vat, AmountVat (gross: AmountNoVat + Vat),
// Total (AmountVat, cash-rounded when asked) and Rounding (Total -
// AmountVat). ByRate holds the VAT breakdown, by ascending rate.
type Totals struct {
	AmountNoVat decimal.Decimal
	Vat         decimal.Decimal
	AmountVat   decimal.Decimal
	Rounding    decimal.Decimal
	Total       decimal.Decimal
	ByRate      []RateTotal
}

// LineAmount is an item's amount: quantity times price, rounded to the
// currency's minor unit (net or gross as the document's entry is).
func LineAmount(l Line, c Currency) decimal.Decimal { return c.Round(l.Quantity.Mul(l.Price)) }

// Compute totals a document's lines as EN 16931 does (BR-CO-17): every
// item amount rounded to the minor unit first; then, once per VAT rate,
// from the sum of that rate's rounded amounts, with net prices vat =
// round(net * rate), and with gross prices net = round(gross / (1 +
// rate)) and vat = gross - net. Halves round away from zero, negative
// amounts (credit notes) as positive ones. With cash, Total is AmountVat
// rounded to the currency's cash step and Rounding the difference.
func Compute(lines []Line, e Entry, c Currency, cash bool) Totals {
	sums := map[string]*RateTotal{} // by the rate's canonical text: 20 and 20.0 are one rate
	for _, l := range lines {
		key := l.VatPercent.String()
		r := sums[key]
		if r == nil {
			r = &RateTotal{VatPercent: l.VatPercent}
			sums[key] = r
		}
		r.Base = r.Base.Add(LineAmount(l, c)) // the gross sum, until converted below
	}
	t := Totals{}
	for _, r := range sums {
		rate := r.VatPercent.Shift(-2)
		if e == Gross {
			gross := r.Base
			r.Base = gross.DivRound(decimal.NewFromInt(1).Add(rate), c.Decimals)
			r.Vat = gross.Sub(r.Base)
		} else {
			r.Vat = c.Round(r.Base.Mul(rate))
		}
		t.AmountNoVat = t.AmountNoVat.Add(r.Base)
		t.Vat = t.Vat.Add(r.Vat)
		t.ByRate = append(t.ByRate, *r)
	}
	slices.SortFunc(t.ByRate, func(a, b RateTotal) int { return a.VatPercent.Cmp(b.VatPercent) })
	t.AmountVat = t.AmountNoVat.Add(t.Vat)
	t.Total = t.AmountVat
	if cash {
		t.Total = c.CashRound(t.AmountVat)
	}
	t.Rounding = t.Total.Sub(t.AmountVat)
	return t
}

// Domestic are a document's amounts in the domestic (accounting)
// currency at Rate units of it per unit of the document's currency.
type Domestic struct {
	Rate        decimal.Decimal
	AmountNoVat decimal.Decimal
	AmountVat   decimal.Decimal
	Rounding    decimal.Decimal
	Total       decimal.Decimal
}

// ToDomestic converts t at rate into currency d: the net, gross and total
// amounts each converted and rounded to d's minor unit, so that the
// domestic VAT is the difference of the rounded gross and net, and the
// domestic rounding that of the rounded total and gross, as in the
// document's own currency.
func ToDomestic(t Totals, rate decimal.Decimal, d Currency) Domestic {
	out := Domestic{
		Rate:        rate,
		AmountNoVat: d.Round(t.AmountNoVat.Mul(rate)),
		AmountVat:   d.Round(t.AmountVat.Mul(rate)),
		Total:       d.Round(t.Total.Mul(rate)),
	}
	out.Rounding = out.Total.Sub(out.AmountVat)
	return out
}
