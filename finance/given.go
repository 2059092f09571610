package finance

import (
	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// Given are the amounts a supplier invoice states: net, gross and the
// total payable.
type Given struct {
	AmountNoVat decimal.Decimal
	AmountVat   decimal.Decimal
	Total       decimal.Decimal
}

// CheckGiven refuses stated amounts that cannot belong together, naming
// each field at fault in one Invalid *msgkit.Error:
//   - an amount with more decimals than the currency's minor unit;
//   - amounts of opposite signs (a credit note is negative throughout);
//   - a VAT (amountVat - amountNoVat) of the other sign than the amounts;
//   - a total that differs from amountVat by more than half the
//     currency's cash step (by anything, without one);
//   - when lines are given, net and gross that differ from what Compute
//     makes of them with entry e.
func CheckGiven(g Given, c Currency, lines []Line, e Entry) error {
	err := &msgkit.Error{Kind: msgkit.Invalid, Code: CodeInvalidInvoice, Message: "the invoice's amounts do not belong together"}
	for _, a := range []struct {
		name string
		v    decimal.Decimal
	}{{"amountNoVat", g.AmountNoVat}, {"amountVat", g.AmountVat}, {"total", g.Total}} {
		if !c.Fits(a.v) {
			err.WithField(a.name, "more decimals than "+c.String()+" has", "amounts are in the currency's minor unit")
		}
	}
	sign := g.AmountNoVat.Sign() + g.AmountVat.Sign() + g.Total.Sign()
	switch {
	case g.AmountNoVat.Sign()*g.AmountVat.Sign() < 0 || g.AmountVat.Sign()*g.Total.Sign() < 0 || g.AmountNoVat.Sign()*g.Total.Sign() < 0:
		err.WithField("amountVat", "amountNoVat, amountVat and total have opposite signs", "a credit note is negative in every amount")
	case sign > 0 && g.AmountVat.LessThan(g.AmountNoVat), sign < 0 && g.AmountVat.GreaterThan(g.AmountNoVat):
		err.WithField("amountVat", "the VAT (amountVat - amountNoVat) has the other sign than the amounts", "")
	}
	if r := g.Total.Sub(g.AmountVat).Abs(); r.Sign() != 0 && r.Mul(decimal.NewFromInt(2)).GreaterThan(c.Cash) {
		err.WithField("total", "total differs from amountVat by "+r.String()+", more than cash rounding explains", "")
	}
	if len(lines) > 0 {
		t := Compute(lines, e, c, false)
		if !t.AmountNoVat.Equal(g.AmountNoVat) {
			err.WithField("amountNoVat", "the items' net is "+t.AmountNoVat.StringFixed(c.Decimals), "")
		}
		if !t.AmountVat.Equal(g.AmountVat) {
			err.WithField("amountVat", "the items' gross is "+t.AmountVat.StringFixed(c.Decimals), "")
		}
	}
	if len(err.Fields) > 0 {
		return err
	}
	return nil
}
