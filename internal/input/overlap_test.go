package input

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// describe opens a trace with open and reads it twice: the header after
// the first read, the size, the records of both reads, or the error.
func describe(open func() (*Trace, error), opt parser.Options) string {
	f, err := open()
	if err != nil {
		return "error: " + err.Error()
	}
	defer f.Close()
	var out strings.Builder
	for range 2 {
		r := f.NewReader()
		batch := make([]parser.Record, 1000)
		sum := sha256.New()
		for {
			n, err := r.ReadRecords(batch)
			var b []byte
			for _, rec := range batch[:n] {
				for _, v := range []uint64{uint64(rec.Offset), uint64(rec.Thread), uint64(rec.Method), uint64(rec.Action), rec.CPU, rec.Wall} {
					b = binary.LittleEndian.AppendUint64(b, v)
				}
			}
			sum.Write(b)
			if err != nil {
				fmt.Fprintf(&out, "records %x %v lost %d records %d\n", sum.Sum(nil), err, r.LostBytes(), r.Records())
				break
			}
		}
	}
	h := f.Header
	fmt.Fprintf(&out, "size %d compressed %v variant %v clock %v %q end %d records %d lost %d %q %v %v",
		f.Size(), h.Compressed, h.Variant, h.Clock, h.ClockFrom, h.DataEnd, h.Records, h.LostBytes, h.Warnings, h.Threads, h.Methods)
	return out.String()
}

// TestOverlapEqualsSpool ties the overlapped decompression (grow.go) to
// the reference, which decompresses the whole stream first: random traces
// of every variant and the corpus's traces, gzipped whole, cut short and
// damaged, gzip within gzip, and not gzipped, from a file and from a
// stream on stdin, read twice, give the same header, records, warnings
// and errors.
func TestOverlapEqualsSpool(t *testing.T) {
	if reference.Only {
		t.Skip("the build tag atrace2_reference copies every input whole first")
	}
	rng := rand.New(rand.NewPCG(26, 55))
	var plains [][]byte
	for range 5 {
		for _, v := range []int{1, 2, 3} {
			tr := tracegen.Random(rng, v, map[int]string{1: "thread-cpu", 2: "wall", 3: "dual"}[v])
			plains = append(plains, tr.Regular(), tr.Streaming(tracegen.StreamOptions{SummaryThreads: true}))
		}
		plains = append(plains, tracegen.Random(rng, 3, "dual").Streaming(tracegen.StreamOptions{NoSummary: true}))
	}
	plains = append(plains, tracegen.LargeRegular(tracegen.LargeOptions{Bytes: 2 << 20, Threads: 4, Methods: 50}))
	corpus, _ := filepath.Glob("../../../shared/corpus/*.trace*")
	if len(corpus) == 0 {
		t.Log("../shared/corpus is absent: checking generated traces only")
	}
	var gzs [][]byte
	for _, name := range corpus {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			gzs = append(gzs, b)
		} else {
			plains = append(plains, b)
		}
	}
	for _, p := range plains {
		gz := tracegen.Gzip(p)
		gzs = append(gzs, gz, gz[:len(gz)*3/4], gz[:len(gz)-20], gz[:min(len(gz), 30)])
		damaged := bytes.Clone(gz)
		damaged[len(damaged)/2] ^= 0x55
		gzs = append(gzs, damaged)
	}
	gzs = append(gzs, tracegen.Gzip(tracegen.Gzip(plains[0])), tracegen.Gzip([]byte("*version\n")), tracegen.Gzip(nil))
	for _, p := range plains { // a plain stream is copied as it is read too
		gzs = append(gzs, p, p[:len(p)*3/4], p[:min(len(p), 40)])
	}
	dir := t.TempDir()
	for i, gz := range gzs {
		path := filepath.Join(dir, fmt.Sprintf("%d.trace.gz", i))
		write(t, path, gz)
		for _, opt := range []parser.Options{{}, {SkipStreamingScan: true}} {
			for how, open := range map[string]func(copyFirst bool) (*Trace, error){
				"file": func(copyFirst bool) (*Trace, error) {
					o := NewOpener(nil)
					o.copyFirst = copyFirst
					return openPathWith(o, path, opt, nil)
				},
				"stdin": func(copyFirst bool) (*Trace, error) {
					o := NewOpener(io.MultiReader(bytes.NewReader(gz)))
					o.copyFirst = copyFirst
					return openStdinWith(o, opt, nil)
				},
			} {
				var got [2]string
				for j, copyFirst := range []bool{true, false} {
					got[j] = describe(func() (*Trace, error) { return open(copyFirst) }, opt)
				}
				if got[0] != got[1] {
					t.Fatalf("input %d (%d bytes) %s %+v: decompressed first\n%.2000s\noverlapped\n%.2000s", i, len(gz), how, opt, got[0], got[1])
				}
			}
		}
	}
}
