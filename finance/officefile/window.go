package officefile

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// The windows a Window keeps of a stream: the head holds a compound
// file's header (512 or 4096 bytes); the tail holds a ZIP's end records
// and central directory, which archive/zip reads (its search for the end
// record alone reads the last 65 KiB).
const (
	HeadWindow = 4 << 10
	TailWindow = 128 << 10
)

// ReadBackPasses bounds what checking a compound file reads back, in
// multiples of its size: its FAT and its directory are each read in one
// forward pass, after at most one more for the DIFAT sector.
const ReadBackPasses = 4

// ErrTooScattered is a Reader's error for a file whose structure would
// take more reading back than its budget, or lies outside the windows
// when it has none.
var ErrTooScattered = errors.New("its structure is too large or too scattered")

// Window keeps the first HeadWindow and the last TailWindow bytes of a
// stream written to it, so that a file can be checked after it streamed
// by without holding it whole.
type Window struct {
	head []byte
	tail ring
}

// NewWindow returns an empty Window.
func NewWindow() *Window {
	return &Window{head: make([]byte, 0, HeadWindow), tail: ring{buf: make([]byte, TailWindow)}}
}

// Write keeps what falls in the windows of p, the stream's next bytes.
func (w *Window) Write(p []byte) {
	if room := cap(w.head) - len(w.head); room > 0 {
		w.head = append(w.head, p[:min(len(p), room)]...)
	}
	w.tail.write(p)
}

// ReaderAt reads the stream of size bytes that went through w at
// offsets, for archive/zip and the compound file checks: from the
// windows, otherwise (within budget bytes; 0 for none) by reading the
// stream again from open, forward, opening it again only to go back. w
// is done with afterwards. The caller closes the Reader.
func (w *Window) ReaderAt(size int64, open func() (io.ReadCloser, error), budget int64) *Reader {
	return &Reader{size: size, head: w.head, tail: w.tail.bytes(), open: open, budget: budget}
}

// Reader is a stream read at offsets (see Window.ReaderAt). Its first
// failure is kept (Err), so that a caller tells the failures of reading
// back (ErrTooScattered, or open's) from the file's.
type Reader struct {
	size   int64
	head   []byte // bytes [0, len(head))
	tail   []byte // bytes [size-len(tail), size)
	open   func() (io.ReadCloser, error)
	budget int64 // bytes it may still read through open
	rc     io.ReadCloser
	pos    int64 // rc's offset
	err    error
}

// Err is the Reader's first failure of reading back, or nil.
func (b *Reader) Err() error { return b.err }

// ReadAt implements io.ReaderAt.
func (b *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= b.size {
		return 0, io.EOF
	}
	want := p[:min(int64(len(p)), b.size-off)]
	end := off + int64(len(want))
	switch tailOff := b.size - int64(len(b.tail)); {
	case end <= int64(len(b.head)):
		copy(want, b.head[off:])
	case off >= tailOff:
		copy(want, b.tail[off-tailOff:])
	case off < int64(len(b.head)) && tailOff <= int64(len(b.head)):
		// The windows meet: the head's part, then the tail's.
		n := copy(want, b.head[off:])
		copy(want[n:], b.tail[int64(len(b.head))-tailOff:])
	default:
		if err := b.readBack(want, off); err != nil {
			return 0, err
		}
	}
	if len(want) < len(p) {
		return len(want), io.EOF
	}
	return len(p), nil
}

func (b *Reader) readBack(p []byte, off int64) error {
	if b.err != nil {
		return b.err
	}
	reopen := b.rc == nil || off < b.pos
	pos := b.pos
	if reopen {
		pos = 0
	}
	// What the read costs is known before anything is opened.
	need := off - pos + int64(len(p))
	if need > b.budget {
		b.err = ErrTooScattered
		return b.err
	}
	if reopen {
		b.Close()
		rc, err := b.open()
		if err != nil {
			b.err = err
			return err
		}
		b.rc, b.pos = rc, 0
	}
	b.budget -= need
	if _, err := io.CopyN(io.Discard, b.rc, off-b.pos); err != nil {
		b.err = fmt.Errorf("reading the stored file back: %w", err)
		return b.err
	}
	if _, err := io.ReadFull(b.rc, p); err != nil {
		b.err = fmt.Errorf("reading the stored file back: %w", err)
		return b.err
	}
	b.pos = off + int64(len(p))
	return nil
}

// Close closes the stream it opened to read back, if any.
func (b *Reader) Close() {
	if b.rc != nil {
		_ = b.rc.Close() // read only
		b.rc = nil
	}
}

// ring keeps the last len(buf) bytes written to it.
type ring struct {
	buf  []byte
	pos  int
	full bool
}

func (r *ring) write(p []byte) {
	if len(r.buf) == 0 || len(p) == 0 {
		return
	}
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.pos, r.full = 0, true
		return
	}
	n := copy(r.buf[r.pos:], p)
	if n < len(p) {
		r.pos, r.full = copy(r.buf, p[n:]), true
		return
	}
	r.pos += n
	if r.pos == len(r.buf) {
		r.pos, r.full = 0, true
	}
}

// bytes returns the kept bytes in order, rotating them in place; the
// ring is done with afterwards.
func (r *ring) bytes() []byte {
	if !r.full {
		return r.buf[:r.pos]
	}
	slices.Reverse(r.buf[:r.pos])
	slices.Reverse(r.buf[r.pos:])
	slices.Reverse(r.buf)
	r.pos = 0
	return r.buf
}
