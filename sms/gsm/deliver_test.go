package gsm

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/msgkit/msgkit"
)

// deliverHex reads a hex PDU written with spaces between fields.
func deliverHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zoneAt(year int, month time.Month, day, hour, minute, second, quarters int) time.Time {
	return time.Date(year, month, day, hour, minute, second, 0, time.FixedZone("", quarters*15*60))
}

// diffDeliver compares two Delivers: SCTS as the same instant in the same
// zone offset, everything else with cmp.
func diffDeliver(want, got Deliver) string {
	_, wantOff := want.SCTS.Zone()
	_, gotOff := got.SCTS.Zone()
	if !want.SCTS.Equal(got.SCTS) || wantOff != gotOff {
		return fmt.Sprintf("SCTS: want %v, got %v", want.SCTS, got.SCTS)
	}
	want.SCTS, got.SCTS = time.Time{}, time.Time{}
	return cmp.Diff(want, got)
}

// The PDUs below were assembled by hand from 3GPP TS 27.005 3.1 and
// 3GPP TS 23.040, not produced by EncodeDeliver. Recurring pieces:
//
//	07 91 1326040000F0   SMSC +31624000000: 7 octets follow, type 0x91,
//	                     digits in swapped pairs, F filler after the 11th
//	0B 91 1346610089F6   TP-OA 31641600986: 11 semi-octets, type 0x91
//	20806291731480       TP-SCTS 02-08-26 19:37:41, zone 0x80: first semi-octet
//	                     0 (sign +, tens 0), second 8 → +8 quarters = +02:00
//
// 7-bit user data was packed septet by septet, least significant bit first
// (23.038 6.1.2.1.1); the derivations are in the comments.
var deliverVectors = []struct {
	name      string
	pdu       string
	want      Deliver
	canonical bool // EncodeDeliver(want) gives pdu octet for octet
}{
	{
		// The well-known example. Its zone octet 0x08 has the sign bit (bit 3)
		// set and both digits zero: −0 quarters, that is UTC, by 23.040
		// 9.2.3.11. Reading "+02:00" from it takes the octet unswapped.
		name: "hellohello: GSM 7-bit, international sender, SMSC",
		pdu:  "07 91 1326040000F0 04 0B 91 1346610089F6 00 00 20806291731408 0C C8F71D14969741F977FD07",
		want: Deliver{
			SMSC:   "+31624000000",
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 0),
			Text:   "How are you?",
		},
	},
	{
		name: "hellohello with zone +02:00 (0x80)",
		pdu:  "07 91 1326040000F0 04 0B 91 1346610089F6 00 00 20806291731480 0C C8F71D14969741F977FD07",
		want: Deliver{
			SMSC:   "+31624000000",
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Text:   "How are you?",
		},
		canonical: true,
	},
	{
		// TP-OA "MSGKIT": septets 4D 53 47 4B 49 54, 42 bits in 6 octets,
		// length ceil(42/4) = 11 semi-octets, type 0xD0 (TON 5):
		// 4D|1<<7=CD, 53>>1|3<<6=E9, 47>>2|3<<5=71, 4B>>3|9<<4=99,
		// 49>>4|14<<3=A4, 54>>5=02.
		// Text "5€ [Δ]": septets 35 1B65 20 1B3C 10 1B3E (9); zone +4
		// quarters = 0x40; SMSC +41794999000.
		name: "alphanumeric sender, extension and Greek characters",
		pdu:  "07 91 1497949900F0 04 0B D0 CDE97199A402 00 00 42305101030040 09 B54D19B4E141363E",
		want: Deliver{
			SMSC:   "+41794999000",
			Sender: Address{Value: "MSGKIT"},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2024, time.March, 15, 10, 30, 0, 4),
			Text:   "5€ [Δ]",
		},
		canonical: true,
	},
	{
		// 11 septets = 77 bits: length ceil(77/4) = 20 semi-octets, 10 octets.
		name: "eleven-character alphanumeric sender, empty text, no SMSC",
		pdu:  "00 04 14 D0 41E19058341E9149E512 00 00 42305101030040 00",
		want: Deliver{
			Sender: Address{Value: "ABCDEFGHIJK"},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2024, time.March, 15, 10, 30, 0, 4),
		},
		canonical: true,
	},
	{
		// Sender 447700900908 (12 digits, no filler). Zone −20 quarters:
		// first semi-octet 2 with the sign bit = 0xA, second 0 → 0x0A.
		// "Hi 😀": 0048 0069 0020 and U+1F600 as the pair D83D DE00.
		name: "UCS-2 with a surrogate pair, no SMSC",
		pdu:  "00 04 0C 91 447700099080 00 08 5221133295950A 0A 0048 0069 0020 D83D DE00",
		want: Deliver{
			Sender: Address{Value: "447700900908", Numeric: true},
			DCS:    DCSUCS,
			SCTS:   zoneAt(2025, time.December, 31, 23, 59, 59, -20),
			Text:   "Hi 😀",
		},
		canonical: true,
	},
	{
		// UDHI (0x44). UDH 05 00 03 A7 02 01 is 6 octets = 48 bits; the
		// text starts at septet 7 (bit 49) after one fill bit. UDL 7+3.
		// 'a' 61 at bit 49: 61<<1 = C2; 'b' 62 at bit 56: 62; 'c' 63 at bit
		// 63: 62|1<<7 = E2, then 63>>1 = 31.
		name: "concatenated 7-bit part, 8-bit reference, one fill bit",
		pdu:  "07 91 1326040000F0 44 0B 91 1346610089F6 00 00 20806291731480 0A 050003A70201 C2E231",
		want: Deliver{
			SMSC:   "+31624000000",
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Concat: Concat{Ref: 0xA7, Total: 2, Seq: 1},
			Text:   "abc",
		},
		canonical: true,
	},
	{
		// UDH 06 08 04 1234 03 02 is 7 octets = 56 bits = 8 septets: no fill.
		// 'H' 48 at bit 56: 48; 'i' 69 at bit 63: 48|1<<7 = C8, 69>>1 = 34.
		name: "concatenated 7-bit part, 16-bit reference, no fill bits",
		pdu:  "07 91 1326040000F0 44 0B 91 1346610089F6 00 00 20806291731480 0A 06080412340302 C834",
		want: Deliver{
			SMSC:   "+31624000000",
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Concat: Concat{Ref: 0x1234, Total: 3, Seq: 2, Wide: true},
			Text:   "Hi",
		},
		canonical: true,
	},
	{
		// UDH: text formatting (IEI 0x0A, skipped) then the 16-bit reference,
		// 12 octets = 96 bits; text from septet 14 (bit 98), two fill bits.
		// 'H' 48 at bit 98: 48<<2 = 20, 48>>6 = 01; 'i' 69 at bit 105:
		// 01|69<<1 = D3. UDL 14+2 = 16.
		name: "16-bit reference after an unknown element, two fill bits",
		pdu:  "07 91 1326040000F0 44 0B 91 1346610089F6 00 00 20806291731480 10 0B 0A03000500 080412340302 20D3",
		want: Deliver{
			SMSC:   "+31624000000",
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Concat: Concat{Ref: 0x1234, Total: 3, Seq: 2, Wide: true},
			Text:   "Hi",
		},
	},
	{
		// DCS 0x04; UDH 06 05 04 0B84 23F0: ports 2948 and 9200. UDL 7+6.
		name: "8-bit part with application port addressing",
		pdu:  "07 91 1326040000F0 44 0B 91 1346610089F6 00 04 20806291731480 0D 0605040B8423F0 010603AE81EA",
		want: Deliver{
			SMSC:    "+31624000000",
			Sender:  Address{Value: "31641600986", Numeric: true},
			DCS:     DCSBinary,
			SCTS:    zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			DstPort: 2948,
			SrcPort: 9200,
			Data:    []byte{0x01, 0x06, 0x03, 0xAE, 0x81, 0xEA},
		},
		canonical: true,
	},
	{
		// WAP push as networks send it: ports and an 8-bit reference.
		name: "8-bit part with ports and concatenation",
		pdu:  "00 44 0B 91 1346610089F6 00 04 20806291731480 0E 0B05040B8423F0 00037F0301 0102",
		want: Deliver{
			Sender:  Address{Value: "31641600986", Numeric: true},
			DCS:     DCSBinary,
			SCTS:    zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Concat:  Concat{Ref: 0x7F, Total: 3, Seq: 1},
			DstPort: 2948,
			SrcPort: 9200,
			Data:    []byte{0x01, 0x02},
		},
		canonical: true,
	},
	{
		// DCS 0x10: general group, class meaningful, class 0. "Flash":
		// 46|0<<7 = 46, 6C>>1|1<<6 = 76, 61>>2|3<<5 = 78, 73>>3|8<<4 = 8E, 68>>4 = 06.
		name: "class 0 (DCS 0x10), no SMSC",
		pdu:  "00 04 0B 91 1346610089F6 00 10 20806291731480 05 4676788E06",
		want: Deliver{
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			Class0: true,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Text:   "Flash",
		},
		canonical: true,
	},
	{
		name: "class 0 by the data coding/message class group (DCS 0xF0)",
		pdu:  "00 04 0B 91 1346610089F6 00 F0 20806291731480 05 4676788E06",
		want: Deliver{
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			Class0: true,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Text:   "Flash",
		},
	},
	{
		// First octet 0x24: TP-MMS 1 and TP-SRI, which the Deliver does not keep.
		name: "short code of unknown type (0x81), SMSC of unknown type",
		pdu:  "06 81 2143658709 24 04 81 2143 00 00 20806291731480 00",
		want: Deliver{
			SMSC:   "1234567890",
			Sender: Address{Value: "1234", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
		},
	},
	{
		// "*21#" as semi-octets A B → '*' 2 1 '#': 2A B1.
		name: "SMSC of unknown type and a sender with * and #",
		pdu:  "06 81 2143658709 04 04 91 2AB1 00 00 20806291731480 00",
		want: Deliver{
			SMSC:   "1234567890",
			Sender: Address{Value: "*21#", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
		},
		canonical: true,
	},
	{
		// Septets 1B 41 1B: escape + undefined code 0x41 reads as 'A' from
		// the default table; the lone escape at the end as a space.
		// 1B|1<<7 = 9B, 41>>1|3<<6 = E0, 1B>>2 = 06.
		name: "undefined extension code and a lone escape",
		pdu:  "00 04 0B 91 1346610089F6 00 00 20806291731480 03 9BE006",
		want: Deliver{
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Text:   "A ",
		},
	},
	{
		// Septets 1B 1B: 1B|1<<7 = 9B, 1B>>1 = 0D.
		name: "the escape character as escape + escape",
		pdu:  "00 04 0B 91 1346610089F6 00 00 20806291731480 02 9B0D",
		want: Deliver{
			Sender: Address{Value: "31641600986", Numeric: true},
			DCS:    DCSGSM,
			SCTS:   zoneAt(2002, time.August, 26, 19, 37, 41, 8),
			Text:   "\x1b",
		},
		canonical: true,
	},
}

func TestDecodeDeliverVectors(t *testing.T) {
	for _, tc := range deliverVectors {
		t.Run(tc.name, func(t *testing.T) {
			pdu := deliverHex(t, tc.pdu)
			got, err := DecodeDeliver(pdu)
			if err != nil {
				t.Fatal(err)
			}
			if diff := diffDeliver(tc.want, got); diff != "" {
				t.Errorf("DecodeDeliver (-want +got):\n%s", diff)
			}
			if !tc.canonical {
				return
			}
			enc, err := EncodeDeliver(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, pdu) {
				t.Errorf("EncodeDeliver:\n got %X\nwant %X", enc, pdu)
			}
		})
	}
}

// TestDecodeDeliverBounds cuts and extends every vector: a PDU that ends
// early or goes on after its user data is an error, never a panic.
func TestDecodeDeliverBounds(t *testing.T) {
	for _, tc := range deliverVectors {
		pdu := deliverHex(t, tc.pdu)
		for i := range pdu {
			if _, err := DecodeDeliver(pdu[:i]); !isInvalidPDU(err) {
				t.Errorf("%s cut to %d octets: got %v, want invalid_pdu", tc.name, i, err)
			}
		}
		if _, err := DecodeDeliver(append(pdu, 0)); !isInvalidPDU(err) {
			t.Errorf("%s with an octet more: got %v, want invalid_pdu", tc.name, err)
		}
	}
}

func TestDecodeDeliverCopiesData(t *testing.T) {
	pdu := deliverHex(t, "00 04 00 91 00 04 20806291731480 02 ABCD")
	d, err := DecodeDeliver(pdu)
	if err != nil {
		t.Fatal(err)
	}
	pdu[len(pdu)-1] = 0
	if !bytes.Equal(d.Data, []byte{0xAB, 0xCD}) {
		t.Errorf("Data changed with the PDU: %X", d.Data)
	}
}

func isInvalidPDU(err error) bool {
	var e *msgkit.Error
	return errors.As(err, &e) && e.Kind == msgkit.Invalid && e.Code == "invalid_pdu"
}

func TestDecodeDeliverDCS(t *testing.T) {
	for _, tc := range []struct {
		dcs    string
		want   DCS
		class0 bool
		err    bool
	}{
		{"00", DCSGSM, false, false},
		{"04", DCSBinary, false, false},
		{"08", DCSUCS, false, false},
		{"0C", DCSGSM, false, false}, // reserved alphabet reads as GSM
		{"10", DCSGSM, true, false},
		{"11", DCSGSM, false, false},
		{"14", DCSBinary, true, false},
		{"16", DCSBinary, false, false},
		{"18", DCSUCS, true, false},
		{"1C", DCSGSM, true, false},
		{"20", 0, false, true}, // compressed
		{"3A", 0, false, true},
		{"40", DCSGSM, false, false}, // automatic deletion
		{"48", DCSUCS, false, false},
		{"50", DCSGSM, true, false},
		{"54", DCSBinary, true, false},
		{"64", 0, false, true},
		{"80", DCSGSM, false, false}, // reserved groups
		{"BC", DCSGSM, false, false},
		{"C0", DCSGSM, false, false}, // message waiting, discard
		{"D8", DCSGSM, false, false}, // message waiting, store
		{"E0", DCSUCS, false, false}, // message waiting, store, UCS2
		{"EB", DCSUCS, false, false},
		{"F0", DCSGSM, true, false},
		{"F1", DCSGSM, false, false},
		{"F4", DCSBinary, true, false},
		{"F5", DCSBinary, false, false},
		{"F8", DCSGSM, true, false}, // bit 3 reserved
	} {
		got, err := DecodeDeliver(deliverHex(t, "00 04 00 91 00"+tc.dcs+"20806291731480 00"))
		if tc.err {
			if !isInvalidPDU(err) || !strings.Contains(err.Error(), "TP-DCS") {
				t.Errorf("DCS %s: got %v, want a TP-DCS error", tc.dcs, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("DCS %s: %v", tc.dcs, err)
		} else if got.DCS != tc.want || got.Class0 != tc.class0 {
			t.Errorf("DCS %s: got %v class 0 %v, want %v class 0 %v", tc.dcs, got.DCS, got.Class0, tc.want, tc.class0)
		}
	}
}

func TestDecodeDeliverErrors(t *testing.T) {
	const (
		oa   = "0B 91 1346610089F6 "
		scts = "20806291731480 "
		gsm  = "00 04 " + oa + "00 00 " + scts // no SMSC, GSM, up to TP-UDL
		ucs  = "00 04 " + oa + "00 08 " + scts
		udh  = "00 44 " + oa + "00 00 " + scts
	)
	for _, tc := range []struct {
		name, pdu, field string
	}{
		{"empty", "", "SMSC address:"},
		{"SMSC longer than 20 digits", "0C 91 111111111111111111111111 04", "SMSC address:"},
		{"SMSC cut", "07 91 1326", "SMSC address:"},
		{"SMSC type without digits", "01 91 " + gsm[3:] + "00", "SMSC address:"},
		{"SMSC alphanumeric", "02 D0 41 " + gsm[3:] + "00", "SMSC address:"},
		{"SMSC filler inside", "03 91 F121 " + gsm[3:] + "00", "SMSC address:"},
		{"SMSC filler first", "02 91 FF " + gsm[3:] + "00", "SMSC address:"},
		{"no TPDU", "00", "TP-MTI:"},
		{"SMS-SUBMIT", "00 01 " + oa + "00 00 " + scts + "00", "TP-MTI:"},
		{"SMS-STATUS-REPORT", "00 06 " + oa + "00 00 " + scts + "00", "TP-MTI:"},
		{"TP-OA cut at its length", "00 04", "TP-OA:"},
		{"TP-OA cut at its type", "00 04 0B", "TP-OA:"},
		{"TP-OA cut in its digits", "00 04 0B 91 1346", "TP-OA:"},
		{"TP-OA over 20 semi-octets", "00 04 15 91 1111111111111111111111 00 00 " + scts + "00", "TP-OA:"},
		{"TP-OA filler inside", "00 04 04 91 F121 00 00 " + scts + "00", "TP-OA:"},
		{"no TP-PID", "00 04 " + oa, "TP-PID:"},
		{"no TP-DCS", "00 04 " + oa + "00", "TP-DCS:"},
		{"TP-SCTS cut", "00 04 " + oa + "00 00 208062", "TP-SCTS:"},
		{"no TP-UDL", gsm, "TP-UDL:"},
		{"compressed", "00 04 " + oa + "00 24 " + scts + "00", "TP-DCS:"},
		{"TP-SCTS not decimal", "00 04 " + oa + "00 00 2A806291731480 00", "TP-SCTS:"},
		{"TP-SCTS February 30", "00 04 " + oa + "00 00 42200391731480 00", "TP-SCTS:"},
		{"TP-SCTS month 13", "00 04 " + oa + "00 00 42316291731480 00", "TP-SCTS:"},
		{"TP-SCTS day 0", "00 04 " + oa + "00 00 42300091731480 00", "TP-SCTS:"},
		{"TP-SCTS hour 24", "00 04 " + oa + "00 00 20806242731480 00", "TP-SCTS:"},
		{"TP-SCTS second 60", "00 04 " + oa + "00 00 20806291730680 00", "TP-SCTS:"},
		{"TP-SCTS zone not decimal", "00 04 " + oa + "00 00 208062917314A0 00", "TP-SCTS:"},
		{"GSM TP-UDL over 160", gsm + "A1" + strings.Repeat("00", 141), "TP-UDL:"},
		{"UCS TP-UDL over 140", ucs + "8D" + strings.Repeat("00", 141), "TP-UDL:"},
		{"TP-UDL beyond the PDU", gsm + "0C C8F71D14969741F977FD", "TP-UDL:"},
		{"TP-UD beyond TP-UDL", gsm + "0B C8F71D14969741F977FD07", "TP-UD:"},
		{"UDHI without user data", udh + "00", "TP-UDHI:"},
		{"UDHL beyond TP-UD", udh + "03 05 0003", "UDH:"},
		{"element beyond the header", udh + "07 05 00040102 0000", "UDH:"},
		{"element without its length", udh + "03 01 0A 00", "UDH:"},
		{"8-bit concatenation of 4 octets", udh + "08 06 00040102 0301", "UDH:"},
		{"16-bit concatenation of 3 octets", udh + "07 05 08030102 03 00", "UDH:"},
		{"port addressing of 2 octets", udh + "06 04 05020B84 00", "UDH:"},
		{"header septets beyond TP-UDL", udh + "09 07 00030102 01 0A00", "UDH:"},
		{"UCS odd octets", ucs + "03 004800", "TP-UD:"},
		{"UCS lone low surrogate", ucs + "04 0041 DE00", "low surrogate"},
		{"UCS high surrogate without low", ucs + "04 D83D 0041", "high surrogate"},
		{"UCS high surrogate at the end", ucs + "04 0041 D83D", "high surrogate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDeliver(deliverHex(t, tc.pdu))
			if !isInvalidPDU(err) {
				t.Fatalf("got %v, want an invalid_pdu error", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
		})
	}
}

// validDeliver is a Deliver that encodes; tests change one field of it.
func validDeliver() Deliver {
	return Deliver{
		SMSC:   "+31624000000",
		Sender: Address{Value: "31641600986", Numeric: true},
		DCS:    DCSGSM,
		SCTS:   zoneAt(2024, time.March, 15, 10, 30, 0, 4),
		Text:   "hello",
	}
}

func TestEncodeDeliverErrors(t *testing.T) {
	long := func(r string, n int) string { return strings.Repeat(r, n) }
	for _, tc := range []struct {
		name   string
		change func(*Deliver)
		field  string
	}{
		{"SMSC without digits", func(d *Deliver) { d.SMSC = "+" }, "SMSC:"},
		{"SMSC of 21 digits", func(d *Deliver) { d.SMSC = "+" + long("1", 21) }, "SMSC:"},
		{"SMSC with a dash", func(d *Deliver) { d.SMSC = "+49-151" }, "SMSC:"},
		{"numeric sender of 21 digits", func(d *Deliver) { d.Sender.Value = long("1", 21) }, "Sender:"},
		{"numeric sender with '+'", func(d *Deliver) { d.Sender.Value = "+4915" }, "Sender:"},
		{"numeric sender with 'A'", func(d *Deliver) { d.Sender.Value = "12A" }, "Sender:"},
		{"alphanumeric sender of 12", func(d *Deliver) { d.Sender = Address{Value: "ABCDEFGHIJKL"} }, "Sender:"},
		{"alphanumeric sender of 12 septets", func(d *Deliver) { d.Sender = Address{Value: "ABCDEFGHIJ€"} }, "Sender:"},
		{"alphanumeric sender outside GSM", func(d *Deliver) { d.Sender = Address{Value: "çava"} }, "Sender:"},
		{"auto coding", func(d *Deliver) { d.DCS = DCSAuto }, "DCS:"},
		{"unknown coding", func(d *Deliver) { d.DCS = 9 }, "DCS:"},
		{"zero time stamp", func(d *Deliver) { d.SCTS = time.Time{} }, "SCTS:"},
		{"year 1999", func(d *Deliver) { d.SCTS = zoneAt(1999, time.December, 31, 23, 59, 59, 0) }, "SCTS:"},
		{"year 2100", func(d *Deliver) { d.SCTS = zoneAt(2100, time.January, 1, 0, 0, 0, 0) }, "SCTS:"},
		{"fraction of a second", func(d *Deliver) { d.SCTS = d.SCTS.Add(time.Millisecond) }, "SCTS:"},
		{"zone not in quarter hours", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("", 5*3600+7*60)) }, "SCTS:"},
		{"zone of 80 quarters", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("", 80*15*60)) }, "SCTS:"},
		{"GSM text outside the alphabet", func(d *Deliver) { d.Text = "ça" }, "Text:"},
		{"GSM text not UTF-8", func(d *Deliver) { d.Text = "a\xff" }, "Text:"},
		{"GSM text of 161 septets", func(d *Deliver) { d.Text = long("a", 161) }, "Text:"},
		{"GSM text of 159 + escape pair", func(d *Deliver) { d.Text = long("a", 159) + "€" }, "Text:"},
		{"GSM part of 154 septets", func(d *Deliver) {
			d.Concat, d.Text = Concat{Ref: 1, Total: 2, Seq: 1}, long("a", 154)
		}, "Text:"},
		{"UCS text of 71 units", func(d *Deliver) { d.DCS, d.Text = DCSUCS, long("ж", 71) }, "Text:"},
		{"UCS text of 36 pairs", func(d *Deliver) { d.DCS, d.Text = DCSUCS, long("😀", 36) }, "Text:"},
		{"UCS text not UTF-8", func(d *Deliver) { d.DCS, d.Text = DCSUCS, "\xc3" }, "Text:"},
		{"UCS part of 68 units", func(d *Deliver) {
			d.DCS, d.Concat, d.Text = DCSUCS, Concat{Ref: 1, Total: 2, Seq: 1}, long("ж", 68)
		}, "Text:"},
		{"binary of 141 octets", func(d *Deliver) { d.DCS, d.Text, d.Data = DCSBinary, "", make([]byte, 141) }, "Data:"},
		{"binary of 134 octets after ports", func(d *Deliver) {
			d.DCS, d.Text, d.Data, d.DstPort = DCSBinary, "", make([]byte, 134), 2948
		}, "Data:"},
		{"binary with text", func(d *Deliver) { d.DCS = DCSBinary }, "Text:"},
		{"text with data", func(d *Deliver) { d.Data = []byte{1} }, "Data:"},
		{"concatenation part 0", func(d *Deliver) { d.Concat = Concat{Ref: 1, Total: 2} }, "Concat:"},
		{"concatenation part 3 of 2", func(d *Deliver) { d.Concat = Concat{Ref: 1, Total: 2, Seq: 3} }, "Concat:"},
		{"concatenation of 0 parts", func(d *Deliver) { d.Concat = Concat{Ref: 1} }, "Concat:"},
		{"wide alone", func(d *Deliver) { d.Concat = Concat{Wide: true} }, "Concat:"},
		{"8-bit reference over 255", func(d *Deliver) { d.Concat = Concat{Ref: 256, Total: 2, Seq: 1} }, "Concat:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := validDeliver()
			tc.change(&d)
			pdu, err := EncodeDeliver(d)
			if !isInvalidPDU(err) {
				t.Fatalf("got %X, %v; want an invalid_pdu error", pdu, err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
		})
	}
}

// TestEncodeDeliverLimits encodes what sits exactly at each limit.
func TestEncodeDeliverLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Deliver)
	}{
		{"SMSC of 20 digits", func(d *Deliver) { d.SMSC = "+" + strings.Repeat("9", 20) }},
		{"numeric sender of 20 digits", func(d *Deliver) { d.Sender.Value = strings.Repeat("9", 20) }},
		{"empty numeric sender", func(d *Deliver) { d.Sender.Value = "" }},
		{"alphanumeric sender of 11 septets", func(d *Deliver) { d.Sender = Address{Value: "ABCDEFGHI€"} }},
		{"GSM text of 160 septets", func(d *Deliver) { d.Text = strings.Repeat("a", 158) + "€" }},
		{"GSM part of 153 septets", func(d *Deliver) {
			d.Concat, d.Text = Concat{Ref: 1, Total: 2, Seq: 1}, strings.Repeat("a", 153)
		}},
		{"GSM part of 152 septets after a 16-bit reference", func(d *Deliver) {
			d.Concat, d.Text = Concat{Ref: 300, Total: 2, Seq: 1, Wide: true}, strings.Repeat("a", 152)
		}},
		{"GSM text of 145 septets after ports and 16-bit reference", func(d *Deliver) {
			d.Concat, d.DstPort, d.Text = Concat{Ref: 300, Total: 2, Seq: 2, Wide: true}, 1, strings.Repeat("a", 145)
		}},
		{"UCS text of 70 units", func(d *Deliver) { d.DCS, d.Text = DCSUCS, strings.Repeat("😀", 35) }},
		{"UCS part of 67 units", func(d *Deliver) {
			d.DCS, d.Concat, d.Text = DCSUCS, Concat{Ref: 1, Total: 2, Seq: 2}, strings.Repeat("ж", 67)
		}},
		{"binary of 140 octets", func(d *Deliver) { d.DCS, d.Text, d.Data = DCSBinary, "", make([]byte, 140) }},
		{"binary of 128 octets after ports and concatenation", func(d *Deliver) {
			d.DCS, d.Text, d.Data, d.DstPort, d.SrcPort = DCSBinary, "", make([]byte, 128), 2948, 9200
			d.Concat = Concat{Ref: 255, Total: 255, Seq: 255}
		}},
		{"zone +19:45", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("", 79*15*60)) }},
		{"zone -19:45", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("", -79*15*60)) }},
		{"zone -00:15", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("", -15*60)) }},
		{"year 2000", func(d *Deliver) { d.SCTS = zoneAt(2000, time.January, 1, 0, 0, 0, 0) }},
		{"year 2099", func(d *Deliver) { d.SCTS = zoneAt(2099, time.December, 31, 23, 59, 59, 0) }},
		{"leap day", func(d *Deliver) { d.SCTS = zoneAt(2024, time.February, 29, 12, 0, 0, 0) }},
		{"a named zone", func(d *Deliver) { d.SCTS = d.SCTS.In(time.FixedZone("CET", 3600)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := validDeliver()
			tc.change(&d)
			pdu, err := EncodeDeliver(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeDeliver(pdu)
			if err != nil {
				t.Fatalf("%X: %v", pdu, err)
			}
			if diff := diffDeliver(d, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGSMDecodeTables checks the reverse tables against the package's test
// alphabet and against gsmFromRune, so encoding and decoding agree.
func TestGSMDecodeTables(t *testing.T) {
	basic := []rune(gsmBasic)
	for code, r := range gsmDefaultRunes {
		if r != basic[code] {
			t.Errorf("default 0x%02X: %q, want %q", code, r, basic[code])
		}
		if code == escSeptet {
			continue
		}
		if s, ok := gsmFromRune(r); !ok || s.code != uint8(code) || s.cost != 1 {
			t.Errorf("default 0x%02X %q: gsmFromRune gives %+v %v", code, r, s, ok)
		}
	}
	defined := 0
	for code, r := range gsmExtensionRunes {
		if r == 0 {
			continue
		}
		defined++
		if s, ok := gsmFromRune(r); !ok || s.code != uint8(code) || s.cost != 2 {
			t.Errorf("extension 0x%02X %q: gsmFromRune gives %+v %v", code, r, s, ok)
		}
		if c, ok := gsmExtension[r]; r != '\x1b' && (!ok || c != uint8(code)) {
			t.Errorf("extension 0x%02X %q: the test table says 0x%02X", code, r, c)
		}
	}
	if want := len(gsmExtension) + 1; defined != want { // + escape + escape
		t.Errorf("%d extension codes, want %d", defined, want)
	}
}

func TestGSMStringEscapes(t *testing.T) {
	for _, tc := range []struct {
		codes []byte
		want  string
	}{
		{[]byte{0x1B, 0x65}, "€"},
		{[]byte{0x1B, 0x0A}, "\f"},
		{[]byte{0x1B, 0x0D}, "\r"},   // CR2, undefined here: the default table's CR
		{[]byte{0x1B, 0x41}, "A"},    // undefined: the default table
		{[]byte{0x1B, 0x00}, "@"},    // undefined: the default table
		{[]byte{0x1B, 0x1B}, "\x1b"}, // as gsmFromRune sends U+001B
		{[]byte{0x1B}, " "},          // lone escape at the end
		{[]byte{0x41, 0x1B}, "A "},   // lone escape at the end
		{[]byte{0x1B, 0x1B, 0x1B}, "\x1b "},
		{[]byte{0x00, 0x7F, 0x24, 0x02}, "@à¤$"},
	} {
		if got := gsmString(tc.codes); got != tc.want {
			t.Errorf("% X: got %q, want %q", tc.codes, got, tc.want)
		}
	}
}

// The generators draw Delivers that EncodeDeliver must accept.
var (
	semiOctetGen = rapid.StringMatching(`[0-9*#abc]{0,20}`)

	// anyScalar draws every Unicode scalar value alike, most of them astral.
	anyScalar = rapid.Custom(func(t *rapid.T) rune {
		r := rapid.Int32Range(0, 0x10FFFF-0x800).Draw(t, "scalar")
		if r >= 0xD800 {
			r += 0x800 // skip the surrogates
		}
		return r
	})
	ucsRune = rapid.OneOf(anyScalar, rapid.Rune(), rapid.SampledFrom([]rune("aé€ж😀🐳\x00\uFFFD\uFFFF")))
)

// lengthUpTo draws a length up to limit, the limit itself often, so that
// full parts are tried as often as short ones.
func lengthUpTo(limit int) *rapid.Generator[int] {
	return rapid.OneOf(rapid.IntRange(0, limit), rapid.Just(limit))
}

// gsmTextUpTo draws GSM text of at most budget septets.
func gsmTextUpTo(t *rapid.T, budget int, label string) string {
	n := lengthUpTo(budget).Draw(t, label+" length")
	rs := rapid.SliceOfN(rapid.SampledFrom(gsmRunes), n, n).Draw(t, label)
	var b strings.Builder
	for _, r := range rs {
		if budget -= Septets(r); budget < 0 {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// utf16Len is 2 for a rune sent as a surrogate pair, else 1.
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// ucsTextUpTo draws text of at most units UTF-16 units.
func ucsTextUpTo(t *rapid.T, units int, label string) string {
	n := lengthUpTo(units).Draw(t, label+" length")
	rs := rapid.SliceOfN(ucsRune, n, n).Draw(t, label)
	var b strings.Builder
	for _, r := range rs {
		if units -= utf16Len(r); units < 0 {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

var deliverGen = rapid.Custom(func(t *rapid.T) Deliver {
	var d Deliver
	switch rapid.IntRange(0, 2).Draw(t, "smsc kind") {
	case 1:
		d.SMSC = "+" + rapid.StringMatching(`[0-9]{1,20}`).Draw(t, "smsc")
	case 2:
		d.SMSC = rapid.StringMatching(`[0-9*#abc]{1,20}`).Draw(t, "smsc")
	}
	if rapid.Bool().Draw(t, "numeric") {
		d.Sender = Address{Value: semiOctetGen.Draw(t, "digits"), Numeric: true}
	} else {
		d.Sender = Address{Value: gsmTextUpTo(t, 11, "alphanumeric")}
	}
	d.PID = rapid.Byte().Draw(t, "pid")
	d.DCS = rapid.SampledFrom([]DCS{DCSGSM, DCSUCS, DCSBinary}).Draw(t, "dcs")
	d.Class0 = rapid.Bool().Draw(t, "class0")
	year := rapid.IntRange(2000, 2099).Draw(t, "year")
	month := time.Month(rapid.IntRange(1, 12).Draw(t, "month"))
	days := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d.SCTS = zoneAt(year, month, rapid.IntRange(1, days).Draw(t, "day"),
		rapid.IntRange(0, 23).Draw(t, "hour"), rapid.IntRange(0, 59).Draw(t, "minute"),
		rapid.IntRange(0, 59).Draw(t, "second"), rapid.IntRange(-79, 79).Draw(t, "quarters"))

	header := 0 // octets of the UDH with its UDHL, worked out apart from the code
	if rapid.Bool().Draw(t, "concatenated") {
		total := rapid.IntRange(1, 255).Draw(t, "total")
		d.Concat = Concat{Total: uint8(total), Seq: uint8(rapid.IntRange(1, total).Draw(t, "seq"))}
		if d.Concat.Wide = rapid.Bool().Draw(t, "wide"); d.Concat.Wide {
			d.Concat.Ref = rapid.Uint16().Draw(t, "ref")
			header += 6
		} else {
			d.Concat.Ref = uint16(rapid.Byte().Draw(t, "ref"))
			header += 5
		}
	}
	if rapid.Bool().Draw(t, "ports") {
		d.DstPort, d.SrcPort = rapid.Uint16().Draw(t, "dst"), rapid.Uint16().Draw(t, "src")
		if d.DstPort != 0 || d.SrcPort != 0 {
			header += 6
		}
	}
	if header > 0 {
		header++
	}
	switch d.DCS {
	case DCSGSM:
		d.Text = gsmTextUpTo(t, 160-(header*8+6)/7, "gsm")
	case DCSUCS:
		d.Text = ucsTextUpTo(t, (140-header)/2, "ucs")
	case DCSBinary:
		n := lengthUpTo(140-header).Draw(t, "data length")
		if data := rapid.SliceOfN(rapid.Byte(), n, n).Draw(t, "data"); n > 0 {
			d.Data = data
		}
	}
	return d
})

func TestDeliverRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := deliverGen.Draw(t, "deliver")
		pdu, err := EncodeDeliver(d)
		if err != nil {
			t.Fatalf("EncodeDeliver: %v", err)
		}
		got, err := DecodeDeliver(pdu)
		if err != nil {
			t.Fatalf("DecodeDeliver(%X): %v", pdu, err)
		}
		if diff := diffDeliver(d, got); diff != "" {
			t.Fatalf("%X (-want +got):\n%s", pdu, diff)
		}
	})
}

func ExampleDecodeDeliver() {
	pdu, _ := hex.DecodeString("07911326040000F0440B911346610089F60000208062917314800A050003A70201C2E231")
	d, err := DecodeDeliver(pdu)
	if err != nil {
		panic(err)
	}
	fmt.Println("SMSC", d.SMSC, "sender", d.Sender.Value, "at", d.SCTS.Format(time.RFC3339))
	fmt.Printf("%v part %d of %d (ref %d): %q\n", d.DCS, d.Concat.Seq, d.Concat.Total, d.Concat.Ref, d.Text)
	// Output:
	// SMSC +31624000000 sender 31641600986 at 2002-08-26T19:37:41+02:00
	// GSM part 1 of 2 (ref 167): "abc"
}

// BenchmarkDecodeDeliver decodes a full 7-bit part of a concatenated message.
func BenchmarkDecodeDeliver(b *testing.B) {
	d := validDeliver()
	d.Concat = Concat{Ref: 42, Total: 3, Seq: 2}
	d.Text = strings.Repeat("Hello, world! ", 11)[:153]
	pdu, err := EncodeDeliver(d)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(pdu)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeDeliver(pdu); err != nil {
			b.Fatal(err)
		}
	}
}
