package contacts_test

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// BenchmarkReadImport reads a body of 100,000 contacts with mobile
// numbers (the cost of the phone numbers is most of it).
func BenchmarkReadImport(b *testing.B) {
	body := contactstest.ImportBody(0, 100_000)
	o := importOpts(b, "")
	for b.Loop() {
		items, err := contacts.ReadImport(bytes.NewReader(body), o)
		if err != nil || items.Len() != 100_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkServiceImport imports a body of 10,000 contacts into a list
// of memstore through the Service, updating them (after the first
// round), without metrics and with them: their cost side by side.
func BenchmarkServiceImport(b *testing.B) {
	body := contactstest.ImportBody(0, 10_000)
	for _, withMetrics := range []bool{false, true} {
		b.Run(map[bool]string{false: "metrics=nil", true: "metrics=set"}[withMetrics], func(b *testing.B) {
			ctx := context.Background()
			svc := newServiceEnv(true).svc
			if withMetrics {
				svc = svc.WithMetrics(prometheus.NewRegistry())
			}
			list := must(svc.CreateList(ctx, tenant, contacts.ListInput{Name: sp("bench")}))(b)
			o, err := contacts.ParseImportQuery(url.Values{"list_uuid": {list.UUID}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if res, err := svc.Import(ctx, tenant, o, bytes.NewReader(body)); err != nil || res.Total() != 10_000 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
