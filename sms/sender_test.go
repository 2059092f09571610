package sms

import (
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"pgregory.net/rapid"
)

func TestParseSender(t *testing.T) {
	good := []struct {
		in   string
		want Sender
	}{
		{"MyShop", Sender{Value: "MyShop"}},
		{"Shop 24/7!", Sender{Value: "Shop 24/7!"}},
		{`a"#%&'()*+,`, Sender{Value: `a"#%&'()*+,`}},
		{"-./:;<=>? Z", Sender{Value: "-./:;<=>? Z"}},
		{"ABCDEFGHIJK", Sender{Value: "ABCDEFGHIJK"}}, // 11 characters
		{"A1", Sender{Value: "A1"}},
		{"4915112345678", Sender{Value: "4915112345678", Numeric: true}},
		{"+4915112345678", Sender{Value: "4915112345678", Numeric: true}},
		{"123456789012345", Sender{Value: "123456789012345", Numeric: true}}, // 15 digits
		{"1", Sender{Value: "1", Numeric: true}},
	}
	for _, tc := range good {
		got, err := ParseSender(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSender(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	bad := []struct {
		in   string
		code Code
	}{
		{"", CodeMissingMandatoryParam},
		{"ABCDEFGHIJKL", CodeInvalidSender},      // 12 characters
		{"1234567890123456", CodeInvalidSender},  // 16 digits
		{"+1234567890123456", CodeInvalidSender}, // 16 digits after +
		{"+", CodeInvalidSender},
		{"+49 151", CodeInvalidSender},
		{"   ", CodeInvalidSender},
		{"Café", CodeInvalidSender},
		{"Shop\n", CodeInvalidSender},
		{"Shop\x00", CodeInvalidSender},
	}
	for _, c := range "$@[\\]^_`{|}~" {
		bad = append(bad, struct {
			in   string
			code Code
		}{"Shop" + string(c), CodeInvalidSender})
	}
	for _, tc := range bad {
		_, err := ParseSender(tc.in)
		checkCode(t, err, tc.code, "sender")
	}
}

// Every printable ASCII character is accepted in an alphanumeric sender
// exactly when the sender rules list it.
func TestSenderCharacterSet(t *testing.T) {
	const allowed = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ !\"#%&'()*+,-./:;<=>?"
	for c := byte(0); c < 128; c++ {
		_, err := ParseSender("A" + string(c))
		if ok := err == nil; ok != strings.ContainsRune(allowed, rune(c)) {
			t.Errorf("sender %q: accepted %v, want %v", "A"+string(c), ok, !ok)
		}
	}
}

func TestParseSenderNeverPanics(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		got, err := ParseSender(s)
		if err != nil {
			if c := CodeOf(err); c != CodeInvalidSender && c != CodeMissingMandatoryParam {
				t.Fatalf("code %d", c)
			}
			return
		}
		limit := MaxAlphanumericSender
		if got.Numeric {
			limit = MaxNumericSender
		}
		if len(got.Value) == 0 || len(got.Value) > limit {
			t.Fatalf("accepted %q as %+v", s, got)
		}
	})
}

func TestParseReceiver(t *testing.T) {
	good := map[string]MSISDN{
		"4915112345678":  "+4915112345678",
		"+4915112345678": "+4915112345678",
		"38640123456":    "+38640123456",
		"12025550123":    "+12025550123",
		"447911123456":   "+447911123456",
	}
	for in, want := range good {
		got, err := ParseReceiver(in)
		if err != nil || got != want {
			t.Errorf("ParseReceiver(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if d := MSISDN("+4915112345678").Digits(); d != "4915112345678" {
		t.Errorf("Digits = %q", d)
	}
	_, err := ParseReceiver("")
	checkCode(t, err, CodeMissingMandatoryParam, "receiver")
	for _, in := range []string{
		"015112345678", // national form, no country code
		"061212345678", // national form: not +61, no code starts with 0
		"+061212345678",
		"0049151123456",    // international prefix instead of the country code
		"49 151 12345678",  // spaces
		"49-151-12345678",  // dashes
		"++4915112345678",  // two pluses
		"4915112345678x",   // letters
		"999123456789",     // no such country code
		"491",              // too short for Germany
		"1234567890123456", // 16 digits
		"12",
		"4915112345678\n",
	} {
		_, err := ParseReceiver(in)
		checkCode(t, err, CodeBadParameterValue, "receiver")
	}
}

func FuzzParseReceiver(f *testing.F) {
	for _, s := range []string{"4915112345678", "+38640123456", "", "+", "0", "999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseReceiver(s)
		if err != nil {
			if c := CodeOf(err); c != CodeBadParameterValue && c != CodeMissingMandatoryParam {
				t.Fatalf("code %d for %q", c, s)
			}
			return
		}
		if len(m) < 2 || m[0] != '+' || !allDigits(m.Digits()) {
			t.Fatalf("accepted %q as %q", s, m)
		}
	})
}

// The direct reading of digits agrees with libphonenumber's general parser
// on what is a valid number and on its E.164 form.
func TestReceiverAgreesWithParser(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prefix := rapid.SampledFrom([]string{"1", "7", "33", "39", "44", "49", "386", "38640", "3906", "61", "86", "971", "999", "4915"}).Draw(t, "prefix")
		rest := rapid.StringMatching(`[0-9]{4,11}`).Draw(t, "rest")
		digits := prefix + rest
		if len(digits) > 15 {
			digits = digits[:15]
		}
		got, err := ParseReceiver(digits)
		num, perr := phonenumbers.Parse("+"+digits, "")
		valid := perr == nil && phonenumbers.IsValidNumber(num)
		if (err == nil) != valid {
			t.Fatalf("%s: ParseReceiver %q, %v; parser valid %v", digits, got, err, valid)
		}
		if valid && string(got) != phonenumbers.Format(num, phonenumbers.E164) {
			t.Fatalf("%s: %s, parser %s", digits, got, phonenumbers.Format(num, phonenumbers.E164))
		}
	})
}
