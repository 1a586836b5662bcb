package parser_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// growingBytes is a parser.Growing over data that a goroutine releases in
// steps of up to step bytes, ending with warn; ReadAt waits for the bytes
// it is asked for, as internal/input's spool does.
type growingBytes struct {
	data []byte
	warn string

	mu    sync.Mutex
	cond  sync.Cond
	avail int
	ended bool
}

func newGrowingBytes(data []byte, warn string, rng *rand.Rand, step int) *growingBytes {
	g := &growingBytes{data: data, warn: warn}
	g.cond.L = &g.mu
	sizes := []int{}
	for left := len(data); left > 0; {
		n := min(left, 1+rng.IntN(step))
		sizes, left = append(sizes, n), left-n
	}
	go func() {
		for _, n := range sizes {
			g.mu.Lock()
			g.avail += n
			g.cond.Broadcast()
			g.mu.Unlock()
		}
		g.mu.Lock()
		g.ended = true
		g.cond.Broadcast()
		g.mu.Unlock()
	}()
	return g
}

func (g *growingBytes) ReadAt(b []byte, off int64) (int, error) {
	g.mu.Lock()
	for int64(g.avail) < off+int64(len(b)) && !g.ended {
		g.cond.Wait()
	}
	avail := int64(g.avail)
	g.mu.Unlock()
	if off >= avail {
		return 0, io.EOF
	}
	n := copy(b, g.data[off:avail])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (g *growingBytes) End() (int64, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.ended {
		g.cond.Wait()
	}
	return int64(g.avail), g.warn
}

// readWhole opens data with NewFile, or as a growing input, each with
// warn from the end of the input, and describes the header after a first read, its size and the
// records (or the error) of that read and of a second one.
func readWhole(data []byte, opt parser.Options, grow *growingBytes, warn string) string {
	var f *parser.File
	var err error
	if grow == nil {
		f, err = parser.NewFile("test.trace", bytes.NewReader(data), int64(len(data)), opt)
		if err == nil && warn != "" { // as internal/input adds it to a whole copy
			f.Header.Warnings = append([]string{warn}, f.Header.Warnings...)
		}
	} else {
		f, err = parser.NewGrowingFile("test.trace", grow, opt)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	defer f.Close()
	var out string
	for range 2 {
		r := f.NewReader()
		batch := make([]parser.Record, 5)
		var recs []parser.Record
		for {
			n, err := r.ReadRecords(batch)
			recs = append(recs, batch[:n]...)
			if err != nil {
				out += fmt.Sprintf("%v %v lost %d records %d\n", recs, err, r.LostBytes(), r.Records())
				break
			}
		}
	}
	h := f.Header
	return fmt.Sprintf("%ssize %d variant %v clock %v %q key %d data %d rec %d/%d size %d offset %d end %d records %d lost %d summary %v %q %v %v %v",
		out, f.Size(), h.Variant, h.Clock, h.ClockFrom, h.KeyVersion, h.DataVersion, h.RecordVersion, h.RecordSize, h.TimeUnit,
		h.DataOffset, h.DataEnd, h.Records, h.LostBytes, h.HasSummary, h.Warnings, h.Options, h.Threads, h.Methods)
}

// checkGrowing: data read as it grows gives what NewFile gives for the
// same bytes, with the warning of End first among the warnings.
func checkGrowing(t *testing.T, name string, data []byte, rng *rand.Rand) {
	t.Helper()
	for _, opt := range []parser.Options{{}, {SkipStreamingScan: true}} {
		for _, warn := range []string{"", "damaged"} {
			want := readWhole(data, opt, nil, warn)
			got := readWhole(data, opt, newGrowingBytes(data, warn, rng, 1+rng.IntN(len(data)+1)), warn)
			if got != want {
				t.Fatalf("%s, %+v: read as it grows\n%s\nwith NewFile\n%s", name, opt, got, want)
			}
		}
	}
}

// TestGrowingEqualsNewFile ties NewGrowingFile to NewFile: every variant,
// and every cut of a small regular and a small streaming trace (in the
// key text, the data header, before and in the records), read as it
// grows, in steps of any size.
func TestGrowingEqualsNewFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5))
	for _, v := range variants() {
		for i := range 10 {
			checkGrowing(t, fmt.Sprintf("%s %d", v.name, i), v.write(tracegen.Random(rng, v.version, v.clock)), rng)
		}
	}
	for _, data := range [][]byte{
		tracegen.Small(3, "dual", "art").Regular(),
		tracegen.Small(2, "wall", "dalvik").Regular(),
		tracegen.Small(3, "dual", "art").Streaming(tracegen.StreamOptions{}),
	} {
		for n := range len(data) + 1 {
			checkGrowing(t, fmt.Sprintf("cut at %d", n), data[:n], rng)
		}
	}
	empty := readWhole(nil, parser.Options{}, newGrowingBytes(nil, "", rng, 1), "")
	if want := readWhole(nil, parser.Options{}, nil, ""); empty != want {
		t.Errorf("empty: %s, want %s", empty, want)
	}
	// Larger than the parser's window, released in steps smaller than it:
	// the records are read while the rest is written.
	large := tracegen.LargeRegular(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 4, Methods: 50})
	for _, cut := range []int{len(large), len(large) - 5} {
		want := readWhole(large[:cut], parser.Options{}, nil, "")
		if got := readWhole(large[:cut], parser.Options{}, newGrowingBytes(large[:cut], "", rng, 100<<10), ""); got != want {
			t.Fatalf("large, cut at %d: read as it grows\n%.300s\nwith NewFile\n%.300s", cut, got, want)
		}
	}
}

// FuzzGrowing: any input read as it grows reads as with NewFile.
func FuzzGrowing(f *testing.F) {
	for _, v := range variants() {
		f.Add(v.write(tracegen.Small(v.version, v.clock, "art")), uint16(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint16) {
		rng := rand.New(rand.NewPCG(uint64(step), 1))
		want := readWhole(data, parser.Options{SkipStreamingScan: true}, nil, "")
		got := readWhole(data, parser.Options{SkipStreamingScan: true}, newGrowingBytes(data, "", rng, 1+int(step)), "")
		if got != want {
			t.Fatalf("read as it grows\n%s\nwith NewFile\n%s", got, want)
		}
	})
}
