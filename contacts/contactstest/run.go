package contactstest

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

// Store is a contacts store the contract holds whole: contacts and lists,
// the catalog, imports.
type Store interface {
	contacts.Store
	contacts.CatalogStore
	contacts.ImportStore
}

// Stores is a new, empty store of a backend, as Run and Bench take it,
// with what the suites and benchmarks need to know of the backend.
type Stores struct {
	Contacts Store
	// InHeap says the store keeps its contacts in the process's heap
	// (memstore): the import memory suite lets the heap keep what they
	// take, and the benchmarks report it.
	InHeap bool
	// Seed, when not nil, stores contacts 0 to n-1 of BenchContact in
	// list of svc faster than CreateContact one by one (PostgreSQL: one
	// INSERT … SELECT), with every field the benchmarks list, filter and
	// sort by; nil, the benchmarks create them one by one.
	Seed func(tb testing.TB, svc msgkit.ServiceUUID, list string, n int)
	// Settle, when not nil, settles the store after a benchmark's seed
	// (PostgreSQL: its statistics), as a store that has run a while is.
	Settle func(tb testing.TB)
}

// Run runs every suite of the contract, each a subtest, over stores from
// newStores, a new, empty one per test: contacts and lists, the catalog,
// imports, and an import's memory. The memory suite measures the
// process's heap: call Run from a top-level test that is not parallel.
func Run(t *testing.T, newStores func(testing.TB) Stores) {
	t.Run("store", func(t *testing.T) {
		runStoreTests(t, func(t *testing.T) contacts.Store { return newStores(t).Contacts })
	})
	t.Run("catalog", func(t *testing.T) {
		runCatalogStoreTests(t, func(t *testing.T) CatalogStore { return newStores(t).Contacts })
	})
	t.Run("import", func(t *testing.T) {
		runImportStoreTests(t, func(t *testing.T) ImportStore { return newStores(t).Contacts })
	})
	t.Run("import memory", func(t *testing.T) { runImportMemoryTest(t, newStores) })
}

// Bench runs the benchmarks every store shares, each a sub-benchmark over
// stores from newStores: Import (benchImport), Million (benchMillion) and
// Members (benchMembers).
func Bench(b *testing.B, newStores func(testing.TB) Stores) {
	b.Run("Import", func(b *testing.B) { benchImport(b, newStores) })
	b.Run("Million", func(b *testing.B) { benchMillion(b, newStores(b)) })
	b.Run("Members", func(b *testing.B) { benchMembers(b, newStores(b).Contacts) })
}

// The option and the interest of BenchContact.
const (
	BenchOption   = "33333333-0000-4000-8000-000000000001"
	BenchInterest = "55555555-0000-4000-8000-000000000001"
)

// benchBase is the benchmarks' time: BenchContact i is created i ms after
// it.
var benchBase = time.Unix(1_767_225_600, 0).UTC()

// BenchContact is contact i of list in the benchmarks: uuid
// %08x-0000-4000-8000-%012x of i, created i ms after 2026-01-01 and
// updated then, first_name Name<i%5000>, last_name Surname<i%7919>,
// gender female for an even i (male otherwise), email user<i>@example.com,
// city Ljubljana; subscribed to BenchOption when i%100 is 0,
// unsubscribed when it is 1; a member of BenchInterest when i%3 is 0,
// subscribed for an even i.
func BenchContact(tb testing.TB, i int, list string) contacts.Contact {
	c := NewContact(tb, i, list, map[string]string{"first_name": fmt.Sprintf("Name%d", i%5000), "last_name": fmt.Sprintf("Surname%d", i%7919),
		"email": fmt.Sprintf("user%d@example.com", i), "gender": []string{"female", "male"}[i%2], "city": "Ljubljana"})
	c.UUID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	c.Created, c.Updated = benchBase.Add(time.Duration(i)*time.Millisecond), benchBase
	sts := []contacts.MemberStatus{contacts.Subscribed, contacts.Unsubscribed}
	if i%100 < 2 {
		c.Options = map[string]contacts.MemberStatus{BenchOption: sts[i%100]}
	}
	if i%3 == 0 {
		c.Interests = map[string]contacts.MemberStatus{BenchInterest: sts[i%2]}
	}
	return c
}

// benchMillion: a million contacts of one tenant (BenchContact; another
// tenant's hundred thousand beside them), page 1 by last_name of them all,
// of the women, of BenchOption's subscribers (1 %) and of BenchInterest's
// members (a third). It reports the median time of a page and, of a store
// that keeps its contacts in the heap, the heap the million take
// (heap-MB).
func benchMillion(b *testing.B, st Stores) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	seedMillion(b, st)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, mc := range millionCases(b) {
		b.Run(mc.name, func(b *testing.B) {
			b.ReportAllocs()
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				listMillion(b, st.Contacts, mc)
				times = append(times, time.Since(start))
			}
			b.ReportMetric(medianMS(times), "median-ms")
			if st.InHeap {
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heap-MB")
			}
		})
	}
	runtime.KeepAlive(st.Contacts)
}

// BenchMillionVersus lists the million of benchMillion from two
// backends side by side in one run: both hold the same contacts, and
// each iteration lists a page from one and then from the other
// (alternating which goes first), so that load the machine is under
// falls on both alike. Each query reports both medians (a-ms, b-ms) and
// their ratio (a/b): with a the memory store and b PostgreSQL, a ratio
// of at most 1 is what the memory store promises.
func BenchMillionVersus(b *testing.B, a, c Stores) {
	seedMillion(b, a)
	seedMillion(b, c)
	for _, mc := range millionCases(b) {
		b.Run(mc.name, func(b *testing.B) {
			var ta, tc []time.Duration
			timed := func(s Store, ts *[]time.Duration) {
				start := time.Now()
				listMillion(b, s, mc)
				*ts = append(*ts, time.Since(start))
			}
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					timed(a.Contacts, &ta)
					timed(c.Contacts, &tc)
				} else {
					timed(c.Contacts, &tc)
					timed(a.Contacts, &ta)
				}
				i++
			}
			ma, mc := medianMS(ta), medianMS(tc)
			b.ReportMetric(ma, "a-ms")
			b.ReportMetric(mc, "b-ms")
			b.ReportMetric(ma/mc, "a/b")
		})
	}
}

// seedMillion stores benchMillion's contacts in st and settles it.
func seedMillion(b *testing.B, st Stores) {
	ctx := context.Background()
	s := st.Contacts
	list := ListUUID(1)
	for _, svc := range []msgkit.ServiceUUID{TenantA, TenantB} {
		if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all", Status: "active", Created: benchBase, Updated: benchBase}); err != nil {
			b.Fatal(err)
		}
	}
	seed := st.Seed
	if seed == nil {
		seed = func(tb testing.TB, svc msgkit.ServiceUUID, list string, n int) {
			for i := range n {
				if _, err := s.CreateContact(ctx, svc, BenchContact(tb, i, list)); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	seed(b, TenantA, list, millionContacts)
	seed(b, TenantB, list, millionContacts/10)
	if st.Settle != nil {
		st.Settle(b)
	}
}

// millionContacts is how many contacts benchMillion lists.
const millionContacts = 1_000_000

// millionCase is one query of benchMillion and the number of contacts it
// selects.
type millionCase struct {
	name  string
	q     contacts.ContactQuery
	total int
}

func millionCases(b *testing.B) []millionCase {
	const n = millionContacts
	byLastName, err := msgkit.ParseListQuery(url.Values{"sort": {"last_name"}}, contacts.ContactSpec())
	if err != nil {
		b.Fatal(err)
	}
	women, err := msgkit.ParseListQuery(url.Values{"gender": {"female"}, "sort": {"last_name"}}, contacts.ContactSpec())
	if err != nil {
		b.Fatal(err)
	}
	return []millionCase{
		{"all by last_name", contacts.ContactQuery{List: byLastName}, n},
		{"gender by last_name", contacts.ContactQuery{List: women}, n / 2},
		{"option subscribed 1%", contacts.ContactQuery{List: byLastName, Options: &contacts.MembershipFilter{UUIDs: []string{BenchOption}, Status: contacts.Subscribed}}, n / 100},
		{"interest 33%", contacts.ContactQuery{List: byLastName, Interests: &contacts.MembershipFilter{UUIDs: []string{BenchInterest}}}, (n + 2) / 3},
	}
}

// listMillion lists mc's page 1 from s and checks its size and total.
func listMillion(b *testing.B, s Store, mc millionCase) {
	page, err := s.Contacts(context.Background(), TenantA, mc.q)
	if err != nil || page.Total != mc.total || len(page.Items) != 10 {
		b.Fatalf("%s: page %d/%d, %v", mc.name, len(page.Items), page.Total, err)
	}
}

// medianMS is the median of ts in milliseconds.
func medianMS(ts []time.Duration) float64 {
	ts = slices.Clone(ts)
	slices.Sort(ts)
	return float64(ts[len(ts)/2].Nanoseconds()) / 1e6
}

// benchMembers: 10,000 contacts subscribed to two options of a
// subscription and unsubscribed from a third: page 1 of the members of
// one option (list), and a membership set (set).
func benchMembers(b *testing.B, s Store) {
	ctx := context.Background()
	svc := TenantA
	list := ListUUID(1)
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "all", Created: benchBase, Updated: benchBase}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRecord(ctx, svc, contacts.Record{Kind: contacts.KindSubscription, UUID: RecordUUID(1), Name: "s", Status: "active", Created: benchBase}); err != nil {
		b.Fatal(err)
	}
	for o := range 3 {
		if _, err := s.CreateRecord(ctx, svc, contacts.Record{Kind: contacts.KindOption, UUID: RecordUUID(10 + o), Parent: RecordUUID(1), Name: "o", Status: "active", Created: benchBase}); err != nil {
			b.Fatal(err)
		}
	}
	const n = 10_000
	for i := range n {
		c := NewContact(b, i, list, map[string]string{"first_name": "N"})
		c.Created = benchBase.Add(time.Duration(i) * time.Millisecond)
		c.Options = map[string]contacts.MemberStatus{RecordUUID(10): contacts.Subscribed,
			RecordUUID(11): contacts.Subscribed, RecordUUID(12): contacts.Unsubscribed}
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			b.Fatal(err)
		}
	}
	q, err := msgkit.ParseListQuery(url.Values{"option_uuid": {RecordUUID(11)}}, contacts.MemberSpec(contacts.MemberOption))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("list", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			page, err := s.Members(ctx, svc, contacts.MemberQuery{Kind: contacts.MemberOption, List: q})
			if err != nil || page.Total != n || len(page.Items) != 10 {
				b.Fatalf("page %d/%d, %v", len(page.Items), page.Total, err)
			}
		}
	})
	b.Run("set", func(b *testing.B) {
		b.ReportAllocs()
		m := contacts.Member{Kind: contacts.MemberOption, ContactUUID: ContactUUID(n / 2), TargetUUID: RecordUUID(11), Status: contacts.Unsubscribed, Updated: benchBase}
		for b.Loop() {
			if _, err := s.SetMember(ctx, svc, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
