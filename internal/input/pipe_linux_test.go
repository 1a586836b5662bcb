package input

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// TestOpenNamedPipe: a path that names a pipe (bash's <(...)) is copied
// like stdin, not taken for an empty file; so is a stream on stdin.
func TestOpenNamedPipe(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	for name, data := range map[string][]byte{"plain": tr.Regular(), "gzip": tracegen.Gzip(tr.Regular())} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
		go func() { w.Write(data); w.Close() }()
		if _, err := os.Stat(path); os.IsNotExist(err) {
			t.Skipf("no /proc/self/fd here: %v", err)
		}
		for how, open := range map[string]func() (*Trace, error){
			"by name":  func() (*Trace, error) { return openPath(path, parser.Options{}, nil) },
			"as stdin": func() (*Trace, error) { return openStdin(bytes.NewReader(data), parser.Options{}, nil) },
		} {
			f, err := open()
			if err != nil {
				t.Fatalf("%s %s: %v", name, how, err)
			}
			got, err := drain(f.File)
			f.Close()
			if err != nil || !slices.Equal(got, plainRecords(t, tr.Regular())) {
				t.Errorf("%s %s: err %v events %v", name, how, err, got)
			}
		}
		r.Close()
	}
}

// TestSpoolLeavesNoFile: the copy of a pipe or of a gzip input has no name
// even while it is open, so a killed run leaves nothing in TMPDIR.
func TestSpoolLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	data := tracegen.Gzip(tracegen.Small(3, "dual", "art").Regular())
	f, err := openStdin(bytes.NewReader(data), parser.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the open spool is visible in TMPDIR: %v", entries)
	}
	if _, err := drain(f.File); err != nil {
		t.Error(err)
	}
}

// zeros is an endless stream of zero bytes, as /dev/zero, that counts what
// was read and ends after 64 MiB, so that a failing test cannot fill the
// disk.
type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n >= 64<<20 {
		return 0, io.EOF
	}
	clear(p)
	z.n += len(p)
	return len(p), nil
}

// TestSpoolChecksTheStart: input that cannot start a trace is refused
// before it is copied: /dev/zero used to be copied until the disk was full.
func TestSpoolChecksTheStart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1000)...)
	z := &zeros{}
	for _, c := range []struct {
		name string
		open func() (*Trace, error)
		want string
	}{
		{"zeros", func() (*Trace, error) { return openStdin(z, parser.Options{}, nil) }, "unrecognised data"},
		{"PNG on stdin", func() (*Trace, error) { return openStdin(bytes.NewReader(png), parser.Options{}, nil) }, "a PNG image"},
		{"gzip PNG", func() (*Trace, error) {
			return openStdin(bytes.NewReader(tracegen.Gzip(png)), parser.Options{}, nil)
		}, "a PNG image"},
		{"empty", func() (*Trace, error) { return openStdin(bytes.NewReader(nil), parser.Options{}, nil) }, "empty file"},
	} {
		f, err := c.open()
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if z.n > 1<<20 {
		t.Errorf("%d zero bytes were read before the refusal", z.n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
}

// TestSpoolProgress: copying standard input reports its bytes with an
// unknown total; decompressing a gzip file reports its compressed bytes
// against the file's size, up to the whole file.
func TestSpoolProgress(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	// Records that do not compress, past the 1 MiB between reports.
	noise := make([]byte, 3<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	raw := append(append([]byte{}, tr.Regular()...), noise...)
	gz := tracegen.Gzip(raw)
	path := filepath.Join(t.TempDir(), "app.trace.gz")
	if err := os.WriteFile(path, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		open        func(func(done, total int64)) (*Trace, error)
		done, total int64
	}{
		{"stdin", func(p func(done, total int64)) (*Trace, error) {
			return openStdin(bytes.NewReader(raw), parser.Options{}, p)
		}, int64(len(raw)), -1},
		{"gzip file", func(p func(done, total int64)) (*Trace, error) { return openPath(path, parser.Options{}, p) }, int64(len(gz)), int64(len(gz))},
	} {
		var calls int
		var last, total int64 = -1, 0
		f, err := c.open(func(done, tot int64) {
			if done < last {
				t.Errorf("%s: progress went back from %d to %d", c.name, last, done)
			}
			calls, last, total = calls+1, done, tot
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// A gzip stream read as it grows is decompressed while the
		// records are read.
		if _, err := drain(f.File); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f.Close()
		if calls < 2 || last != c.done || total != c.total {
			t.Errorf("%s: %d reports, the last %d of %d; want several, the last %d of %d", c.name, calls, last, total, c.done, c.total)
		}
	}
}

// TestGzipFailures: a gzip input whose copy cannot be made fails at once
// (it recursed forever when TMPDIR was not writable); gzip nested without
// end stops; and a trace that fails to parse after a damaged gzip stream
// says so, instead of only "empty file".
func TestGzipFailures(t *testing.T) {
	dir := t.TempDir()
	trace := tracegen.Small(3, "dual", "art").Regular()
	gz := filepath.Join(dir, "app.trace.gz")
	write(t, gz, tracegen.Gzip(trace))
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	if _, err := openPath(gz, parser.Options{}, nil); err == nil || !strings.Contains(err.Error(), "temporary file") {
		t.Errorf("unwritable TMPDIR: %v, want an error about the temporary file", err)
	}
	t.Setenv("TMPDIR", dir)
	nested := trace
	for range 6 {
		nested = tracegen.Gzip(nested)
	}
	write(t, gz, nested)
	if _, err := openPath(gz, parser.Options{}, nil); err == nil || !strings.Contains(err.Error(), "layers of gzip") {
		t.Errorf("6 layers of gzip: %v", err)
	}
	// A damaged inner layer inside an intact outer one: the warning of
	// the inner layer stays.
	inner := tracegen.Gzip(trace)
	write(t, gz, tracegen.Gzip(inner[:len(inner)-20]))
	f, err := openPath(gz, parser.Options{}, nil)
	if err != nil {
		t.Fatalf("gzip of a cut gzip: %v", err)
	}
	if w := strings.Join(f.Header.Warnings, "; "); !strings.Contains(w, "gzip stream is damaged") {
		t.Errorf("gzip of a cut gzip: warnings %q, want the inner layer's", w)
	}
	f.Close()
	write(t, gz, tracegen.Gzip(trace)[:30])
	if _, err := openPath(gz, parser.Options{}, nil); err == nil || !strings.Contains(err.Error(), "gzip stream is damaged or cut short") {
		t.Errorf("gzip cut at 30 bytes: %v, want the gzip warning in the error", err)
	}
}

// openSpools counts this process's open descriptors of unlinked spool
// files.
func openSpools(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if strings.Contains(target, "atrace2-") && strings.HasSuffix(target, " (deleted)") {
			n++
		}
	}
	return n
}

// TestSpoolLimit: a copy that would pass ATRACE2_SPOOL_LIMIT (an endless
// stream used to fill $TMPDIR) stops with an error that names the limit,
// for a stream on stdin and for the decompressed copy of gzip, and leaves
// no file in TMPDIR and no open copy; an input of exactly the limit is
// copied.
func TestSpoolLimit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	trace := tracegen.Small(3, "dual", "art").Regular()
	before := openSpools(t)
	endless := func() io.Reader { return io.MultiReader(bytes.NewReader(trace), &zeros{}) }
	t.Setenv(spoolLimitEnv, "1M")
	for name, r := range map[string]func() io.Reader{
		"stdin": endless,
		"gzip stdin": func() io.Reader {
			b, _ := io.ReadAll(io.LimitReader(endless(), 3<<20))
			return bytes.NewReader(tracegen.Gzip(b))
		},
	} {
		// A copy read as it grows meets the limit while the records
		// are read, with the same message.
		f, err := openStdin(r(), parser.Options{}, nil)
		if err == nil && !reference.Only {
			_, err = drain(f.File)
			f.Close()
		}
		if err == nil {
			f.Close()
			t.Errorf("%s: opened", name)
			continue
		}
		if want := "copying the input to a temporary file: more than 1 MiB, the limit ATRACE2_SPOOL_LIMIT sets"; err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: left in TMPDIR: %v", name, entries)
		}
		if n := openSpools(t); n != before {
			t.Errorf("%s: %d spool files left open", name, n-before)
		}
	}
	t.Setenv(spoolLimitEnv, strconv.Itoa(len(trace)))
	// Opened and read: a copy read as it grows meets the limit while the
	// records are read.
	openRead := func() error {
		f, err := openStdin(bytes.NewReader(trace), parser.Options{}, nil)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = drain(f.File)
		return err
	}
	if err := openRead(); err != nil {
		t.Fatalf("a trace of exactly the limit: %v", err)
	}
	t.Setenv(spoolLimitEnv, strconv.Itoa(len(trace)-1))
	if err := openRead(); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a trace one byte over the limit: %v", err)
	}
}

func TestSpoolLimitValues(t *testing.T) {
	for v, want := range map[string]int64{"": defaultSpoolLimit, "1500": 1500, "2k": 2048, "3M": 3 << 20, "64G": 64 << 30, "1T": 1 << 40} {
		t.Setenv(spoolLimitEnv, v)
		if got, err := spoolLimit(); got != want || err != nil {
			t.Errorf("%q: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-1", "1.5G", "10GB", "G", "x", "9999999999T"} {
		t.Setenv(spoolLimitEnv, v)
		if _, err := spoolLimit(); err == nil || !strings.Contains(err.Error(), "ATRACE2_SPOOL_LIMIT") {
			t.Errorf("%q: %v, want an error", v, err)
		}
	}
	if got := formatSize(64 << 30); got != "64 GiB" {
		t.Errorf("formatSize(64 GiB) = %q", got)
	}
}
