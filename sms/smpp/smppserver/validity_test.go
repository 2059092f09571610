package smppserver_test

import (
	"testing"
	"time"

	"github.com/msgkit/msgkit/msgkittest"
	"github.com/msgkit/msgkit/sms"
	"github.com/msgkit/msgkit/sms/smpp/pdu"
	"github.com/msgkit/msgkit/sms/smpp/smppserver"
)

// validity_period ends a message's validity when it comes before the
// account's: absolute in its offset from UTC, or relative to the
// submit_sm's arrival. One that ended, or that no calendar has, is
// ESME_RINVEXPIRY; without one, or on data_sm, the account's applies.
func TestValidityPeriod(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := msgkittest.NewClock(now)
	f := newFixture(t, smppserver.Options{Clock: clock.Now}, nil) // the account's validity: sms.DefaultValidity, 24 h
	e := dial(t, f.addr)
	e.bind(t, pdu.Transmitter, "shop", "pw")
	for _, c := range []struct {
		name, validity string
		want           time.Time // zero: ESME_RINVEXPIRY
	}{
		{"none", "", now.Add(sms.DefaultValidity)},
		{"relative, an hour", "000000010000000R", now.Add(time.Hour)},
		{"relative, 90 s", "000000000130000R", now.Add(90 * time.Second)},
		{"absolute UTC", "261128150000000+", now.Add(3 * time.Hour)},
		{"absolute, an hour ahead of UTC", "261128140000004+", now.Add(time.Hour)},
		{"absolute, 5:30 behind UTC, tenths", "261128080000522-", now.Add(90*time.Minute + 500*time.Millisecond)},
		{"absolute, beyond the account's", "261201120000000+", now.Add(sms.DefaultValidity)},
		{"relative, beyond the account's", "000000480000000R", now.Add(sms.DefaultValidity)},
		{"absolute, ended", "261128115959000+", time.Time{}},
		{"absolute, now", "261128120000000+", time.Time{}},
		{"absolute, ended in its zone", "261128125900004+", time.Time{}},
		{"relative, zero", "000000000000000R", time.Time{}},
		{"31 November", "261131120000000+", time.Time{}},
		{"an offset of 49 quarters", "261129120000049+", time.Time{}},
		{"hour 24", "261128240000000+", time.Time{}},
		{"relative with an offset", "000000010000004R", time.Time{}},
	} {
		p := submitSM("validity", nil)
		p.Body.(*pdu.SubmitSM).ValidityPeriod = c.validity
		r := e.call(t, p)
		if c.want.IsZero() {
			if r.Status != pdu.ESME_RINVEXPIRY {
				t.Errorf("%s: %s, want ESME_RINVEXPIRY", c.name, r.Status)
			}
			continue
		}
		if r.Status != pdu.ESME_ROK {
			t.Errorf("%s: %s", c.name, r.Status)
			continue
		}
		m, err := f.store.Message(t.Context(), sms.MessageID(r.Body.(*pdu.SubmitSMResp).MessageID))
		if err != nil || !m.ExpiresAt.Equal(c.want) {
			t.Errorf("%s: expires %v, %v; want %v", c.name, m.ExpiresAt, err, c.want)
		}
	}
	ds := pdu.PDU{Body: &pdu.DataSM{Source: pdu.Address{TON: 5, Addr: "MyShop"}, Dest: pdu.Address{TON: 1, NPI: 1, Addr: "38640123456"},
		TLVs: pdu.TLVs{{Tag: pdu.TagMessagePayload, Value: []byte("data")}}}}
	r := e.call(t, ds)
	if m, err := f.store.Message(t.Context(), sms.MessageID(r.Body.(*pdu.DataSMResp).MessageID)); err != nil || !m.ExpiresAt.Equal(now.Add(sms.DefaultValidity)) {
		t.Errorf("data_sm: expires %v, %v", m.ExpiresAt, err)
	}
}

// A long message's validity is its first part's, relative to that
// part's arrival; a message whose validity ends before its last part
// comes is refused then, ESME_RINVEXPIRY, and nothing is charged.
func TestValidityOfALongMessage(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := msgkittest.NewClock(now)
	f := newFixture(t, smppserver.Options{Clock: clock.Now, PartsTimeout: time.Hour}, nil)
	e := dial(t, f.addr)
	e.bind(t, pdu.Transmitter, "shop", "pw")
	part := func(ref, seq byte, validity string) pdu.PDU {
		p := submitSM("part ", udh8(ref, 2, seq))
		p.Body.(*pdu.SubmitSM).ValidityPeriod = validity
		return p
	}
	// An hour from the first part; the second's own is not read.
	if r := e.call(t, part(1, 1, "000000010000000R")); r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	clock.Advance(10 * time.Minute)
	r := e.call(t, part(1, 2, "000000050000000R"))
	if r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	m, err := f.store.Message(t.Context(), sms.MessageID(r.Body.(*pdu.SubmitSMResp).MessageID))
	if err != nil || !m.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Errorf("expires %v, %v; want an hour after the first part", m.ExpiresAt, err)
	}
	// Five minutes from the first part, the last one ten minutes later.
	before, _ := f.store.Account(t.Context(), "shop")
	if r := e.call(t, part(2, 1, "000000000500000R")); r.Status != pdu.ESME_ROK {
		t.Fatal(r.Status)
	}
	clock.Advance(10 * time.Minute)
	if r := e.call(t, part(2, 2, "")); r.Status != pdu.ESME_RINVEXPIRY {
		t.Errorf("the last part after the validity: %s, want ESME_RINVEXPIRY", r.Status)
	}
	if after, _ := f.store.Account(t.Context(), "shop"); !after.Balance.Equal(before.Balance) {
		t.Errorf("balance %s, then %s", before.Balance, after.Balance)
	}
}
