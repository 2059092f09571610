package memstore

import (
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// A listing found in parts, one per core, and a listing found in one
// pass over the columns are the listing msgkit.Apply makes of the
// contacts Selects keeps: the same page, in the same order, with the
// same total, whatever selections and columns earlier listings kept.
func TestListContactsInParts(t *testing.T) {
	list := contactstest.ListUUID(1)
	var order []*contacts.Contact
	for i := range 300 {
		c := contactstest.NewContact(t, i, list, map[string]string{
			"first_name": []string{"Ana", "Bo", "", "Eva"}[i%4], "last_name": fmt.Sprintf("N%d", i%7), "gender": []string{"male", "female"}[i%2],
		})
		c.Created = time.Unix(int64(i/3), 0).UTC() // ties, broken by uuid
		if i%11 == 0 {
			c.Deleted = time.Unix(1, 0)
		}
		if i%5 < 2 {
			c.Options = map[string]contacts.MemberStatus{"o": []contacts.MemberStatus{contacts.Subscribed, contacts.Unsubscribed}[i%5]}
		}
		order = append(order, &c)
	}
	cols := newContactColumns(order) // shared, as a tenant's are between listings
	rapid.Check(t, func(t *rapid.T) {
		v := url.Values{}
		if rapid.Bool().Draw(t, "filter") {
			v.Set("gender", rapid.SampledFrom([]string{"male", "female"}).Draw(t, "gender"))
		}
		if rapid.Bool().Draw(t, "sorted") {
			v.Set("sort", rapid.SampledFrom([]string{"first_name", "-last_name", "last_name,-first_name", "-created_dt"}).Draw(t, "sort"))
		}
		v.Set("page_size", fmt.Sprint(rapid.IntRange(1, 40).Draw(t, "size")))
		v.Set("page_number", fmt.Sprint(rapid.IntRange(1, 12).Draw(t, "number")))
		lq, err := msgkit.ParseListQuery(v, contacts.ContactSpec())
		if err != nil {
			t.Fatal(err)
		}
		q := contacts.ContactQuery{List: lq, ShowDeleted: rapid.Bool().Draw(t, "deleted")}
		if rapid.Bool().Draw(t, "option") {
			q.Options = &contacts.MembershipFilter{UUIDs: []string{"o"}, Status: rapid.SampledFrom([]contacts.MemberStatus{"", contacts.Subscribed}).Draw(t, "status")}
		}
		m := q.Matcher()
		var kept []*contacts.Contact
		for _, c := range order {
			if q.Selects(c, m) {
				kept = append(kept, c)
			}
		}
		want, err := msgkit.Apply(kept, q.List, contacts.ContactValue)
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []int{1, len(order) + 1} { // in parts (with two cores or more), in one pass
			got, err := listContacts(cols, q, from)
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != want.Total || !slices.Equal(got.Items, want.Items) {
				t.Fatalf("%v, from %d: got %d %v, want %d %v", v, from, got.Total, names(got.Items), want.Total, names(want.Items))
			}
		}
	})
}

func names(cs []*contacts.Contact) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.UUID[len(c.UUID)-3:]
	}
	return out
}
