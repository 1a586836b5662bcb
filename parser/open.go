package parser

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// Options adjust how a trace is read.
type Options struct {
	// Clock is the clock the caller will show (--clock). A file is read
	// with every time it records, and Clock must be among them: a
	// ClockError otherwise. It is also the clock of a file that does not
	// state one (a streaming or ART V2 file without its summary), whose
	// clock is otherwise guessed (from the record size, or the threads'
	// first times): a Clock that is not among the guessed one's times
	// replaces it. Either way it silences the warnings about the guess
	// and about a two-time layout read for one of its times.
	Clock Clock
	// TimeUnit overrides the unit of an ART V2 trace's times
	// (time.Microsecond or time.Nanosecond). By default it is read from the
	// summary (elapsed-time-usec or elapsed-time-nsec) and, when the summary
	// is missing, guessed from the size of the time deltas. Legacy traces
	// always count µs and ignore it.
	TimeUnit time.Duration
	// KeyFile names a file holding the key text: the .sec file Android 6-7
	// wrote beside a streaming trace. By default NAME.sec is used when the
	// summary is missing and that file exists.
	KeyFile string
	// SkipStreamingScan lets a streaming file be read once instead of
	// twice. By default Open walks a streaming file's records to collect
	// the method and thread definitions written between them. With this
	// set, when the summary closes the file (recent ART; docs/formats.md §8.2),
	// Open reads only the summary, and the definitions come with the
	// records: the Reader adds them to the Header as it meets them, and
	// Reader.Definitions reports where. The first Reader to reach the end
	// sets Header.Records, DataEnd and LostBytes (Reader.Records and
	// LostBytes give them too), and later ones report no definitions;
	// until then, use one Reader at a time. A file without that summary, or with a KeyFile, is scanned as
	// before. Files ART does not write can read differently: a record that
	// runs into the summary is lost bytes (a scan reads on and misses the
	// summary), and with a second summary before the last the records stop
	// at the first, as in a scan, but the clock is the last one's.
	SkipStreamingScan bool
}

// File is an opened trace: its header, and the records, which can be read
// any number of times with NewReader.
type File struct {
	Name   string  // as given to Open or NewFile
	Header *Header // tables and layout, complete before any record is read (but see Options.SkipStreamingScan)
	ra     io.ReaderAt
	size   int64
	close  []func() error

	pair bool // a NAME.key/NAME.data pair

	// grow is an input still being written (NewGrowingFile), until its
	// size is known: size is -1 until then.
	grow Growing
}

// Size returns the number of bytes of the input: -1 for an input still
// being written (NewGrowingFile) until its first Reader reaches the end.
func (f *File) Size() int64 { return f.size }

// Close closes the files Open opened.
func (f *File) Close() error {
	var errs []error
	for i := len(f.close) - 1; i >= 0; i-- {
		errs = append(errs, f.close[i]())
	}
	return errors.Join(errs...)
}

// Open opens a trace file by name: a regular file, either half of a
// NAME.key/NAME.data pair or its base name. Input that is not a regular
// file (standard input, a pipe) or is compressed is the caller's to make
// readable at any offset, and to pass to NewFile (cmd/atrace2 does it in
// internal/input).
func Open(name string, opt Options) (*File, error) {
	f := &File{Name: name}
	if err := f.openInput(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.parse(opt); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// NewFile reads a trace held by ra (size bytes), for example a
// bytes.Reader or a copy of standard input; name is used in messages and
// to find a NAME.sec key file. Close does not close ra.
func NewFile(name string, ra io.ReaderAt, size int64, opt Options) (*File, error) {
	f := &File{Name: name, ra: ra, size: size}
	if err := f.parse(opt); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Growing is an input still being written while it is read: a gzip
// stream that internal/input decompresses on a goroutine of its own.
// ReadAt waits until the bytes it is asked for are written, and returns
// io.EOF for bytes past the end once the writing has ended. End waits
// until then and returns the input's size, and a warning ("" if none)
// when the writing stopped early (a damaged gzip stream): the input ends
// where it stopped.
type Growing interface {
	io.ReaderAt
	End() (size int64, warning string)
}

// NewGrowingFile reads a trace that is still being written, such as a
// gzip stream being decompressed, so that its records can be read while
// the rest is written. A regular trace (key text, then records of version
// 1 to 3) opens as soon as its key text and its first record are in; its
// Size is -1, and Header.Records, DataEnd and LostBytes are unset, until
// the first Reader reaches the end, which sets them (use one Reader at a
// time until then). Every other variant (streaming, whose summary is at
// the end; ART V2; a damaged start) opens once the input is complete,
// as with NewFile. A warning from End comes first in Header.Warnings.
func NewGrowingFile(name string, g Growing, opt Options) (*File, error) {
	f := &File{Name: name, ra: g, size: -1, grow: g}
	if err := f.parse(opt); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// complete waits for the end of a growing input and reads it from then on
// as one of known size.
func (f *File) complete(s *source) {
	if f.grow == nil {
		return
	}
	size, warn := f.grow.End()
	f.size, f.grow = size, nil
	if s != nil {
		s.size = size
	}
	if warn != "" {
		f.Header.Warnings = append([]string{warn}, f.Header.Warnings...)
	}
}

func (f *File) openInput() error {
	if key, data, ok := splitPair(f.Name); ok {
		return f.openPair(key, data)
	}
	of, err := os.Open(f.Name)
	if err != nil {
		return err
	}
	f.close = append(f.close, of.Close)
	st, err := of.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return &notTraceError{"a directory (an Apple Instruments .trace bundle opens in Xcode's Instruments)"}
	}
	if !st.Mode().IsRegular() {
		return &notTraceError{"not a regular file: a pipe or device can be read only once (copy it to a file first)"}
	}
	f.ra, f.size = of, st.Size()
	return nil
}

// PairFiles reports whether Open reads name as a pre-1.0 NAME.key +
// NAME.data pair (docs/formats.md §9), and names the two files.
func PairFiles(name string) (key, data string, ok bool) { return splitPair(name) }

// Sources lists the files Open reads for name: the file itself, or both
// halves of a NAME.key/NAME.data pair, and a NAME.sec key file beside it.
// A caller writing files can so make sure it never writes over one.
func Sources(name string) []string {
	if name == "-" {
		return nil
	}
	var out []string
	if key, data, ok := splitPair(name); ok {
		out = append(out, key, data)
	} else {
		out = append(out, name)
	}
	if exists(name + ".sec") {
		out = append(out, name+".sec")
	}
	return out
}

// splitPair recognises the pre-1.0 NAME.key + NAME.data pair (docs/formats.md §9):
// either file's name, or the base name when no file of that name exists.
func splitPair(name string) (key, data string, ok bool) {
	base := name
	switch {
	case strings.HasSuffix(name, ".key"):
		base = strings.TrimSuffix(name, ".key")
	case strings.HasSuffix(name, ".data"):
		base = strings.TrimSuffix(name, ".data")
	default:
		if exists(name) {
			return "", "", false
		}
	}
	key, data = base+".key", base+".data"
	return key, data, exists(key) && exists(data)
}

func exists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// openPair reads NAME.key and NAME.data as if they were one file.
func (f *File) openPair(key, data string) error {
	var parts []io.ReaderAt
	var sizes []int64
	for _, name := range []string{key, data} {
		of, err := os.Open(name)
		if err != nil {
			return err
		}
		f.close = append(f.close, of.Close)
		st, err := of.Stat()
		if err != nil {
			return err
		}
		parts, sizes = append(parts, of), append(sizes, st.Size())
	}
	f.ra = &concatReaderAt{parts: parts, sizes: sizes}
	f.size = sizes[0] + sizes[1]
	f.pair = true
	return nil
}

// concatReaderAt reads several ReaderAts as one.
type concatReaderAt struct {
	parts []io.ReaderAt
	sizes []int64
}

func (c *concatReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for i, p := range c.parts {
		if len(b) == 0 {
			break
		}
		if off >= c.sizes[i] {
			off -= c.sizes[i]
			continue
		}
		m := int(min(int64(len(b)), c.sizes[i]-off))
		k, err := p.ReadAt(b[:m], off)
		n += k
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		if k < m {
			return n, io.ErrUnexpectedEOF
		}
		b, off = b[m:], 0
	}
	if len(b) > 0 {
		return n, io.EOF
	}
	return n, nil
}

const emptyFile = "empty file: expected an Android method trace (key text starting with *version, or SLOW)"

// parse reads the key text and the data header and, for streaming files,
// scans the items for definitions and the summary.
func (f *File) parse(opt Options) error {
	h := &Header{}
	f.Header = h
	s := newSource(f.ra, f.size, 0)
	head := s.peek(64)
	if len(head) == 0 || head[0] != '*' {
		f.complete(s) // only a regular trace is read as it grows
		head = s.peek(64)
	}
	if len(head) == 0 && s.err != nil {
		return s.err // not empty: unreadable
	}
	switch {
	case len(head) == 0:
		return formatErr(0, emptyFile)
	case head[0] == '*':
		return f.parseRegular(s, h, opt)
	case bytes.HasPrefix(head, []byte("SLOW")):
		return f.parseSLOW(s, h, opt)
	case isV2MethodPacket(s):
		return f.parseV2Hybrid(s, h, opt)
	}
	return identify(head)
}
