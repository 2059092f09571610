// Package smpptest is the store contract of package smpp: every
// smpp.Store passes Run, so that memstore and pgstore behave
// alike.
package smpptest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
)

// Run runs the contract against stores newStore makes, each
// empty.
func Run(t *testing.T, newStore func(t *testing.T) smpp.Store) {
	t.Run("save and find", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a0 := smpp.PartKey{MsgID: "m-1", PartNum: 0}
		a1 := smpp.PartKey{MsgID: "m-1", PartNum: 1}
		b0 := smpp.PartKey{MsgID: "m-2", PartNum: 0}
		if got, err := s.SubmittedParts(ctx, []smpp.PartKey{a0, a1}); err != nil || len(got) != 0 {
			t.Fatalf("an empty store: %v, %v", got, err)
		}
		if err := s.SaveSubmitted(ctx, []smpp.Submitted{
			{PartKey: a0, Conn: "smsc-a", SMSCID: "1A2B"},
			{PartKey: a1, Conn: "smsc-a", SMSCID: "1A2C"},
			{PartKey: b0, Conn: "smsc-b", SMSCID: "1A2B"}, // the same id on another connection
		}); err != nil {
			t.Fatal(err)
		}
		got, err := s.SubmittedParts(ctx, []smpp.PartKey{a0, a1, {MsgID: "m-3"}})
		if err != nil || len(got) != 2 || got[a1].SMSCID != "1A2C" || got[a0].Conn != "smsc-a" {
			t.Fatalf("SubmittedParts: %v, %v", got, err)
		}
		for _, c := range []struct {
			conn string
			ids  []string
			want smpp.PartKey
			ok   bool
		}{
			{"smsc-a", []string{"1A2B"}, a0, true},
			{"smsc-b", []string{"1A2B"}, b0, true},
			{"smsc-a", []string{"6699", "1a2c", "1A2C"}, a1, true}, // the first variant that has a part
			{"smsc-a", []string{"1a2b"}, smpp.PartKey{}, false},    // ids are matched as sent
			{"smsc-c", []string{"1A2B"}, smpp.PartKey{}, false},
			{"smsc-a", nil, smpp.PartKey{}, false},
		} {
			sub, ok, err := partOf(t, s, c.conn, c.ids)
			if err != nil || ok != c.ok || ok && (sub.PartKey != c.want || sub.Conn != c.conn) {
				t.Errorf("PartsOf(%s, %v) = %+v, %v, %v", c.conn, c.ids, sub, ok, err)
			}
		}
		// A part saved again (sent again after a lost answer) keeps its
		// newest id; the old id finds nothing.
		if err := s.SaveSubmitted(ctx, []smpp.Submitted{{PartKey: a0, Conn: "smsc-a", SMSCID: "9"}, {PartKey: a0, Conn: "smsc-a", SMSCID: "10"}}); err != nil {
			t.Fatal(err)
		}
		if sub, ok, _ := partOf(t, s, "smsc-a", []string{"10"}); !ok || sub.PartKey != a0 {
			t.Errorf("the newest id: %+v %v", sub, ok)
		}
		if _, ok, _ := partOf(t, s, "smsc-a", []string{"1A2B"}); ok {
			t.Errorf("the replaced id still finds its part")
		}
		// Odd octets in an SMSC's id are kept as sent.
		odd := smpp.PartKey{MsgID: "m-4"}
		if err := s.SaveSubmitted(ctx, []smpp.Submitted{{PartKey: odd, Conn: "smsc-a", SMSCID: "\xff\xfe id"}}); err != nil {
			t.Fatal(err)
		}
		if sub, ok, _ := partOf(t, s, "smsc-a", []string{"\xff\xfe id"}); !ok || sub.PartKey != odd || sub.SMSCID != "\xff\xfe id" {
			t.Errorf("an id of odd octets: %+v %v", sub, ok)
		}
	})
	t.Run("many ids at once", func(t *testing.T) {
		s := newStore(t)
		var subs []smpp.Submitted
		var ids []string
		for i := range 300 {
			id := fmt.Sprint(1000 + i)
			subs = append(subs, smpp.Submitted{PartKey: smpp.PartKey{MsgID: sms.MessageID("m" + id)}, Conn: "c", SMSCID: id})
			ids = append(ids, id, "x"+id)
		}
		if err := s.SaveSubmitted(t.Context(), subs); err != nil {
			t.Fatal(err)
		}
		got, err := s.PartsOf(t.Context(), "c", ids)
		if err != nil || len(got) != 300 || got["1299"].MsgID != "m1299" {
			t.Errorf("PartsOf of 600 ids: %d parts, %v", len(got), err)
		}
	})
	t.Run("concurrent saves", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				var subs []smpp.Submitted
				for i := range 50 {
					subs = append(subs, smpp.Submitted{PartKey: smpp.PartKey{MsgID: sms.MessageID(fmt.Sprintf("w%d-%d", w, i))}, Conn: "c", SMSCID: fmt.Sprintf("%d-%d", w, i)})
				}
				if err := s.SaveSubmitted(ctx, subs); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		var keys []smpp.PartKey
		for w := range 8 {
			for i := range 50 {
				keys = append(keys, smpp.PartKey{MsgID: sms.MessageID(fmt.Sprintf("w%d-%d", w, i))})
			}
		}
		if got, err := s.SubmittedParts(ctx, keys); err != nil || len(got) != 400 {
			t.Errorf("after concurrent saves: %d parts, %v", len(got), err)
		}
	})
}

// partOf is the part of the first of ids that names one, as a receipt
// looks its part up.
func partOf(t *testing.T, s smpp.Store, conn string, ids []string) (smpp.Submitted, bool, error) {
	got, err := s.PartsOf(t.Context(), conn, ids)
	if err != nil {
		return smpp.Submitted{}, false, err
	}
	for _, id := range ids {
		if sub, ok := got[id]; ok {
			return sub, true, nil
		}
	}
	return smpp.Submitted{}, false, nil
}
