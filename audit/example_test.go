package audit_test

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/audit"
	"github.com/msgkit/msgkit/msgkittest"
)

// An adapter puts the caller in the context; the service that makes a
// change records it with its record before and after; an operator lists
// the trail.
func ExampleLog_Record() {
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	trail := audit.New(memstore.New().Audit(), audit.Options{Clock: clock.Now})
	ctx := audit.WithActor(context.Background(), audit.Actor{Kind: audit.ActorClient, Subject: "ops-console", From: netip.MustParseAddr("192.0.2.10")})

	type tenant struct {
		Name      string `json:"name"`
		Suspended bool   `json:"suspended"`
	}
	_ = trail.Record(ctx, "suspend", "tenant", "6f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90", tenant{"Shop", false}, tenant{"Shop", true})
	_ = trail.Record(context.Background(), "create", "api_key", "k-1", nil, map[string]string{"name": "routing"})

	page, err := trail.Entries(context.Background(), msgkit.ListQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range page.Items {
		from := "-" // no network call
		if e.Actor.From.IsValid() {
			from = e.Actor.From.String()
		}
		fmt.Println(e.ID, e.At.Format(time.RFC3339), e.Actor.Kind, e.Actor.Subject, from, e.Action, e.Resource, string(e.Before), string(e.After))
	}
	// Output:
	// 1 2026-11-28T09:00:00Z client ops-console 192.0.2.10 suspend tenant {"name":"Shop","suspended":false} {"name":"Shop","suspended":true}
	// 2 2026-11-28T09:00:00Z system  - create api_key  {"name":"routing"}
}
