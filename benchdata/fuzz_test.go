package benchdata

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzRead: no input panics; an error is a one-line *FormatError at an
// offset inside the input (or ErrNotBenchmarkData's); a file read has
// benchmarks with a class, a name and a Key, sorted metrics, profiler
// outputs inside its folder, and pairs with itself with every benchmark on
// both sides and no context finding but throttling.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"context":{"build":{"device":"d","fingerprint":"f"},"cpuLocked":true,"compilationMode":"speed"},"benchmarks":[` +
		`{"name":"a[x=1,y=P(a,b)]","className":"C","metrics":{"timeNs":{"minimum":1,"maximum":3,"median":2,"runs":[1,2,3]}},` +
		`"sampledMetrics":{"frameDurationCpuMs":{"P50":1,"P90":2,"P95":2,"P99":2,"runs":[[1,2],[2]]}},"thermalThrottleSleepSeconds":1,` +
		`"profilerOutputs":[{"type":"MethodTrace","label":"l","filename":"a.trace"}]}]}`))
	f.Add([]byte(`{"benchmarks":[{"className":"C","name":"n","params":{"b":"2"},"metrics":{}}]}`))
	f.Add([]byte(`{"benchmarks":[{"className":"C","name":"n","metrics":{"t":{"runs":["x"]}}}]}`))
	f.Add([]byte(`{"benchmarks":[] } x`))
	f.Add([]byte("\ufeff{}"))
	root := os.Getenv("ATRACE2_CORPUS") // as testutil.CorpusDir, which skips
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	{
		names, _ := filepath.Glob(filepath.Join(root, "benchmark", "*.json"))
		for _, n := range names {
			if b, err := os.ReadFile(n); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bf, err := Read(bytes.NewReader(data))
		if err != nil {
			var fe *FormatError
			if bf != nil || !errors.As(err, &fe) || fe.Off < 0 || fe.Off > int64(len(data)) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Read: %v (%T), file %v", err, err, bf)
			}
			return
		}
		for i := range bf.Benchmarks {
			b := &bf.Benchmarks[i]
			if b.Class == "" || b.Name == "" || !strings.HasPrefix(b.Key(), b.Class+"#"+b.Name) {
				t.Fatalf("benchmark %+v: key %q", b, b.Key())
			}
			if !slices.IsSortedFunc(b.Metrics, func(x, y Metric) int { return strings.Compare(x.Name, y.Name) }) {
				t.Fatalf("metrics not sorted: %+v", b.Metrics)
			}
			for _, o := range b.Outputs {
				if !localName(o.Filename) {
					t.Fatalf("output %q outside the folder", o.Filename)
				}
			}
		}
		pairs := PairUp([]*File{bf}, []*File{bf})
		for _, p := range pairs {
			if len(p.Old) == 0 || len(p.Old) != len(p.New) {
				t.Fatalf("pair %s: %d and %d runs", p.Key, len(p.Old), len(p.New))
			}
			for _, m := range p.MetricNames() {
				o, n := p.MetricSamples(m)
				if !slices.Equal(o, n) {
					t.Fatalf("%s %s: samples %v and %v of the same file", p.Key, m, o, n)
				}
			}
			for _, m := range p.SampledNames() {
				p.SampledValues(m)
			}
			p.Outputs(MethodTrace)
		}
		for _, fd := range CheckContext([]*File{bf}, []*File{bf}, pairs) {
			if fd.Check != "thermal" && fd.Check != "clocks" {
				t.Fatalf("a file against itself: %+v", fd)
			}
		}
	})
}
