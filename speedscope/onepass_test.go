package speedscope

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// orphanCases are the orphan layouts one pass must rebuild, in tracegen's
// text form (records: thread action method cpu-µs wall-µs). No thread is
// main, so activeProfileIndex is the busiest thread; in the first two
// cases that is the thread whose busy time comes mostly from its orphans,
// so that a wrong busy time in one pass changes the file.
var orphanCases = []struct {
	name    string
	orphans int64 // orphan exits the trace must have, so the case stays one
	text    string
}{{
	name:    "orphan-first-record",
	orphans: 1,
	text: `
# A ran from the start until 100 µs, the thread's first record; the other
# thread is busy 50 µs, thread 1 busy 101.
1 exit 0x4 3 100
2 enter 0x8 0 10
2 exit 0x8 5 60
1 enter 0xc 4 110
1 exit 0xc 5 111
`,
}, {
	name:    "several-orphans",
	orphans: 3,
	text: `
# Thread 1: C, then orphans A, B and an unwound D, with a call between;
# busy 55 µs of wall and 31 of CPU, against thread 2's 52 and 25. Without
# the orphans' time before C, thread 1 would seem busy 40 and 21.
1 enter 0xc 0 5
1 exit 0xc 1 10
1 exit 0x4 10 20
2 enter 0xc 0 1
1 enter 0xc 20 30
1 exit 0xc 21 35
1 exit 0x8 30 50
1 unwind 0x10 31 55
2 exit 0xc 25 53
1 enter 0xc 32 60
`,
}, {
	name:    "orphans-on-threads",
	orphans: 6,
	text: `
# Orphans on three interleaved threads: the same method twice (recursion
# seen from inside), an exit that misses the stack (dropped, not an
# orphan), and frames still open at the end.
1 enter 0xc 0 2
3 exit 0x4 1 4
1 exit 0xc 1 6
2 exit 0x8 0 8
1 exit 0x4 2 9
3 exit 0x4 2 12
2 enter 0xc 1 15
2 exit 0x10 2 18
2 exit 0xc 3 20
2 exit 0x8 4 30
3 enter 0x10 3 31
1 exit 0x10 3 33
3 enter 0xc 4 34
`,
}}

// orphanHeader is the tables of orphanCases, in a version and clock:
// 3 dual, or 2 thread-cpu (one time per record: the CPU time).
const orphanHeader = `version %d
clock %s
vm art
thread 1 worker-1
thread 2 worker-2
thread 3 worker-3
method 0x4 a.A run ()V A.java
method 0x8 a.B run ()V B.java
method 0xc a.C run ()V C.java
method 0x10 a.D run ()V D.java
`

// onePassCase is a trace to convert both ways.
type onePassCase struct {
	name    string
	path    string
	orphans int64 // at least this many orphan exits; -1 for any number
	opt     Options
}

// TestOnePassEqualsTwoPasses: the file written from one read of the trace,
// with orphan exits arriving when found, is byte for byte the file written
// from two passes, where orphan frames open at the thread's start — on
// every stack-policy case, orphan layouts, a thread-CPU-only trace, a
// large trace spilling through small blocks, the sample and the corpus.
func TestOnePassEqualsTwoPasses(t *testing.T) {
	dir := t.TempDir()
	cases := []onePassCase{
		{"policy", policyTrace(t), 1, Options{}},
		{"sample", sampleTrace(t), -1, Options{}},
		{"large", largeTrace(t, dir), -1, Options{Memory: 64 << 10}},
	}
	cases = append(cases, convertCases(t, dir)...)
	for _, c := range orphanCases {
		for v, clock := range map[int]string{3: "dual", 2: "thread-cpu"} {
			text := fmt.Sprintf(orphanHeader, v, clock) + c.text
			cases = append(cases, onePassCase{c.name + "/" + clock, textTrace(t, dir, c.name+"."+clock, text), c.orphans, Options{}})
		}
	}
	for _, c := range cases {
		for _, clock := range []parser.Clock{0, parser.ClockThreadCPU} {
			t.Run(c.name+"/"+clock.String(), func(t *testing.T) {
				tr, e := compareOnePass(t, c.path, clock, c.opt)
				if tr != nil && tr.Stats.OrphanExits < c.orphans {
					t.Errorf("%d orphan exits, want %d", tr.Stats.OrphanExits, c.orphans)
				}
				if e != nil && c.name == "large" && (e.sized > 2*minBlock || spilled(e) < 100) {
					t.Errorf("buffers cut to %d, %d blocks spilled: want them cut to at most %d and spilling",
						e.sized, spilled(e), 2*minBlock)
				}
			})
		}
	}
	t.Run("corpus", func(t *testing.T) {
		for _, path := range corpusTraces(t) {
			for _, clock := range clocksFor(path) {
				t.Run(filepath.Base(path)+"/"+clock.String(), func(t *testing.T) {
					compareOnePass(t, path, clock, Options{})
				})
			}
		}
	})
}

// compareOnePass converts a trace with two passes and with one, and fails
// unless the files are the same. It returns the one-pass Trace and
// exporter, or nils when the trace does not open on that clock.
func compareOnePass(t *testing.T, path string, clock parser.Clock, opt Options) (*stream.Trace, *Exporter) {
	t.Helper()
	if f, err := parser.Open(path, parser.Options{Clock: clock}); err != nil {
		t.Skipf("not convertible on this clock: %v", err)
	} else {
		f.Close()
	}
	opt.Exporter, opt.TempDir = "atrace2@test", t.TempDir()
	two, _, _ := convertWith(t, path, clock, false, opt)
	one, tr, e := convertWith(t, path, clock, true, opt)
	if i := firstDiff(one, two); i >= 0 {
		t.Errorf("one pass differs from two at byte %d of %d/%d:\none: %s\ntwo: %s",
			i, len(one), len(two), around(one, i), around(two, i))
	}
	return tr, e
}

// convertWith converts a trace to speedscope JSON with the given options,
// in one read or two.
func convertWith(t *testing.T, path string, clock parser.Clock, oneRead bool, opt Options) ([]byte, *stream.Trace, *Exporter) {
	t.Helper()
	f, err := parser.Open(path, parser.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	e := New(&buf, opt)
	tr, err := convert.Run(f, convert.Options{}, convert.Output{Exporter: e, Enclose: oneRead})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), tr, e
}

// firstDiff is the first offset where a and b differ, -1 if they are equal.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// around is the text near offset i, for a readable failure.
func around(b []byte, i int) string {
	return string(b[max(i-80, 0):min(i+80, len(b))])
}

func spilled(e *Exporter) (n int) {
	for _, tb := range e.threads {
		n += len(tb.blocks)
	}
	return n
}

// largeTrace is a generated trace of 40 threads that appear one after the
// other, about 4 MB: with 64 KiB of buffers it spills, and the buffers of
// the first threads are cut down as the others appear.
func largeTrace(t *testing.T, dir string) string {
	path := filepath.Join(dir, "large.trace")
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 4 << 20, Seed: 7}).Regular()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// convertCases are the stack-policy cases of package convert's tests.
func convertCases(t *testing.T, dir string) []onePassCase {
	names, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "convert", "*.txtar"))
	if len(names) == 0 {
		t.Fatal("no testdata/convert/*.txtar cases")
	}
	var out []onePassCase
	for _, name := range names {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(name)
		out = append(out, onePassCase{base, textTrace(t, dir, base, string(ar.Files[0].Data)), -1, Options{}})
	}
	return out
}

// textTrace writes a trace in tracegen's text form as a binary file.
func textTrace(t *testing.T, dir, name, text string) string {
	tr, err := tracegen.ParseText(text)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	path := filepath.Join(dir, name+".trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
