package contacts_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
)

const validSeg = `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Kranj","operator":"AND"}]}]}`

const uuidA = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"

// sp is a pointer to s: a field sent.
func sp(s string) *string { return &s }

// problemFields are the fields an error names, or nil without an error.
func problemFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid {
		t.Fatalf("error %v is not an Invalid *msgkit.Error", err)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Name)
	}
	return out
}

// Each rule: a body that breaks it names its field, and a body that
// keeps it passes.
func TestFillRecordRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind contacts.RecordKind
		in   contacts.RecordInput
		want []string // the fields named; nil: valid
	}{
		{"custom field minimal", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("Tier")}, nil},
		{"display_name required", contacts.KindCustomField, contacts.RecordInput{}, []string{"display_name"}},
		{"display_name blank", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("  ")}, []string{"display_name"}},
		{"display_name too long", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp(strings.Repeat("x", 256))}, []string{"display_name"}},
		{"display_name control", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("a\x01b")}, []string{"display_name"}},
		{"field_type unknown", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("blob")}, []string{"field_type"}},
		{"field_type any case", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("Number")}, nil},
		{"select needs options", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("select")}, []string{"config"}},
		{"select empty options", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("select"), Config: json.RawMessage(`{"options":[]}`)}, []string{"config"}},
		{"select repeated option", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("select"), Config: json.RawMessage(`{"options":["a","a"]}`)}, []string{"config"}},
		{"select with options", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldType: sp("select"), Config: json.RawMessage(`{"options":["a","b"]}`)}, nil},
		{"config not an object", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Config: json.RawMessage(`[1]`)}, []string{"config"}},
		{"config not JSON", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Config: json.RawMessage(`{x`)}, []string{"config"}},
		{"config null", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Config: json.RawMessage(`null`)}, nil},
		{"config too big", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Config: json.RawMessage(`{"a":"` + strings.Repeat("x", contacts.MaxConfigBytes) + `"}`)}, []string{"config"}},
		{"mandatory yes", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Mandatory: sp("YES"), Identifier: sp("no")}, nil},
		{"mandatory other", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Mandatory: sp("true")}, []string{"mandatory"}},
		{"identifier other", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Identifier: sp("1")}, []string{"identifier"}},
		{"order_num negative", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), OrderNum: sp("-1")}, []string{"order_num"}},
		{"order_num not integer", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), OrderNum: sp("1.5")}, []string{"order_num"}},
		{"order_num too big", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), OrderNum: sp("1000000001")}, []string{"order_num"}},
		{"field_name chosen", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldName: sp("column_7")}, nil},
		{"field_name 101", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldName: sp("column_101")}, []string{"field_name"}},
		{"field_name standard", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), FieldName: sp("email")}, []string{"field_name"}},
		{"custom field has no name", contacts.KindCustomField, contacts.RecordInput{DisplayName: sp("T"), Name: sp("x")}, []string{"name"}},
		{"every problem at once", contacts.KindCustomField, contacts.RecordInput{FieldType: sp("x"), Mandatory: sp("x"), OrderNum: sp("x"), Status: sp("active")},
			[]string{"display_name", "field_type", "mandatory", "order_num", "status"}},

		{"set", contacts.KindSegmentationSet, contacts.RecordInput{Name: sp("S"), Data: sp(validSeg)}, nil},
		{"set name required", contacts.KindSegmentationSet, contacts.RecordInput{Data: sp(validSeg)}, []string{"name"}},
		{"set data required", contacts.KindSegmentationGroup, contacts.RecordInput{Name: sp("S")}, []string{"data"}},
		{"set data invalid", contacts.KindSegmentationGroup, contacts.RecordInput{Name: sp("S"), Data: sp(`{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x"}]}]}`)}, []string{"data"}},
		{"set data with three problems", contacts.KindSegmentationSet, contacts.RecordInput{Name: sp("S"), Data: sp(`{"segmentation":[{"rules":[{"field":"nope","condition":"eq","value":"x"}]},{"rules":[]}]}`)}, []string{"data", "data", "data"}},
		{"set data not JSON", contacts.KindSegmentationSet, contacts.RecordInput{Name: sp("S"), Data: sp(`nope`)}, []string{"data"}},
		{"set has no status", contacts.KindSegmentationSet, contacts.RecordInput{Name: sp("S"), Data: sp(validSeg), Status: sp("active")}, []string{"status"}},

		{"subscription", contacts.KindSubscription, contacts.RecordInput{Name: sp("News"), Description: sp("d"), Status: sp("Inactive")}, nil},
		{"subscription status", contacts.KindSubscription, contacts.RecordInput{Name: sp("News"), Status: sp("paused")}, []string{"status"}},
		{"description too long", contacts.KindGroup, contacts.RecordInput{Name: sp("G"), Description: sp(strings.Repeat("é", 1001))}, []string{"description"}},
		{"description 1000", contacts.KindTouchpoint, contacts.RecordInput{Name: sp("G"), Description: sp(strings.Repeat("é", 1000))}, nil},
		{"interest name", contacts.KindInterest, contacts.RecordInput{}, []string{"name"}},

		{"option", contacts.KindOption, contacts.RecordInput{Name: sp("Weekly"), SubscriptionUUID: sp(uuidA), OrderNum: sp("4")}, nil},
		{"option subscription required", contacts.KindOption, contacts.RecordInput{Name: sp("Weekly")}, []string{"subscription_uuid"}},
		{"option subscription a uuid", contacts.KindOption, contacts.RecordInput{Name: sp("Weekly"), SubscriptionUUID: sp("x")}, []string{"subscription_uuid"}},

		{"group list", contacts.KindGroupList, contacts.RecordInput{GroupUUID: sp(uuidA), ListUUID: sp(uuidA)}, nil},
		{"group list needs both", contacts.KindGroupList, contacts.RecordInput{}, []string{"group_uuid", "list_uuid"}},
		{"group list has no name", contacts.KindGroupList, contacts.RecordInput{GroupUUID: sp(uuidA), ListUUID: sp(uuidA), Name: sp("n")}, []string{"name"}},
		{"group segmentation", contacts.KindGroupSegmentation, contacts.RecordInput{GroupUUID: sp(uuidA), Data: sp(validSeg)}, nil},
		{"group segmentation data", contacts.KindGroupSegmentation, contacts.RecordInput{GroupUUID: sp(uuidA), Data: sp(`{}`)}, []string{"data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := contacts.Record{Kind: tc.kind, UUID: uuidA, Name: "before"}
			err := contacts.FillRecord(&r, tc.in)
			if got := problemFields(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("fields %v (%v), want %v", got, err, tc.want)
			}
			if err != nil {
				if r.Name != "before" {
					t.Error("a refused body changed the record")
				}
				if msgkit.CodeOf(err) != contacts.CodeInvalid(tc.kind) {
					t.Errorf("code %q", msgkit.CodeOf(err))
				}
			}
		})
	}
}

// What a valid body stores: defaults, canonical forms, kept system fields.
func TestFillRecordValues(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := contacts.Record{Kind: contacts.KindCustomField, UUID: uuidA, Created: created, Column: 0}
	err := contacts.FillRecord(&r, contacts.RecordInput{DisplayName: sp(" Tier "), FieldType: sp("SELECT"), FieldName: sp("column_9"),
		Identifier: sp("yes"), OrderNum: sp("12"), Config: json.RawMessage(" {\"options\": [\"a\", \"b\"]} ")})
	want := contacts.Record{Kind: contacts.KindCustomField, UUID: uuidA, Created: created, Name: "Tier", FieldType: "select",
		Column: 9, Identifier: true, OrderNum: 12, Config: json.RawMessage(`{"options":["a","b"]}`)}
	if err != nil || !cmp.Equal(r, want) {
		t.Errorf("custom field %+v, %v\nwant %+v", r, err, want)
	}
	if r.FieldName() != "column_9" || r.Definition().FieldName != "column_9" {
		t.Errorf("field name %q", r.FieldName())
	}
	// A replace cannot move the field to another column.
	err = contacts.FillRecord(&r, contacts.RecordInput{DisplayName: sp("T"), FieldName: sp("column_3")})
	if got := problemFields(t, err); !slices.Equal(got, []string{"field_name"}) {
		t.Errorf("moving the column: %v", err)
	}
	if err := contacts.FillRecord(&r, contacts.RecordInput{DisplayName: sp("T")}); err != nil || r.Column != 9 || r.FieldType != "text" || r.Identifier {
		t.Errorf("replace without field_name: %+v, %v (column kept, the rest defaults)", r, err)
	}
	o := contacts.Record{Kind: contacts.KindOption}
	if err := contacts.FillRecord(&o, contacts.RecordInput{Name: sp("W"), SubscriptionUUID: sp(strings.ToUpper(uuidA))}); err != nil ||
		o.Status != contacts.StatusActive || o.Parent != uuidA || o.OrderNum != 0 {
		t.Errorf("option defaults %+v, %v", o, err)
	}
}

func TestFillMember(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m, err := contacts.FillMember(contacts.MemberTouchpoint, contacts.MemberInput{ContactUUID: sp(uuidA), TargetUUID: sp(strings.ToUpper(uuidA)), Status: sp("Subscribed")}, at)
	want := contacts.Member{Kind: contacts.MemberTouchpoint, ContactUUID: uuidA, TargetUUID: uuidA, Status: contacts.Subscribed, Updated: at}
	if err != nil || m != want {
		t.Errorf("FillMember = %+v, %v", m, err)
	}
	for _, tc := range []struct {
		in   contacts.MemberInput
		want []string
	}{
		{contacts.MemberInput{}, []string{"contact_uuid", "touchpoint_uuid", "status"}},
		{contacts.MemberInput{ContactUUID: sp("x"), TargetUUID: sp(uuidA), Status: sp("in")}, []string{"contact_uuid", "status"}},
	} {
		_, err := contacts.FillMember(contacts.MemberTouchpoint, tc.in, at)
		if got := problemFields(t, err); !slices.Equal(got, tc.want) || msgkit.CodeOf(err) != contacts.CodeInvalidMember {
			t.Errorf("FillMember(%+v): %v, want fields %v", tc.in, err, tc.want)
		}
	}
}

func TestStandardFields(t *testing.T) {
	defs := contacts.StandardFields()
	var names []string
	for i, d := range defs {
		names = append(names, d.FieldName)
		if d.OrderNum != i+1 || d.DisplayName == "" || d.Mandatory {
			t.Errorf("%+v", d)
		}
		if d.Identifier != (d.FieldName == "mobile" || d.FieldName == "email") {
			t.Errorf("%s identifier %v", d.FieldName, d.Identifier)
		}
		if !slices.Contains(contacts.FieldTypes(), d.FieldType) {
			t.Errorf("%s type %q", d.FieldName, d.FieldType)
		}
		if d.FieldType == contacts.FieldSelect {
			if _, err := contacts.SelectOptions(d.Config); err != nil {
				t.Errorf("%s: %v", d.FieldName, err)
			}
		}
	}
	if contacts.YesNo(true) != "yes" || contacts.YesNo(false) != "no" {
		t.Error("YesNo")
	}
	slices.Sort(names)
	if !slices.Equal(names, contacts.FieldNames()) {
		t.Errorf("standard fields %v\nwant FieldNames %v", names, contacts.FieldNames())
	}
}

// Every attribute a spec names is one RecordValue reads, of its type.
func TestRecordSpecs(t *testing.T) {
	for _, k := range contacts.RecordKinds() {
		spec := contacts.RecordSpec(k)
		for attr, typ := range spec.Filter {
			v, ok := contacts.RecordValue(contacts.Record{Kind: k}, attr)
			if !ok || v.Type() != typ {
				t.Errorf("%s: %s reads %v %v", k, attr, v, ok)
			}
		}
		for _, attr := range spec.Sort {
			if _, ok := spec.Filter[attr]; !ok {
				t.Errorf("%s sorts by %s, no filter attribute", k, attr)
			}
		}
	}
	for _, k := range []contacts.MemberKind{contacts.MemberOption, contacts.MemberTouchpoint, contacts.MemberInterest} {
		for attr, typ := range contacts.MemberSpec(k).Filter {
			if v, ok := contacts.MemberValue(contacts.Member{Kind: k}, attr); !ok || v.Type() != typ {
				t.Errorf("%s members: %s", k, attr)
			}
		}
	}
}

// FillRecord never panics, and what it accepts holds to its rules.
func FuzzFillRecord(f *testing.F) {
	f.Add("custom_field", "Tier", "select", `{"options":["a"]}`, "3", "column_4")
	f.Add("segmentation_set", "S", "", "", "", validSeg)
	f.Add("group_segmentation", "", "", "", "", `{"segmentation":[{"operator":"OR","rules":[]}]}`)
	f.Add("custom_field", "\xff", "text", `{"a":`, "-0", "column_0")
	f.Fuzz(func(t *testing.T, kind, name, fieldType, config, order, data string) {
		k := contacts.RecordKind(kind)
		if !slices.Contains(contacts.RecordKinds(), k) {
			k = contacts.KindCustomField
		}
		in := contacts.RecordInput{Config: json.RawMessage(config), OrderNum: &order}
		switch k {
		case contacts.KindCustomField:
			in.DisplayName, in.FieldType, in.FieldName = &name, &fieldType, &data
		case contacts.KindSegmentationSet, contacts.KindSegmentationGroup:
			in = contacts.RecordInput{Name: &name, Data: &data}
		default:
			in = contacts.RecordInput{GroupUUID: sp(uuidA), Data: &data}
			k = contacts.KindGroupSegmentation
		}
		r := contacts.Record{Kind: k}
		if err := contacts.FillRecord(&r, in); err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("error of kind %s: %v", msgkit.KindOf(err), err)
			}
			return
		}
		if r.Config != nil && !json.Valid(r.Config) {
			t.Fatalf("stored config %q is not JSON", r.Config)
		}
		if r.OrderNum < 0 || r.Column < 0 || r.Column > 100 {
			t.Fatalf("stored %+v", r)
		}
		if r.FieldType == contacts.FieldSelect {
			if _, err := contacts.SelectOptions(r.Config); err != nil {
				t.Fatalf("a select field without options: %s", r.Config)
			}
		}
	})
}

// A custom field body with a select config, checked and stored.
func BenchmarkFillRecordCustomField(b *testing.B) {
	in := contacts.RecordInput{DisplayName: sp("Loyalty tier"), FieldType: sp("select"), Mandatory: sp("no"), Identifier: sp("yes"),
		OrderNum: sp("4"), Config: json.RawMessage(`{"options": ["gold", "silver", "bronze"]}`)}
	b.ReportAllocs()
	for b.Loop() {
		r := contacts.Record{Kind: contacts.KindCustomField, UUID: uuidA}
		if err := contacts.FillRecord(&r, in); err != nil {
			b.Fatal(err)
		}
	}
}

// A segmentation set body: the query parsed to check it.
func BenchmarkFillRecordSegmentation(b *testing.B) {
	in := contacts.RecordInput{Name: sp("Capital"), Data: sp(validSeg)}
	b.ReportAllocs()
	for b.Loop() {
		r := contacts.Record{Kind: contacts.KindSegmentationSet, UUID: uuidA}
		if err := contacts.FillRecord(&r, in); err != nil {
			b.Fatal(err)
		}
	}
}
