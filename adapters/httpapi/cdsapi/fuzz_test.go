package cdsapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/httpapi/httpapitest"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/contacts"
)

// FuzzHandlerBodies holds every JSON body the family reads to the HTTP
// kit's JSON rules (httpapitest.CheckBodies): never a 5xx, and what
// encoding/json would change or merge refused with 400. (The import reads
// an array of contacts by rules of its own.)
func FuzzHandlerBodies(f *testing.F) {
	for _, s := range append(httpapitest.BodySeeds(), []byte(smsCampaign), []byte(`{"name":"x","Name":"y"}`),
		[]byte(`{"list_uuid":"0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a","first_name":"Ana\u0000"}`)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		db := memstore.New()
		st := db.Contacts()
		svc := campaign.NewService(db.Campaigns(), st, httpapitest.NewClock().Now, nil)
		b := Backend{Contacts: contacts.NewService(contacts.Stores{Contacts: st, Catalog: st, Imports: st}, nil, nil), Campaigns: svc.WithRuns(db.Campaigns())}
		httpapitest.CheckBodies(t, spec(&api{b: b}), body, httpapitest.BodyOptions{Skip: []string{"POST " + BasePath + "services/{serviceUuid}/cds/imports"},
			ID: "0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a"})
	})
}

// The body readers of every CDS operation take any JSON object without a
// panic, and refuse only with an Invalid error naming its fields.
func FuzzBodies(f *testing.F) {
	for _, s := range []string{
		`{"list_uuid":"0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a","first_name":"Ana","mobile":"+38640123456","channel_telegram_data":{"a":1}}`,
		`{"opt_status":"in","opt_status_webpush":null}`, `{"name":7,"list_status":"x"}`,
		`{"display_name":"x","field_type":"select","config":{"options":["a"]},"order_num":"3","field_name":"column_2"}`,
		`{"name":"s","data":"{\"segmentation\":[]}","order_num":1e99}`, `{"uuid":1,"channels":[],"column_1":"a"}`,
		smsCampaign, emailCampaign, webpushCampaign, `{"status":"stopped"}`, `{"status":1,"name":null}`,
		`{"clone_uuid":"c0000000-0000-4000-8000-000000000001","template_vars":{"first_name":"Ana","x":null}}`,
		`{"sending_type":"telegram","schedule_type":"scheduled","schedule_rrule":"DTSTART;TZID=Europe/Berlin:20261025T023000\nRRULE:FREQ=DAILY;COUNT=3","template":"{\"messages\":[{\"body\":{}}]}"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var body map[string]json.RawMessage
		if json.Unmarshal(data, &body) != nil || body == nil {
			return
		}
		check := func(what string, err error) {
			if err == nil {
				return
			}
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid {
				t.Fatalf("%s: %v is not an Invalid error", what, err)
			}
		}
		if in, err := contactInput(body); err == nil {
			var c contacts.Contact
			check("Fill", contacts.Fill(&c, in, true))
		} else {
			check("contactInput", err)
		}
		if in, err := patchInput(body); err == nil {
			var c contacts.Contact
			check("ApplyPatch", contacts.ApplyPatch(&c, in))
		} else {
			check("patchInput", err)
		}
		if in, err := listInput(body); err == nil {
			var l contacts.List
			check("FillList", contacts.FillList(&l, in))
		} else {
			check("listInput", err)
		}
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		if in, err := campaignInput(body); err == nil {
			var c campaign.Campaign
			check("campaign.Fill", campaign.Fill(&c, in, true, now))
			if len(in.TemplateVars) > 0 {
				_, err := campaign.ApplyVars(c.Template, in.TemplateVars, true)
				check("ApplyVars", err)
			}
		} else {
			check("campaignInput", err)
		}
		if status, err := statusInput(body); err == nil {
			c := campaign.Campaign{Status: campaign.Stopped, Schedule: campaign.Schedule{Type: campaign.Now}}
			check("ChangeStatus", campaign.ChangeStatus(&c, status, now))
		} else {
			check("statusInput", err)
		}
		if in, err := recordInput(body); err == nil {
			for _, k := range contacts.RecordKinds() {
				r := contacts.Record{Kind: k}
				check("FillRecord", contacts.FillRecord(&r, in))
			}
		} else {
			check("recordInput", err)
		}
	})
}
