package memstore_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/msgkit/msgkit/contacts"

	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

func TestContactsImport(t *testing.T) {
	contactstest.RunImportStoreTests(t, func(t *testing.T) contactstest.ImportStore { return memstore.New().Contacts() })
}

// BenchmarkContactsImport: 100,000 contacts from the raw JSON body to
// the stored result (ReadImport, then Import), resolve update by mobile,
// half of them already in the list.
func BenchmarkContactsImport(b *testing.B) {
	benchmarkImport(b, func(b *testing.B) contactstest.ImportStore { return memstore.New().Contacts() })
}

func benchmarkImport(b *testing.B, newStore func(b *testing.B) contactstest.ImportStore) {
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
	var read time.Duration // of it, reading the body
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := newStore(b)
		if _, err := s.CreateList(ctx, contactstest.TenantA, contacts.List{UUID: o.ListUUID, Name: "bench"}); err != nil {
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
		b.StartTimer()
		var r contacts.ImportResult
		p := contactstest.PeakHeap(func() {
			start := time.Now()
			items, err := contacts.ReadImport(bytes.NewReader(body), o)
			if err != nil {
				b.Fatal(err)
			}
			read += time.Since(start)
			r, err = s.Import(ctx, contactstest.TenantA, contacts.ImportBatch{Options: o, Items: items, Now: time.Unix(2, 0), NewUUID: newUUID})
			if err != nil {
				b.Fatal(err)
			}
		})
		peak = max(peak, p)
		if r.Created != n/2 || r.Updated != n/2 {
			b.Fatalf("result %+v", r)
		}
	}
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(read.Seconds()/float64(b.N), "read-s/op")
}
