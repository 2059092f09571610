package sms

import (
	"testing"

	"github.com/msgkit/msgkit"
)

func TestEvents(t *testing.T) {
	tests := []struct {
		e     Event
		bit   int
		name  string
		final bool
	}{
		{EventDelivered, 1, "DELIVERED", true},
		{EventUndelivered, 2, "UNDELIVERED", true},
		{EventBuffered, 4, "BUFFERED", false},
		{EventSentToSMSC, 8, "SENT_TO_SMSC", false},
		{EventRejected, 16, "REJECTED", true},
	}
	if len(Events()) != len(tests) {
		t.Fatalf("Events() has %d events, want %d", len(Events()), len(tests))
	}
	for i, tc := range tests {
		if Events()[i] != tc.e || int(tc.e) != tc.bit || tc.e.String() != tc.name || tc.e.Final() != tc.final {
			t.Errorf("event %v: bit %d final %v, want bit %d name %s final %v", tc.e, int(tc.e), tc.e.Final(), tc.bit, tc.name, tc.final)
		}
		if got, ok := ParseEvent(tc.name); !ok || got != tc.e {
			t.Errorf("ParseEvent(%q) = %v, %v", tc.name, got, ok)
		}
	}
	if _, ok := ParseEvent("delivered"); ok {
		t.Error("event names are upper case")
	}
	for _, e := range []Event{0, 3, 32, 64, 255} {
		if e.Valid() || e.Final() {
			t.Errorf("%v is not an event", e)
		}
	}
}

// Every mask from 0 to 31 allows exactly the events whose bits it holds.
func TestDLRMaskAllows(t *testing.T) {
	for n := int64(0); n <= 31; n++ {
		m, err := ParseDLRMask(n)
		if err != nil {
			t.Fatalf("mask %d: %v", n, err)
		}
		sum := 0
		for _, e := range Events() {
			if m.Allows(e) {
				sum += int(e)
			}
		}
		if int64(sum) != n {
			t.Errorf("mask %d allows events summing to %d", n, sum)
		}
		if m.Allows(0) || m.Allows(32) || m.Allows(3) {
			t.Errorf("mask %d allows a non-event", n)
		}
	}
	if RecommendedDLRMask != 19 {
		t.Errorf("recommended mask is %d, want 19", RecommendedDLRMask)
	}
	for _, e := range Events() {
		if RecommendedDLRMask.Allows(e) != e.Final() {
			t.Errorf("19 should allow exactly the final events; %v: %v", e, RecommendedDLRMask.Allows(e))
		}
	}
	for _, n := range []int64{-1, 32, 255, 1 << 40} {
		_, err := ParseDLRMask(n)
		checkCode(t, err, CodeBadParameterValue, "dlrMask")
	}
}

func TestDLRErrors(t *testing.T) {
	groups := map[Category][]DLRError{
		CategoryNone:       {0},
		CategoryOther:      {500},
		CategorySubscriber: {1, 9},
		CategoryService:    {11, 13, 15, 21},
		CategoryHandset:    {19, 20, 22, 30},
		CategoryAbsent:     {29, 81, 82, 83, 84, 86, 87, 88},
		CategoryNetwork:    {36, 44, 60, 61, 63, 64, 70, 72, 75, 80, 85, 89, 90},
		CategoryPrepaid:    {112, 113, 114},
		CategoryPlatform:   {989, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999},
	}
	n := 0
	for cat, codes := range groups {
		for _, c := range codes {
			n++
			if !c.Known() || c.Category() != cat {
				t.Errorf("code %d: known %v category %v, want %v", c, c.Known(), c.Category(), cat)
			}
			if (c.Text() == "") != (c == DLRNoError) {
				t.Errorf("code %d: text %q", c, c.Text())
			}
		}
	}
	if len(DLRErrors()) != n {
		t.Errorf("DLRErrors lists %d codes, the error code table has %d", len(DLRErrors()), n)
	}
	texts := map[DLRError]string{1: "subscriber unknown", 996: "validity expired", 998: "no route", 993: "blacklisted sender", 997: "blacklisted receiver", 994: "no credit"}
	for c, want := range texts {
		if c.Text() != want {
			t.Errorf("code %d text %q, want %q", c, c.Text(), want)
		}
	}
	if DLRError(12345).Known() || DLRError(12345).Category() != CategoryOther || DLRError(12345).Text() != "other error" {
		t.Error("an unknown code is an other error")
	}
	if !DLRAbsentSubscriber.Temporary() || DLRSubscriberUnknown.Temporary() || DLRValidityExpired.Temporary() {
		t.Error("absent subscriber is temporary; unknown subscriber and expiry are not")
	}
}

func TestCodes(t *testing.T) {
	want := map[Code]string{
		101: "RC_APPLICATION_ERROR", 102: "RC_ENCODING_ERROR", 103: "RC_NO_ACCOUNT", 104: "RC_IP_NOT_ALLOWED",
		105: "RC_THROTTLING_ERROR", 106: "RC_BLACKLISTED_SENDER", 107: "RC_INVALID_SENDER", 108: "RC_MESSAGE_TOO_LONG",
		109: "RC_BAD_CONTENT_FORMAT", 110: "RC_MISSING_MANDATORY_PARAMETER", 111: "RC_UNKNOWN_MESSAGE_TYPE",
		112: "RC_BAD_PARAMETER_VALUE", 113: "RC_NO_CREDIT", 114: "RC_NO_ROUTE", 115: "RC_CONCAT_ERROR",
	}
	if len(Codes()) != len(want) {
		t.Fatalf("%d codes, want %d", len(Codes()), len(want))
	}
	for _, c := range Codes() {
		if c.Name() != want[c] || c.Meaning() == "" {
			t.Errorf("code %d: name %q meaning %q, want %q", c, c.Name(), c.Meaning(), want[c])
		}
		if c.Retryable() != (c == 105) {
			t.Errorf("code %d retryable %v; only 105 may be resent", c, c.Retryable())
		}
		err := c.Errorf("x")
		if CodeOf(err) != c || err.Code != c.String() {
			t.Errorf("code %d does not survive Errorf: %v", c, err)
		}
	}
	for _, c := range []Code{0, 100, 116, -1} {
		if c.Valid() || c.Name() != "" {
			t.Errorf("%d is not a code", c)
		}
	}
	if got := CodeOf(msgkit.Invalidf("message_invalid", "dlrUrl", "not storable")); got != CodeBadParameterValue {
		t.Errorf("an Invalid error without a code is %v, want 112: bad input is never 101", got)
	}
	if CodeOf(nil) != CodeApplicationError || CodeOf(errString("boom")) != CodeApplicationError {
		t.Error("unclassified errors are 101")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
