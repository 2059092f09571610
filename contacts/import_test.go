package contacts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

const opt1, opt2 = "0a0a0a0a-0000-4000-8000-000000000001", "0a0a0a0a-0000-4000-8000-000000000002"

func TestParseImportQuery(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want contacts.ImportOptions
	}{
		{"list_uuid=" + strings.ToUpper(list), contacts.ImportOptions{ListUUID: list, Resolve: contacts.ResolveUpdate, Identifier: segmentation.Mobile,
			InsertOptChannels: []string{"sms"}, UpdateOptChannels: []string{"sms"}}},
		{"list_uuid=" + list + "&option_uuids=" + opt1 + "," + opt2 + "&option_uuids=" + opt1 + "&touchpoint_uuids=" + opt2 + "&interest_uuids=" + opt1 +
			"&update_option_uuids=" + opt2 + "&resolve_duplicate=OptOut&identifier=column_7&unset_invalid_fields=email,gender&unset_invalid_fields=birthday" +
			"&insert_opt_channels=whatsapp,sms&update_opt_channels=whatsapp",
			contacts.ImportOptions{ListUUID: list, OptionUUIDs: []string{opt1, opt2}, TouchpointUUIDs: []string{opt2}, InterestUUIDs: []string{opt1},
				UpdateOptionUUIDs: []string{opt2}, Resolve: contacts.ResolveOptOut, Identifier: segmentation.ColumnField(7),
				UnsetInvalid: []string{"birthday", "email", "gender"}, InsertOptChannels: []string{"sms", "whatsapp"}, UpdateOptChannels: []string{"whatsapp"}}},
		{"list_uuid=" + list + "&identifier=email&resolve_duplicate=&option_uuids=", contacts.ImportOptions{ListUUID: list, Resolve: contacts.ResolveUpdate,
			Identifier: segmentation.Email, InsertOptChannels: []string{"sms"}, UpdateOptChannels: []string{"sms"}}},
	} {
		v, _ := url.ParseQuery(tt.raw)
		got, err := contacts.ParseImportQuery(v)
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.raw, diff)
		}
	}
	if o, _ := contacts.ParseImportQuery(url.Values{"list_uuid": {list}, "identifier": {"column_7"}}); o.IdentifierColumn() != 7 {
		t.Errorf("IdentifierColumn = %d", o.IdentifierColumn())
	}
}

// Every problem is named at once.
func TestParseImportQueryProblems(t *testing.T) {
	v, _ := url.ParseQuery("option_uuids=x&touchpoint_uuids=" + opt1 + ",y&resolve_duplicate=merge&identifier=birthday&unset_invalid_fields=shoe_size" +
		"&insert_opt_channels=email&update_opt_channels=sms,telegram&foo=1&list_uuid=1&list_uuid=2")
	_, err := contacts.ParseImportQuery(v)
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid || e.Code != msgkit.CodeInvalidQuery {
		t.Fatalf("err = %v", err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	want := []string{"foo", "identifier", "insert_opt_channels", "list_uuid", "option_uuids", "resolve_duplicate", "touchpoint_uuids", "unset_invalid_fields", "update_opt_channels"}
	if !slices.Equal(names, want) {
		t.Errorf("problems with %v, want %v", names, want)
	}
	if _, err := contacts.ParseImportQuery(url.Values{}); err == nil || err.(*msgkit.Error).Fields[0].Name != "list_uuid" {
		t.Errorf("no list_uuid: %v", err)
	}
}

func FuzzParseImportQuery(f *testing.F) {
	for _, s := range []string{"list_uuid=" + list, "list_uuid=" + list + "&identifier=column_3&resolve_duplicate=skip",
		"option_uuids=" + opt1 + ",x&insert_opt_channels=whatsapp&unset_invalid_fields=email"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		o, err := contacts.ParseImportQuery(v)
		if err != nil {
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid || len(e.Fields) == 0 {
				t.Fatalf("ParseImportQuery(%q): %v", raw, err)
			}
			return
		}
		if o.ListUUID == "" || o.Resolve == "" || !o.Identifier.Valid() || len(o.InsertOptChannels) == 0 || len(o.UpdateOptChannels) == 0 {
			t.Fatalf("ParseImportQuery(%q) = %+v", raw, o)
		}
	})
}

func importOpts(t testing.TB, raw string) contacts.ImportOptions {
	t.Helper()
	v, _ := url.ParseQuery("list_uuid=" + list + "&" + raw)
	o, err := contacts.ParseImportQuery(v)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Items read in order; bad items are invalid with the item as sent, not
// an error; unset_invalid_fields nulls failing fields it names.
func TestReadImport(t *testing.T) {
	var body strings.Builder
	body.WriteString("[")
	const n = 2000 // over several chunks: the parallel path
	for i := range n {
		if i > 0 {
			body.WriteString(",")
		}
		switch i % 4 {
		case 0:
			fmt.Fprintf(&body, `{"mobile":"+386 40 %06d","first_name":"N%d","uuid":"ignored","list_uuid":"ignored"}`, i, i)
		case 1:
			fmt.Fprintf(&body, `{"mobile":"+38640%06d","email":"bad%d"}`, i, i)
		case 2:
			fmt.Fprintf(&body, `{"first_name":%d}`, i)
		case 3:
			body.WriteString(`"not an object"`)
		}
	}
	body.WriteString("]")
	read, err := contacts.ReadImport(strings.NewReader(body.String()), importOpts(t, "unset_invalid_fields=email"))
	if err != nil {
		t.Fatal(err)
	}
	items := all(read)
	if len(items) != n || read.Len() != n {
		t.Fatalf("%d items", len(items))
	}
	for i, it := range items {
		switch i % 4 {
		case 0:
			c := it.Contact
			if !it.Valid() || c.Value(segmentation.Mobile) != fmt.Sprintf("+38640%06d", i) || c.Value(segmentation.FirstName) != fmt.Sprintf("N%d", i) ||
				c.ListUUID != list || !slices.Equal(it.Given, []string{"first_name", "mobile"}) {
				t.Fatalf("item %d: %+v", i, it)
			}
		case 1:
			if !it.Valid() || it.Contact.Value(segmentation.Email) != "" || !slices.Equal(it.Given, []string{"email", "mobile"}) {
				t.Fatalf("item %d: %+v", i, it)
			}
		case 2:
			want := []msgkit.FieldError{{Name: "first_name", Message: "first_name must be a string or null"}}
			if it.Valid() || !cmp.Equal(it.Errors, want) || string(it.Raw) != fmt.Sprintf(`{"first_name":%d}`, i) {
				t.Fatalf("item %d: %+v", i, it)
			}
		case 3:
			if it.Valid() || string(it.Raw) != `"not an object"` {
				t.Fatalf("item %d: %+v", i, it)
			}
		}
	}
	for _, bad := range []string{`{}`, `[1`, ``, `[] []`, `null x`, `null`, `[1,]`, `[] x`, `[]]`, `[{}`} {
		if _, err := contacts.ReadImport(strings.NewReader(bad), importOpts(t, "")); err == nil {
			t.Errorf("ReadImport(%q) took it", bad)
		} else if e := err.(*msgkit.Error); e.Kind != msgkit.Invalid || e.Code != contacts.CodeInvalidImport {
			t.Errorf("ReadImport(%q): %v", bad, err)
		}
	}
	// Without unset_invalid_fields, a bad email makes the item invalid.
	read, _ = contacts.ReadImport(strings.NewReader(`[{"mobile":"+38640123456","email":"x"}]`), importOpts(t, ""))
	if all(read)[0].Valid() {
		t.Errorf("bad email taken")
	}
}

// The law of Plan (on one chunk): every item counts in exactly one counter, creates
// and changes are as counted, and planning changes nothing given.
func TestImportPlanCounters(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]string{"update", "skip", "subscribe", "unsubscribe", "delete", "optin", "optout"}).Draw(rt, "mode")
		o := importOpts(t, "resolve_duplicate="+mode+"&option_uuids="+opt2)
		mobiles := []string{"+38640111111", "+38640222222", "+38640333333", ""}
		var existing []contacts.Contact
		for i := range rapid.IntRange(0, 4).Draw(rt, "existing") {
			c := fillMobile(t, rapid.SampledFrom(mobiles).Draw(rt, "m"))
			c.UUID, c.ListUUID = fmt.Sprintf("e%d", i), list
			c.Options = map[string]contacts.MemberStatus{opt1: contacts.Subscribed}
			existing = append(existing, c)
		}
		var before []contacts.Contact
		for _, c := range existing {
			before = append(before, c.Clone())
		}
		var items []contacts.ImportItem
		for range rapid.IntRange(0, 10).Draw(rt, "items") {
			if rapid.Bool().Draw(rt, "invalid") {
				items = append(items, contacts.ImportItem{Raw: []byte(`{}`), Errors: []msgkit.FieldError{{Name: "x"}}})
				continue
			}
			items = append(items, contacts.ImportItem{Contact: fillMobile(t, rapid.SampledFrom(mobiles).Draw(rt, "m")), Given: []string{"mobile"}})
		}
		n := 0
		b := contacts.ImportBatch{Options: o, Now: time.Unix(100, 0), NewUUID: func() string { n++; return fmt.Sprintf("n%d", n) }}
		run := b.Start()
		p := run.Plan(items, existing)
		r := run.Result()
		if r.Total() != len(items) || len(p.Created) != r.Created || len(r.Errors) != r.Invalid {
			rt.Fatalf("result %+v for %d items, %d created", r, len(items), len(p.Created))
		}
		deleted := 0
		for _, c := range p.Changed {
			if !c.Deleted.IsZero() {
				deleted++
			}
		}
		if deleted != r.Deleted {
			rt.Fatalf("%d deleted, counted %d", deleted, r.Deleted)
		}
		for _, c := range append(p.Created, p.Changed...) { // the plan's own: changing it changes nothing given
			if c.Options != nil {
				c.Options[opt1] = "changed"
			}
		}
		if !cmp.Equal(slices.SortedFunc(slices.Values(existing), byUUID), slices.SortedFunc(slices.Values(before), byUUID), cmp.AllowUnexported(contacts.Contact{})) {
			rt.Fatalf("Plan changed the contacts given")
		}
	})
}

func byUUID(a, b contacts.Contact) int { return strings.Compare(a.UUID, b.UUID) }

func fillMobile(t testing.TB, mobile string) contacts.Contact {
	in := contacts.Input{ListUUID: new(list), Values: map[string]*string{"mobile": &mobile}}
	var c contacts.Contact
	if err := contacts.Fill(&c, in, true); err != nil {
		t.Fatal(err)
	}
	return c
}

// An invalid item's problems read back as the item sent.
func TestImportErrorKeepsItem(t *testing.T) {
	items, err := contacts.ReadImport(strings.NewReader(`[ {"gender" : "x"} ]`), importOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	b := contacts.ImportBatch{Options: importOpts(t, ""), Items: items, NewUUID: func() string { return "u" }}
	run := b.Start()
	run.Plan(all(items), nil)
	r := run.Result()
	if r.Invalid != 1 || !json.Valid(r.Errors[0].Contact) || string(r.Errors[0].Contact) != `{"gender" : "x"}` {
		t.Errorf("%+v", r)
	}
}

func FuzzReadImport(f *testing.F) {
	for _, s := range []string{`[{"mobile":"+38640123456","email":"a@b.si"}]`, `[{"first_name":1},"x",null,{"channel_telegram_data":{"a":1}}]`, `[]`, `{`,
		` [ {"gender" : "x"} , 1 ] `, `[]]`, `[] x`, `null`, `[1,]`} {
		f.Add(s)
	}
	o := importOpts(f, "unset_invalid_fields=email,gender")
	f.Fuzz(func(t *testing.T, body string) {
		items, err := contacts.ReadImport(strings.NewReader(body), o)
		var whole []json.RawMessage // the body read at once, which the stream must agree with
		if werr := json.Unmarshal([]byte(body), &whole); (werr == nil && whole != nil) != (err == nil) || (err == nil && items.Len() != len(whole)) {
			t.Fatalf("ReadImport(%q): %d items, %v; encoding/json: %d items, %v", body, items.Len(), err, len(whole), werr)
		}
		if err != nil {
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid {
				t.Fatalf("ReadImport(%q): %v", body, err)
			}
			return
		}
		for i, it := range all(items) {
			if !it.Valid() && !echoes(it.Raw, whole[i]) {
				t.Fatalf("ReadImport(%q): item %d shown as %q, want %q as sent, or its strings cut", body, i, it.Raw, whole[i])
			}
			if it.Valid() == (it.Raw != nil) || (it.Valid() && it.Contact.ListUUID != list) {
				t.Fatalf("ReadImport(%q): item %+v", body, it)
			}
		}
	})
}

// With Columns, an item's custom column outside them makes it invalid,
// or is set to null when unset_invalid_fields names it.
func TestReadImportColumns(t *testing.T) {
	body := `[{"column_1":"a"},{"column_2":"b"},{"column_3":"c","first_name":"Ana"}]`
	opts := importOpts(t, "unset_invalid_fields=column_3")
	opts.Columns = map[int]bool{1: true}
	read, err := contacts.ReadImport(strings.NewReader(body), opts)
	if err != nil {
		t.Fatal(err)
	}
	items := all(read)
	if !items[0].Valid() || items[0].Contact.Custom[1] != "a" {
		t.Errorf("defined column: %+v", items[0])
	}
	if items[1].Valid() || len(items[1].Errors) != 1 || items[1].Errors[0].Name != "column_2" || string(items[1].Raw) != `{"column_2":"b"}` {
		t.Errorf("undefined column: %+v", items[1])
	}
	if !items[2].Valid() || len(items[2].Contact.Custom) != 0 || items[2].Contact.Value(segmentation.FirstName) != "Ana" {
		t.Errorf("unset column: %+v", items[2])
	}
	opts.Columns = nil // any column
	if read, _ := contacts.ReadImport(strings.NewReader(body), opts); !all(read)[1].Valid() {
		t.Errorf("without Columns: %+v", items[1])
	}
}

// all are the items of s, unpacked at once.
func all(s *contacts.ImportItems) []contacts.ImportItem {
	var out []contacts.ImportItem
	for chunk := range s.Chunks(s.Len()) {
		out = append(out, chunk...)
	}
	return out
}

// The law of the chunks: whatever their size, planning an import's
// chunks one after another against a store that writes each plan before
// the next chunk's contacts are looked up (as pgstore does), and
// deciding every item before making any change (as memstore does), end
// with the result and the contacts of planning the body in one chunk.
func TestImportRunChunks(t *testing.T) {
	mobiles := []string{"+38640111111", "+38640222222", "0038640222222", "+38640333333", "bad", ""}
	emails := []string{"a@b.si", "A@B.SI", "c@d.si", ""}
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]string{"update", "skip", "subscribe", "unsubscribe", "delete", "optin", "optout"}).Draw(rt, "mode")
		o := importOpts(t, "resolve_duplicate="+mode+"&identifier="+rapid.SampledFrom([]string{"mobile", "email"}).Draw(rt, "identifier")+
			"&option_uuids="+opt1+"&update_option_uuids="+opt2)
		var existing []contacts.Contact
		for i := range rapid.IntRange(0, 5).Draw(rt, "existing") {
			c := fillContact(t, rapid.SampledFrom(mobiles[:4]).Draw(rt, "mobile"), rapid.SampledFrom(emails).Draw(rt, "email"), fmt.Sprintf("E%d", i))
			c.UUID, c.Created = fmt.Sprintf("e%d", i), time.Unix(int64(rapid.IntRange(0, 2).Draw(rt, "created")), 0)
			c.ListUUID = rapid.SampledFrom([]string{list, list, opt1}).Draw(rt, "list") // some of another list
			if rapid.IntRange(0, 4).Draw(rt, "deleted") == 0 {
				c.Deleted = time.Unix(1, 0)
			}
			existing = append(existing, c)
		}
		items := &contacts.ImportItems{}
		for i := range rapid.IntRange(0, 12).Draw(rt, "items") {
			m := rapid.SampledFrom(mobiles).Draw(rt, "mobile")
			if m == "bad" {
				items.Append(contacts.ImportItem{Raw: []byte(`{"mobile":"bad"}`), Errors: []msgkit.FieldError{{Name: "mobile"}}})
				continue
			}
			it := contacts.ImportItem{Contact: fillContact(t, m, rapid.SampledFrom(emails).Draw(rt, "email"), fmt.Sprintf("N%d", i)), Given: []string{"email", "first_name", "mobile"}}
			items.Append(it)
		}
		batch := func() contacts.ImportBatch {
			n := 0
			return contacts.ImportBatch{Options: o, Items: items, Now: time.Unix(100, 0), NewUUID: func() string { n++; return fmt.Sprintf("n%d", n) }}
		}
		wantRes, want := planChunks(batch(), existing, max(items.Len(), 1))
		k := rapid.IntRange(1, 4).Draw(rt, "chunk")
		for name, run := range map[string]func() (contacts.ImportResult, []contacts.Contact){
			"plans":     func() (contacts.ImportResult, []contacts.Contact) { return planChunks(batch(), existing, k) },
			"decisions": func() (contacts.ImportResult, []contacts.Contact) { return decideAll(batch(), existing, k) },
		} {
			res, got := run()
			if diff := cmp.Diff(wantRes, res); diff != "" {
				rt.Fatalf("%s in chunks of %d: result (-one chunk +chunks):\n%s", name, k, diff)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(contacts.Contact{})); diff != "" {
				rt.Fatalf("%s in chunks of %d: contacts (-one chunk +chunks):\n%s", name, k, diff)
			}
		}
	})
}

// planChunks imports b into a model store holding existing, planning k
// items at a time, each plan written before the next chunk's contacts
// are looked up (by key: every contact of the list in use with one of
// the chunk's keys). It returns the result and the contacts, by uuid.
func planChunks(b contacts.ImportBatch, existing []contacts.Contact, k int) (contacts.ImportResult, []contacts.Contact) {
	store := map[string]contacts.Contact{}
	for _, c := range existing {
		store[c.UUID] = c.Clone()
	}
	run := b.Start()
	for items := range b.Items.Chunks(k) {
		keys := run.Keys(items)
		var matched []contacts.Contact
		for _, c := range store {
			if c.ListUUID == list && c.Deleted.IsZero() && slices.Contains(keys, contacts.ImportKey(&c, b.Options.Identifier)) {
				matched = append(matched, c.Clone())
			}
		}
		plan := run.Plan(items, matched)
		for _, c := range append(plan.Created, plan.Changed...) {
			store[c.UUID] = *c
		}
	}
	return run.Result(), slices.SortedFunc(maps.Values(store), byUUID)
}

// decideAll imports b into a model store holding existing as memstore
// does: every item decided (against the first contact of the list in use
// of its key, in store order, or one an earlier item created), then the
// changes made, k items at a time.
func decideAll(b contacts.ImportBatch, existing []contacts.Contact, k int) (contacts.ImportResult, []contacts.Contact) {
	store := map[string]*contacts.Contact{}
	byKey := map[string]*contacts.Contact{}
	for _, c := range existing {
		d := c.Clone()
		store[c.UUID] = &d
	}
	for _, c := range store {
		key := contacts.ImportKey(c, b.Options.Identifier)
		if cur := byKey[key]; c.ListUUID == list && c.Deleted.IsZero() && key != "" &&
			(cur == nil || c.Created.Before(cur.Created) || (c.Created.Equal(cur.Created) && c.UUID < cur.UUID)) {
			byKey[key] = c
		}
	}
	run := b.Start()
	var changes []*contacts.Contact
	for items := range b.Items.Chunks(k) {
		for i := range items {
			key := run.Key(&items[i])
			cur := byKey[key]
			c, change := run.Decide(&items[i], cur)
			if c != nil {
				store[c.UUID] = c
				if key != "" {
					byKey[key] = c
				}
			}
			if !change {
				cur = nil
			}
			changes = append(changes, cur)
		}
	}
	n := 0
	for items := range b.Items.Chunks(k) {
		for i := range items {
			if changes[n] != nil {
				run.Apply(changes[n], &items[i])
			}
			n++
		}
	}
	var out []contacts.Contact
	for _, c := range store {
		out = append(out, *c)
	}
	return run.Result(), slices.SortedFunc(slices.Values(out), byUUID)
}

func fillContact(t testing.TB, mobile, email, name string) contacts.Contact {
	in := contacts.Input{ListUUID: new(list), Values: map[string]*string{"mobile": &mobile, "email": &email, "first_name": &name}}
	var c contacts.Contact
	if err := contacts.Fill(&c, in, true); err != nil {
		t.Fatal(err)
	}
	return c
}

// echoes reports whether an invalid item's echo shows sent as sent, or,
// where sent holds bad bytes, escapes or long strings, as valid JSON whose
// strings are at most msgkit.MaxQuoted characters and "…".
func echoes(echo, sent []byte) bool {
	if bytes.Equal(echo, sent) {
		return true
	}
	var v any
	if !utf8.Valid(echo) || json.Unmarshal(echo, &v) != nil {
		return false
	}
	var short func(v any) bool
	short = func(v any) bool {
		switch x := v.(type) {
		case string:
			return utf8.RuneCountInString(x) <= msgkit.MaxQuoted+1
		case []any:
			return !slices.ContainsFunc(x, func(e any) bool { return !short(e) })
		case map[string]any:
			for _, e := range x {
				if !short(e) {
					return false
				}
			}
		}
		return true
	}
	return short(v)
}

// An item with bad bytes, the NUL character or a key given twice (in any
// case) is invalid, naming the member, as every body's JSON rules say; the
// error shows it with long strings cut and bad bytes replaced, never a
// long value whole.
func TestReadImportJSONRules(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	body := `[{"mobile":"+38640111222","first_name":"in` + "\xff" + `valid"},
		{"mobile":"+38640111223","first_name":"a\u0000b"},
		{"mobile":"+38640111224","first_name":"\ud800"},
		{"mobile":"+38640111225","first_name":"A","FIRST_NAME":"B"},
		{"mobile":"+38640111226","first_name":"` + long + `"},
		{"mobile":"+38640111227","first_name":"ok"}]`
	items, err := contacts.ReadImport(strings.NewReader(body), importOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	got := all(items)
	for i, want := range []string{"first_name", "first_name", "first_name", "FIRST_NAME", "first_name"} {
		if got[i].Valid() || len(got[i].Errors) != 1 || got[i].Errors[0].Name != want {
			t.Errorf("item %d: %+v, want invalid naming %s", i, got[i].Errors, want)
		}
		if !utf8.Valid(got[i].Raw) || !json.Valid(got[i].Raw) || strings.Contains(string(got[i].Raw), strings.Repeat("x", msgkit.MaxQuoted+1)) {
			t.Errorf("item %d shown as %.200q", i, got[i].Raw)
		}
		for _, e := range got[i].Errors {
			if strings.Contains(e.Message, strings.Repeat("x", msgkit.MaxQuoted+1)) {
				t.Errorf("item %d: the error quotes the value: %.200s", i, e.Message)
			}
		}
	}
	if !got[5].Valid() {
		t.Errorf("the good item: %+v", got[5].Errors)
	}
}
