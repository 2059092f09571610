package sms

import (
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/msgkit/msgkit"
)

// The codes (msgkit.Error codes, not submission Codes) of the refusals of
// the stores of this package; both stores answer them through the
// constructors and checks below.
const (
	CodeAccountInvalid    = "account_invalid"     // an account a store does not keep (Invalid)
	CodeMessageInvalid    = "message_invalid"     // a message a store does not keep (Invalid)
	CodePartInvalid       = "part_invalid"        // a part update a store does not save (Invalid)
	CodeReportInvalid     = "report_invalid"      // a report a store does not keep (Invalid)
	CodeSendResultInvalid = "send_result_invalid" // a send result a store does not record (Invalid)
	CodeMessageExists     = "message_exists"      // a message id is taken (Conflict)
	CodePartNotFound      = "part_not_found"      // no such part (NotFound)
	CodeReportNotFound    = "report_not_found"    // no such pending report (NotFound)
)

// CheckBalance refuses an account with a negative credit limit or a
// balance below its floor (-CreditLimit), which no store keeps.
func (a *Account) CheckBalance() error {
	if a.CreditLimit.IsNegative() {
		return msgkit.Invalidf(CodeAccountInvalid, "creditLimit", "creditLimit must not be negative")
	}
	if a.Balance.LessThan(a.CreditLimit.Neg()) {
		return msgkit.Invalidf(CodeAccountInvalid, "balance", "balance must not be below -creditLimit")
	}
	return nil
}

// Covers reports whether the account's balance covers a charge: the
// balance left is not below the floor, -CreditLimit.
func (a *Account) Covers(charge decimal.Decimal) bool {
	return !a.Balance.Sub(charge).LessThan(a.CreditLimit.Neg())
}

// CheckCharge refuses a message with a negative charge, which no store
// accepts.
func (m *MessageRecord) CheckCharge() error {
	if m.Charged.IsNegative() {
		return msgkit.Invalidf(CodeMessageInvalid, "charged", "charged must not be negative")
	}
	return nil
}

// CheckSendResults refuses results a store does not record: one not handed
// over without the time to try again (NextAt).
func CheckSendResults(results []SendResult) error {
	for i, r := range results {
		if !r.Handed && r.NextAt.IsZero() {
			return msgkit.Invalidf(CodeSendResultInvalid, "nextAt", "results[%d] is not handed over and has no nextAt", i)
		}
	}
	return nil
}

// MessageExists is the error of a message whose id is taken.
func MessageExists(id MessageID) error {
	return msgkit.New(msgkit.Conflict, CodeMessageExists, "message "+string(id)+" exists")
}

// PartNotFound is the error of a part that is not stored.
func PartNotFound(key PartKey) error {
	return msgkit.Errorf(msgkit.NotFound, CodePartNotFound, "part %d of message %s not found", key.PartNum, key.MsgID)
}

// ReportNotFound is the error of a report that is not pending.
func ReportNotFound(id int64) error {
	return msgkit.New(msgkit.NotFound, CodeReportNotFound, "report "+strconv.FormatInt(id, 10)+" not found")
}
