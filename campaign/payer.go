package campaign

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/msgkit/msgkit"
)

// The codes of the payer's errors.
const (
	// CodeInvalidPayer refuses an account that cannot be a bulk SMS
	// username.
	CodeInvalidPayer = "invalid_payer"
	// CodeNoPayer fails the sms messages of a tenant without a payer.
	CodeNoPayer = "no_sms_account"
)

// MaxPayerLen is the longest account a payer names: the longest bulk
// SMS username.
const MaxPayerLen = 200

// CheckPayer checks account as a payer: a bulk SMS username, 1 to
// MaxPayerLen bytes of UTF-8 without spaces or control characters. It
// is not looked up: an account the gateway does not know fails the
// run's messages as the gateway answers.
func CheckPayer(account string) error {
	switch {
	case account == "":
		return msgkit.Invalidf(CodeInvalidPayer, "account", "account is required: the bulk SMS username the campaigns are charged to")
	case len(account) > MaxPayerLen:
		return msgkit.Invalidf(CodeInvalidPayer, "account", "account is at most %d bytes", MaxPayerLen)
	case !utf8.ValidString(account) || strings.ContainsFunc(account, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return msgkit.Invalidf(CodeInvalidPayer, "account", "account is UTF-8 text without spaces or control characters")
	}
	return nil
}

// SetPayer makes account the bulk SMS account the tenant's sms campaigns
// are charged to (a setting of the tenant, kept by the store); a run
// reads it as it hands each page of messages over, so a change applies
// to the next page. The account must pass CheckPayer.
func (s *Service) SetPayer(ctx context.Context, tenant msgkit.ServiceUUID, account string) error {
	if err := CheckPayer(account); err != nil {
		return err
	}
	return s.store.SetPayer(ctx, tenant, account)
}

// RemovePayer leaves the tenant without a payer: the sms messages of its
// runs fail (code no_sms_account) until it has one again. A tenant
// without one is left so.
func (s *Service) RemovePayer(ctx context.Context, tenant msgkit.ServiceUUID) error {
	return s.store.SetPayer(ctx, tenant, "")
}

// Payer returns the account that pays for the tenant's sms campaigns,
// "" when it has none.
func (s *Service) Payer(ctx context.Context, tenant msgkit.ServiceUUID) (string, error) {
	return s.store.Payer(ctx, tenant)
}

// noPayer is the failure of an sms message of a tenant without a payer.
func noPayer() error {
	return msgkit.Errorf(msgkit.Invalid, CodeNoPayer, "the tenant has no bulk SMS account for campaigns")
}
