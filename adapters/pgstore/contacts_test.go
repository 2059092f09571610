package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/memstore"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/contacts/contactstest"
	"github.com/msgkit/msgkit/segmentation"
)

// The contacts contract; not parallel, as its import memory suite
// measures the process's heap.
func TestContactsContract(t *testing.T) {
	contactstest.Run(t, newContactStores)
}

// BenchmarkContacts: contactstest.Bench on PostgreSQL (Import, Million,
// Members), each store a schema of its own, its seeds analysed.
func BenchmarkContacts(b *testing.B) {
	contactstest.Bench(b, newContactStores)
}

// BenchmarkContactsMemoryVersus lists the same million contacts from
// memstore (a) and PostgreSQL (b) side by side
// (contactstest.BenchMillionVersus), so the ratio a/b holds whatever
// else the machine runs: go test -run '^$' -bench ContactsMemoryVersus
// -benchtime 11x ./adapters/pgstore.
func BenchmarkContactsMemoryVersus(b *testing.B) {
	contactstest.BenchMillionVersus(b, contactstest.Stores{Contacts: memstore.New().Contacts(), InHeap: true}, newContactStores(b))
}

func newContactStores(tb testing.TB) contactstest.Stores {
	db := newTestDB(tb)
	return contactstest.Stores{
		Contacts: db.Contacts(),
		Seed: func(tb testing.TB, svc msgkit.ServiceUUID, list string, n int) {
			if _, err := db.pool.Exec(context.Background(), benchContactsSQL, string(svc), list, n, contactstest.BenchOption, contactstest.BenchInterest); err != nil {
				tb.Fatal(err)
			}
		},
		Settle: func(tb testing.TB) {
			if _, err := db.pool.Exec(context.Background(), "VACUUM (ANALYZE) contacts"); err != nil {
				tb.Fatal(err)
			}
		},
	}
}

// benchContactsSQL stores contacts 0 to $3-1 of contactstest.BenchContact
// of tenant $1 in list $2, $4 and $5 its option and interest.
const benchContactsSQL = `INSERT INTO contacts (service_uuid, uuid, list_uuid, member, created, updated, gender,
		first_name, first_name_fold, last_name, last_name_fold, email, email_fold, city, city_fold, options, interests)
	SELECT $1, lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'), $2, 'subscribed',
		timestamptz '2026-01-01 00:00:00+00' + i * interval '1 ms', timestamptz '2026-01-01 00:00:00+00',
		CASE WHEN i % 2 = 0 THEN 'female' ELSE 'male' END,
		'Name' || (i % 5000), 'name' || (i % 5000), 'Surname' || (i % 7919), 'surname' || (i % 7919),
		'user' || i || '@example.com', 'user' || i || '@example.com', 'Ljubljana', 'ljubljana',
		CASE WHEN i % 100 = 0 THEN jsonb_build_object($4::text, 'subscribed')
			WHEN i % 100 = 1 THEN jsonb_build_object($4::text, 'unsubscribed') END,
		CASE WHEN i % 3 = 0 THEN jsonb_build_object($5::text, CASE WHEN i % 2 = 0 THEN 'subscribed' ELSE 'unsubscribed' END) END
	FROM generate_series(0, $3::int - 1) AS i`

func TestContactListingCoversSpec(t *testing.T) {
	t.Parallel()
	if err := contactTable("TRUE", contactSelect).checkSpec(contacts.ContactSpec()); err != nil {
		t.Fatal(err)
	}
	if err := listsTable.checkSpec(contacts.ListSpec()); err != nil {
		t.Fatal(err)
	}
}

// The migration's segmentation indexes are exactly what
// segmentationIndexes writes for contactSegIndexed, so the two cannot
// drift apart.
func TestContactMigrationSegmentationIndexes(t *testing.T) {
	t.Parallel()
	want, err := segmentationIndexes("contacts", contactSegSchema, contactSegIndexed...)
	if err != nil {
		t.Fatal(err)
	}
	migs, err := loadMigrations(embeddedMigrations())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range migs {
		for _, line := range strings.Split(m.sql, "\n") {
			if strings.Contains(line, "_seg_") && strings.Contains(line, `ON "contacts"`) {
				got = append(got, strings.TrimSuffix(strings.TrimSpace(line), ";"))
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the migrations' segmentation indexes of contacts:\n%s\nsegmentationIndexes writes:\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// genLawContact draws a contact of list through contacts.Fill, with the
// hard cases of the segmentation law: empty values, case variants, ß, Σ,
// % and _, the Kelvin sign, 29 February and the turn of the year.
func genLawContact(t *rapid.T, n int, list string) contacts.Contact {
	values := map[string]*string{}
	set := func(name, v string) {
		if v != "" || rapid.Bool().Draw(t, name+" given empty") {
			values[name] = &v
		}
	}
	for _, f := range []segmentation.Field{segmentation.FirstName, segmentation.LastName, segmentation.City,
		segmentation.ColumnField(1), segmentation.ColumnField(2), segmentation.ColumnField(3)} {
		set(f.String(), genSegText().Draw(t, f.String()))
	}
	local := strings.NewReplacer("@", "", " ", "").Replace(genSegText().Draw(t, "email"))
	if local != "" {
		set("email", local+"@Ex.si")
	}
	set("gender", rapid.SampledFrom([]string{"", "male", "Female", "MALE"}).Draw(t, "gender"))
	set("mobile", rapid.SampledFrom(append([]string{""}, segMobiles...)).Draw(t, "mobile"))
	set("b_mobile", rapid.SampledFrom(append([]string{""}, segMobiles...)).Draw(t, "b_mobile"))
	if rapid.IntRange(0, 4).Draw(t, "birthday absent") > 0 {
		set("birthday", genSegBirthday(t, "birthday").String())
	}
	c := contacts.Contact{UUID: contactstest.ContactUUID(n), Created: contactAt(int64(n)), Updated: contactAt(int64(n))}
	if err := contacts.Fill(&c, contacts.Input{ListUUID: &list, Values: values}, true); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if c.Custom[3] == "" && rapid.Bool().Draw(t, "column_3 kept empty") {
		if c.Custom == nil {
			c.Custom = map[int]string{}
		}
		c.Custom[3] = "" // set directly: a value that is no value
	}
	for _, o := range []string{segOptA, segOptB, segOptC} {
		switch rapid.IntRange(0, 3).Draw(t, "option "+o) {
		case 1:
			c.Options = withOption(c.Options, o, contacts.Subscribed)
		case 2:
			c.Options = withOption(c.Options, o, contacts.Unsubscribed)
		case 3:
			c.Options = withOption(c.Options, o, "pending")
		}
	}
	return c
}

func withOption(m map[string]contacts.MemberStatus, o string, s contacts.MemberStatus) map[string]contacts.MemberStatus {
	if m == nil {
		m = map[string]contacts.MemberStatus{}
	}
	m[o] = s
	return m
}

// THE LAW on the store: for random contacts and random valid queries,
// Contacts with that Segment returns exactly the contacts in use that
// segmentation.Compile(q, today).Match accepts. Each check is a tenant
// of its own in one database; the rounds of checks (see propRounds) run
// at once.
func TestContactSegmentationMatchesMatcher(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Contacts()
	ctx := context.Background()
	var check atomic.Int64
	prop := func(t *rapid.T) {
		svc := msgkit.ServiceUUID(fmt.Sprintf("5e9a0000-0000-4000-8000-%012d", check.Add(1)))
		list := contactstest.ListUUID(1)
		if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "law"}); err != nil {
			t.Fatal(err)
		}
		n := rapid.IntRange(0, 20).Draw(t, "contacts")
		all := make([]contacts.Contact, n)
		mirror := make([]*segContact, n)
		deleted := map[string]bool{}
		for i := range all {
			c := genLawContact(t, i+1, list)
			if _, err := s.CreateContact(ctx, svc, c); err != nil {
				t.Fatalf("CreateContact: %v", err)
			}
			if rapid.IntRange(0, 5).Draw(t, "deleted") == 0 {
				if err := s.DeleteContact(ctx, svc, c.UUID, false, contactAt(1000)); err != nil {
					t.Fatal(err)
				}
				deleted[c.UUID] = true
			}
			all[i] = c
			mirror[i] = &segContact{ID: int32(i + 1), Values: map[segmentation.Field]string{}}
			for _, f := range segTextFields() {
				mirror[i].Values[f] = c.Text(f)
			}
			if b, ok := c.Date(segmentation.Birthday); ok {
				mirror[i].Birthday = &b
			}
		}
		today := genSegToday(t)
		for k := 0; k < 5; k++ {
			text := genSegQuery(t, mirror)
			q, err := segmentation.Parse([]byte(text))
			if err != nil {
				t.Fatalf("the generator made a query Parse refuses: %s: %v", text, err)
			}
			page, err := s.Contacts(ctx, svc, contacts.ContactQuery{Segment: q, Today: today})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			got := []string{}
			for _, c := range page.Items {
				got = append(got, c.UUID)
			}
			m := segmentation.Compile(q, today)
			want := []string{}
			for i := range all {
				if !deleted[all[i].UUID] && m.Match(&all[i]) {
					want = append(want, all[i].UUID)
				}
			}
			if page.Total != len(want) || !slices.Equal(got, want) {
				var diff []string
				for i := range all {
					if slices.Contains(got, all[i].UUID) != slices.Contains(want, all[i].UUID) {
						diff = append(diff, fmt.Sprintf("%#v options %v (Match %v)", mirror[i], all[i].Options, slices.Contains(want, all[i].UUID)))
					}
				}
				t.Fatalf("today %s, query %s\nthe store selects %d %v, Match %v; they differ on\n%s",
					today, text, page.Total, got, want, strings.Join(diff, "\n"))
			}
		}
	}
	for i := range propRounds() {
		t.Run(fmt.Sprintf("round%d", i), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, prop)
		})
	}
}

// An erased contact, soft-deleted first, leaves no row that mentions it,
// by uuid or by any value, in any table of the schema; before the erase
// the same search finds each.
func TestContactEraseLeavesNothing(t *testing.T) {
	t.Parallel()
	db, s, list := newContactsWithList(t)
	ctx := context.Background()
	const svc msgkit.ServiceUUID = contactstest.TenantA
	gone := contactstest.NewContact(t, 1, list, map[string]string{"first_name": "Erasmina", "email": "erasmina@forget.me",
		"mobile": "+4915112345678", "column_7": "Eras-secret", "birthday": "1990-02-28"})
	gone.Options = map[string]contacts.MemberStatus{segOptA: contacts.Subscribed}
	gone.Telegram = contacts.Channel{Identifier: "@erasmina", Data: []byte(`{"chat":"erasmina-chat"}`)}
	kept := contactstest.NewContact(t, 2, list, map[string]string{"first_name": "Keepina"})
	for _, c := range []contacts.Contact{gone, kept} {
		if _, err := s.CreateContact(ctx, svc, c); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil || len(tables) == 0 {
		t.Fatalf("tables %v: %v", tables, err)
	}
	mentions := func(s string) int {
		total := 0
		for _, table := range tables {
			var n int
			q := "SELECT count(*) FROM " + table + " r WHERE strpos(lower(r::text), lower($1)) > 0"
			if err := db.pool.QueryRow(ctx, q, s).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			total += n
		}
		return total
	}
	values := []string{gone.UUID, "erasmina", "+4915112345678", "Eras-secret", "1990-02-28", segOptA}
	for _, v := range values {
		if mentions(v) == 0 {
			t.Fatalf("before the erase no row mentions %q: the search cannot see it", v)
		}
	}
	if err := s.DeleteContact(ctx, svc, gone.UUID, false, contactAt(5)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContact(ctx, svc, gone.UUID, true, contactAt(6)); err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if n := mentions(v); n != 0 {
			t.Errorf("%d rows still mention %q", n, v)
		}
	}
	if n := mentions(kept.UUID); n == 0 {
		t.Error("the contact kept is gone too")
	}
}

// contactAt is a time as the store keeps it: UTC, to the microsecond.
func contactAt(sec int64) time.Time { return time.Unix(1_767_225_600+sec, 654_321_000).UTC() }

// Updates of one contact run one after the other, each seeing the one
// before: none is lost.
func TestContactUpdatesSerialise(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).Contacts()
	ctx := context.Background()
	const svc msgkit.ServiceUUID = contactstest.TenantA
	list := contactstest.ListUUID(1)
	if _, err := s.CreateList(ctx, svc, contacts.List{UUID: list, Name: "L"}); err != nil {
		t.Fatal(err)
	}
	c := contactstest.NewContact(t, 1, list, map[string]string{"column_1": "0"})
	if _, err := s.CreateContact(ctx, svc, c); err != nil {
		t.Fatal(err)
	}
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := s.UpdateContact(ctx, svc, c.UUID, func(c contacts.Contact) (contacts.Contact, error) {
				v, err := strconv.Atoi(c.Custom[1])
				c.Custom[1] = strconv.Itoa(v + 1)
				return c, err
			})
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Contact(ctx, svc, c.UUID, false)
	if err != nil || got.Custom[1] != strconv.Itoa(n) {
		t.Errorf("after %d increments: %v, %v", n, got.Custom, err)
	}
}

// A segmentation listing pages, counts and counts alone past the end of
// its rows (the engine's second statement, unprepared too), and its SQL
// can use the segmentation indexes of the migration.
func TestContactSegmentListing(t *testing.T) {
	t.Parallel()
	db, s, list := newContactsWithList(t)
	ctx := context.Background()
	const svc msgkit.ServiceUUID = contactstest.TenantA
	for i, email := range []string{"Ana@Example.com", "ana@example.COM", "bo@example.com", "ANA@example.com"} {
		if _, err := s.CreateContact(ctx, svc, contactstest.NewContact(t, i+1, list, map[string]string{"email": email})); err != nil {
			t.Fatal(err)
		}
	}
	q, err := segmentation.Parse([]byte(`{"segmentation":[{"rules":[{"field":"email","condition":"eq","value":"ana@EXAMPLE.com"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lq        msgkit.ListQuery
		countOnly bool
		items     int
	}{
		{msgkit.ListQuery{}, false, 3},
		{msgkit.ListQuery{PageNumber: 2, PageSize: 2}, false, 1},
		{msgkit.ListQuery{PageNumber: 5, PageSize: 2}, false, 0},
		{msgkit.ListQuery{PageNumber: 5, PageSize: 2}, true, 0},
	} {
		page, err := s.Contacts(ctx, svc, contacts.ContactQuery{List: tc.lq, Segment: q, CountOnly: tc.countOnly})
		if err != nil || page.Total != 3 || len(page.Items) != tc.items {
			t.Errorf("%+v count only %v: %d items of %d, %v", tc.lq, tc.countOnly, len(page.Items), page.Total, err)
		}
	}

	args := []any{string(svc)}
	where, err := compileSegmentation(q, contactSegSchema, msgkit.Date{}, &args)
	if err != nil {
		t.Fatal(err)
	}
	st, err := contactTable("contacts.service_uuid = $1 AND "+where, contactSelect).statement(msgkit.ListQuery{}, args)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// Without the tenant's other indexes (dropped in this transaction
	// only), the plan shows whether the compiled expression matches the
	// segmentation index; with them, on a few rows, any index will do.
	const dropOthers = `DO $$ DECLARE i record; BEGIN
		ALTER TABLE contacts DROP CONSTRAINT contacts_pkey;
		FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'contacts'
			AND indexname NOT LIKE 'contacts_seg_%' LOOP
			EXECUTE 'DROP INDEX ' || quote_ident(i.indexname);
		END LOOP; END $$; SET LOCAL enable_seqscan = off`
	if _, err := tx.Exec(ctx, dropOthers); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+st.page, append([]any{pgx.QueryExecModeDescribeExec}, st.args...)...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if plan := strings.Join(lines, "\n"); !strings.Contains(plan, "contacts_seg_email") {
		t.Errorf("the listing does not use contacts_seg_email:\n%s", plan)
	}
}

// newContactsWithList is a fresh contacts store with one list of
// contactstest.TenantA.
func newContactsWithList(t *testing.T) (*DB, *ContactsStore, string) {
	t.Helper()
	db := newTestDB(t)
	s := db.Contacts()
	list := contactstest.ListUUID(1)
	if _, err := s.CreateList(context.Background(), contactstest.TenantA, contacts.List{UUID: list, Name: "L"}); err != nil {
		t.Fatal(err)
	}
	return db, s, list
}
