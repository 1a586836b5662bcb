package parser_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// countingReaderAt counts the bytes read from it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// TestSummaryNotReadWhole: a streaming summary item whose length reaches
// far past its *end line, so that it is not found at the end of the file,
// is parsed up to that line: the rest of the item is not read (it was read
// whole, 425 MB of memory for a 400 MB file).
func TestSummaryNotReadWhole(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	data := tr.Streaming(tracegen.StreamOptions{NoSummary: true})
	key := "*version\n3\nclock=wall\n*threads\n*methods\n*end\n"
	const pad = 16 << 20
	data = append(data, 0, 0, 3)
	data = binary.LittleEndian.AppendUint32(data, uint32(len(key)+pad))
	data = append(data, key...)
	data = append(data, make([]byte, pad)...)
	for _, opt := range []parser.Options{{}, {SkipStreamingScan: true}} {
		ra := &countingReaderAt{r: bytes.NewReader(data)}
		f, err := parser.NewFile("test.trace", ra, int64(len(data)), opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if h := f.Header; !h.HasSummary || h.Clock != parser.ClockWall {
			t.Errorf("%+v: summary %v clock %v, want the summary's wall clock", opt, h.HasSummary, h.Clock)
		}
		f.Close()
		if n := ra.n.Load(); n > 2<<20 {
			t.Errorf("%+v: %d bytes read to open a file whose summary has %d bytes of padding", opt, n, pad)
		}
	}
}

// TestKeyTextLimits: key text is refused, in one line, when a line is
// longer than any key's, when it runs on past MaxKeyText without an *end
// line, or when it has more key=value lines than any key.
func TestKeyTextLimits(t *testing.T) {
	tr := tracegen.Small(2, "thread-cpu", "art")
	dir := t.TempDir()
	path := filepath.Join(dir, "app.trace")
	write(t, path, tr.Streaming(tracegen.StreamOptions{NoSummary: true}))
	lines := func(n int, line string) []byte { return []byte("*version\n2\n" + strings.Repeat(line, n)) }
	for _, c := range []struct {
		name, want string
		sec        []byte
	}{
		{"zeros", "longer than 1048576 bytes", make([]byte, 3<<20)},
		{"endless", "more than 64 MiB of key text without an *end line", lines(parser.MaxKeyText/1024+1, "*x\n"+strings.Repeat("y", 1020)+"\n")},
		{"options", "more than 4096 key=value lines", lines(5000, "a=b\n")},
	} {
		write(t, path+".sec", c.sec)
		_, err := parser.Open(path, parser.Options{KeyFile: path + ".sec"})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line saying %q", c.name, err, c.want)
		}
	}
	// At the limit, with *end, the key file is read.
	sec := append(lines(4095, "a=b\n"), "clock=thread-cpu\n*end\n"...)
	sec = append(sec, make([]byte, 3<<20)...) // ignored after *end
	write(t, path+".sec", sec)
	f, err := parser.Open(path, parser.Options{KeyFile: path + ".sec"})
	if err != nil {
		t.Fatalf("4096 options: %v", err)
	}
	f.Close()
}

// TestKeyFileDevZero: a .sec argument that is /dev/zero fails at once.
func TestKeyFileDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	path := filepath.Join(t.TempDir(), "app.trace")
	write(t, path, tracegen.Small(2, "thread-cpu", "art").Streaming(tracegen.StreamOptions{NoSummary: true}))
	_, err := parser.Open(path, parser.Options{KeyFile: "/dev/zero"})
	if err == nil || !strings.Contains(err.Error(), "/dev/zero: offset 0 (0x0): key file: expected key text, found a line longer") {
		t.Errorf("/dev/zero: %v", err)
	}
}

// TestElapsed: the key's elapsed time, in µs or ns; a malformed or
// overflowing value is none.
func TestElapsed(t *testing.T) {
	for _, c := range []struct {
		opts []parser.Option
		ns   int64
		from string
	}{
		{nil, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "22620000"}}, 22620000000, "elapsed-time-usec"},
		{[]parser.Option{{Key: "elapsed-time-nsec", Value: "1500"}}, 1500, "elapsed-time-nsec"},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "x"}}, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "-1"}}, 0, ""},
		{[]parser.Option{{Key: "elapsed-time-usec", Value: "9223372036854775807"}}, 0, ""},
	} {
		ns, from := (&parser.Header{Options: c.opts}).Elapsed()
		if ns != c.ns || from != c.from {
			t.Errorf("%v: got %d %q, want %d %q", c.opts, ns, from, c.ns, c.from)
		}
	}
}
