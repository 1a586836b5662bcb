package folded

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

// run converts a trace into its call tree and returns the tree and what
// Write writes of it.
func run(t testing.TB, path string, clock parser.Clock, opt Options) (string, *stacks.Tree) {
	if opt.Value == stream.ValueAuto {
		opt.Value = clockValue(clock) // the file is read whole: the clock is the view's
	}
	t.Helper()
	f, err := parser.Open(path, parser.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, a.Tree(), opt); err != nil {
		t.Fatal(err)
	}
	return buf.String(), a.Tree()
}

// checkGolden compares got with testdata/golden/folded/name.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "folded", name), []byte(got))
}

// TestPolicy checks the golden files and, by hand from policy-trace.txt,
// the lines that exercise each repair.
func TestPolicy(t *testing.T) {
	path := policyTrace(t)
	wall, _ := run(t, path, 0, Options{})
	checkGolden(t, "policy.wall.folded", wall)
	cpu, _ := run(t, path, parser.ClockThreadCPU, Options{})
	checkGolden(t, "policy.cpu.folded", cpu)
	merged, _ := run(t, path, 0, Options{NoThread: true})
	checkGolden(t, "policy.nothread.folded", merged)

	const run, work, leaf = "com.example.App.run", "com.example.App.work", "com.example.App.leaf"
	for _, line := range []string{
		"main (tid 100);" + run + " 17",                          // 30-35, 50-52, 55-57, 62-70
		"main (tid 100);" + run + ";" + work + ";" + work + " 5", // overload work(J) inside work(I)
		"main (tid 100);" + run + ";" + work + ";" + leaf + " 2", // ended implicitly at 50
		"main (tid 100);" + run + ";<unknown method 0x24> 2",
		"Binder:100_1 (tid 7);android.os.Looper.loop;android.os.Binder.execTransact 7", // orphans
		"Binder:100_1 (tid 7);android.os.Binder.execTransact 55",                       // open until 75
		`worker "q": ü (tid 101);` + leaf + " 5",                                       // ";" cleaned
	} {
		if !strings.Contains("\n"+wall, "\n"+line+"\n") {
			t.Errorf("wall output lacks %q", line)
		}
	}
	// Without the thread frame, the leaf of thread 9 and the worker's run
	// merge with nothing, but run's own lines of main and thread 9 add up:
	// 17 + 5 (thread 9: 40-45) + 5 (worker: 60-65).
	if !strings.Contains("\n"+merged, "\n"+run+" 27\n") {
		t.Errorf("merged output lacks %q", run+" 27")
	}
}

// pprofLines computes the same lines from the pprof profile of the same
// tree: a second, independent path from stacks to numbers.
func pprofLines(t *testing.T, tree *stacks.Tree, opt Options) map[string]int64 {
	t.Helper()
	b := pprofout.New(pprofout.Options{Version: "test", Value: opt.Value})
	if err := b.Add(tree); err != nil {
		t.Fatal(err)
	}
	p, err := b.Profile()
	if err != nil {
		t.Fatal(err)
	}
	vi := -1
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			vi = i
		}
	}
	fix := strings.NewReplacer(";", ":", "\n", " ", "\r", " ")
	ns := map[string]int64{}
	for _, s := range p.Sample {
		var parts []string
		if !opt.NoThread {
			parts = append(parts, fix.Replace(fmt.Sprintf("%s (tid %d)", s.Label["thread"][0], s.NumLabel["tid"][0])))
		}
		for i := len(s.Location) - 1; i >= 0; i-- {
			parts = append(parts, fix.Replace(s.Location[i].Line[0].Function.Name))
		}
		ns[strings.Join(parts, ";")] += s.Value[vi]
	}
	us := map[string]int64{}
	for k, v := range ns {
		if (v+500)/1000 > 0 {
			us[k] = (v + 500) / 1000
		}
	}
	return us
}

// parseFolded reads folded lines back.
func parseFolded(t *testing.T, out string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i < 0 || err != nil || v <= 0 {
			t.Fatalf("bad line %q", line)
		}
		if _, dup := got[line[:i]]; dup {
			t.Fatalf("stack %q listed twice", line[:i])
		}
		got[line[:i]] = v
	}
	return got
}

// TestMatchesPprof: every folded line equals the pprof output's exclusive
// time for the same stack, on the sample, the policy trace and the corpus,
// on each clock.
func TestMatchesPprof(t *testing.T) {
	paths := []string{sampleTrace(t), policyTrace(t)}
	dir := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	corpus, _ := filepath.Glob(filepath.Join(dir, "*.trace*"))
	if len(corpus) == 0 {
		t.Logf("no corpus traces in %s: checking the sample and the policy trace only", dir)
	}
	for _, path := range append(paths, corpus...) {
		for _, clock := range clocksFor(path) {
			if f, err := parser.Open(path, parser.Options{Clock: clock}); err != nil {
				continue // the corpus has two files that are not traces
			} else {
				f.Close()
			}
			t.Run(filepath.Base(path)+"/"+clock.String(), func(t *testing.T) {
				v := clockValue(clock)
				out, a := run(t, path, clock, Options{})
				compare(t, parseFolded(t, out), pprofLines(t, a, Options{Value: v}))
				var merged bytes.Buffer
				if err := Write(&merged, a, Options{NoThread: true, Value: v}); err != nil {
					t.Fatal(err)
				}
				compare(t, parseFolded(t, merged.String()), pprofLines(t, a, Options{NoThread: true, Value: v}))
			})
		}
	}
}

func compare(t *testing.T, got, want map[string]int64) {
	t.Helper()
	if len(want) == 0 {
		t.Error("no stacks at all")
	}
	var bad []string
	for k, v := range want {
		if got[k] != v {
			bad = append(bad, fmt.Sprintf("%s: folded %d µs, pprof %d µs", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s: %d µs in the folded output only", k, v))
		}
	}
	slices.Sort(bad)
	for _, b := range bad[:min(len(bad), 20)] {
		t.Error(b)
	}
}

// TestRounding: nanosecond sums round once per line, and zero lines go.
func TestRounding(t *testing.T) {
	tr := &stream.Trace{HasWall: true, Frames: []stream.Frame{{Name: "A;x"}, {Name: "A;x"}, {Name: "B\nb"}},
		Threads: []stream.Thread{{Name: "t\r", ID: 3}}}
	a := stacks.New()
	if err := a.Begin(tr); err != nil {
		t.Fatal(err)
	}
	b, e := stream.Begin, stream.End
	for _, ev := range []stream.Event{
		{Kind: b, Frame: 0, Wall: 0}, {Kind: e, Frame: 0, Wall: 700},
		{Kind: b, Frame: 1, Wall: 1000}, {Kind: e, Frame: 1, Wall: 1800}, // 1500 ns in all: 2 µs
		{Kind: b, Frame: 2, Wall: 2000}, {Kind: e, Frame: 2, Wall: 2499}, // 0 µs: left out
	} {
		if err := a.Events(&stream.Batch{Events: []stream.Event{ev}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Finish(tr); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, a.Tree(), Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "t  (tid 3);A:x 2\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// clocksFor is the clocks to check a trace on: its own and the thread CPU
// clock, or only its own for the corpus under -short.
// clockValue is the value that shows clock c alone, as --clock c does.
func clockValue(c parser.Clock) stream.Value {
	switch c {
	case parser.ClockWall:
		return stream.ValueWall
	case parser.ClockThreadCPU:
		return stream.ValueCPU
	}
	return stream.ValueAuto
}

func clocksFor(path string) []parser.Clock {
	if testing.Short() && strings.Contains(path, "corpus") {
		return []parser.Clock{0}
	}
	return []parser.Clock{0, parser.ClockThreadCPU}
}

// policyTrace and sampleTrace are the shared test traces.
func policyTrace(t testing.TB) string { return testutil.PolicyTrace(t) }
func sampleTrace(t testing.TB) string { return testutil.SampleTrace(t) }
