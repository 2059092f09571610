// Package blobfs keeps blobs (finance.BlobStore) as files in one
// directory of a local, POSIX-like file system.
//
// # Layout
//
// The blob of key k is the file <dir>/<fan>/<name>: name is k with each
// '/' written as '~', and fan is the first byte of k's SHA-256 in hex
// (00 to ff). Keys are those finance.CheckBlobKey accepts (lower-case
// ASCII letters, digits, '-', '_', '.', segments joined by '/', none
// beginning with '.'), so a name never holds a path separator, never
// begins with '.', and no two keys share a name: '~' is not a key
// character. Keys are not made directories, where a key and one nesting
// under it (a and a/b) would need a file and a directory of one name;
// the fan-out keeps each directory at a 256th of the blobs. Every access
// also goes through os.Root, so that nothing outside dir is reached even
// through a symbolic link planted inside it.
//
// # Writes
//
// Put streams into a temporary file beside the blob's (".tmp-" and a
// random suffix: no key's name begins with '.'), syncs it, and publishes
// it with a hard link, which fails when the name exists: unlike a rename,
// two Puts of one key cannot both succeed, and the loser is a Conflict.
// Then it removes the temporary name and syncs the directory, so a Put
// that returned is on disk. A crash may leave ".tmp-" files behind;
// they are never read, and may be removed while no Put runs. The file
// system must support hard links (every local POSIX one does).
package blobfs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/msgkit/msgkit"
	"github.com/msgkit/msgkit/finance"
)

var _ finance.BlobStore = (*Store)(nil)

// CodeStorage is the code of file system failures a caller cannot fix.
const CodeStorage = "storage_error"

// Store is a finance.BlobStore in a directory. It is safe for concurrent
// use, also by several processes sharing the directory; Close it when
// done.
type Store struct {
	root *os.Root
}

// New opens the store in dir, creating dir (mode 0700) and its 256 fan
// directories when missing.
func New(dir string) (*Store, error) {
	if dir == "" {
		return nil, msgkit.New(msgkit.Internal, CodeStorage, "blobfs: no directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, storageError(err, "creating ", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, storageError(err, "opening ", dir)
	}
	created := false
	for i := range 256 {
		fan := fmt.Sprintf("%02x", i)
		err := root.Mkdir(fan, 0o700)
		switch {
		case err == nil:
			created = true
		case errors.Is(err, fs.ErrExist):
			if fi, err := root.Lstat(fan); err != nil || !fi.IsDir() {
				root.Close()
				return nil, storageError(fmt.Errorf("%s is not a directory", fan), "opening ", dir)
			}
		default:
			root.Close()
			return nil, storageError(err, "creating ", filepath.Join(dir, fan))
		}
	}
	s := &Store{root: root}
	if created {
		if err := s.syncDir("."); err != nil {
			root.Close()
			return nil, storageError(err, "syncing ", dir)
		}
	}
	return s, nil
}

// Close releases the directory.
func (s *Store) Close() error { return s.root.Close() }

// path returns the fan directory and the name of key's file.
func path(key string) (fan, name string) {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:1]), strings.ReplaceAll(key, "/", "~")
}

// Put stores everything r yields under key; see the package doc.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return 0, err
	}
	fan, name := path(key)
	final := fan + "/" + name
	// Refuse before reading when the key is taken; the link below is
	// what makes the refusal certain.
	if _, err := s.root.Lstat(final); err == nil {
		return 0, conflict(key)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, storageError(err, "blob ", key)
	}
	f, tmp, err := s.createTemp(fan)
	if err != nil {
		return 0, storageError(err, "blob ", key)
	}
	published := false
	defer func() {
		if !published {
			f.Close()
			s.root.Remove(tmp)
		}
	}()

	src := &source{ctx: ctx, r: r}
	n, err := io.Copy(f, src)
	if err != nil {
		if src.err != nil {
			return 0, fmt.Errorf("blobfs: reading blob %s: %w", key, src.err)
		}
		return 0, storageError(err, "writing blob ", key)
	}
	if err := f.Sync(); err != nil {
		return 0, storageError(err, "syncing blob ", key)
	}
	if err := f.Close(); err != nil {
		return 0, storageError(err, "closing blob ", key)
	}
	if err := s.root.Link(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return 0, conflict(key)
		}
		return 0, storageError(err, "publishing blob ", key)
	}
	published = true
	_ = s.root.Remove(tmp) // a leftover temporary file is never read
	if err := s.syncDir(fan); err != nil {
		// Not known to be durable: take it back, as a failed Put stores
		// nothing.
		_ = s.root.Remove(final)
		return 0, storageError(err, "syncing blob ", key)
	}
	return n, nil
}

// createTemp makes a new file in dir named .tmp-<random>.
func (s *Store) createTemp(dir string) (*os.File, string, error) {
	for range 10 {
		name := dir + "/.tmp-" + rand.Text()
		f, err := s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("no free temporary file name")
}

// syncDir makes the entries of dir durable.
func (s *Store) syncDir(dir string) error {
	d, err := s.root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open returns the blob's file. A reader opened before Delete reads the
// whole blob: the file stays until it is closed.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := finance.CheckBlobKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fan, name := path(key)
	f, err := s.root.Open(fan + "/" + name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notFound(key)
		}
		return nil, storageError(err, "opening blob ", key)
	}
	return f, nil
}

// Delete removes the blob's file.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := finance.CheckBlobKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fan, name := path(key)
	if err := s.root.Remove(fan + "/" + name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return notFound(key)
		}
		return storageError(err, "deleting blob ", key)
	}
	if err := s.syncDir(fan); err != nil {
		return storageError(err, "syncing after deleting blob ", key)
	}
	return nil
}

// source is Put's reader: it stops when ctx ends, and keeps its own
// failure apart from the file system's.
type source struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (s *source) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

func conflict(key string) error { return finance.BlobExists(key) }

func notFound(key string) error { return finance.BlobNotFound(key) }

// storageError is a failure the caller cannot fix: Internal, with a
// generic message; the cause, with paths, is for logs.
func storageError(err error, context ...any) error {
	return msgkit.Wrap(fmt.Errorf("blobfs: %s: %w", fmt.Sprint(context...), err), msgkit.Internal, CodeStorage, "storage error")
}
