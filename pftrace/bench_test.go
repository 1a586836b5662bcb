package pftrace_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// benchTraces are the benchmark's inputs: traced_perf's shape, plain, with
// compressed packets and gzip-compressed, and the other two packets.
var benchTraces = []struct {
	name string
	sp   tracegen.StackProfile
}{
	{"perf", tracegen.StackProfile{Seed: 31, Samples: 100_000, Sequences: 2, ClearEvery: 20_000}},
	{"perf-compressed", tracegen.StackProfile{Seed: 31, Samples: 100_000, Sequences: 2, ClearEvery: 20_000, CompressEvery: 500}},
	{"perf-gzip", tracegen.StackProfile{Seed: 31, Samples: 100_000, Sequences: 2, ClearEvery: 20_000, Gzip: true}},
	{"streaming", tracegen.StackProfile{Seed: 31, Samples: 100_000, Kind: tracegen.StreamingSamples}},
	{"stacksample", tracegen.StackProfile{Seed: 31, Samples: 100_000, Kind: tracegen.StackSampleSamples}},
}

// BenchmarkRead reads generated traces of 100 000 samples (about 3.5 MB
// plain); ns/record (a record is a sample) compares across them.
func BenchmarkRead(b *testing.B) {
	for _, c := range benchTraces {
		data, _ := c.sp.Perfetto()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			report := testutil.PerRecord(b, c.sp.Samples)
			for b.Loop() {
				if _, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			report()
		})
	}
}

// TestWriteBenchTrace writes a traced_perf-shaped trace of
// $ATRACE2_BENCH_SAMPLES samples (1 700 000 by default: 64 MB) to
// the file $ATRACE2_BENCH_PFTRACE names, its packets bundled in
// compressed_packets by $ATRACE2_BENCH_COMPRESS when set, for measuring the
// read of a large file against trace_processor's import
// (docs/performance.md). Without the variable it does nothing.
func TestWriteBenchTrace(t *testing.T) {
	path := os.Getenv("ATRACE2_BENCH_PFTRACE")
	if path == "" {
		t.Skip("ATRACE2_BENCH_PFTRACE names no file to write")
	}
	n := 1_700_000
	if s := os.Getenv("ATRACE2_BENCH_SAMPLES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	bundle, _ := strconv.Atoi(os.Getenv("ATRACE2_BENCH_COMPRESS"))
	data, _ := tracegen.StackProfile{Seed: 64, Samples: n, Sequences: 2, ClearEvery: 250_000, StacksPerThread: 200, SuspendNs: 2e9, CompressEvery: bundle}.Perfetto()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples, %d bytes", n, len(data))
}

// TestReadBenchFile reads the file $ATRACE2_BENCH_READ names once and
// prints what it holds: the command the large-file measurement times
// (with GOMAXPROCS=1 for one core). Without the variable it does nothing.
func TestReadBenchFile(t *testing.T) {
	path := os.Getenv("ATRACE2_BENCH_READ")
	if path == "" {
		t.Skip("ATRACE2_BENCH_READ names no file to read")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := pftrace.Read(f, pftrace.Options{Select: samples.Select{Windowed: os.Getenv("ATRACE2_BENCH_WINDOW") != "", To: samples.NoEnd}})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, proc := range p.Processes {
		n += proc.Samples
	}
	fmt.Printf("%d samples, %d processes, %d stacks of the app, %d frames, GOMAXPROCS %d\n", n, len(p.Processes), len(p.Samples), len(p.Frames), runtime.GOMAXPROCS(0))
}
