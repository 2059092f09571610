package sms_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms"
)

func TestRefusalIsInvalid(t *testing.T) {
	var err error = fmt.Errorf("smsc: %w", &sms.Refusal{Code: sms.DLRNoRoute, Reason: "ESME_RINVDSTADR"})
	if msgkit.KindOf(err) != msgkit.Invalid || !errors.Is(err, msgkit.Invalid) {
		t.Errorf("kind %v, want invalid", msgkit.KindOf(err))
	}
	if !strings.Contains(err.Error(), "998 no route") || !strings.Contains(err.Error(), "ESME_RINVDSTADR") {
		t.Errorf("text %q names neither the code nor the reason", err)
	}
	if s := (&sms.Refusal{}).Error(); !strings.Contains(s, "989") {
		t.Errorf("a Refusal without a code reads %q, want 989", s)
	}
}

func TestFailAll(t *testing.T) {
	down := msgkit.New(msgkit.Unavailable, "down", "down")
	errs := sms.FailAll(3, down)
	if len(errs) != 3 {
		t.Fatalf("%d errors for 3 parts", len(errs))
	}
	for _, err := range errs {
		if err != down {
			t.Errorf("error %v, want the call's", err)
		}
	}
}
