package sms

import (
	"errors"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/sms/gsm"
)

func TestParseDCS(t *testing.T) {
	for in, want := range map[string]gsm.DCS{"": gsm.DCSAuto, "auto": gsm.DCSAuto, "GSM": gsm.DCSGSM, "gsm": gsm.DCSGSM, "Gsm": gsm.DCSGSM, "UCS": gsm.DCSUCS, "ucs": gsm.DCSUCS} {
		got, err := ParseDCS(in)
		if err != nil || got != want {
			t.Errorf("ParseDCS(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"UCS2", "utf8", "8bit", " GSM"} {
		_, err := ParseDCS(in)
		checkCode(t, err, CodeBadParameterValue, "dcs")
	}
}

// The failures of sms/gsm answer with the submission codes the interface
// has for them, naming the same field.
func TestCodeOfEncodingErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   func() error
		code  Code
		field string
	}{
		{"empty text", func() error { _, err := gsm.SplitText("", gsm.DCSAuto, 1); return err }, CodeMissingMandatoryParam, "text"},
		{"not UTF-8", func() error { _, err := gsm.CountText("a\xff", gsm.DCSUCS); return err }, CodeBadContentFormat, "text"},
		{"not in the alphabet", func() error { _, err := gsm.SplitText("привет", gsm.DCSGSM, 1); return err }, CodeEncodingError, "text"},
		{"too many parts", func() error { _, err := gsm.CountText(string(make([]byte, 39016)), gsm.DCSUCS); return err }, CodeConcatError, "text"},
		{"binary for text", func() error { _, err := gsm.SplitText("a", gsm.DCSBinary, 1); return err }, CodeBadParameterValue, "dcs"},
		{"push without title", func() error { _, err := gsm.SplitWSI("http://example.com/", "", 1); return err }, CodeMissingMandatoryParam, "title"},
		{"push to ftp", func() error { _, err := gsm.SplitWSI("ftp://example.com/", "t", 1); return err }, CodeBadParameterValue, "url"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkCode(t, tc.err(), tc.code, tc.field) })
	}
}

// checkCode asserts err carries code, code's kind, and names field first.
func checkCode(t *testing.T, err error, code Code, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d", code)
	}
	if got := CodeOf(err); got != code {
		t.Fatalf("code %d (%v), want %d", got, err, code)
	}
	if !errors.Is(err, code.Kind()) {
		t.Errorf("kind %v, want %v", msgkit.KindOf(err), code.Kind())
	}
	e, ok := errors.AsType[*msgkit.Error](err)
	if !ok || len(e.Fields) == 0 || e.Fields[0].Name != field {
		t.Errorf("error %v does not name field %q", err, field)
	}
}
