package msgkittest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update is the one -update flag of every test binary that uses Golden; a
// test package must not declare a flag of that name itself.
var update = flag.Bool("update", false, "rewrite the golden files (msgkittest.Golden) with what the tests produce")

// Golden compares got with the golden file at path, relative to the test's
// package directory (by convention under testdata/). With -update it first
// writes got to path, creating the directory, so the comparison passes and
// git shows what changed.
//
// When got is JSON it is compared, and written, with canonical indentation
// (two spaces, the members in the order they were sent), so a golden file
// stays readable and a difference shows as the lines that differ; a golden
// file edited by hand is indented the same way before the comparison. Other
// content is compared byte for byte.
//
// A golden file only records an answer: next to it, a test should check the
// rules the answer must follow, so that -update cannot approve a broken one.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	got = canonical(got)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(canonical(want)), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

// canonical indents JSON with two spaces and ends it with a newline; other
// content is returned as it is.
func canonical(b []byte) []byte {
	var out bytes.Buffer
	if !json.Valid(b) || json.Indent(&out, bytes.TrimSpace(b), "", "  ") != nil {
		return b
	}
	out.WriteByte('\n')
	return out.Bytes()
}
