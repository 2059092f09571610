package main

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`"Hello {world}"`,
		`"` + strings.Repeat("]", 153) + `"`,
		`"😀 <b>"`,
		`""`,
		`not json`,
		``,
		`"price 5€"`, // last line without a newline
	}, "\n")
	var out strings.Builder
	if err := run([]string{"-dcs", "gsm"}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"dcs":"GSM","numParts":1,"parts":[{"text":"Hello {world}","units":15}]}`,
		`{"dcs":"GSM","numParts":3,"parts":[{"text":"` + strings.Repeat("]", 76) + `","units":152},{"text":"` + strings.Repeat("]", 76) + `","units":152},{"text":"]","units":2}]}`,
		`{"error":{"code":"102","message":"character '😀' (U+1F600) at byte 0 is not in the GSM 03.38 alphabet; use dcs UCS"}}`,
		`{"error":{"code":"110","message":"text is empty"}}`,
		`{"error":{"code":"109","message":"line is not a JSON string"}}`,
		`{"error":{"code":"109","message":"line is not a JSON string"}}`,
		`{"dcs":"GSM","numParts":1,"parts":[{"text":"price 5€","units":9}]}`,
		``,
	}, "\n")
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestRunAutoAndBadFlag(t *testing.T) {
	var out strings.Builder
	if err := run(nil, strings.NewReader(`"😀 <b>"`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	if want := `{"dcs":"UCS","numParts":1,"parts":[{"text":"😀 <b>","units":6}]}` + "\n"; out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
	if err := run([]string{"-dcs", "latin1"}, strings.NewReader(""), &out); err == nil {
		t.Error("a bad -dcs is accepted")
	}
}

// TestHelp: -h prints the usage and is no failure (main exits 0).
func TestHelp(t *testing.T) {
	var out strings.Builder
	if err := run([]string{"-h"}, strings.NewReader(""), &out); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h returned %v, want flag.ErrHelp", err)
	}
}
