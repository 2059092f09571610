package memstore

import (
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
)

// A listing found in parts, one per core, is the listing found in one
// pass: the same page, in the same order, with the same total.
func TestListContactsInParts(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: nothing is split")
	}
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
		want, err := selectPage(order, q, q.List)
		if err != nil {
			t.Fatal(err)
		}
		got, err := listContacts(order, q, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != want.Total || !slices.Equal(got.Items, want.Items) {
			t.Fatalf("%v: in parts %d %v, in one pass %d %v", v, got.Total, names(got.Items), want.Total, names(want.Items))
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
