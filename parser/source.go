package parser

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// bufSize is the window records are decoded from. Large enough that the
// largest item other than the streaming summary (a 64 KiB method line) fits.
const bufSize = 256 << 10

// source is a forward-only byte cursor over an io.ReaderAt with one reused
// buffer: the hot loop decodes straight out of buf without copying.
type source struct {
	ra   io.ReaderAt
	size int64  // bytes in the input
	buf  []byte // buf[r:w] holds input bytes starting at offset base+r
	base int64
	r, w int
	err  error // a read error other than EOF
}

// newSource reads ra from off; a size below 0 is unknown (an input still
// being written, NewGrowingFile): ra's io.EOF then says where it ends.
func newSource(ra io.ReaderAt, size, off int64) *source {
	if size < 0 {
		size = math.MaxInt64
	}
	return &source{ra: ra, size: size, buf: make([]byte, bufSize), base: off}
}

// pos returns the offset of the next unread byte.
func (s *source) pos() int64 { return s.base + int64(s.r) }

// peek returns the next n bytes without consuming them. It returns fewer
// only at the end of the input (or on a read error, kept in s.err).
func (s *source) peek(n int) []byte {
	if s.w-s.r >= n {
		return s.buf[s.r : s.r+n]
	}
	s.fill(n)
	if s.w-s.r < n {
		return s.buf[s.r:s.w]
	}
	return s.buf[s.r : s.r+n]
}

// fill moves the unread bytes to the front and reads more.
func (s *source) fill(n int) {
	if n > len(s.buf) {
		nb := make([]byte, n)
		copy(nb, s.buf[s.r:s.w])
		s.buf = nb
	} else {
		copy(s.buf, s.buf[s.r:s.w])
	}
	s.base += int64(s.r)
	s.w -= s.r
	s.r = 0
	for s.w < n && s.err == nil {
		off := s.base + int64(s.w)
		if off >= s.size {
			return
		}
		want := len(s.buf) - s.w
		if rem := s.size - off; int64(want) > rem {
			want = int(rem)
		}
		m, err := s.ra.ReadAt(s.buf[s.w:s.w+want], off)
		s.w += m
		if err != nil && !errors.Is(err, io.EOF) {
			s.err = err
		}
		if m == 0 {
			return
		}
	}
}

// skip consumes n bytes, which may lie beyond the buffer.
func (s *source) skip(n int64) {
	if int64(s.w-s.r) >= n {
		s.r += int(n)
		return
	}
	s.base = s.pos() + n
	s.r, s.w = 0, 0
}

// readAt reads exactly len(b) bytes at off, outside the cursor.
func (s *source) readAt(b []byte, off int64) error {
	if off < 0 || off+int64(len(b)) > s.size {
		return io.ErrUnexpectedEOF
	}
	_, err := s.ra.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// maxLineLen bounds one line of key text; longer lines mean the input is not
// key text at all.
const maxLineLen = 1 << 20

// line returns the next line without its '\n' and consumes it. ok is false
// when the input ends before a '\n' or the line exceeds maxLineLen.
func (s *source) line() (b []byte, ok bool) {
	for n := 4096; ; n *= 2 {
		buf := s.peek(min(n, maxLineLen))
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			s.r += i + 1
			return buf[:i], true
		}
		if len(buf) < n || n >= maxLineLen {
			return buf, false
		}
	}
}
