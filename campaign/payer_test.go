package campaign_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
)

func TestSetPayer(t *testing.T) {
	db := memstore.New()
	svc := campaign.NewService(db.Campaigns(), db.Contacts(), nil, nil)
	ctx := t.Context()
	for _, tc := range []struct {
		name, account string
	}{
		{"empty", ""},
		{"too long", strings.Repeat("a", campaign.MaxPayerLen+1)},
		{"a space", "bulk sms"},
		{"a control character", "bulk\x00"},
		{"not UTF-8", "bulk\xff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := svc.SetPayer(ctx, tenant, tc.account)
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != campaign.CodeInvalidPayer || !slices.Contains(fields(t, err), "account") {
				t.Errorf("SetPayer(%q) = %v, want Invalid %s naming account", tc.account, err, campaign.CodeInvalidPayer)
			}
			if got, _ := svc.Payer(ctx, tenant); got != "" {
				t.Errorf("a refused account was kept: %q", got)
			}
		})
	}
	longest := strings.Repeat("a", campaign.MaxPayerLen)
	if err := svc.SetPayer(ctx, tenant, longest); err != nil {
		t.Fatalf("SetPayer of %d bytes: %v", campaign.MaxPayerLen, err)
	}
	if got, err := svc.Payer(ctx, tenant); err != nil || got != longest {
		t.Errorf("Payer = %q, %v", got, err)
	}
	if err := svc.RemovePayer(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Payer(ctx, tenant); err != nil || got != "" {
		t.Errorf("after RemovePayer: %q, %v", got, err)
	}
}
