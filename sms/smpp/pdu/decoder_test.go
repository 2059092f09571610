package pdu_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/msgkit/msgkit/sms/smpp/pdu"
)

// wide is a server's decoder: longer credentials than SMPP 3.4's.
var wide = pdu.Decoder{MaxSystemID: 64, MaxPassword: 72}

// A bind's system_id and password are bounded by SMPP 3.4 (15 and 8) for
// Decode, Read and a zero Decoder, and by a Decoder's own bounds when
// wider; beyond either, the status names the field. bind_resp keeps SMPP
// 3.4's bound, and Append never writes beyond it.
func TestDecoderBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		d      pdu.Decoder
		raw    []byte
		want   pdu.Status // ESME_ROK: decoded
		sysID  string
		passwd string
	}{
		{"SMPP 3.4: system_id of 15, password of 8", pdu.Decoder{}, rawPDU(pdu.CmdBindTransmitter, 0, 1, bindBody(chars(15), chars(8), "", "")), pdu.ESME_ROK, chars(15), chars(8)},
		{"SMPP 3.4: system_id of 16", pdu.Decoder{}, rawPDU(pdu.CmdBindTransmitter, 0, 1, bindBody(chars(16), "pw", "", "")), pdu.ESME_RINVSYSID, "", ""},
		{"SMPP 3.4: password of 9", pdu.Decoder{}, rawPDU(pdu.CmdBindTransceiver, 0, 1, bindBody("esme", chars(9), "", "")), pdu.ESME_RINVPASWD, "", ""},
		{"bounds below SMPP 3.4's are SMPP 3.4's", pdu.Decoder{MaxSystemID: 3, MaxPassword: 1}, rawPDU(pdu.CmdBindReceiver, 0, 1, bindBody(chars(15), chars(8), "", "")), pdu.ESME_ROK, chars(15), chars(8)},
		{"wide: system_id of 16, password of 9", wide, rawPDU(pdu.CmdBindTransmitter, 0, 1, bindBody(chars(16), chars(9), "", "")), pdu.ESME_ROK, chars(16), chars(9)},
		{"wide: at its bounds", wide, rawPDU(pdu.CmdBindReceiver, 0, 1, bindBody(chars(64), chars(72), "", "")), pdu.ESME_ROK, chars(64), chars(72)},
		{"wide: system_id of 65", wide, rawPDU(pdu.CmdBindTransceiver, 0, 1, bindBody(chars(65), "pw", "", "")), pdu.ESME_RINVSYSID, "", ""},
		{"wide: password of 73", wide, rawPDU(pdu.CmdBindTransceiver, 0, 1, bindBody("esme", chars(73), "", "")), pdu.ESME_RINVPASWD, "", ""},
		{"wide: bind_resp system_id of 16", wide, rawPDU(pdu.CmdBindTransmitterResp, 0, 1, cs(chars(16))), pdu.ESME_RINVSYSID, "", ""},
		{"wide: system_type of 13", wide, rawPDU(pdu.CmdBindTransmitter, 0, 1, bindBody("esme", "pw", chars(13), "")), pdu.ESME_RINVSYSTYP, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, how := range []string{"Decode", "Read"} {
				var p pdu.PDU
				var err error
				if how == "Decode" {
					p, err = c.d.Decode(c.raw)
				} else {
					p, _, err = c.d.Read(bytes.NewReader(c.raw), nil, 0)
				}
				if c.want != pdu.ESME_ROK {
					var de *pdu.DecodeError
					if !errors.As(err, &de) || de.Status != c.want {
						t.Errorf("%s: %v, want %s", how, err, c.want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				b := p.Body.(*pdu.Bind)
				if b.SystemID != c.sysID || b.Password != c.passwd {
					t.Errorf("%s: system_id %q password %q", how, b.SystemID, b.Password)
				}
			}
		})
	}
	// The client's side keeps SMPP 3.4's bounds.
	for _, b := range []*pdu.Bind{{Mode: pdu.Transmitter, SystemID: chars(16)}, {Mode: pdu.Transmitter, Password: chars(9)}} {
		if _, err := pdu.Append(nil, pdu.PDU{Body: b}); err == nil {
			t.Errorf("Append of system_id %d, password %d characters: no error", len(b.SystemID), len(b.Password))
		}
	}
}

// FuzzDecoder: a wider Decoder decodes whatever Decode does, to the same
// PDU; what it decodes beyond is a bind whose system_id or password is
// longer than SMPP 3.4 allows, within its bounds, which Append refuses
// for that field.
func FuzzDecoder(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.raw)
	}
	for _, c := range decodeRules {
		f.Add(c.raw)
	}
	f.Add(rawPDU(pdu.CmdBindTransceiver, 0, 1, bindBody(chars(64), chars(72), "", "")))
	f.Fuzz(func(t *testing.T, b []byte) {
		strict, serr := pdu.Decode(b)
		p, err := wide.Decode(b)
		if serr == nil {
			if err != nil {
				t.Fatalf("Decode takes it, the wider Decoder refuses it: %v", err)
			}
			if diff := cmp.Diff(strict, p, cmpOpts...); diff != "" {
				t.Fatalf("(-Decode +Decoder):\n%s", diff)
			}
			return
		}
		if err != nil {
			var de *pdu.DecodeError
			if !errors.As(err, &de) || de.Field == "" || de.Status == pdu.ESME_ROK {
				t.Fatalf("%v: want a *DecodeError with a field and a status", err)
			}
			return
		}
		bind, ok := p.Body.(*pdu.Bind)
		if !ok {
			t.Fatalf("only the Decoder takes a %s (Decode: %v)", p.Body.Command(), serr)
		}
		long := len(bind.SystemID) > 15 || len(bind.Password) > 8
		if !long || len(bind.SystemID) > wide.MaxSystemID || len(bind.Password) > wide.MaxPassword {
			t.Fatalf("system_id of %d, password of %d taken (Decode: %v)", len(bind.SystemID), len(bind.Password), serr)
		}
		var ee *pdu.EncodeError
		if _, err := pdu.Append(nil, p); !errors.As(err, &ee) || (ee.Field != "system_id" && ee.Field != "password") {
			t.Fatalf("Append of a bind beyond SMPP 3.4: %v", err)
		}
	})
}
