package contacts_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

const list = "5f0c6b0e-7d5e-4f4b-9e39-1d9f3c1f6a11"

func ptr(s string) *string { return &s }

func fill(t *testing.T, values map[string]string) contacts.Contact {
	t.Helper()
	in := contacts.Input{ListUUID: ptr(list), Values: map[string]*string{}}
	for k, v := range values {
		in.Values[k] = ptr(v)
	}
	var c contacts.Contact
	if err := contacts.Fill(&c, in, true); err != nil {
		t.Fatalf("Fill(%v): %v", values, err)
	}
	return c
}

// wantProblems checks that err names exactly the fields given, in order.
func wantProblems(t *testing.T, err error, fields ...string) {
	t.Helper()
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid || e.Code != contacts.CodeInvalidContact {
		t.Fatalf("error %v, want Invalid %s", err, contacts.CodeInvalidContact)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, fields) {
		t.Errorf("problems with %v, want %v (%v)", got, fields, e.Fields)
	}
}

// Every standard field and a custom column keep what they are given,
// normalised where the rules say.
func TestFillEveryField(t *testing.T) {
	values := map[string]string{}
	for _, name := range contacts.FieldNames() {
		values[name] = "  v-" + name + "  "
	}
	values["mobile"], values["b_mobile"] = "+386 40 123 456", "0038631-234-567"
	values["gender"], values["birthday"] = "FEMALE", "1990-02-28"
	values["email"], values["b_email"] = "ana@example.si", "office@shop.example.com"
	values["column_1"], values["column_100"] = "gold", "x"
	c := fill(t, values)
	for _, name := range contacts.FieldNames() {
		f, _ := segmentation.ParseField(name)
		want := "v-" + name
		switch name {
		case "mobile":
			want = "+38640123456"
		case "b_mobile":
			want = "+38631234567"
		case "gender":
			want = "female"
		case "birthday":
			want = "1990-02-28"
		case "email", "b_email":
			want = values[name]
		}
		if got := c.Value(f); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if c.MobileRaw != "+386 40 123 456" || c.BMobileRaw != "0038631-234-567" {
		t.Errorf("raw numbers %q, %q", c.MobileRaw, c.BMobileRaw)
	}
	if c.Value(segmentation.ColumnField(1)) != "gold" || c.Value(segmentation.ColumnField(100)) != "x" || c.ListUUID != list {
		t.Errorf("custom %v, list %q", c.Custom, c.ListUUID)
	}
	if len(contacts.FieldNames()) != 30 {
		t.Errorf("%d standard fields, want 30", len(contacts.FieldNames()))
	}
}

// Every problem of a body is named at once, in field-name order, and the
// contact is left as it was.
func TestFillProblems(t *testing.T) {
	c := fill(t, map[string]string{"first_name": "Ana"})
	before := c.Clone()
	in := contacts.Input{
		ListUUID: ptr("not-a-uuid"),
		Values: map[string]*string{
			"mobile": ptr("040 123 456"), "b_mobile": ptr("+1 555"), "gender": ptr("other"), "birthday": ptr("2025-02-30"),
			"email": ptr("ana at example"), "shoe_size": ptr("42"), "subscription_options_in": ptr("x"),
			"first_name": ptr(strings.Repeat("a", 256)), "last_name": ptr("a\x00b"), "title": ptr("\xff"), "column_101": ptr("x"),
		},
		OptStatus: ptr("maybe"), TelegramOptStatus: ptr("yes"), TelegramData: []byte(`[1]`),
	}
	err := contacts.Fill(&c, in, true)
	wantProblems(t, err, "list_uuid", "b_mobile", "birthday", "column_101", "email", "first_name", "gender", "last_name",
		"mobile", "shoe_size", "subscription_options_in", "title", "opt_status", "channel_telegram_opt_status", "channel_telegram_data")
	if c.Value(segmentation.FirstName) != before.Value(segmentation.FirstName) || c.ListUUID != before.ListUUID {
		t.Errorf("a refused body changed the contact")
	}
	var fresh contacts.Contact
	wantProblems(t, contacts.Fill(&fresh, contacts.Input{}, true), "list_uuid")
}

// A replace clears what its body leaves out and keeps the contact's
// system fields, list, webpush opt status and subscription and
// memberships.
func TestFillReplaces(t *testing.T) {
	c := fill(t, map[string]string{"first_name": "Ana", "mobile": "+38640123456", "column_2": "x"})
	c.UUID, c.Created, c.OptStatusWebpush, c.WebpushSubscription = "u-1", time.Unix(1, 0), contacts.OptIn, "https://push.example/s/1"
	c.Options = map[string]contacts.MemberStatus{"opt": contacts.Subscribed}
	if err := contacts.Fill(&c, contacts.Input{Values: map[string]*string{"last_name": ptr("Novak"), "first_name": nil}, OptStatus: ptr("OUT")}, false); err != nil {
		t.Fatal(err)
	}
	if c.Value(segmentation.FirstName) != "" || c.Value(segmentation.Mobile) != "" || c.MobileRaw != "" || c.Custom[2] != "" ||
		c.Value(segmentation.LastName) != "Novak" || c.OptStatus != contacts.OptOut {
		t.Errorf("replaced: %+v", c)
	}
	if c.UUID != "u-1" || c.ListUUID != list || c.OptStatusWebpush != contacts.OptIn || c.WebpushSubscription != "https://push.example/s/1" ||
		c.Options["opt"] != contacts.Subscribed {
		t.Errorf("system fields lost: %+v", c)
	}
}

// A contact is what segmentation evaluates: its fields, birthday and
// memberships answer the queries a campaign narrows by.
func TestContactIsARecord(t *testing.T) {
	c := fill(t, map[string]string{"mobile": "+386 40 123 456", "gender": "Male", "birthday": "1980-03-02", "column_1": "Gold", "city": "Ljubljana"})
	c.Options = map[string]contacts.MemberStatus{"3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d": contacts.Subscribed}
	today := msgkit.Date{Year: 2026, Month: 3, Day: 1}
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{`{"segmentation":[{"rules":[{"field":"mobile","condition":"startswith","value":"+38640","operator":"AND"}]}]}`, true},
		{`{"segmentation":[{"rules":[{"field":"gender","condition":"eq","value":"male","operator":"AND"},{"field":"column_1","condition":"eq","value":"gold","operator":"AND"}]}]}`, true},
		{`{"segmentation":[{"rules":[{"field":"birthday","condition":"ann_in_days","value":"1","operator":"AND"}]}]}`, true},
		{`{"segmentation":[{"rules":[{"field":"subscription_options_in","condition":"in","value":["3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"],"operator":"AND"}]}]}`, true},
		{`{"segmentation":[{"rules":[{"field":"email","condition":"isnotnull","value":"","operator":"AND"}]}]}`, false},
		{`{"segmentation":[{"rules":[{"field":"city","condition":"contains","value":"LJUB","operator":"AND"}]}]}`, true},
	} {
		q, err := segmentation.Parse([]byte(tt.query))
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := segmentation.Compile(q, today).Match(&c); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
		}
	}
	if ch := c.Channels(); len(ch) != 0 {
		t.Errorf("channels of a contact without Telegram: %v", ch)
	}
}

func TestE164(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"+38640123456", "+38640123456"}, {"+386 (40) 123-456", "+38640123456"}, {"0038640123456", "+38640123456"},
		{"+44 20 7946 0018", "+442079460018"}, {"+999 123 456 78", ""}, {"040123456", ""}, {"+386", ""},
		{"+38640123456x", ""}, {"++38640123456", ""}, {"+3864012345678901", ""}, {"", ""}, {"+٣٨٦٤٠١٢٣٤٥٦", ""},
	} {
		got, ok := contacts.E164(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("E164(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestE164In(t *testing.T) {
	for _, tt := range []struct{ in, region, want string }{
		{"040 123 456", "SI", "+38640123456"}, {"(040) 123-456", "SI", "+38640123456"}, {"40123456", "SI", "+38640123456"},
		{"+38640123456", "SI", "+38640123456"}, {"0038640123456", "DE", "+38640123456"}, {"040 123 456", "", ""},
		{"020 7946 0018", "GB", "+442079460018"}, {"(202) 555-0143", "US", "+12025550143"}, {"06 6982 1234", "IT", "+390669821234"},
		{"040 123 456", "XX", ""}, {"0", "SI", ""}, {"040 123 45x", "SI", ""},
	} {
		got, ok := contacts.E164In(tt.in, tt.region)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("E164In(%q, %q) = %q, %v; want %q", tt.in, tt.region, got, ok, tt.want)
		}
	}
}

// E164 of its own answer is the same answer: a stored number reads back.
func TestE164Idempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.RuneFrom([]rune("+0123456789 -()")), 1, 20, -1).Draw(t, "number")
		e, ok := contacts.E164(s)
		if !ok {
			return
		}
		if again, ok := contacts.E164(e); !ok || again != e {
			t.Fatalf("E164(%q) = %q; E164 of that = %q, %v", s, e, again, ok)
		}
	})
}

func FuzzFill(f *testing.F) {
	f.Add("mobile", "+38640123456", "in")
	f.Add("birthday", "2024-02-29", "OUT")
	f.Add("column_7", "\xff\x00", "x")
	f.Fuzz(func(t *testing.T, name, value, opt string) {
		var c contacts.Contact
		err := contacts.Fill(&c, contacts.Input{ListUUID: ptr(list), Values: map[string]*string{name: &value}, OptStatus: &opt}, true)
		if err != nil {
			if e, ok := err.(*msgkit.Error); !ok || e.Kind != msgkit.Invalid || len(e.Fields) == 0 {
				t.Fatalf("Fill: %v", err)
			}
			return
		}
		f, _ := segmentation.ParseField(name)
		if v := c.Value(f); v != "" && (len([]rune(v)) > contacts.MaxValueLen || v != strings.TrimSpace(v)) {
			t.Fatalf("stored %q for %s", v, name)
		}
		if f == segmentation.Mobile && c.Value(f) != "" {
			if again, ok := contacts.E164(c.Value(f)); !ok || again != c.Value(f) {
				t.Fatalf("stored mobile %q does not read back", c.Value(f))
			}
		}
	})
}

// The cost of reading one number in each common form, which the import
// spreads across cores (the library's parser alone: BenchmarkE164General).
func BenchmarkE164(b *testing.B) {
	for _, bb := range []struct{ name, in, region string }{
		{"plus", "+38640123456", ""}, {"00", "0038640123456", ""}, {"national", "040 123 456", "SI"},
		{"separators", "+386 (40) 123-456", ""}, {"GB", "+44 20 7946 0018", ""}, {"US", "+1 (202) 555-0143", "US"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := contacts.E164In(bb.in, bb.region); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}
