package campaign_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/campaign"
	"github.com/msgkit/msgkit/campaign/campaigntest"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/sms"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"
)

const tenant = msgkit.ServiceUUID("0b6a3d4e-8f1c-4c2a-9a51-3f0e2d1c4b5a")

// The runner's behaviour end to end is the runner suite of
// campaigntest.Run, run on memstore and pgstore by their packages.

// BenchmarkFanOut runs an sms campaign to a list of 1,000,000 contacts
// with a segmentation query matching half of them, on memstore: the
// recipients resolved page by page and 500,000 messages handed to the
// bulk SMS gateway (accepted, charged, queued). It reports the messages a
// second and the peak heap.
func BenchmarkFanOut(b *testing.B) {
	const n = 1_000_000
	db := memstore.New()
	w := campaigntest.NewWorld(b, campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()})
	ctx := context.Background()
	if _, err := w.GW.CreateAccount(ctx, sms.AccountSpec{Password: "pw", Account: sms.Account{
		Username: "bulk", Enabled: true, Balance: decimal.RequireFromString("1000000"), Currency: "EUR",
		Prices: []sms.Price{{Prefix: "386", Price: decimal.RequireFromString("0.01")}},
	}}); err != nil {
		b.Fatal(err)
	}
	big := seedList(b, db.Contacts(), n)
	q := `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`
	if err := w.Svc.SetPayer(ctx, tenant, "bulk"); err != nil {
		b.Fatal(err)
	}
	sender := campaign.SMSSender{Gateway: w.GW}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c := w.Create(b, map[string]any{"recipient_lists": big, "query_type": "segmentation", "query": q})
		r := w.Runner(map[campaign.Channel]campaign.Sender{campaign.SMS: sender}, campaign.RunnerOptions{Page: 1000, Lease: time.Hour})
		done := make(chan struct{})
		go func() {
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				select {
				case <-done:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
		b.StartTimer()
		if _, err := r.RunOnce(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		close(done)
		tasks, _ := db.Campaigns().Tasks(ctx, tenant, c.UUID)
		if len(tasks) != 1 || tasks[0].Sent != n/2 {
			b.Fatalf("tasks %+v", tasks)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n/2)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// discardPoster takes every webhook message.
type discardPoster struct{}

func (discardPoster) PostReport(context.Context, string, []byte) error { return nil }

// BenchmarkRunPages runs a viber campaign to a list of 2,000 contacts
// with a segmentation query of 21 rules matching half of them, in pages
// of 10 on memstore, through a webhook that takes every message: 100
// pages, where the runner's own work per page shows (the query is
// parsed once a task, not once a page).
func BenchmarkRunPages(b *testing.B) {
	b.Run("metrics=nil", func(b *testing.B) { benchRunPages(b, false) })
	b.Run("metrics=set", func(b *testing.B) { benchRunPages(b, true) })
}

// benchRunPages is BenchmarkRunPages, each runner with metrics (on a
// registry of its own) or without.
func benchRunPages(b *testing.B, withMetrics bool) {
	const n, page = 2000, 10
	db := memstore.New()
	w := campaigntest.NewWorld(b, campaigntest.RunnerStores{Contacts: db.Contacts(), Campaigns: db.Campaigns(), SMS: db.SMS()})
	ctx := context.Background()
	big := seedList(b, db.Contacts(), n)
	rules := []string{`{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}`}
	for i := range 20 {
		rules = append(rules, fmt.Sprintf(`{"field":"city","condition":"neq","value":"Town %d","operator":"AND"}`, i))
	}
	q := `{"segmentation":[{"rules":[` + strings.Join(rules, ",") + `]}]}`
	doc := `{"messages":[{"body":{"textMessage":{"content":"Hi"}}}]}`
	senders := map[campaign.Channel]campaign.Sender{campaign.Viber: campaign.WebhookSender{Poster: discardPoster{}, URL: "https://hooks.example/viber"}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c := w.Create(b, map[string]any{"recipient_lists": big, "query_type": "segmentation", "query": q,
			"sending_type": "viber", "template": doc, "sender": "shop"})
		opts := campaign.RunnerOptions{Page: page, Lease: time.Hour}
		if withMetrics {
			opts.Metrics = prometheus.NewRegistry()
		}
		r := w.Runner(senders, opts)
		b.StartTimer()
		if _, err := r.RunOnce(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		tasks, _ := db.Campaigns().Tasks(ctx, tenant, c.UUID)
		if len(tasks) != 1 || tasks[0].Sent != n/2 {
			b.Fatalf("tasks %+v", tasks)
		}
		b.StartTimer()
	}
}

// seedList makes the tenant's list "everyone" of n subscribed contacts,
// every other one in Ljubljana, the others in Maribor, and returns its UUID.
func seedList(b *testing.B, st *memstore.ContactsStore, n int) string {
	ctx := context.Background()
	const big = "7b1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b92"
	if _, err := st.CreateList(ctx, tenant, contacts.List{UUID: big, Name: "everyone", Status: contacts.ListActive, Created: now, Updated: now}); err != nil {
		b.Fatal(err)
	}
	list, opt := big, "in"
	for i := range n {
		c := contacts.Contact{UUID: fmt.Sprintf("d0000000-0000-4000-8000-%012d", i), Created: now.Add(time.Duration(i) * time.Microsecond)}
		c.Updated = c.Created
		mobile, city := fmt.Sprintf("+3864%07d", i), []string{"Ljubljana", "Maribor"}[i%2]
		if err := contacts.Fill(&c, contacts.Input{ListUUID: &list, OptStatus: &opt, Values: map[string]*string{"mobile": &mobile, "city": &city}}, true); err != nil {
			b.Fatal(err)
		}
		if _, err := st.CreateContact(ctx, tenant, c); err != nil {
			b.Fatal(err)
		}
	}
	return big
}
