package finance

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/shopspring/decimal"
)

// Amount is an amount as the finance API writes it: a JSON number with
// exactly the currency's decimals (1.50, never 1.5 or "1.50"), read back
// without passing through a float.
type Amount struct {
	Value  decimal.Decimal
	Places int32
}

// Amount is d for the wire, with c's decimals.
func (c Currency) Amount(d decimal.Decimal) Amount { return Amount{Value: d, Places: c.Decimals} }

// Bounds on an amount read from JSON: a number like 1e999999999 would
// otherwise cost as many digits to write back.
const (
	maxAmountText = 40
	maxAmountExp  = 20
)

// MarshalJSON writes the number with Places decimals, rounding halves
// away from zero if it has more.
func (a Amount) MarshalJSON() ([]byte, error) {
	return []byte(a.Value.StringFixed(a.Places)), nil
}

// UnmarshalJSON reads a JSON number exactly; Places is the number's own
// decimals.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == '"' || !json.Valid(b) {
		return errors.New("an amount is a JSON number")
	}
	d, err := decimal.NewFromString(string(b))
	if err != nil || len(b) > maxAmountText || d.Exponent() < -maxAmountExp || d.Exponent() > maxAmountExp {
		return errors.New("an amount is a JSON number of at most 40 characters, between 1e-20 and 1e20 in scale")
	}
	*a = Amount{Value: d, Places: max(-d.Exponent(), 0)}
	return nil
}
