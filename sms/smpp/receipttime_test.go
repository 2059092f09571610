package smpp_test

import (
	"testing"
	"time"
	_ "time/tzdata" // the zone on any machine

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppsim"
)

// A receipt's done date is to the minute and in the SMSC's zone: read in
// Config.TimeZone and never before the part's send, so a report's
// dlrTime is never before its sendTime.
func TestReceiptNeverBeforeTheSend(t *testing.T) {
	ljubljana, err := time.LoadLocation("Europe/Ljubljana")
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Date(2031, 5, 6, 10, 5, 30, 0, time.UTC) // 12:05:30 in Ljubljana
	clock := msgkittest.NewClock(sent)
	simClock := func() time.Time { return clock.Now().In(ljubljana) } // the SMSC writes its own zone
	e := startClocked(t, smppsim.Options{Clock: simClock}, smpp.Config{TimeZone: ljubljana}, clock.Now)
	if errs := send(t, e, part("t1", 0, "x")); errs != nil {
		t.Fatal(errs)
	}
	ev := e.sink.wait(t, 1)[0]
	// The done date reads 12:05, 10:05:00 UTC, half a minute before the
	// send: the event is the send's.
	if !ev.At.Equal(sent) {
		t.Errorf("the receipt is dated %v, want the send, %v", ev.At.UTC(), sent)
	}
}

// A receipt of a part the client does not remember sending (another
// replica's, or sent before a restart) counts its done date to the
// minute as the end of the minute, capped at its arrival: the latest the
// date allows, so never before a send within that minute.
func TestReceiptOfAPartNotRemembered(t *testing.T) {
	arrival := time.Date(2031, 5, 6, 10, 5, 40, 0, time.UTC)
	clock := msgkittest.NewClock(arrival)
	for _, c := range []struct {
		done, want time.Time
	}{
		{time.Date(2031, 5, 6, 10, 5, 0, 0, time.UTC), arrival},                                      // this minute: arrival
		{time.Date(2031, 5, 6, 10, 1, 0, 0, time.UTC), time.Date(2031, 5, 6, 10, 2, 0, 0, time.UTC)}, // an earlier minute: its end
		{time.Date(2031, 5, 6, 10, 1, 7, 0, time.UTC), time.Date(2031, 5, 6, 10, 1, 7, 0, time.UTC)}, // to the second: as it says
		{time.Date(2031, 5, 6, 11, 5, 0, 0, time.UTC), arrival},                                      // ahead of its arrival: arrival
	} {
		e := startClocked(t, smppsim.Options{}, smpp.Config{}, clock.Now)
		e.waitBound(t, 1)
		if err := e.store.SaveSubmitted(t.Context(), []smpp.Submitted{{PartKey: smpp.PartKey{MsgID: "other"}, Conn: "sim", SMSCID: "77"}}); err != nil {
			t.Fatal(err)
		}
		text := smppsim.ReceiptText("77", c.done, c.done, "DELIVRD", 0, nil)
		if c.done.Second() != 0 {
			text = "id:77 sub:001 dlvrd:001 submit date:" + c.done.Format("060102150405") + " done date:" + c.done.Format("060102150405") + " stat:DELIVRD err:000 text:"
		}
		if err := e.sim.Deliver("msgkit", "77", pdu.DeliverSM{ShortMessage: pdu.ShortMessage{ESMClass: pdu.ESMClassReceipt, Message: []byte(text)}}); err != nil {
			t.Fatal(err)
		}
		if ev := e.sink.wait(t, 1)[0]; !ev.At.Equal(c.want) {
			t.Errorf("done %v: dated %v, want %v", c.done, ev.At.UTC(), c.want)
		}
		e.stop()
	}
}
