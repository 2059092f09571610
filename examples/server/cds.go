package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi"
	"github.com/msgkit/msgkit/adapters/httpapi/cdsapi"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
	"github.com/prometheus/client_golang/prometheus"
)

// contactsStore is what the CDS family runs on: lists and contacts, the
// catalog and the memberships in one, as memstore's and pgstore's contacts
// stores are.
type contactsStore interface {
	contacts.Store
	contacts.CatalogStore
	contacts.ImportStore
	campaign.ListChecker
	campaign.Audience
}

// campaignStore keeps the campaigns and their runs.
type campaignStore interface {
	campaign.Store
	campaign.RunStore
}

// cdsFamily is customer data storage and campaigns under /news/v1/; its
// demo is a list of the demo tenant with three contacts and a draft SMS
// campaign to it.
func cdsFamily(opts httpapi.Options, st contactsStore, cs campaignStore, reg prometheus.Registerer) family {
	var b cdsapi.Backend
	var people *contacts.Service
	var svc *campaign.Service
	if st != nil {
		people = contacts.NewService(contacts.Stores{Contacts: st, Catalog: st, Imports: st}, nil, nil).WithMetrics(reg)
		b.Contacts = people
		if cs != nil {
			svc = campaign.NewService(cs, st, nil, nil).WithRuns(cs)
			b.Campaigns = svc
		}
	}
	f := family{name: "cds", api: map[string]http.Handler{cdsapi.BasePath: cdsapi.Handler(opts, b)},
		docs: []apiDoc{{"cds", cdsapi.OpenAPI(), restServers}}}
	if st != nil {
		f.demo = func(ctx context.Context, d *demoCredentials) error {
			return cdsDemo(ctx, people, svc, d.Service, &d.Campaign)
		}
	}
	return f
}

// cdsDemo makes the list "Newsletter" with three contacts, two opted in
// to SMS, and a draft SMS campaign "Welcome" to the list.
func cdsDemo(ctx context.Context, people *contacts.Service, svc *campaign.Service, tenant msgkit.ServiceUUID, campaignUUID *string) error {
	name := "Newsletter"
	l, err := people.CreateList(ctx, tenant, contacts.ListInput{Name: &name})
	if err != nil {
		return fmt.Errorf("demo list: %w", err)
	}
	for _, p := range []struct{ first, last, mobile, email, opt string }{
		{"Ana", "Novak", "+38640123456", "ana@example.com", "in"},
		{"Marko", "Horvat", "+38641234567", "marko@example.com", "in"},
		{"Eva", "Kranjc", "+38631345678", "eva@example.com", "out"},
	} {
		in := contacts.Input{ListUUID: &l.UUID, OptStatus: &p.opt,
			Values: map[string]*string{"first_name": &p.first, "last_name": &p.last, "mobile": &p.mobile, "email": &p.email}}
		if _, err := people.CreateContact(ctx, tenant, in); err != nil {
			return fmt.Errorf("demo contact: %w", err)
		}
	}
	if svc == nil {
		return nil
	}
	welcome, status, channel, schedule, template, sender := "Welcome", "draft", "sms", "now", "Welcome to the Newsletter!", "Newsletter"
	c, err := svc.Create(ctx, tenant, campaign.Input{Name: &welcome, Status: &status, SendingType: &channel, ScheduleType: &schedule,
		Template: &template, Sender: &sender, Lists: &l.UUID})
	if err != nil {
		return fmt.Errorf("demo campaign: %w", err)
	}
	*campaignUUID = c.UUID
	return nil
}
