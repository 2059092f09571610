package simnet_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/gsm"
	"github.com/msgkit/msgkit/sms/simnet"
)

type moSink struct {
	got    []sms.Inbound
	failAt int // fail the part of this index (1-based); 0 never
}

func (s *moSink) HandleInbound(_ context.Context, in sms.Inbound) error {
	if len(s.got)+1 == s.failAt {
		return errors.New("full")
	}
	s.got = append(s.got, in)
	return nil
}

// A phone's message reaches the sink as the network's connection, split
// as a phone splits it; its parts join back to the text.
func TestOriginate(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	n := simnet.New(simnet.Options{Clock: func() time.Time { return at }})
	if n.Name() != "simnet" {
		t.Errorf("name %q", n.Name())
	}
	long := strings.Repeat("a long text from a phone ", 12)
	for _, tc := range []struct {
		text  string
		parts int
		dcs   gsm.DCS
	}{
		{"STOP", 1, gsm.DCSGSM},
		{"Привет", 1, gsm.DCSUCS},
		{long, 2, gsm.DCSGSM},
	} {
		s := &moSink{}
		if err := n.Originate(t.Context(), s, "+41790000001", "4560", tc.text); err != nil {
			t.Fatal(err)
		}
		if len(s.got) != tc.parts {
			t.Fatalf("%d parts, want %d", len(s.got), tc.parts)
		}
		var joined strings.Builder
		for i, p := range s.got {
			if p.Conn != "simnet" || p.Source != "41790000001" || p.Dest != "4560" || p.DCS != tc.dcs || !p.At.Equal(at) {
				t.Errorf("part %+v", p)
			}
			if tc.parts > 1 && (int(p.Total) != tc.parts || int(p.Seq) != i+1 || p.Ref != s.got[0].Ref) {
				t.Errorf("part %d ties as %d/%d ref %d", i, p.Seq, p.Total, p.Ref)
			}
			if tc.parts == 1 && p.Total != 0 {
				t.Errorf("a whole message with total %d", p.Total)
			}
			joined.WriteString(p.Text)
		}
		if joined.String() != tc.text {
			t.Errorf("joined %q, want %q", joined.String(), tc.text)
		}
	}
	// Each long message has a reference of its own; the sink's error is
	// returned and stops the message.
	a, b := &moSink{}, &moSink{failAt: 2}
	_ = n.Originate(t.Context(), a, "+41790000001", "4560", long)
	if err := n.Originate(t.Context(), b, "+41790000001", "4560", long); err == nil || len(b.got) != 1 {
		t.Errorf("the sink's error: %v, %d parts taken", err, len(b.got))
	}
	if a.got[0].Ref == b.got[0].Ref {
		t.Errorf("two long messages share reference %d", a.got[0].Ref)
	}
	if err := n.Originate(t.Context(), &moSink{}, "+41790000001", "4560", ""); err == nil {
		t.Error("an empty text was sent")
	}
}
