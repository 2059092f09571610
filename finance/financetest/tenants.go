package financetest

import (
	"context"
	"slices"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

// runPartnerTenantTests runs the contract of finance.PartnerTenants
// against a fresh store from newStore.
func runPartnerTenantTests(t *testing.T, newStore func(t *testing.T) finance.PartnerTenants) {
	t.Helper()
	ctx := context.Background()
	s := newStore(t)
	const a, b msgkit.ServiceUUID = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	for _, link := range []struct {
		partner int64
		svc     msgkit.ServiceUUID
	}{{7, a}, {3, a}, {9, b}, {5, b}, {5, a}, {12, b}, {12, ""}} {
		if err := s.SetPartnerTenant(ctx, link.partner, link.svc); err != nil {
			t.Fatalf("SetPartnerTenant(%d, %q): %v", link.partner, link.svc, err)
		}
	}
	for _, tt := range []struct {
		services []msgkit.ServiceUUID
		want     []int64
	}{
		{[]msgkit.ServiceUUID{a}, []int64{3, 5, 7}}, // 5 moved from b to a
		{[]msgkit.ServiceUUID{b}, []int64{9}},       // 12 unlinked
		{[]msgkit.ServiceUUID{b, a}, []int64{3, 5, 7, 9}},
		{[]msgkit.ServiceUUID{"33333333-3333-4333-8333-333333333333"}, nil},
		{nil, nil},
	} {
		got, err := s.PartnersOf(ctx, tt.services)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("PartnersOf(%v) = %v, want %v", tt.services, got, tt.want)
		}
	}
	if err := s.SetPartnerTenant(ctx, 1, "bad\x00"); msgkit.KindOf(err) != msgkit.Invalid && err != nil {
		t.Errorf("a tenant with NUL: %v, want Invalid or stored", err)
	}
}
