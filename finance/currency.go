package finance

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// Currency is what amounts in one currency are rounded by: its ISO 4217
// numeric code (the documents' integer currency), its code, its minor
// unit and, where cash is rounded coarser than the minor unit, the cash
// step.
type Currency struct {
	Numeric  int
	Code     string
	Decimals int32           // digits after the decimal point (EUR 2, JPY 0, KWD 3)
	Cash     decimal.Decimal // the cash rounding step (CHF 0.05); zero: none
}

// currencies are the currencies the platform prices and invoices in: ISO
// 4217's numeric codes and minor units, with the cash steps of the
// currencies whose cash totals are rounded coarser by law or custom.
var currencies = []Currency{
	{Numeric: 36, Code: "AUD", Decimals: 2, Cash: decimal.New(5, -2)},
	{Numeric: 48, Code: "BHD", Decimals: 3},
	{Numeric: 124, Code: "CAD", Decimals: 2, Cash: decimal.New(5, -2)},
	{Numeric: 152, Code: "CLP", Decimals: 0},
	{Numeric: 156, Code: "CNY", Decimals: 2},
	{Numeric: 203, Code: "CZK", Decimals: 2, Cash: decimal.New(1, 0)},
	{Numeric: 208, Code: "DKK", Decimals: 2, Cash: decimal.New(50, -2)},
	{Numeric: 344, Code: "HKD", Decimals: 2},
	{Numeric: 348, Code: "HUF", Decimals: 2, Cash: decimal.New(5, 0)},
	{Numeric: 352, Code: "ISK", Decimals: 0},
	{Numeric: 356, Code: "INR", Decimals: 2},
	{Numeric: 368, Code: "IQD", Decimals: 3},
	{Numeric: 376, Code: "ILS", Decimals: 2},
	{Numeric: 392, Code: "JPY", Decimals: 0},
	{Numeric: 400, Code: "JOD", Decimals: 3},
	{Numeric: 410, Code: "KRW", Decimals: 0},
	{Numeric: 414, Code: "KWD", Decimals: 3},
	{Numeric: 434, Code: "LYD", Decimals: 3},
	{Numeric: 484, Code: "MXN", Decimals: 2},
	{Numeric: 512, Code: "OMR", Decimals: 3},
	{Numeric: 554, Code: "NZD", Decimals: 2, Cash: decimal.New(10, -2)},
	{Numeric: 578, Code: "NOK", Decimals: 2, Cash: decimal.New(1, 0)},
	{Numeric: 643, Code: "RUB", Decimals: 2},
	{Numeric: 682, Code: "SAR", Decimals: 2},
	{Numeric: 702, Code: "SGD", Decimals: 2, Cash: decimal.New(5, -2)},
	{Numeric: 704, Code: "VND", Decimals: 0},
	{Numeric: 710, Code: "ZAR", Decimals: 2, Cash: decimal.New(10, -2)},
	{Numeric: 752, Code: "SEK", Decimals: 2, Cash: decimal.New(1, 0)},
	{Numeric: 756, Code: "CHF", Decimals: 2, Cash: decimal.New(5, -2)},
	{Numeric: 764, Code: "THB", Decimals: 2},
	{Numeric: 784, Code: "AED", Decimals: 2},
	{Numeric: 788, Code: "TND", Decimals: 3},
	{Numeric: 826, Code: "GBP", Decimals: 2},
	{Numeric: 840, Code: "USD", Decimals: 2},
	{Numeric: 941, Code: "RSD", Decimals: 2},
	{Numeric: 946, Code: "RON", Decimals: 2},
	{Numeric: 949, Code: "TRY", Decimals: 2},
	{Numeric: 975, Code: "BGN", Decimals: 2},
	{Numeric: 978, Code: "EUR", Decimals: 2, Cash: decimal.New(5, -2)}, // cash in FI, NL, BE, IE, IT, SK
	{Numeric: 985, Code: "PLN", Decimals: 2},
	{Numeric: 986, Code: "BRL", Decimals: 2},
}

// CurrencyByNumeric finds a currency by its ISO 4217 numeric code.
func CurrencyByNumeric(n int) (Currency, bool) {
	for _, c := range currencies {
		if c.Numeric == n {
			return c, true
		}
	}
	return Currency{}, false
}

// CurrencyByCode finds a currency by its ISO 4217 code.
func CurrencyByCode(code string) (Currency, bool) {
	for _, c := range currencies {
		if c.Code == code {
			return c, true
		}
	}
	return Currency{}, false
}

// Currencies lists the known currencies, by numeric code.
func Currencies() []Currency { return append([]Currency(nil), currencies...) }

// String is the currency's code.
func (c Currency) String() string {
	if c.Code == "" {
		return "currency(" + strconv.Itoa(c.Numeric) + ")"
	}
	return c.Code
}

// Round rounds d to the currency's minor unit, halves away from zero, the
// same for negative amounts as for positive ones (-20.825 EUR is -20.83).
func (c Currency) Round(d decimal.Decimal) decimal.Decimal { return d.Round(c.Decimals) }

// CashRound rounds d to the currency's cash step, halves away from zero;
// a currency without one rounds to its minor unit.
func (c Currency) CashRound(d decimal.Decimal) decimal.Decimal {
	if c.Cash.Sign() <= 0 {
		return c.Round(d)
	}
	// DivRound is exact: the quotient is rounded on its true remainder.
	return d.DivRound(c.Cash, 0).Mul(c.Cash).Round(c.Decimals)
}

// Fits reports whether d has no more decimals than the minor unit allows.
func (c Currency) Fits(d decimal.Decimal) bool { return d.Equal(d.Truncate(c.Decimals)) }
