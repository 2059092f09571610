package pgstore

import (
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/smpptest"
)

func TestSMPPContract(t *testing.T) {
	t.Parallel()
	smpptest.Run(t, func(t *testing.T) smpp.Store { return newTestDB(t).SMPP() })
}

func TestSMPPPurge(t *testing.T) {
	t.Parallel()
	s := newTestDB(t).SMPP()
	ctx := t.Context()
	if err := s.SaveSubmitted(ctx, []smpp.Submitted{{PartKey: smpp.PartKey{MsgID: "m"}, Conn: "c", SMSCID: "1"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PurgeSubmitted(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("a purge of older parts: %d, %v", n, err)
	}
	if n, err := s.PurgeSubmitted(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("a purge of everything: %d, %v", n, err)
	}
	if got, _ := s.PartsOf(ctx, "c", []string{"1"}); len(got) != 0 {
		t.Error("a purged part is found")
	}
}
