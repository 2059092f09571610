package idempotency_test

import (
	"strings"
	"testing"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/idempotency"
)

func TestParseKey(t *testing.T) {
	long := strings.Repeat("k", 255)
	tests := []struct {
		header string
		want   idempotency.Key // "": refused
	}{
		{`"8e03978e-40d5-43e8-bc93-6894a57f9324"`, "8e03978e-40d5-43e8-bc93-6894a57f9324"}, // the draft's example
		{`8e03978e-40d5-43e8-bc93-6894a57f9324`, "8e03978e-40d5-43e8-bc93-6894a57f9324"},   // bare, as Stripe's clients send it
		{" \t\"abc\" \t", "abc"},
		{`"a b"`, "a b"},
		{`"say \"hi\" \\ bye"`, `say "hi" \ bye`},
		{`" "`, " "},
		{`"` + long + `"`, idempotency.Key(long)},
		{long, idempotency.Key(long)},
		{`order-17/retry:1;x=y`, "order-17/retry:1;x=y"},
		{``, ""},
		{`  `, ""},
		{`""`, ""},
		{`"` + long + `k"`, ""},
		{long + "k", ""},
		{`"abc`, ""},
		{`"abc"x`, ""},
		{`"abc";p=1`, ""},     // parameters of an sf-string item are not taken
		{`"a\nb"`, ""},        // only \" and \\ escape
		{"\"a\tb\"", ""},      // not printable
		{"\"caf\u00e9\"", ""}, // not ASCII
		{`a b`, ""},
		{`a,b`, ""},
		{`a"b`, ""},
		{`a\b`, ""},
		{"ab\x7f", ""},
		{`"abc", "def"`, ""}, // two headers joined by a proxy
	}
	for _, tc := range tests {
		got, err := idempotency.ParseKey(tc.header)
		if tc.want == "" {
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != idempotency.CodeInvalidKey {
				t.Errorf("ParseKey(%q) = %q, %v; want Invalid %s", tc.header, got, err, idempotency.CodeInvalidKey)
				continue
			}
			if e, _ := err.(*msgkit.Error); e == nil || len(e.Fields) != 1 || e.Fields[0].Name != idempotency.Header {
				t.Errorf("ParseKey(%q): %v does not name the header", tc.header, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", tc.header, got, err, tc.want)
		}
	}
}

// A parsed key is 1 to 255 printable ASCII characters, and quoting it
// again as an sf-string gives it back: every value either parses to such
// a key or is refused Invalid naming the header.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{`"a"`, `abc`, `"a\"b"`, `"a\\"`, `""`, `"`, `a,b`, "\x00", `"abc";x`, strings.Repeat("z", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		k, err := idempotency.ParseKey(header)
		if err != nil {
			if msgkit.KindOf(err) != msgkit.Invalid || msgkit.CodeOf(err) != idempotency.CodeInvalidKey {
				t.Fatalf("ParseKey(%q): %v", header, err)
			}
			return
		}
		if len(k) == 0 || len(k) > idempotency.MaxKeyLen {
			t.Fatalf("ParseKey(%q) = %q: length %d", header, k, len(k))
		}
		for i := 0; i < len(k); i++ {
			if k[i] < 0x20 || k[i] > 0x7e {
				t.Fatalf("ParseKey(%q) = %q: byte %#x", header, k, k[i])
			}
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(k)) + `"`
		if again, err := idempotency.ParseKey(quoted); err != nil || again != k {
			t.Fatalf("ParseKey(%q) = %q, %v; want %q", quoted, again, err, k)
		}
	})
}

func TestFingerprintOf(t *testing.T) {
	a := idempotency.FingerprintOf([]byte("POST"), []byte("/x"), []byte("{}"))
	if a != idempotency.FingerprintOf([]byte("POST"), []byte("/x"), []byte("{}")) {
		t.Error("a fingerprint is not a function of its parts")
	}
	for _, other := range []idempotency.Fingerprint{
		idempotency.FingerprintOf([]byte("POST"), []byte("/x{"), []byte("}")), // bytes moved between parts
		idempotency.FingerprintOf([]byte("POST"), []byte("/x"), []byte("{} ")),
		idempotency.FingerprintOf([]byte("POST"), []byte("/x"), []byte("{}"), nil),
	} {
		if other == a {
			t.Error("different parts give the same fingerprint")
		}
	}
}

func TestRecordCheckNamesTheField(t *testing.T) {
	err := idempotency.Record{Scope: "s", Key: "k", Ref: "r", Attempt: 1, State: idempotency.Done}.Check()
	if e, _ := err.(*msgkit.Error); e == nil || e.Kind != msgkit.Invalid || len(e.Fields) != 1 || e.Fields[0].Name != "created" {
		t.Errorf("Check of a record without times: %v", err)
	}
	if got := idempotency.State(9).String(); got != "state(9)" {
		t.Errorf("State(9) = %q", got)
	}
}
