package msgkittest_test

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/msgkit/msgkit/msgkittest"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// golden runs Golden on a goroutine of its own, so that Fatalf can end it,
// and tells whether it failed.
func golden(t *testing.T, path, got string) bool {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		msgkittest.Golden(r, path, []byte(got))
	}()
	<-done
	return r.failed
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "answer.json")
	if err := os.WriteFile(path, []byte("{\n  \"code\": \"x\",\n  \"items\": []\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		path     string
		got      string
		wantFail bool
	}{
		{"same JSON, compact", path, `{"code":"x","items":[]}`, false},
		{"same JSON, other spacing", path, "{ \"code\" : \"x\",\n\t\"items\":[ ] }\n", false},
		{"other value", path, `{"code":"y","items":[]}`, true},
		{"members in another order", path, `{"items":[],"code":"x"}`, true},
		{"not JSON", path, `code=x`, true},
		{"no golden file", filepath.Join(dir, "missing.json"), `{}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if failed := golden(t, tt.path, tt.got); failed != tt.wantFail {
				t.Fatalf("failed = %v, want %v", failed, tt.wantFail)
			}
		})
	}
}

func TestGoldenUpdate(t *testing.T) {
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("update", "false") })
	path := filepath.Join(t.TempDir(), "testdata", "new.json")
	if golden(t, path, `{"code":"x","n":[1,2]}`) {
		t.Fatal("Golden with -update failed")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"code\": \"x\",\n  \"n\": [\n    1,\n    2\n  ]\n}\n"
	if string(b) != want {
		t.Fatalf("written %q, want %q", b, want)
	}
}
