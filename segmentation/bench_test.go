package segmentation

import (
	"fmt"
	"testing"
)

// benchQuery is the benchmark query: eq on gender, contains on
// email, ann_in_days 7 on birthday.
const benchQuery = `{"segmentation":[{"rules":[
	{"field":"gender","condition":"eq","value":"female","operator":"AND"},
	{"field":"email","condition":"contains","value":"user12","operator":"AND"},
	{"field":"birthday","condition":"ann_in_days","value":"7","operator":"AND"}]}]}`

// benchContacts are n contacts: half of each gender, e-mails over a few
// domains, birthdays spread over 1940-2010, one in twenty without a
// birthday.
func benchContacts(n int) []contact {
	domains := []string{"Example.com", "mail.ru", "gmx.de", "yahoo.co.uk"}
	cs := make([]contact, n)
	for i := range cs {
		c := &cs[i]
		c.text[Gender] = []string{"male", "Female"}[i%2]
		c.text[Email] = fmt.Sprintf("user%d@%s", i, domains[i%len(domains)])
		if i%20 != 0 {
			c.birthday = date("1940-01-01").AddDays((i * 7919) % (70 * 365))
		}
	}
	return cs
}

// BenchmarkMatch is one evaluation of the 3-rule query on one contact,
// round a thousand contacts.
func BenchmarkMatch(b *testing.B) {
	m := Compile(mustParse(b, benchQuery), today)
	cs := benchContacts(1024)
	b.ReportAllocs()
	i, n := 0, 0
	for b.Loop() {
		if m.Match(&cs[i&1023]) {
			n++
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevals/s")
	b.ReportMetric(float64(n)/float64(b.N), "matched/op")
}

// BenchmarkMatchMillion evaluates the query over 1,000,000 contacts in
// memory, one core.
func BenchmarkMatchMillion(b *testing.B) {
	m := Compile(mustParse(b, benchQuery), today)
	cs := benchContacts(1_000_000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = 0
		for i := range cs {
			if m.Match(&cs[i]) {
				n++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/query")
	b.ReportMetric(float64(n), "matched")
}

func BenchmarkParse(b *testing.B) {
	data := []byte(benchQuery)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
