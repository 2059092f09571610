package sms_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func TestBindURL(t *testing.T) {
	u := sms.BindURL("shop")
	if a, ok := sms.BindAccount(u); !ok || a != "shop" {
		t.Errorf("BindAccount(%q) = %q, %v", u, a, ok)
	}
	for _, u := range []string{"smpp:", "https://example.com/dlr", "", "SMPP:shop"} {
		if a, ok := sms.BindAccount(u); ok {
			t.Errorf("BindAccount(%q) = %q, true", u, a)
		}
	}
}

// An SMPP submission's reports go to the account's binds as receipts
// (BindDelivery), each quoting the first 20 characters of its part.
func TestReportsToBinds(t *testing.T) {
	f := newFixture(t)
	sub := valid()
	mask := int64(sms.RecommendedDLRMask)
	sub.DLRURL, sub.DLRMask, sub.DLRToBinds = "", &mask, true
	sub.Text = "Grüße aus Ljubljana, wir sehen uns"
	acc, err := f.gw.SubmitFor(t.Context(), "shop", "smpp-1", sub)
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.store.Message(t.Context(), acc.MsgID)
	if err != nil || m.DLRURL != sms.BindURL("shop") {
		t.Fatalf("DLRURL %q, %v: want the account's binds", m.DLRURL, err)
	}
	f.event(t, acc.MsgID, 0, sms.StatusExpired, 0)
	rs, err := f.store.ClaimReports(t.Context(), f.clock.Now(), time.Minute, 10)
	if err != nil || len(rs) != 1 {
		t.Fatalf("claimed %d reports, %v", len(rs), err)
	}
	var d sms.BindDelivery
	if err := json.Unmarshal(rs[0].Body, &d); err != nil {
		t.Fatal(err)
	}
	want := sms.BindDelivery{Kind: sms.BindReceipt, MsgID: "smpp-1", Source: "38640123456", Dest: "MyShop", DestAlpha: true,
		Event: "UNDELIVERED", ErrorCode: 996, PartNum: 0, NumParts: 1, SubmitTime: m.SubmittedAt.Unix(), DoneTime: f.clock.Now().Unix(),
		Text: "Grüße aus Ljubljana,", ExpiresAt: m.ExpiresAt.Unix()}
	if d != want {
		t.Errorf("receipt\n got %+v\nwant %+v", d, want)
	}

	// Without a mask, nothing is asked: no URL.
	sub.DLRMask = nil
	if _, err := f.gw.SubmitFor(t.Context(), "shop", "smpp-2", sub); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.store.Message(t.Context(), "smpp-2"); m.DLRURL != "" {
		t.Errorf("no mask: DLRURL %q", m.DLRURL)
	}
	// The binds or a URL, not both.
	sub.DLRURL = "https://example.com/dlr"
	if _, err := f.gw.SubmitFor(t.Context(), "shop", "smpp-3", sub); msgkit.CodeOf(err) != sms.CodeBadParameterValue.String() {
		t.Errorf("binds and a URL: %v", err)
	}
}

// A report whose poster holds it (no bind here) waits without using an
// attempt, and is given up at MaxAge.
func TestDispatcherHolds(t *testing.T) {
	f := newFixture(t)
	id := f.submit(t, 1, "x")
	f.event(t, id, 0, sms.StatusDelivered, 0)
	bound := false
	d := f.dispatcher(posterFunc(func(ctx context.Context, url string, body []byte) error {
		if !bound {
			return &sms.HoldError{After: 10 * time.Second, Reason: "no bind"}
		}
		return nil
	}), func(o *sms.DispatcherOptions) { o.MaxAttempts = 2 })
	for range 5 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(16 * time.Second)
	}
	tr, err := f.store.Trace(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if r := tr.Reports[0]; r.State != sms.ReportPending || r.Attempts != 0 || !strings.Contains(r.LastError, "no bind") {
		t.Fatalf("held 5 times: %+v; want pending, no attempt", r)
	}
	bound = true
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, f); c[sms.ReportDelivered] != 1 {
		t.Errorf("after the bind: %v", c)
	}

	id = f.submit(t, 1, "y")
	f.event(t, id, 0, sms.StatusDelivered, 0)
	bound = false
	for range 300 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(16 * time.Second)
	}
	if c := counts(t, f); c[sms.ReportGivenUp] != 1 {
		t.Errorf("held past MaxAge: %v, want given up", c)
	}
}
