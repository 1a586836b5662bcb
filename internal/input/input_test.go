package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// openStdin opens stdin as a method trace, as a run does with "-".
func openStdin(stdin io.Reader, opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	return openStdinWith(NewOpener(stdin), opt, progress)
}

// openStdinWith opens o's standard input as a method trace, o set by the
// caller (its reference paths).
func openStdinWith(o *Opener, opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	defer o.Close()
	src, err := o.Identify(Arg{Path: "-"})
	if err != nil {
		return nil, err
	}
	return src.OpenTrace(opt, progress)
}

// openPath opens a named input as a method trace.
func openPath(path string, opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	return openPathWith(NewOpener(nil), path, opt, progress)
}

// openPathWith opens a named input with o, set by the caller.
func openPathWith(o *Opener, path string, opt parser.Options, progress func(done, total int64)) (*Trace, error) {
	defer o.Close()
	src, err := o.Identify(Arg{Path: path})
	if err != nil {
		return nil, err
	}
	return src.OpenTrace(opt, progress)
}

func drain(f *parser.File) ([]parser.Record, error) {
	var evs []parser.Record
	r := f.NewReader()
	var ev parser.Record
	for {
		err := r.ReadRecord(&ev)
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		ev.Offset = 0 // offsets differ between variants
		evs = append(evs, ev)
	}
}

// plainRecords is what the parser reads from data held in memory: the
// reference for what comes through a copy or a decompression.
func plainRecords(t *testing.T, data []byte) []parser.Record {
	t.Helper()
	f, err := parser.NewFile("test.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := drain(f)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStdin(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	for name, data := range map[string][]byte{"plain": tr.Regular(), "gzip": tracegen.Gzip(tr.Regular())} {
		f, err := openStdin(io.MultiReader(bytes.NewReader(data)), parser.Options{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := drain(f.File)
		f.Close()
		if err != nil || !slices.Equal(got, plainRecords(t, tr.Regular())) {
			t.Errorf("%s: err %v events %v", name, err, got)
		}
	}
}

// TestGzipVariants: random traces, regular and streaming, read through
// gzip (from a file and from stdin) give the header and the records the
// parser reads from the plain bytes, and say they were compressed.
func TestGzipVariants(t *testing.T) {
	regular := func(tr *tracegen.Trace) []byte { return tr.Regular() }
	streaming := func(tr *tracegen.Trace) []byte { return tr.Streaming(tracegen.StreamOptions{SummaryThreads: true}) }
	dir := t.TempDir()
	for name, write := range map[string]func(*tracegen.Trace) []byte{"v3-gzip": regular, "streaming-v3-gzip": streaming} {
		rng := rand.New(rand.NewPCG(1, 3))
		for i := range 40 {
			plain := write(tracegen.Random(rng, 3, "dual"))
			want := plainRecords(t, plain)
			pf, err := parser.NewFile("test.trace", bytes.NewReader(plain), int64(len(plain)), parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("%s/%s-%d.trace", dir, name, i)
			if err := os.WriteFile(path, tracegen.Gzip(plain), 0o644); err != nil {
				t.Fatal(err)
			}
			for how, open := range map[string]func() (*Trace, error){
				"file":  func() (*Trace, error) { return openPath(path, parser.Options{}, nil) },
				"stdin": func() (*Trace, error) { return openStdin(bytes.NewReader(tracegen.Gzip(plain)), parser.Options{}, nil) },
			} {
				f, err := open()
				if err != nil {
					t.Fatalf("%s %d %s: %v", name, i, how, err)
				}
				got, err := drain(f.File)
				h := f.Header
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("%s %d %s: records differ (%v)", name, i, how, err)
				}
				if !h.Compressed || h.Variant != pf.Header.Variant || h.Clock != pf.Header.Clock || h.Records != pf.Header.Records || h.LostBytes != 0 {
					t.Fatalf("%s %d %s: header %+v, want that of the plain trace, compressed", name, i, how, h)
				}
				f.Close()
			}
			pf.Close()
		}
	}
}

// TestGzipNotATrace: what is not a trace is named after decompression:
// a gzipped pprof profile is a pprof profile.
func TestGzipNotATrace(t *testing.T) {
	pprofGz := tracegen.Gzip([]byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, 0x00})
	_, err := openStdin(bytes.NewReader(pprofGz), parser.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), "pprof profile") || !errors.Is(err, parser.ErrNotMethodTrace) {
		t.Errorf("gzipped pprof: %v, want a pprof profile, not a method trace", err)
	}
}

// TestGzipReaders ties the fast gzip reader to the reference: a whole
// trace decompresses to the same records, header and warnings with
// either. A stream cut short yields the warning with both, but how much
// comes out before the cut depends on the reader's buffering.
func TestGzipReaders(t *testing.T) {
	if reference.Only {
		t.Skip("the build tag atrace2_reference reads gzip with compress/gzip only")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 20 {
		gz := tracegen.Gzip(tracegen.Random(rng, 3, "dual").Regular())
		if i%2 == 1 {
			gz = gz[:len(gz)*3/4]
		}
		var got [2]string
		for j, fast := range []bool{true, false} {
			o := NewOpener(bytes.NewReader(gz))
			o.stdGzip = !fast
			f, err := openStdinWith(o, parser.Options{}, nil)
			if err != nil {
				got[j] = "error: " + err.Error()
				continue
			}
			evs, err := drain(f.File)
			got[j] = fmt.Sprintf("%v %v %d %q %v", evs, err, f.Header.Records, f.Header.Warnings, f.Header.Compressed)
			f.Close()
		}
		if i%2 == 1 {
			for j := range got {
				if !strings.Contains(got[j], "gzip stream is damaged or cut short") {
					t.Fatalf("trace %d cut short, reader %d: no warning: %s", i, j, got[j])
				}
			}
			continue
		}
		if got[0] != got[1] {
			t.Fatalf("trace %d: klauspost gives\n%s\ncompress/gzip gives\n%s", i, got[0], got[1])
		}
	}
}
