package blobfs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/adapters/blobfs"
	"github.com/msgkit/msgkit/finance"
	"github.com/msgkit/msgkit/finance/financetest"
)

func newStore(tb testing.TB, dir string) *blobfs.Store {
	tb.Helper()
	s, err := blobfs.New(dir)
	if err != nil {
		tb.Fatalf("New(%q): %v", dir, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	t.Parallel()
	financetest.Run(t, func(tb testing.TB) financetest.Stores { return financetest.Stores{Blobs: newStore(tb, tb.TempDir())} })
}

// fileOf is where the package doc says key's blob lives.
func fileOf(dir, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:1]), strings.ReplaceAll(key, "/", "~"))
}

// tempFiles lists the temporary files under dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			found = append(found, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(t, dir)
	for _, key := range []string{"invoices/42/files/7.pdf", "a", "a/b"} {
		if _, err := s.Put(t.Context(), key, strings.NewReader(key)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(fileOf(dir, key))
		if err != nil || string(got) != key {
			t.Errorf("file of %q: %q, %v", key, got, err)
		}
		fi, err := os.Stat(fileOf(dir, key))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("file of %q: mode %v, %v; want 0600", key, fi.Mode(), err)
		}
	}
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
	fans, err := os.ReadDir(dir)
	if err != nil || len(fans) != 256 {
		t.Errorf("%d entries in the directory (%v), want the 256 fan directories", len(fans), err)
	}
}

func TestFailedPutLeavesNoFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(t, dir)
	boom := errors.New("boom")
	_, err := s.Put(t.Context(), "k", io.MultiReader(bytes.NewReader(make([]byte, 100<<10)), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want the reader's", err)
	}
	if tmp := tempFiles(t, dir); len(tmp) != 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
	if _, err := os.Stat(fileOf(dir, "k")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("blob file after a failed Put: %v", err)
	}
}

// TestStaysInside: a symbolic link planted in the directory cannot take
// a blob outside it.
func TestStaysInside(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	s := newStore(t, dir)
	fan := filepath.Dir(fileOf(dir, "k"))
	if err := os.Remove(fan); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, fan); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := s.Put(t.Context(), "k", strings.NewReader("secret"))
	if msgkit.KindOf(err) != msgkit.Internal {
		t.Errorf("Put through a link out of the directory: %v, want Internal", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the directory: %v", entries)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	t.Run("creates a missing directory", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "a", "b")
		newStore(t, dir)
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("directory: %v, %v; want mode 0700", fi, err)
		}
	})
	t.Run("reopens", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		s := newStore(t, dir)
		if _, err := s.Put(t.Context(), "k", strings.NewReader("kept")); err != nil {
			t.Fatal(err)
		}
		s.Close()
		rc, err := newStore(t, dir).Open(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if got, _ := io.ReadAll(rc); string(got) != "kept" {
			t.Errorf("reopened: %q", got)
		}
	})
	t.Run("refuses", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		notFan := t.TempDir()
		if err := os.WriteFile(filepath.Join(notFan, "00"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{"", file, notFan} {
			if s, err := blobfs.New(dir); err == nil {
				s.Close()
				t.Errorf("New(%q) succeeded", dir)
			}
		}
	})
}

// BenchmarkReceive10MB receives 10 MB files into a blobfs store; the
// memory per operation stays a small fraction of the file's size.
func BenchmarkReceive10MB(b *testing.B) {
	for _, ext := range []string{".pdf", ".docx", ".doc"} {
		b.Run(ext[1:], func(b *testing.B) {
			s := newStore(b, b.TempDir())
			content := financetest.SampleFile(ext, finance.MaxFileSize)
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("bench/%d", i)
				i++
				if _, err := finance.Receive(b.Context(), s, key, "invoice"+ext, bytes.NewReader(content)); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := s.Delete(b.Context(), key); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
