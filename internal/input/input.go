package input

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/simpleperf"
)

// Arg is one input argument: a trace or sampled profile ("-" for standard
// input), with the .sec key file that followed it, if any.
type Arg struct {
	Path string
	Sec  string
	// Label, when set, names the input in messages and outputs instead of
	// its path: a temporary copy named as what it copies (Opener.Label).
	Label string
}

// Name is how messages refer to the input.
func (a Arg) Name() string {
	if a.Label != "" {
		return a.Label
	}
	if a.Path == "-" {
		return "<stdin>"
	}
	return a.Path
}

// Opener opens the inputs of one run. Standard input and each pipe are
// opened once; Close closes the pipes.
type Opener struct {
	stdin  io.Reader     // as given
	peeked *bufio.Reader // stdin after a peek, when it is not a regular file
	pipes  map[string]*pipe
	labels map[string]string // Label

	// copyFirst and stdGzip take the reference paths (see the package
	// doc), as the build tag atrace2_reference does for every opener:
	// the tests compare the two (TestOverlapEqualsSpool, TestGzipReaders).
	copyFirst, stdGzip bool
}

// Label names the input at path name in messages and outputs (a method
// trace's stream.Trace.Name): record's temporary copy of a trace that went
// to standard output is named as the recording, not by its temporary path.
func (o *Opener) Label(path, name string) {
	if o.labels == nil {
		o.labels = make(map[string]string)
	}
	o.labels[path] = name
}

// NewOpener returns an opener that reads stdin for "-" (nil: os.Stdin).
func NewOpener(stdin io.Reader) *Opener {
	if stdin == nil {
		stdin = os.Stdin
	}
	return &Opener{stdin: stdin}
}

// Close closes the pipes the opener opened.
func (o *Opener) Close() error {
	for name, p := range o.pipes {
		p.f.Close()
		delete(o.pipes, name)
	}
	return nil
}

// SameStream reports whether two inputs read the same pipe or device,
// such as "-" and /dev/stdin, or /dev/stdin twice: the first would read it
// all.
func (o *Opener) SameStream(a, b Arg) bool {
	stat := func(in Arg) os.FileInfo {
		if in.Path != "-" {
			st, _ := os.Stat(in.Path)
			return st
		}
		if f, ok := o.stdin.(*os.File); ok {
			st, _ := f.Stat()
			return st
		}
		return nil
	}
	sa, sb := stat(a), stat(b)
	return sa != nil && sb != nil && !sa.Mode().IsRegular() && os.SameFile(sa, sb)
}

// pipe is a named input that can be read only once: a pipe (bash's
// <(...)), /dev/stdin or another device. It is opened once, and what the
// sniff peeks at stays buffered for the reader that follows.
type pipe struct {
	f *os.File
	r *bufio.Reader
}

// pipe returns the input's pipe when its path names a pipe or a device,
// opening it on first use.
func (o *Opener) pipe(a Arg) (*pipe, bool) {
	if a.Path == "-" {
		return nil, false
	}
	if p, ok := o.pipes[a.Path]; ok {
		return p, true
	}
	st, err := os.Stat(a.Path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil, false // the parser opens it, or says why it cannot
	}
	f, err := os.Open(a.Path)
	if err != nil {
		return nil, false
	}
	p := &pipe{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	if o.pipes == nil {
		o.pipes = make(map[string]*pipe)
	}
	o.pipes[a.Path] = p
	return p, true
}

// regularStdin returns stdin as a file when it is a regular file, which
// can be read at any offset.
func (o *Opener) regularStdin() (*os.File, bool) {
	f, ok := o.stdin.(*os.File)
	if !ok {
		return nil, false
	}
	st, err := f.Stat()
	return f, err == nil && st.Mode().IsRegular()
}

// stdinStream returns standard input for reading it as a stream: after a
// peek, the buffer that holds what was peeked.
func (o *Opener) stdinStream() io.Reader {
	if o.peeked != nil {
		return o.peeked
	}
	return o.stdin
}

// sniffLen is how much of an input the sniff looks at (samples.Sniff wants
// 4 KiB or more).
const sniffLen = 4096

// Source is an input whose kind is known: a method trace, or a sampled
// profile of Format. Nothing but its first bytes has been read.
type Source struct {
	Arg
	// Sampled says the input is a sampled profile (hprof text, Android 5.x
	// ART profile) of Format, read by package samples; else it is read as
	// a method trace.
	Sampled bool
	Format  samples.Format
	// Gzip says a sampled profile is gzip-compressed.
	Gzip bool

	o *Opener
}

// Identify looks at an input's first bytes, without consuming them, and
// says what it is. An input that cannot be opened is a method trace: its
// reader reports why it cannot be read.
func (o *Opener) Identify(a Arg) (*Source, error) {
	head, err := o.head(a)
	if err != nil {
		return nil, err
	}
	if l, ok := o.labels[a.Path]; ok && a.Label == "" {
		a.Label = l
	}
	s := &Source{Arg: a, o: o}
	s.Format, s.Sampled = samples.Sniff(head)
	switch {
	case s.Sampled:
	case pftrace.Sniff(head):
		s.Format, s.Sampled = samples.PerfettoTrace, true
	case simpleperf.Sniff(head):
		s.Format, s.Sampled = samples.SimpleperfProto, true
	}
	s.Gzip = s.Sampled && len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
	return s, nil
}

// head returns up to sniffLen bytes of the input without consuming them.
func (o *Opener) head(a Arg) ([]byte, error) {
	buf := make([]byte, sniffLen)
	if p, ok := o.pipe(a); ok {
		return peekHead(p.r, a)
	}
	if a.Path != "-" {
		f, err := os.Open(a.Path)
		if err != nil {
			return nil, nil
		}
		defer f.Close()
		n, _ := io.ReadFull(f, buf)
		return buf[:n], nil
	}
	if f, ok := o.regularStdin(); ok {
		// The parser reads a regular file from offset 0 with ReadAt; so do we.
		n, _ := f.ReadAt(buf, 0)
		return buf[:n], nil
	}
	if o.peeked == nil {
		o.peeked = bufio.NewReaderSize(o.stdin, 64<<10)
	}
	return peekHead(o.peeked, a)
}

// peekHead returns up to sniffLen bytes of a stream read once, leaving
// them buffered in r for whichever reader comes next.
func peekHead(r *bufio.Reader, a Arg) ([]byte, error) {
	b, err := r.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return b, nil
}

// ReadSampled reads a source that is a sampled profile with its format's
// reader: package samples for the text formats, pftrace and simpleperf
// for the profiles of timed samples, which keep what sel selects (the
// text formats take no selection). It returns the bytes the reader read
// too (of the file as it is, compressed or not), the input's size for
// the stack budget.
func (s *Source) ReadSampled(sel samples.Select) (*samples.Profile, int64, error) {
	read := samples.Read
	switch s.Format {
	case samples.PerfettoTrace:
		read = func(r io.Reader) (*samples.Profile, error) { return pftrace.Read(r, pftrace.Options{Select: sel}) }
	case samples.SimpleperfProto:
		read = func(r io.Reader) (*samples.Profile, error) {
			return simpleperf.Read(r, simpleperf.Options{Select: sel})
		}
	}
	var n int64
	counted := func(r io.Reader) (*samples.Profile, int64, error) {
		p, err := read(&countingReader{r, &n})
		return p, n, err
	}
	o := s.o
	if p, ok := o.pipe(s.Arg); ok {
		return counted(p.r)
	}
	if s.Path == "-" {
		if f, ok := o.regularStdin(); ok {
			st, err := f.Stat()
			if err != nil {
				return nil, 0, err
			}
			return counted(io.NewSectionReader(f, 0, st.Size()))
		}
		return counted(o.stdinStream())
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return counted(f)
}

// countingReader counts the bytes read through it in *n.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// Trace is an opened method trace: the parser's File over the input or
// over its copy.
type Trace struct {
	*parser.File
	d *data
}

// Close releases the input and removes any temporary copy.
func (t *Trace) Close() error {
	err := t.File.Close()
	if derr := t.d.Close(); err == nil {
		err = derr
	}
	return err
}

// OpenTrace opens a source as a method trace, with opt's clock, time unit
// and key file. Standard input that is not a regular file, a pipe, and
// gzip are copied to a temporary file, which the parser reads as it grows
// (see the package's doc). progress, when set, is called now and then
// during a copy, on the copying goroutine, with the bytes of the input
// read so far and its size, or -1 when that is unknown (a pipe). In the
// reference path each copy counts from 0 with its own total: a gzip
// stream on stdin is copied, then decompressed from the copy.
func (s *Source) OpenTrace(opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	t, err := s.openTrace(opt, progress)
	if err == nil && s.Label != "" {
		t.File.Name = s.Label
	}
	return t, err
}

func (s *Source) openTrace(opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	d := &data{progress: progress, copyFirst: reference.Only || s.o.copyFirst, stdGzip: reference.Only || s.o.stdGzip}
	if err := s.o.acquire(s.Arg, d); err != nil {
		d.Close()
		return nil, err
	}
	if d.grow != nil {
		f, err := parser.NewGrowingFile(s.Path, d.grow, opt)
		if err != nil {
			// As if the copy had been made first: its failure comes
			// first, and a damaged stream is the likely cause (below).
			if _, warn := d.grow.End(); d.grow.failure() != nil {
				err = d.grow.failure()
			} else if warn != "" {
				err = fmt.Errorf("%w (%s)", err, warn)
			}
			d.Close()
			return nil, err
		}
		f.Header.Compressed = d.compressed
		return &Trace{File: f, d: d}, nil
	}
	if d.ra == nil { // a file the parser opens itself: a pair, or an error to report
		f, err := parser.Open(s.Path, opt)
		if err != nil {
			return nil, err
		}
		return &Trace{File: f, d: d}, nil
	}
	f, err := parser.NewFile(s.Path, d.ra, d.size, opt)
	if err != nil {
		d.Close()
		if d.gzipWarn != "" { // the likely cause, which no one would see
			err = fmt.Errorf("%w (%s)", err, d.gzipWarn)
		}
		return nil, err
	}
	f.Header.Compressed = d.compressed
	if d.gzipWarn != "" {
		f.Header.Warnings = append([]string{d.gzipWarn}, f.Header.Warnings...)
	}
	return &Trace{File: f, d: d}, nil
}

// acquire makes an input readable at any offset in d: a regular file as
// it is, anything else copied, gzip decompressed. It leaves d.ra nil for
// the parser to open: a NAME.key/NAME.data pair, or a path it cannot read
// (whose error the parser reports).
func (o *Opener) acquire(a Arg, d *data) error {
	if p, ok := o.pipe(a); ok {
		return d.stream(p.r)
	}
	if a.Path == "-" {
		if f, ok := o.regularStdin(); ok {
			if st, err := f.Stat(); err == nil {
				d.ra, d.size = f, st.Size()
				return d.maybeGunzip()
			}
		}
		return d.stream(o.stdinStream())
	}
	if _, _, ok := parser.PairFiles(a.Path); ok {
		return nil
	}
	f, err := os.Open(a.Path)
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil
	}
	d.close = append(d.close, f.Close)
	d.ra, d.size = f, st.Size()
	return d.maybeGunzip()
}

// DescribeSampledFormat names a sampled format in messages: "a JVM hprof
// text profile".
func DescribeSampledFormat(f samples.Format) string {
	switch f {
	case samples.DalvikHprof:
		return "a Dalvik SamplingProfiler (ASCII hprof) profile"
	case samples.JVMHprof, samples.JVMHprofSamples, samples.JVMHprofTimes:
		return "a JVM hprof text profile"
	case samples.PerfettoTrace:
		return "a Perfetto trace of CPU stack samples"
	case samples.SimpleperfProto:
		return "a simpleperf profile"
	}
	return "an Android 5.x ART profile"
}
