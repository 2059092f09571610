package smppserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// receiveDeliver reads the server's next deliver_sm, answering
// enquire_link on the way.
func (e *esme) receiveDeliver(t testing.TB) (pdu.PDU, *pdu.DeliverSM) {
	t.Helper()
	for {
		p := e.read(t)
		switch b := p.Body.(type) {
		case *pdu.DeliverSM:
			return p, b
		case *pdu.Empty:
			if b.ID == pdu.CmdEnquireLink {
				e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.Empty{ID: pdu.CmdEnquireLinkResp}})
				continue
			}
		}
		t.Fatalf("got %s, want deliver_sm", p.Body.Command())
	}
}

// An ESME that asks for receipts (registered_delivery 1) gets each as a
// deliver_sm over its transceiver bind: esm_class 0x04, the Appendix B
// text, receipted_message_id and message_state, network_error_code for a
// failure; the outbox keeps it delivered once the ESME answered.
func TestReceiptsOverTheBind(t *testing.T) {
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC))
	f := newFixture(t, smppserver.Options{Clock: clock.Now}, nil)
	d := sms.NewDispatcher(f.store, f.srv, sms.DispatcherOptions{Clock: clock.Now})
	e := dial(t, f.addr)
	if st := e.bind(t, pdu.Transceiver, "shop", "pw"); st != pdu.ESME_ROK {
		t.Fatal(st)
	}
	for _, c := range []struct {
		name   string
		status sms.Status
		code   sms.DLRError
		stat   string
		state  smpp.MessageState
	}{
		{"delivered", sms.StatusDelivered, 0, "DELIVRD", smpp.StateDelivered},
		{"undelivered", sms.StatusPermanentFailure, sms.DLRError(1), "UNDELIV", smpp.StateUndeliverable},
		{"expired", sms.StatusExpired, 0, "EXPIRED", smpp.StateExpired},
	} {
		t.Run(c.name, func(t *testing.T) {
			sm := submitSM("Your parcel is on its way", nil)
			sm.Body.(*pdu.SubmitSM).RegisteredDelivery = 1
			submitted := clock.Now()
			r := e.call(t, sm)
			id := sms.MessageID(r.Body.(*pdu.SubmitSMResp).MessageID)
			clock.Advance(90 * time.Second)
			if err := f.gw.HandleStatus(t.Context(), sms.StatusEvent{MsgID: id, Status: c.status, ErrorCode: c.code, At: clock.Now()}); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := d.RunOnce(context.Background()); done <- err }()
			p, dl := e.receiveDeliver(t)
			e.write(t, pdu.PDU{Seq: p.Seq, Body: &pdu.DeliverSMResp{}})
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if dl.ESMClass != pdu.ESMClassReceipt || dl.Source.Addr != "38640123456" || dl.Source.TON != 1 ||
				dl.Dest.Addr != "MyShop" || dl.Dest.TON != 5 || dl.DataCoding != 0 {
				t.Errorf("deliver_sm %+v", dl.ShortMessage)
			}
			rc, isReceipt, err := smpp.ReceiptOf(dl)
			if !isReceipt || err != nil {
				t.Fatalf("not a receipt: %v", err)
			}
			// Appendix B's dates have minutes.
			if rc.ID != string(id) || rc.State != c.state || rc.Stat != c.stat || rc.Sub != 1 || rc.Text != "Your parcel is on it" ||
				!rc.SubmitDate.Equal(submitted.Truncate(time.Minute)) || !rc.DoneDate.Equal(clock.Now().Truncate(time.Minute)) {
				t.Errorf("receipt %+v\ntext %q", rc, dl.Message)
			}
			if want := "id:" + string(id) + " sub:001 dlvrd:00"; !strings.HasPrefix(string(dl.Message), want) {
				t.Errorf("text %q, want it to start %q", dl.Message, want)
			}
			if got, _ := dl.TLVs.CString(pdu.TagReceiptedMessageID); got != string(id) {
				t.Errorf("receipted_message_id %q", got)
			}
			if st, _ := dl.TLVs.Uint(pdu.TagMessageState); smpp.MessageState(st) != c.state {
				t.Errorf("message_state %d, want %d", st, c.state)
			}
			ne, hasNE := dl.TLVs.NetworkError()
			if wantNE := c.status != sms.StatusDelivered; hasNE != wantNE {
				t.Errorf("network_error_code %v %+v, want one: %v", hasNE, ne, wantNE)
			}
			tr, err := f.store.Trace(t.Context(), id)
			if err != nil || len(tr.Reports) != 1 || tr.Reports[0].State != sms.ReportDelivered {
				t.Errorf("the outbox: %+v, %v", tr.Reports, err)
			}
		})
	}
}

// deliveryBody is a receipt of id for PostReport, valid until until.
func deliveryBody(t testing.TB, id string, until time.Time) []byte {
	b, err := json.Marshal(sms.BindDelivery{Kind: sms.BindReceipt, MsgID: sms.MessageID(id), Source: "38640123456", Dest: "MyShop", DestAlpha: true,
		Event: "DELIVERED", NumParts: 1, SubmitTime: until.Add(-time.Hour).Unix(), DoneTime: until.Add(-time.Hour).Unix(), ExpiresAt: until.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PostReport's answers: held without a receiving bind (a transmitter
// does not receive), given up past the validity or when the ESME refuses
// for good, retried when it refuses for now; receiver binds take turns.
func TestPostReportOutcomes(t *testing.T) {
	clock := msgkittest.NewClock(time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC))
	f := newFixture(t, smppserver.Options{Clock: clock.Now}, nil)
	url := sms.BindURL("shop")
	body := deliveryBody(t, "m-1", clock.Now().Add(time.Hour))
	var hold *sms.HoldError
	if err := f.srv.PostReport(t.Context(), url, body); !errors.As(err, &hold) || hold.After <= 0 {
		t.Errorf("no bind: %v, want held", err)
	}
	tx := dial(t, f.addr)
	if st := tx.bind(t, pdu.Transmitter, "shop", "pw"); st != pdu.ESME_ROK {
		t.Fatal(st)
	}
	if err := f.srv.PostReport(t.Context(), url, body); !errors.As(err, &hold) {
		t.Errorf("a transmitter only: %v, want held", err)
	}
	if err := f.srv.PostReport(t.Context(), url, deliveryBody(t, "m-0", clock.Now().Add(-time.Second))); msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("past its validity: %v, want given up", err)
	}
	for _, bad := range [][2]string{{"https://example.com/dlr", string(body)}, {url, "{"}, {url, `{"kind":"other","expiresAt":0}`}} {
		if err := f.srv.PostReport(t.Context(), bad[0], []byte(bad[1])); msgkit.KindOf(err) != msgkit.Invalid {
			t.Errorf("%s %s: %v, want Invalid", bad[0], bad[1], err)
		}
	}

	rx1, rx2 := dial(t, f.addr), dial(t, f.addr)
	for _, e := range []*esme{rx1, rx2} {
		if st := e.bind(t, pdu.Receiver, "shop", "pw"); st != pdu.ESME_ROK {
			t.Fatal(st)
		}
	}
	post := func() chan error {
		ch := make(chan error, 1)
		go func() { ch <- f.srv.PostReport(context.Background(), url, body) }()
		return ch
	}
	answer := func(e *esme, st pdu.Status) {
		p, _ := e.receiveDeliver(t)
		e.write(t, pdu.PDU{Seq: p.Seq, Status: st, Body: &pdu.DeliverSMResp{}})
	}
	// The binds take turns: one deliver_sm each.
	ch := post()
	answer(rx2, pdu.ESME_ROK)
	if err := <-ch; err != nil {
		t.Errorf("delivered: %v", err)
	}
	ch = post()
	answer(rx1, pdu.ESME_RX_T_APPN)
	if err := <-ch; err == nil || msgkit.KindOf(err) == msgkit.Invalid {
		t.Errorf("refused for now: %v, want retried", err)
	}
	ch = post()
	answer(rx2, pdu.ESME_RX_P_APPN)
	if err := <-ch; msgkit.KindOf(err) != msgkit.Invalid {
		t.Errorf("refused for good: %v, want given up", err)
	}
	// A bind that closes while its deliver_sm waits: retried.
	ch = post()
	rx1.receiveDeliver(t)
	rx1.nc.Close()
	if err := <-ch; err == nil || msgkit.KindOf(err) == msgkit.Invalid {
		t.Errorf("the bind closed: %v, want retried", err)
	}
}
