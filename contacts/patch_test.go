package contacts_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/contacts"
	"github.com/msgkit/msgkit/segmentation"
)

func TestApplyPatch(t *testing.T) {
	s := func(v string) *string { return &v }
	c := contacts.Contact{OptStatus: contacts.OptOut, Telegram: contacts.Channel{Identifier: "@old", OptStatus: contacts.OptIn}}
	c.Restore(segmentation.FirstName, "kept") // a field the patch does not touch
	if (contacts.Patch{}).Nothing() != true || (contacts.Patch{OptStatus: s("in")}).Nothing() {
		t.Error("Nothing is wrong")
	}
	if err := contacts.ApplyPatch(&c, contacts.Patch{OptStatus: s(" IN "), OptStatusWebpush: s("out")}); err != nil {
		t.Fatal(err)
	}
	if c.OptStatus != contacts.OptIn || c.OptStatusWebpush != contacts.OptOut || c.Telegram.Identifier != "@old" || c.Value(segmentation.FirstName) != "kept" {
		t.Errorf("patched: %+v", c)
	}
	// Every problem at once, and nothing changed.
	before := c.Clone()
	err := contacts.ApplyPatch(&c, contacts.Patch{OptStatus: s("maybe"), TelegramOptStatus: s("yes"), TelegramIdentifier: s("a\x00b")})
	e, ok := err.(*msgkit.Error)
	if !ok || e.Code != contacts.CodeInvalidContact || len(e.Fields) != 3 {
		t.Fatalf("err = %v", err)
	}
	if c.OptStatus != before.OptStatus || c.Telegram.Identifier != before.Telegram.Identifier || c.Telegram.OptStatus != before.Telegram.OptStatus {
		t.Errorf("a failed patch changed the contact: %+v", c)
	}
	// "" clears a status.
	if err := contacts.ApplyPatch(&c, contacts.Patch{TelegramOptStatus: s("")}); err != nil || c.Telegram.OptStatus != "" {
		t.Errorf("clearing: %v %+v", err, c.Telegram)
	}
}

// PATCH sets the web push subscription, the webpush channel's identifier,
// kept as given (trimmed); "" clears it.
func TestApplyPatchWebpush(t *testing.T) {
	s := func(v string) *string { return &v }
	var c contacts.Contact
	if (contacts.Patch{WebpushSubscription: s("x")}).Nothing() {
		t.Error("a subscription is something")
	}
	if err := contacts.ApplyPatch(&c, contacts.Patch{WebpushSubscription: s(" https://push.example/s/AbC "), OptStatusWebpush: s("in")}); err != nil {
		t.Fatal(err)
	}
	want := []contacts.Channel{{Name: contacts.ChannelWebpush, Identifier: "https://push.example/s/AbC", OptStatus: contacts.OptIn}}
	if c.WebpushSubscription != "https://push.example/s/AbC" || !slices.EqualFunc(c.Channels(), want, func(a, b contacts.Channel) bool {
		return a.Name == b.Name && a.Identifier == b.Identifier && a.OptStatus == b.OptStatus
	}) {
		t.Errorf("patched: %q, channels %+v", c.WebpushSubscription, c.Channels())
	}
	for _, bad := range []string{"a\x00b", strings.Repeat("x", contacts.MaxSubscriptionLen+1), "\xff"} {
		err := contacts.ApplyPatch(&c, contacts.Patch{WebpushSubscription: s(bad)})
		if e, ok := err.(*msgkit.Error); !ok || len(e.Fields) != 1 || e.Fields[0].Name != "webpush_subscription" {
			t.Errorf("%.20q: %v", bad, err)
		}
	}
	if c.WebpushSubscription != "https://push.example/s/AbC" {
		t.Errorf("a refused patch changed it: %q", c.WebpushSubscription)
	}
	if err := contacts.ApplyPatch(&c, contacts.Patch{WebpushSubscription: s("")}); err != nil || c.WebpushSubscription != "" || len(c.Channels()) != 0 {
		t.Errorf("clearing: %v %+v", err, c.Channels())
	}
}

func TestFillList(t *testing.T) {
	s := func(v string) *string { return &v }
	var l contacts.List
	if err := contacts.FillList(&l, contacts.ListInput{Name: s(" News ")}); err != nil || l.Name != "News" || l.Status != contacts.ListActive {
		t.Fatalf("create: %+v %v", l, err)
	}
	if err := contacts.FillList(&l, contacts.ListInput{Name: s("VIP"), Status: s("Inactive")}); err != nil || l.Status != contacts.ListInactive {
		t.Fatalf("update: %+v %v", l, err)
	}
	if err := contacts.FillList(&l, contacts.ListInput{Name: s("VIP")}); err != nil || l.Status != contacts.ListInactive {
		t.Fatalf("an update without list_status keeps it: %+v %v", l, err)
	}
	err := contacts.FillList(&l, contacts.ListInput{Name: s("  "), Status: s("gone")})
	e, ok := err.(*msgkit.Error)
	if !ok || e.Code != contacts.CodeInvalidList || len(e.Fields) != 2 || e.Fields[0].Name != "name" || e.Fields[1].Name != "list_status" {
		t.Fatalf("err = %v", err)
	}
	if l.Name != "VIP" {
		t.Errorf("a failed fill changed the list: %+v", l)
	}
}
