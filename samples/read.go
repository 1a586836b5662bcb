package samples

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// ErrUnrecognized is wrapped by Read's error for input in none of the
// formats this package reads; callers branch on it to try other readers.
var ErrUnrecognized = errors.New("not a sampled profile (hprof text or ART profile)")

// FormatError reports malformed input at a line (1-based).
type FormatError struct {
	Format Format
	Line   int
	Msg    string // what was expected or found, lower case
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: line %d: %s", e.Format, e.Line, e.Msg)
}

// Limits that keep hostile input from costing more than its size.
const (
	maxLine  = 1 << 20 // bytes in one line
	maxStack = 1 << 16 // frames in one stack
	sniffLen = 4096    // bytes Read looks at to choose a reader
)

// Sniff says which format a file's first bytes (ideally 4 KiB or more) are,
// gzip-compressed or not. For JVM hprof text it returns JVMHprof, since
// the CPU section that tells samples from times is at the end. For an ART
// profile whose head holds no complete method line it says
// ARTProfileMethod; Read settles the mode from the whole file.
func Sniff(head []byte) (Format, bool) {
	if isGzip(head) {
		head = gunzipHead(head)
	}
	return sniffText(head)
}

// sniffText is Sniff for uncompressed text.
func sniffText(head []byte) (Format, bool) {
	head = bytes.TrimLeft(head, "\ufeff \t\r\n")
	switch {
	case sniffJVM(head):
		return JVMHprof, true
	case sniffHprofBody(head):
		return DalvikHprof, true
	}
	if f := sniffART(head); f != Unknown {
		return f, true
	}
	return Unknown, false
}

// Read decodes a sampled profile in any format Sniff recognises, plain or
// gzip-compressed. Errors about the content are *FormatError; input in no
// known format gives an error wrapping ErrUnrecognized. A file that ends
// inside a CPU section is not an error: Profile.Truncated says so.
func Read(r io.Reader) (*Profile, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := peek(br)
	if err != nil {
		return nil, err
	}
	if isGzip(head) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip header: %w", err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
		if head, err = peek(br); err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
	}
	f, ok := sniffText(head)
	if !ok {
		return nil, fmt.Errorf("%w: the first line is %q", ErrUnrecognized, firstLine(head))
	}
	sc := newLines(br, f)
	switch f {
	case JVMHprof, DalvikHprof:
		return readHprof(sc, f == JVMHprof)
	default:
		return readART(sc)
	}
}

// peek returns up to sniffLen bytes without consuming them.
func peek(br *bufio.Reader) ([]byte, error) {
	head, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	return head, nil
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// gunzipHead decompresses what it can of a gzip stream's first bytes.
func gunzipHead(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(zr, sniffLen))
	return out
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b[:min(len(b), 60)]
}

// lines reads a file line by line, numbering lines from 1 and dropping the
// line ending (\n or \r\n).
type lines struct {
	sc     *bufio.Scanner
	format Format
	n      int    // number of the current line
	raw    []byte // the current line, valid until the next call of next
	err    error
}

func newLines(r io.Reader, f Format) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lines{sc: sc, format: f}
}

// next advances to the next line; false at the end or on an error (err).
func (l *lines) next() bool {
	if !l.sc.Scan() {
		switch err := l.sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			l.n++
			l.err = l.errorf("line longer than %d bytes", maxLine)
		case err != nil:
			l.err = fmt.Errorf("reading line %d: %w", l.n+1, err)
		}
		return false
	}
	l.n++
	b := l.sc.Bytes()
	if l.n == 1 {
		b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte order mark some editors add
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	l.raw = b
	return true
}

// text is the current line as a string.
func (l *lines) text() string { return string(l.raw) }

// errorf makes a FormatError at the current line (or the next, at the end).
func (l *lines) errorf(format string, args ...any) error {
	line := l.n
	if line == 0 {
		line = 1
	}
	return &FormatError{Format: l.format, Line: line, Msg: fmt.Sprintf(format, args...)}
}
