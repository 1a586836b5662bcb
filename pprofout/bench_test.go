package pprofout_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// benchRecords makes a trace of a little over 100 MB (14-byte records).
const benchRecords = 7_500_000

// BenchmarkPprof converts a generated v3 dual-clock trace of about 105 MB
// end to end: open, the converter's one pass, the call tree, the profile,
// and the gzipped write (to io.Discard).
func BenchmarkPprof(b *testing.B) {
	path := benchTrace(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = convertFile(b, path, io.Discard)
	}
	b.ReportMetric(float64(n), "stacks")
}

// benchTrace writes the benchmarks' trace into a temporary folder and
// returns its path.
func benchTrace(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "big.trace")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeBigTrace(f, benchRecords, 1); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// convertFile is what `atrace2 pprof -o` does with one trace.
func convertFile(tb testing.TB, path string, w io.Writer) int {
	a := tree(tb, path)
	if err := pprofout.Write(w, a, pprofout.Options{Version: "bench"}); err != nil {
		tb.Fatal(err)
	}
	return stackCount(a)
}

// stackCount counts the call tree's distinct stacks (the profile's samples,
// but for stacks whose frames share a function).
func stackCount(a *stacks.Tree) int {
	n := 0
	for _, nd := range a.Nodes() {
		if !nd.IsRoot() {
			n++
		}
	}
	return n
}

// BenchmarkPprofBuild is the part of BenchmarkPprof that follows the
// converter's pass: the profile built from the call tree of the 105 MB
// trace and its gzipped write. It does not grow with the trace's length,
// only with its distinct stacks, so it weighs most on small traces.
func BenchmarkPprofBuild(b *testing.B) {
	a := tree(b, benchTrace(b))
	b.Run("add", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := pprofout.New("bench").Add(a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("add+write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bld := pprofout.New("bench")
			if err := bld.Add(a); err != nil {
				b.Fatal(err)
			}
			if err := bld.Write(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(stackCount(a)), "stacks")
}
