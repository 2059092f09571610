package campaign_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/campaign"
)

const (
	listA = "5f1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b90"
	listB = "6a1c2a4e-0b7d-4c1e-9a53-2d8e4f6a7b91"
)

// body is a valid sms campaign body with members replaced or removed
// (an empty string value removes the member).
func body(t testing.TB, set map[string]any) campaign.Input {
	t.Helper()
	m := map[string]any{
		"name": "Spring sale", "status": "active", "sending_type": "sms", "schedule_type": "once",
		"schedule_rrule": "2026-04-01 09:00:00", "template": "Spring sale: 20% off everything this week!",
		"sender": "Shop", "recipient_lists": listA + ", " + listB + "," + listA,
	}
	for k, v := range set {
		if v == "" {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, _ := json.Marshal(m)
	var in campaign.Input
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in
}

func fields(t testing.TB, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*msgkit.Error)
	if !ok || e.Kind != msgkit.Invalid {
		t.Fatalf("%v is no Invalid error", err)
	}
	var out []string
	for _, f := range e.Fields {
		if !slices.Contains(out, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

func TestFill(t *testing.T) {
	var c campaign.Campaign
	if err := campaign.Fill(&c, body(t, nil), true, now); err != nil {
		t.Fatal(err)
	}
	if c.Name != "Spring sale" || c.Parts != 1 || !slices.Equal(c.Lists, []string{listA, listB}) || c.QueryType != campaign.All ||
		c.Schedule.Type != campaign.Once || !c.Schedule.At.Equal(utc("2026-04-01T09:00:00Z")) || c.Schedule.RRule() != "2026-04-01 09:00:00" {
		t.Errorf("filled %+v", c)
	}
	long := strings.Repeat("Ünïcödé ", 20)
	if err := campaign.Fill(&c, body(t, map[string]any{"template": long}), true, now); err != nil || c.Parts != 3 {
		t.Errorf("a UCS-2 template of 160 characters: %d parts, %v", c.Parts, err)
	}
	doc := `{"messages":[{"body":{"cardMessage":{"content":{"description":"New in","media":{"url":"https://example.com/a.png"},` +
		`"suggestions":[{"text":"Open","openUrl":{"url":"https://example.com"}}]}}},"allowedChannels":["viber","rbm"]},{"body":{"textMessage":{"content":"Hi"}}}]}`
	for _, ch := range []string{"email", "telegram", "rbm", "viber", "whatsapp"} {
		sender := map[string]string{"email": "news@example.com", "whatsapp": "106540352242922"}[ch]
		if sender == "" {
			sender = "shop_bot"
		}
		var d campaign.Campaign
		if err := campaign.Fill(&d, body(t, map[string]any{"sending_type": ch, "template": doc, "sender": sender}), true, now); err != nil || d.Parts != 0 {
			t.Errorf("%s: %v", ch, err)
		}
	}
	var w campaign.Campaign
	wp := map[string]any{"sending_type": "webpush", "template": "fallback", "webpush_title": "Sale", "webpush_body": "20% off",
		"webpush_target_url": "https://shop.example.com/sale", "webpush_icon": "https://shop.example.com/i.png", "sender": "shop"}
	if err := campaign.Fill(&w, body(t, wp), true, now); err != nil || w.Webpush.Title != "Sale" || w.Webpush.TargetURL == "" {
		t.Errorf("webpush: %+v %v", w.Webpush, err)
	}
	q := `{"segmentation":[{"rules":[{"field":"city","condition":"eq","value":"Ljubljana","operator":"AND"}]}]}`
	var s campaign.Campaign
	if err := campaign.Fill(&s, body(t, map[string]any{"query_type": "segmentation", "query": q, "schedule_type": "now", "schedule_rrule": ""}), true, now); err != nil ||
		s.Query != q || s.Schedule.Type != campaign.Now {
		t.Errorf("segmentation now: %+v %v", s, err)
	}
}

func TestFillRefusals(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  map[string]any
		want []string
	}{
		{"everything missing", map[string]any{"name": "", "status": "", "sending_type": "", "schedule_type": "", "template": "", "sender": "", "recipient_lists": "", "schedule_rrule": ""},
			[]string{"name", "status", "sending_type", "schedule_type", "template", "sender", "recipient_lists"}},
		{"unknown values", map[string]any{"status": "paused", "sending_type": "fax", "schedule_type": "daily", "query_type": "some"},
			[]string{"status", "sending_type", "schedule_type", "query_type"}},
		{"created stopped", map[string]any{"status": "stopped"}, []string{"status"}},
		{"created finished", map[string]any{"status": "finished"}, []string{"status"}},
		{"name too long", map[string]any{"name": strings.Repeat("n", 256)}, []string{"name"}},
		{"once in the past", map[string]any{"schedule_rrule": "2026-03-20 11:59:59"}, []string{"schedule_rrule"}},
		{"a rule that never matches", map[string]any{"schedule_type": "scheduled", "schedule_rrule": "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31"}, []string{"schedule_rrule"}},
		{"now with a time", map[string]any{"schedule_type": "now"}, []string{"schedule_rrule"}},
		{"sms text outside GSM and UCS-2 limits", map[string]any{"template": strings.Repeat("a", 40000)}, []string{"template"}},
		{"blank template", map[string]any{"template": "   "}, []string{"template"}},
		{"a control character in the template", map[string]any{"template": "a\u0000b"}, []string{"template"}},
		{"sms sender", map[string]any{"sender": "Way too long sender"}, []string{"sender"}},
		{"email sender", map[string]any{"sending_type": "email", "template": `{"messages":[{"body":{"textMessage":{"content":"x"}}}]}`, "sender": "Shop <news@example.com>"}, []string{"sender"}},
		{"whatsapp sender", map[string]any{"sending_type": "whatsapp", "template": `{"messages":[{"body":{"textMessage":{"content":"x"}}}]}`, "sender": "+38640123456"}, []string{"sender"}},
		{"webpush fields on sms", map[string]any{"webpush_title": "x"}, []string{"webpush_title"}},
		{"webpush without title and body, bad URLs", map[string]any{"sending_type": "webpush", "webpush_icon": "ftp://x", "webpush_image": "/rel"},
			[]string{"webpush_title", "webpush_body", "webpush_icon", "webpush_image"}},
		{"lists not UUIDs", map[string]any{"recipient_lists": "abc, " + listA}, []string{"recipient_lists"}},
		{"lists empty", map[string]any{"recipient_lists": " , "}, []string{"recipient_lists"}},
		{"query with all", map[string]any{"query": `{"segmentation":[]}`}, []string{"query"}},
		{"segmentation without query", map[string]any{"query_type": "segmentation"}, []string{"query"}},
		{"segmentation query invalid", map[string]any{"query_type": "segmentation", "query": `{"segmentation":[{"rules":[{"field":"shoe_size","condition":"eq","value":"9","operator":"AND"}]}]}`}, []string{"query"}},
	} {
		var c campaign.Campaign
		if got := fields(t, campaign.Fill(&c, body(t, tt.set), true, now)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: fields %v, want %v", tt.name, got, tt.want)
		}
	}
	var c campaign.Campaign
	in := body(t, nil)
	bad := "Hi \xff"
	in.Template = &bad
	if got := fields(t, campaign.Fill(&c, in, true, now)); !slices.Equal(got, []string{"template"}) {
		t.Errorf("an sms template that is not UTF-8: %v", got)
	}
	many := ""
	for i := range 51 {
		many += "00000000-0000-4000-8000-0000000000" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + ","
	}
	if got := fields(t, campaign.Fill(&c, body(t, map[string]any{"recipient_lists": many}), true, now)); !slices.Equal(got, []string{"recipient_lists"}) {
		t.Errorf("51 lists: %v", got)
	}
}

func TestTemplateDocument(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`[]`, "template"},
		{`{"messages":[]}`, "template.messages"},
		{`{"messages":[{"body":{"textMessage":{"content":""}}}]}`, "template.messages[0].body.textMessage.content"},
		{`{"messages":[{"body":{"textMessage":{"content":"a"},"cardMessage":{}}}]}`, "template.messages[0].body"},
		{`{"messages":[{"body":{}}]}`, "template.messages[0].body"},
		{`{"messages":[{"body":{"textMessage":{"content":"a"}},"allowedChannels":["fax"]}]}`, "template.messages[0].allowedChannels"},
		{`{"messages":[{"body":{"textMessage":{"content":"a","colour":"red"}}}]}`, "template.messages[0].body.textMessage.colour"},
		{`{"messages":[{"body":{"cardMessage":{"content":{"description":"d","media":{"url":"nope"}}}}}]}`, "template.messages[0].body.cardMessage.content.media.url"},
		{`{"messages":[{"body":{"cardMessage":{"content":{"description":"d","suggestions":[{"text":"","openUrl":{"url":"https://e.com"}}]}}}}]}`,
			"template.messages[0].body.cardMessage.content.suggestions[0].text"},
		{`{"messages":[{"body":{"cardMessage":{"content":{"suggestions":[{"text":"t"}]}}}}]}`, "template.messages[0].body.cardMessage.content.description"},
		{`{"extra":1,"messages":[{"body":{"textMessage":{"content":"a"}}}]}`, "template.extra"},
	} {
		var c campaign.Campaign
		got := fields(t, campaign.Fill(&c, body(t, map[string]any{"sending_type": "viber", "template": tt.doc, "sender": "shop"}), true, now))
		if !slices.Contains(got, tt.want) {
			t.Errorf("%s: fields %v, want %s", tt.doc, got, tt.want)
		}
	}
}

func TestApplyVars(t *testing.T) {
	out, err := campaign.ApplyVars("Hi {name}, {name}! {code} off. {not a var} {}", map[string]string{"name": "Ana", "code": "20%"}, false)
	if err != nil || out != "Hi Ana, Ana! 20% off. {not a var} {}" {
		t.Errorf("ApplyVars = %q, %v", out, err)
	}
	doc := `{"messages":[{"body":{"textMessage":{"content":"Hi {name}"}}}]}`
	out, err = campaign.ApplyVars(doc, map[string]string{"name": `Ana "the great"`}, true)
	if err != nil || !json.Valid([]byte(out)) || !strings.Contains(out, `Hi Ana \"the great\"`) {
		t.Errorf("in a document: %s, %v", out, err)
	}
	// A placeholder without a value stays as written.
	out, err = campaign.ApplyVars("Hi {name} from {city}, {city}", map[string]string{"name": "Ana"}, false)
	if err != nil || out != "Hi Ana from {city}, {city}" {
		t.Errorf("a placeholder left: %q, %v", out, err)
	}
	_, err = campaign.ApplyVars("Hi {name} {city}", map[string]string{"name": "Ana", "zip": "1000", "age": "3"}, false)
	if e, ok := err.(*msgkit.Error); !ok || len(e.Fields) != 2 || e.Fields[0].Name != "template_vars" ||
		!strings.Contains(e.Fields[0].Message, "template_vars.age") || !strings.Contains(e.Fields[1].Message, "template_vars.zip") {
		t.Errorf("vars without placeholders: %v", err)
	}
}

func TestClone(t *testing.T) {
	var src campaign.Campaign
	if err := campaign.Fill(&src, body(t, map[string]any{"template": "Hi {name}, {deal} today", "status": "active"}), true, now); err != nil {
		t.Fatal(err)
	}
	src.UUID, src.Created, src.Last, src.LastSeq, src.Status = "source", now, now, 1, campaign.Finished
	name := "Copy"
	c, err := campaign.Clone(src, campaign.Input{Name: &name, TemplateVars: map[string]string{"name": "friend", "deal": "2 for 1"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Template != "Hi friend, 2 for 1 today" || c.Name != "Copy" || c.Status != campaign.Draft || c.UUID != "" || !c.Last.IsZero() ||
		!slices.Equal(c.Lists, src.Lists) || c.Sender != "Shop" {
		t.Errorf("clone %+v", c)
	}
	c.Lists[0] = "changed"
	if src.Lists[0] == "changed" {
		t.Error("the clone shares the source's lists")
	}
	if c, err = campaign.Clone(src, campaign.Input{}, now); err != nil || c.Name != src.Name || c.Template != src.Template {
		t.Errorf("a plain copy: %+v %v", c, err)
	}
	// Placeholders without a value stay as written, as in a clone without
	// template_vars.
	if c, err = campaign.Clone(src, campaign.Input{TemplateVars: map[string]string{"name": "x"}}, now); err != nil || c.Template != "Hi x, {deal} today" {
		t.Errorf("a placeholder left: %q, %v", c.Template, err)
	}
	if _, err = campaign.Clone(src, campaign.Input{TemplateVars: map[string]string{"nmae": "x"}}, now); !slices.Equal(fields(t, err), []string{"template_vars"}) {
		t.Errorf("a variable without a placeholder: %v", err)
	}
	past := now.Add(30 * 24 * time.Hour)
	if _, err = campaign.Clone(src, campaign.Input{}, past); !slices.Equal(fields(t, err), []string{"schedule_rrule"}) {
		t.Errorf("a clone of a once campaign whose time has passed: %v", err)
	}
}

func TestStatusMachine(t *testing.T) {
	newCampaign := func(status campaign.Status, typ string, rule string) campaign.Campaign {
		var c campaign.Campaign
		set := map[string]any{"status": string(status), "schedule_type": typ, "schedule_rrule": rule}
		if err := campaign.Fill(&c, body(t, set), status == campaign.Active || status == campaign.Draft, now); err != nil {
			t.Fatal(err)
		}
		if err := c.Plan(now); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tt := range []struct {
		from campaign.Status
		to   campaign.Status
		ok   bool
	}{
		{campaign.Active, campaign.Stopped, true}, {campaign.Stopped, campaign.Active, true},
		{campaign.Active, campaign.Active, true}, {campaign.Stopped, campaign.Stopped, true},
		{campaign.Draft, campaign.Active, true}, {campaign.Draft, campaign.Stopped, false},
		{campaign.Finished, campaign.Active, false}, {campaign.Finished, campaign.Stopped, false},
		{campaign.Active, campaign.Draft, false}, {campaign.Active, campaign.Finished, false},
	} {
		c := newCampaign(campaign.Active, "scheduled", "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0")
		c.Status = tt.from
		_ = c.Plan(now)
		err := campaign.ChangeStatus(&c, tt.to, now)
		if (err == nil) != tt.ok {
			t.Errorf("PATCH %s → %s: %v", tt.from, tt.to, err)
		}
		if err == nil && (c.Status == campaign.Active) == c.Next.IsZero() {
			t.Errorf("PATCH %s → %s: next %v with status %s", tt.from, tt.to, c.Next, c.Status)
		}
		if err != nil && msgkit.CodeOf(err) != campaign.CodeInvalidStatus {
			t.Errorf("PATCH %s → %s: code %s", tt.from, tt.to, msgkit.CodeOf(err))
		}
	}
	for _, tt := range []struct {
		from, to campaign.Status
		ok       bool
	}{
		{campaign.Draft, campaign.Draft, true}, {campaign.Draft, campaign.Active, true}, {campaign.Active, campaign.Stopped, true},
		{campaign.Stopped, campaign.Active, true}, {campaign.Active, campaign.Draft, false}, {campaign.Stopped, campaign.Draft, false},
		{campaign.Finished, campaign.Active, false}, {campaign.Active, campaign.Finished, false}, {campaign.Draft, campaign.Stopped, false},
	} {
		if err := campaign.CheckReplace(tt.from, tt.to); (err == nil) != tt.ok {
			t.Errorf("PUT %s → %s: %v", tt.from, tt.to, err)
		}
	}

	// Stopped, a scheduled campaign skips what it missed.
	c := newCampaign(campaign.Active, "scheduled", "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0")
	if !c.Next.Equal(utc("2026-03-21T09:00:00Z")) || c.NextSeq != 1 {
		t.Fatalf("first next %v #%d", c.Next, c.NextSeq)
	}
	c.Ran(utc("2026-03-21T09:00:01Z"))
	if !c.Last.Equal(utc("2026-03-21T09:00:00Z")) || !c.Next.Equal(utc("2026-03-22T09:00:00Z")) || c.NextSeq != 2 {
		t.Fatalf("after a run: last %v next %v #%d", c.Last, c.Next, c.NextSeq)
	}
	_ = campaign.ChangeStatus(&c, campaign.Stopped, utc("2026-03-21T10:00:00Z"))
	if err := campaign.ChangeStatus(&c, campaign.Active, utc("2026-03-25T10:00:00Z")); err != nil || !c.Next.Equal(utc("2026-03-26T09:00:00Z")) || c.NextSeq != 6 {
		t.Errorf("resumed: next %v #%d, %v", c.Next, c.NextSeq, err)
	}
	// A run that outlasts occurrences skips them.
	c.Ran(utc("2026-03-28T12:00:00Z"))
	if !c.Next.Equal(utc("2026-03-29T09:00:00Z")) || c.NextSeq != 9 {
		t.Errorf("after a long run: next %v #%d", c.Next, c.NextSeq)
	}

	// now and once finish after their run.
	n := newCampaign(campaign.Active, "now", "")
	if !n.Next.Equal(now) {
		t.Errorf("now: next %v", n.Next)
	}
	n.Ran(now.Add(time.Minute))
	if n.Status != campaign.Finished || !n.Next.IsZero() || !n.Last.Equal(now) {
		t.Errorf("now after its run: %+v", n)
	}
	o := newCampaign(campaign.Active, "once", "2026-04-01 09:00:00")
	if !o.Next.Equal(utc("2026-04-01T09:00:00Z")) {
		t.Errorf("once: next %v", o.Next)
	}
	_ = campaign.ChangeStatus(&o, campaign.Stopped, now)
	if err := campaign.ChangeStatus(&o, campaign.Active, utc("2026-04-02T00:00:00Z")); msgkit.CodeOf(err) != campaign.CodeInvalidStatus {
		t.Errorf("resuming a once campaign after its time: %v", err)
	}
	o.Ran(utc("2026-04-01T09:00:00Z"))
	if o.Status != campaign.Finished {
		t.Errorf("once after its run: %s", o.Status)
	}
	// A scheduled campaign whose rule ends finishes.
	last := newCampaign(campaign.Active, "scheduled", "FREQ=DAILY;COUNT=2")
	last.Ran(now)
	last.Ran(now.Add(24 * time.Hour))
	if last.Status != campaign.Finished || !last.Next.IsZero() || last.LastSeq != 2 {
		t.Errorf("after the rule's last occurrence: %+v", last)
	}
	// A draft has no next run.
	if d := newCampaign(campaign.Draft, "now", ""); !d.Next.IsZero() {
		t.Errorf("draft: next %v", d.Next)
	}
}

// Fill takes any body without a panic, and a campaign it accepts obeys
// the rules.
func FuzzFill(f *testing.F) {
	f.Add([]byte(`{"name":"n","status":"active","sending_type":"sms","schedule_type":"now","template":"t","sender":"Shop","recipient_lists":"` + listA + `"}`))
	f.Add([]byte(`{"name":"n","status":"draft","sending_type":"viber","schedule_type":"scheduled","schedule_rrule":"FREQ=WEEKLY;BYDAY=MO","template":"{\"messages\":[{\"body\":{\"textMessage\":{\"content\":\"x\"}}}]}","sender":"s","recipient_lists":"` + listA + `","query_type":"segmentation","query":"{}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in campaign.Input
		if json.Unmarshal(data, &in) != nil {
			return
		}
		var c campaign.Campaign
		if err := campaign.Fill(&c, in, true, now); err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid {
				t.Fatalf("Fill: %v", err)
			}
			return
		}
		if c.Name == "" || (c.Status != campaign.Active && c.Status != campaign.Draft) || len(c.Lists) == 0 || c.Sender == "" {
			t.Fatalf("accepted %+v", c)
		}
		if err := c.Plan(now); err != nil && msgkit.KindOf(err) != msgkit.Invalid {
			t.Fatalf("Plan: %v", err)
		}
	})
}
