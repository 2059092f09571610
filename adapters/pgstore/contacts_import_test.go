package pgstore

import (
	"context"
	"fmt"
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
	t.Parallel()
	contactstest.RunImportStoreTests(t, func(t *testing.T) contactstest.ImportStore { return newTestDB(t).Contacts() })
}

// The import's memory: not parallel, as it measures the process's heap.
func TestImportMemory(t *testing.T) {
	contactstest.RunImportMemoryTest(t, func(tb testing.TB) contactstest.ImportStore { return newTestDB(tb).Contacts() }, false)
}

// Random batches of every mode and option give the same results and the
// same contacts on PostgreSQL as on memstore, PostgreSQL planning and
// writing them in chunks of one to four items.
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
			pg.importChunk = rapid.IntRange(1, 4).Draw(rt, "chunk")
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

// BenchmarkImport: contactstest.BenchmarkImport on PostgreSQL, each
// import into a fresh schema, its seed analysed.
func BenchmarkImport(b *testing.B) {
	contactstest.BenchmarkImport(b, func(tb testing.TB) contactstest.ImportStore { return newTestDB(tb).Contacts() },
		func(tb testing.TB, s contactstest.ImportStore) {
			if _, err := s.(*ContactsStore).pool.Exec(context.Background(), "ANALYZE contacts"); err != nil {
				tb.Fatal(err)
			}
		})
}
