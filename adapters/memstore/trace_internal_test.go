package memstore

import (
	"testing"
	"time"

	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smstest"
)

// A part's trace shows the SMSC that took it over SMPP (DB.SMPP); what
// the store keeps of a message for its trace leaves with the message,
// whether the trimming or ForgetFinished removes it.
func TestTraceSMPPAndForgetting(t *testing.T) {
	db := NewWith(Options{KeepFinished: 1})
	s := db.SMS()
	ctx := t.Context()
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	if err := s.CreateAccount(ctx, smstest.Account("shop", "100")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"m-1", "m-2", "m-3"} {
		m := smstest.Message(id, "shop", "0.01")
		if err := s.Accept(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SMPP().SaveSubmitted(ctx, []smpp.Submitted{{PartKey: smpp.PartKey{MsgID: "m-1", PartNum: 1}, Conn: "smsc-a", SMSCID: "0af3"}}); err != nil {
		t.Fatal(err)
	}
	tr, err := s.Trace(ctx, "m-1")
	if err != nil {
		t.Fatal(err)
	}
	if p := tr.Parts[1]; p.SMSCConn != "smsc-a" || p.SMSCID != "0af3" || tr.Parts[0].SMSCID != "" {
		t.Errorf("parts' SMSC records: %+v", tr.Parts)
	}

	smstest.FinishMessage(t, s, "m-1", 2, sms.StateDelivered, t0, true)
	smstest.FinishMessage(t, s, "m-2", 2, sms.StateDelivered, t0.Add(time.Second), false)
	smstest.FinishMessage(t, s, "m-3", 2, sms.StateDelivered, t0.Add(2*time.Second), false) // trims m-2
	if _, ok := s.history["m-2"]; ok || len(s.history) != 2 {
		t.Fatalf("histories kept %v, want m-1's (its reports are pending) and m-3's", s.history)
	}
	rs, err := s.ClaimReports(ctx, t0, time.Minute, 10)
	if err != nil || len(rs) != 2 {
		t.Fatalf("claimed %+v, %v", rs, err)
	}
	for i := range rs {
		rs[i].State, rs[i].Attempts = sms.ReportDelivered, 1
	}
	s.FinishReports(ctx, rs)
	if tr, err := s.Trace(ctx, "m-1"); err != nil || len(tr.Reports) != 2 || len(tr.Reports[0].Log) != 1 || len(s.reportsDone) != 1 {
		t.Fatalf("m-1's finished reports in its trace: %+v, %v", tr.Reports, err)
	}
	if n, err := s.ForgetFinished(ctx, t0.Add(time.Hour), 10); err != nil || n != 2 {
		t.Fatalf("ForgetFinished = %d, %v", n, err)
	}
	if len(s.history)+len(s.reportsDone) != 0 {
		t.Errorf("traces kept after their messages left: %v, %v", s.history, s.reportsDone)
	}
}
