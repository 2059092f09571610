package contactstest

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/msgkit/msgkit/contacts"
)

// benchImport measures imports from the raw JSON body to the stored
// result, the calls the HTTP handler makes (ReadImport, then Import): a
// body of n contacts (ImportBody, about 110 bytes each), for n of 10,000
// and 100,000, resolved by update on mobile into a list that holds every
// other one of them already. Each import runs into a fresh store from
// newStores, seeded untimed, then settled (Stores.Settle). Besides time,
// allocations and the rate (contacts/s) it reports, from one more import
// measured by MeasureHeap, peak-B/body-B
// (the import's transient heap at its peak per byte of body) and
// kept-B/body-B (the heap the store kept of it per byte of body).
func benchImport(b *testing.B, newStores func(testing.TB) Stores) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("contacts=%d", n), func(b *testing.B) { benchmarkImport(b, newStores, n) })
	}
}

func benchmarkImport(b *testing.B, newStores func(testing.TB) Stores, n int) {
	ctx := context.Background()
	var half []int
	for i := 0; i < n; i += 2 {
		half = append(half, i)
	}
	seed, body := ImportEvery(half), ImportBody(0, n)
	o, err := contacts.ParseImportQuery(mustValues("resolve_duplicate=update&identifier=mobile&list_uuid=" + ListUUID(1)))
	if err != nil {
		b.Fatal(err)
	}
	run := func(s ImportStore, body []byte, sec int64, newUUID func() string) contacts.ImportResult {
		items, err := contacts.ReadImport(bytes.NewReader(body), o)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.Import(ctx, TenantA, contacts.ImportBatch{Options: o, Items: items, Now: at(sec), NewUUID: newUUID})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	prepare := func(round int) (ImportStore, func() string) {
		st := newStores(b)
		s := st.Contacts
		if _, err := s.CreateList(ctx, TenantA, contacts.List{UUID: o.ListUUID, Name: "bench", Status: "active", Created: at(0), Updated: at(0)}); err != nil {
			b.Fatal(err)
		}
		seq := 0
		newUUID := func() string { seq++; return uuidN(0x66000000+round, seq) }
		if r := run(s, seed, 1, newUUID); r.Created != len(half) {
			b.Fatalf("seed: %+v", r)
		}
		if st.Settle != nil {
			st.Settle(b)
		}
		return s, newUUID
	}
	check := func(r contacts.ImportResult) {
		if r.Created != n-len(half) || r.Updated != len(half) || r.Total() != n {
			b.Fatalf("result %+v", r)
		}
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		s, newUUID := prepare(i)
		b.StartTimer()
		check(run(s, body, 2, newUUID))
	}
	b.StopTimer()
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "contacts/s")
	s, newUUID := prepare(b.N)
	var r contacts.ImportResult
	h := MeasureHeap(func() { r = run(s, body, 2, newUUID) })
	runtime.KeepAlive(s)    // what it keeps is measured after the import,
	runtime.KeepAlive(body) // and what was there before stays
	check(r)
	b.ReportMetric(float64(h.Transient())/float64(len(body)), "peak-B/body-B")
	b.ReportMetric(float64(h.Kept)/float64(len(body)), "kept-B/body-B")
}
