package pgstore

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsImport(t *testing.T) {
	contactstest.RunImportStoreTests(t, func(t *testing.T) contactstest.ImportStore { return newTestDB(t).Contacts() })
}

// Random batches of every mode and option give the same results and the
// same contacts on PostgreSQL as on memstore.
func TestContactsImportLikeMemstore(t *testing.T) {
	t.Parallel()
	pg := newTestDB(t).Contacts()
	mem := memstore.New().Contacts()
	ctx := context.Background()
	round := 0
	rapid.Check(t, func(rt *rapid.T) {
		round++
		list := contactstest.ListUUID(round)
		for _, s := range []contacts.Store{pg, mem} {
			if _, err := s.CreateList(ctx, contactstest.TenantA, contacts.List{UUID: list, Name: "p", Created: time.Unix(int64(round), 0).UTC()}); err != nil {
				rt.Fatal(err)
			}
		}
		ims := []*contactstest.Importer{{S: pg, Prefix: 0x66660000 + round}, {S: mem, Prefix: 0x66660000 + round}}
		mobiles := []string{"+38640111111", "+38640222222", "0038640222222", "+38640333333", "bad", ""}
		emails := []string{"a@b.si", "A@B.SI", "c@d.si", "bad", ""}
		for r := range 3 {
			var items []string
			for i := range rapid.IntRange(0, 10).Draw(rt, "n") {
				fields := []string{fmt.Sprintf(`"first_name":"N%d"`, i)}
				if m := rapid.SampledFrom(mobiles).Draw(rt, "mobile"); m != "" {
					fields = append(fields, fmt.Sprintf(`"mobile":%q`, m))
				}
				if e := rapid.SampledFrom(emails).Draw(rt, "email"); e != "" {
					fields = append(fields, fmt.Sprintf(`"email":%q`, e))
				}
				if o := rapid.SampledFrom([]string{"", "in", "out"}).Draw(rt, "opt"); o != "" {
					fields = append(fields, fmt.Sprintf(`"opt_status":%q`, o))
				}
				items = append(items, "{"+strings.Join(fields, ",")+"}")
			}
			q := "list_uuid=" + list + "&resolve_duplicate=" + rapid.SampledFrom([]string{"update", "skip", "subscribe", "unsubscribe", "delete", "optin", "optout"}).Draw(rt, "mode") +
				"&identifier=" + rapid.SampledFrom([]string{"mobile", "email"}).Draw(rt, "identifier") +
				"&insert_opt_channels=" + rapid.SampledFrom([]string{"sms", "whatsapp", "sms,whatsapp"}).Draw(rt, "insert") +
				"&update_opt_channels=" + rapid.SampledFrom([]string{"sms", "whatsapp", "sms,whatsapp"}).Draw(rt, "update") +
				"&option_uuids=" + contactstest.OptionUUID(1) + "&update_option_uuids=" + contactstest.OptionUUID(2)
			if rapid.Bool().Draw(rt, "unset") {
				q += "&unset_invalid_fields=email"
			}
			body := "[" + strings.Join(items, ",") + "]"
			var results []contacts.ImportResult
			for _, im := range ims {
				res, err := im.Run(t, contactstest.TenantA, q, body, int64(r))
				if err != nil {
					rt.Fatal(err)
				}
				results = append(results, res)
			}
			if diff := cmp.Diff(results[1], results[0]); diff != "" {
				rt.Fatalf("%s %s: result (-memstore +pgstore):\n%s", q, body, diff)
			}
			if diff := cmp.Diff(contactstest.Snapshot(t, mem, contactstest.TenantA, list), contactstest.Snapshot(t, pg, contactstest.TenantA, list)); diff != "" {
				rt.Fatalf("%s %s: contacts (-memstore +pgstore):\n%s", q, body, diff)
			}
		}
	})
}

// BenchmarkContactsImport: 100,000 contacts from the raw JSON body to
// the stored result (ReadImport, then Import), resolve update by mobile,
// half of them already in the list; each run in a fresh schema.
func BenchmarkContactsImport(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	var half []int
	for i := 0; i < n; i += 2 {
		half = append(half, i)
	}
	seed, body := contactstest.ImportEvery(half), contactstest.ImportBody(0, n)
	o, err := contacts.ParseImportQuery(url.Values{"list_uuid": {contactstest.ListUUID(1)}, "resolve_duplicate": {"update"}, "identifier": {"mobile"}})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	var read, store time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := newTestDB(b).Contacts()
		if _, err := s.CreateList(ctx, contactstest.TenantA, contacts.List{UUID: o.ListUUID, Name: "bench", Status: "active"}); err != nil {
			b.Fatal(err)
		}
		seq := 0
		newUUID := func() string { seq++; return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, seq) }
		items, err := contacts.ReadImport(bytes.NewReader(seed), o)
		if err != nil {
			b.Fatal(err)
		}
		if r, err := s.Import(ctx, contactstest.TenantA, contacts.ImportBatch{Options: o, Items: items, Now: time.Unix(1, 0), NewUUID: newUUID}); err != nil || r.Created != n/2 {
			b.Fatalf("seed: %+v, %v", r.Created, err)
		}
		items = nil
		if _, err := s.pool.Exec(ctx, "ANALYZE contacts"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var r contacts.ImportResult
		p := contactstest.PeakHeap(func() {
			start := time.Now()
			items, err := contacts.ReadImport(bytes.NewReader(body), o)
			if err != nil {
				b.Fatal(err)
			}
			read += time.Since(start)
			start = time.Now()
			r, err = s.Import(ctx, contactstest.TenantA, contacts.ImportBatch{Options: o, Items: items, Now: time.Unix(2, 0), NewUUID: newUUID})
			if err != nil {
				b.Fatal(err)
			}
			store += time.Since(start)
		})
		peak = max(peak, p)
		if r.Created != n/2 || r.Updated != n/2 {
			b.Fatalf("result %+v", r)
		}
	}
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(read.Seconds()/float64(b.N), "read-s/op")
	b.ReportMetric(store.Seconds()/float64(b.N), "store-s/op")
}
