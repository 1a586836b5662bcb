package driver

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestSampledMemory: the tree of a stack-sample file, and what its load
// keeps, cost memory in proportion to its distinct stacks and frames, not
// to its samples: ten times the samples of the same stacks keep less than
// twice as much live heap after the read, for a Perfetto trace and a
// simpleperf profile read from a file. (The garbage of a read grows with
// the Perfetto trace's clock snapshots, one per flush of its buffers.)
func TestSampledMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 400,000 samples")
	}
	opt, err := NewOptions(Flags{Quiet: true, Clock: "auto", TimeUnit: "auto", MaxDepth: 10000, MappingMismatch: "error"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	alloc := func(name string, data []byte) uint64 {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		in, err := New(opt, input.NewOpener(nil), nil).Load(input.Arg{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := in.Tree()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(tree)
		runtime.KeepAlive(in)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	pf := func(n int) []byte {
		d, _ := tracegen.StackProfile{Seed: 5, Samples: n, Sequences: 2, StacksPerThread: 20}.Perfetto()
		return d
	}
	sp := func(n int) []byte {
		d, _ := tracegen.SimpleperfProfile{Seed: 5, Samples: n, StacksPerThread: 20}.Simpleperf()
		return d
	}
	for _, c := range []struct {
		name string
		gen  func(int) []byte
	}{{"perfetto", pf}, {"simpleperf", sp}} {
		small, large := alloc(c.name+"-small", c.gen(20_000)), alloc(c.name+"-large", c.gen(200_000))
		t.Logf("%s: %d bytes live for 20,000 samples, %d for 200,000", c.name, small, large)
		if large > 2*small {
			t.Errorf("%s: %d bytes live for 200,000 samples, %d for 20,000: grows with the samples", c.name, large, small)
		}
	}
}
