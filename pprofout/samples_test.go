package pprofout_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
	"github.com/atrace2/atrace2/stacks"
)

// sampledTree reads generated profile text into its tree.
func sampledTree(t testing.TB, name string, text []byte) *stacks.Tree {
	t.Helper()
	p, err := samples.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Tree(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// buildSampled builds, writes and reads back the profile of trees, and
// checks that Builder.Write's encoder writes the library's bytes for it.
func buildSampled(t testing.TB, trees ...*stacks.Tree) *profile.Profile {
	t.Helper()
	build := func() *pprofout.Builder {
		b := pprofout.New(pprofout.Options{Version: testVersion})
		for _, s := range trees {
			if err := b.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	p, err := build().Profile()
	if err != nil {
		t.Fatal(err)
	}
	checkBuilderWrite(t, p, build())
	var buf bytes.Buffer
	if err := pprofout.WriteProfile(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("reading the written profile back: %v", err)
	}
	return q
}

// dumpSampled lists samples as "thread/serial A;B values [truncated]",
// root first, sorted.
func dumpSampled(p *profile.Profile) string {
	var lines []string
	for _, s := range p.Sample {
		who := "-"
		if th := s.Label[pprofout.LabelThread]; len(th) > 0 {
			who = fmt.Sprintf("%s/%d", th[0], s.NumLabel[pprofout.LabelThreadSerial][0])
		}
		line := fmt.Sprintf("%s %s %s", who, stackOf(s), strings.Trim(fmt.Sprint(s.Value), "[]"))
		if tr := s.Label[pprofout.LabelTruncated]; len(tr) > 0 {
			line += " " + strings.Join(tr, ",")
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestSampledDalvik(t *testing.T) {
	p := buildSampled(t, sampledTree(t, "app.hprof", samplegen.Fixture().Dalvik()))
	want := `main/1 com.example.App.main;com.example.App.parse 3
main/1 com.example.App.main;com.example.App.parse;com.example.App.parse 2 depth-limit
main/1 com.example.App.main;com.example.App.parse;java.lang.Long.parseLong 5 depth-limit
worker/2 com.example.Worker.run 2
worker/2 com.example.Worker.run;com.example.App.parse 1
`
	if got := dumpSampled(p); got != want {
		t.Errorf("samples:\n%s\nwant:\n%s", got, want)
	}
	if got := sampleTypes(p); got != "samples/count" || p.DefaultSampleType != "samples" ||
		p.PeriodType.Type != "samples" || p.PeriodType.Unit != "count" || p.Period != 1 {
		t.Errorf("types %q default %q period %v %d", got, p.DefaultSampleType, p.PeriodType, p.Period)
	}
	// App.parse ran at lines 20, 21 and 30: one function, three locations,
	// and the function has no start line (the lines are call sites).
	var parseLines []int64
	for _, l := range p.Location {
		if fn := l.Line[0].Function; fn.Name == "com.example.App.parse" {
			parseLines = append(parseLines, l.Line[0].Line)
			if fn.StartLine != 0 || fn.Filename != "com/example/App.java" || fn.SystemName != "" {
				t.Errorf("function %+v", fn)
			}
		}
	}
	slices.Sort(parseLines)
	if !slices.Equal(parseLines, []int64{20, 21, 30}) || len(p.Function) != 4 {
		t.Errorf("App.parse at lines %v, %d functions; want [20 21 30], 4", parseLines, len(p.Function))
	}
	m := p.Mapping[0]
	if m.File != "app.hprof" || !m.HasFunctions || !m.HasFilenames || !m.HasLineNumbers {
		t.Errorf("mapping %+v", m)
	}
	wantComments := []string{
		"converted by atrace2 v0.0.0-test from app.hprof (Dalvik SamplingProfiler text (ASCII hprof))",
		"app.hprof: created Sun Jan 13 05:57:25 2013",
		"app.hprof: stacks are cut at depth=3 (hprof's depth= option, 4 by default, inferred from the deepest stack): 2 of the file's 5 stacks may miss outer frames; their samples carry the label truncated=depth-limit",
	}
	if !slices.Equal(p.Comments, wantComments) {
		t.Errorf("comments:\n%s\nwant:\n%s", strings.Join(p.Comments, "\n"), strings.Join(wantComments, "\n"))
	}
	if p.TimeNanos != 0 || p.DurationNanos != 0 {
		t.Errorf("time %d duration %d: a sampled profile has neither", p.TimeNanos, p.DurationNanos)
	}
	golden(t, "sampled-dalvik.txt", p.String())
}

// TestSampledTimes: cpu=times counts calls and elapsed time (hprof measures
// it with the time of day), like a wall-clock method trace, whose sample and
// period types it shares.
func TestSampledTimes(t *testing.T) {
	p := buildSampled(t, sampledTree(t, "times.hprof", samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true})))
	want := `main/1 com.example.App.main;com.example.App.parse 3 25000000
main/1 com.example.App.main;com.example.App.parse;com.example.App.parse 2 10000000 depth-limit
main/1 com.example.App.main;com.example.App.parse;java.lang.Long.parseLong 5 40000000 depth-limit
worker/2 com.example.Worker.run 2 20000000
worker/2 com.example.Worker.run;com.example.App.parse 1 5000000
`
	if got := dumpSampled(p); got != want {
		t.Errorf("samples:\n%s\nwant:\n%s", got, want)
	}
	if got := sampleTypes(p); got != "calls/count wall/nanoseconds" || p.DefaultSampleType != "wall" ||
		p.PeriodType.Type != "calls" || p.PeriodType.Unit != "count" || p.Period != 1 {
		t.Errorf("types %q default %q period %v %d", got, p.DefaultSampleType, p.PeriodType, p.Period)
	}
	// The independent check that -diff_base works: pprof's own Merge
	// accepts the profile together with a wall-clock method trace's.
	trace := build(t, writeTrace(t, t.TempDir(), "wall.trace", recursionWall))
	if _, err := profile.Merge([]*profile.Profile{p, trace}); err != nil {
		t.Errorf("merging with a wall-clock method trace's profile: %v", err)
	}
	golden(t, "sampled-times.txt", p.String())
}

// TestSampledMerge adds the same profile twice: every value doubles, and
// the mapping names both inputs.
func TestSampledMerge(t *testing.T) {
	text := samplegen.Fixture().Dalvik()
	one := buildSampled(t, sampledTree(t, "a.hprof", text))
	two := buildSampled(t, sampledTree(t, "a.hprof", text), sampledTree(t, "b.hprof", text))
	if len(two.Sample) != len(one.Sample) {
		t.Fatalf("%d samples merged, want %d", len(two.Sample), len(one.Sample))
	}
	want := strings.NewReplacer(" 5 ", " 10 ", " 3\n", " 6\n", " 2\n", " 4\n", " 2 ", " 4 ", " 1\n", " 2\n").Replace(dumpSampled(one))
	if got := dumpSampled(two); got != want {
		t.Errorf("merged:\n%s\nwant:\n%s", got, want)
	}
	if two.Mapping[0].File != "a.hprof, b.hprof" {
		t.Errorf("mapping file %q", two.Mapping[0].File)
	}
}

// TestSampledRefusesMix: counted samples and timed calls do not add up.
func TestSampledRefusesMix(t *testing.T) {
	b := pprofout.New(pprofout.Options{Version: testVersion})
	if err := b.Add(sampledTree(t, "a.hprof", samplegen.Fixture().Dalvik())); err != nil {
		t.Fatal(err)
	}
	err := b.Add(sampledTree(t, "t.hprof", samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true})))
	if err == nil || !strings.Contains(err.Error(), "cannot be merged") {
		t.Errorf("err = %v", err)
	}
	if _, err := pprofout.New(pprofout.Options{Version: testVersion}).Profile(); err == nil {
		t.Error("an empty builder made a profile")
	}
}

// TestSampledNoThreadART: an ART profile says nothing of threads, and
// its frames have signatures, which go to SystemName.
func TestSampledNoThreadART(t *testing.T) {
	a := &samplegen.ART{Samples: 12, Null: 2, Boot: 1, Bounded: true, Methods: []samplegen.Method{{
		MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "parse", Params: []string{"Ljava/lang/String;"}, Return: "I"},
		Count:     9, Size: 20,
		Chains: []samplegen.Chain{{PC: 3, Count: 7, Callers: []samplegen.Caller{{
			MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "main", Params: []string{"[Ljava/lang/String;"}, Return: "V"}, PC: 9}}}},
	}}}
	p := buildSampled(t, sampledTree(t, "app.prof", a.Text()))
	want := `- com.example.App.main;com.example.App.parse 7 depth-limit
- com.example.App.parse 2
`
	if got := dumpSampled(p); got != want {
		t.Errorf("samples:\n%s\nwant:\n%s", got, want)
	}
	var systems []string
	for _, fn := range p.Function {
		systems = append(systems, fn.SystemName)
	}
	slices.Sort(systems)
	if want := []string{"com.example.App.main ([Ljava/lang/String;)V", "com.example.App.parse (Ljava/lang/String;)I"}; !slices.Equal(systems, want) {
		t.Errorf("system names %q, want %q", systems, want)
	}
	comments := strings.Join(p.Comments, "\n")
	for _, c := range []string{
		"app.prof: the file does not say which thread its stacks ran on: the samples have no thread label",
		"app.prof: 2 samples in no stack: null method (no method on the stack)",
		"app.prof: 1 sample in no stack: boot-image method (ART does not profile these)",
		"app.prof: ART's bounded-stack mode records a few callers only (the deepest stack has 2 frames): 1 of the file's 2 stacks may miss outer frames",
		"app.prof: note: the method lines add up to 9 samples and line 1 says 12",
	} {
		if !strings.Contains(comments, c) {
			t.Errorf("comments lack %q:\n%s", c, comments)
		}
	}
	if p.Mapping[0].HasLineNumbers {
		t.Error("an ART profile has no line numbers, yet the mapping claims some")
	}
}

// BenchmarkSampled reads a Dalvik hprof file of 20,000 stacks 8 frames
// deep (a long run with depth=8) into its tree and builds and writes its
// pprof profile: the whole `atrace2 pprof` path after the sniff.
func BenchmarkSampled(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	h := &samplegen.Hprof{Date: "Sun Jan 13 05:57:25 2013"}
	for i := range 8 {
		h.Threads = append(h.Threads, samplegen.Thread{ID: 200001 + int64(i), Name: fmt.Sprintf("worker-%d", i), Group: "main"})
	}
	for i := range 20000 {
		t := samplegen.Trace{ID: 300001 + int64(i), Thread: 200001 + rng.Int64N(8), Count: 1 + rng.Int64N(100)}
		for range 8 {
			m := rng.IntN(2000)
			t.Frames = append(t.Frames, samplegen.Frame{Class: fmt.Sprintf("com.example.pkg%d.Class%d", m%40, m),
				Method: fmt.Sprintf("method%d", m%17), File: fmt.Sprintf("Class%d.java", m), Line: m % 900})
		}
		h.Traces = append(h.Traces, t)
	}
	data := h.Dalvik()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sp, err := samples.Read(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		s, err := sp.Tree("big.hprof")
		if err != nil {
			b.Fatal(err)
		}
		bld := pprofout.New(pprofout.Options{Version: testVersion})
		if err := bld.Add(s); err != nil {
			b.Fatal(err)
		}
		if err := bld.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTimedSampled: the trees of a Perfetto trace's processes (package
// pftrace, a generated traced_perf trace of three processes) merge into
// one profile whose one sample type, samples, has the sampling period as
// its period (cpu/nanoseconds, 10 ms at 100 Hz), whose samples carry
// their process and thread, and whose native frames are in a mapping per
// library with its build id, their mangled symbol as SystemName. Per
// process, thread and stack (the names the trace gives), the counts are
// the generator's. The encoder writes the library's bytes (buildSampled).
func TestTimedSampled(t *testing.T) {
	data, exp := tracegen.StackProfile{Seed: 21, Samples: 1500, Sequences: 2, ClearEvery: 400}.Perfetto()
	first, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var trees []*stacks.Tree
	for _, proc := range first.Processes {
		p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: samples.Select{Process: strconv.FormatInt(proc.PID, 10)}})
		if err != nil {
			t.Fatal(err)
		}
		tree, err := p.Tree("app.perfetto-trace")
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree)
	}
	if len(trees) != 3 {
		t.Fatalf("%d processes, want 3", len(trees))
	}
	p := buildSampled(t, trees...)
	if got := sampleTypes(p); got != "samples/count" || p.PeriodType.Type != "cpu" || p.PeriodType.Unit != "nanoseconds" || p.Period != 10_000_000 {
		t.Errorf("types %q, period %v %d; want samples/count, cpu/nanoseconds 10000000", got, p.PeriodType, p.Period)
	}
	got := map[tracegen.StackCount]int64{}
	natives := 0
	for _, s := range p.Sample {
		k := tracegen.StackCount{PID: s.NumLabel[pprofout.LabelPID][0], TID: s.NumLabel[pprofout.LabelTID][0]}
		if name := exp.Processes[k.PID].Name; len(s.Label[pprofout.LabelProcess]) != 1 || s.Label[pprofout.LabelProcess][0] != name {
			t.Fatalf("pid %d: process label %v, want %q", k.PID, s.Label[pprofout.LabelProcess], name)
		}
		if th := s.Label[pprofout.LabelThread]; len(th) != 1 || th[0] != exp.Threads[k.TID] {
			t.Fatalf("tid %d: thread label %v, want %q", k.TID, th, exp.Threads[k.TID])
		}
		var names []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			fn := loc.Line[0].Function
			name := fn.Name
			if fn.SystemName != "" { // the symbol the trace gives a demangled native frame
				name = fn.SystemName
			}
			names = append(names, name)
			if loc.Mapping.ID > 1 {
				natives++
				if loc.Mapping.File == "" || strings.HasSuffix(loc.Mapping.File, ".oat") || strings.HasSuffix(loc.Mapping.File, ".odex") {
					t.Errorf("%s in mapping %q: a native frame's mapping is its library", fn.Name, loc.Mapping.File)
				}
			} else if strings.Contains(name, "::") || strings.HasPrefix(name, "_Z") {
				t.Errorf("%s in the trace's mapping: a native frame has its library's", name)
			}
		}
		k.Stack = strings.Join(names, ";")
		got[k] += s.Value[0]
	}
	for k, n := range exp.Counts {
		if got[k] != n {
			t.Errorf("pid %d tid %d %s: %d samples, want %d", k.PID, k.TID, k.Stack, got[k], n)
		}
	}
	if len(got) != len(exp.Counts) || natives == 0 {
		t.Errorf("%d stacks, want %d; %d native locations in samples", len(got), len(exp.Counts), natives)
	}
	ids := 0
	for _, m := range p.Mapping[1:] {
		if m.BuildID != "" {
			ids++
		}
		if !m.HasFunctions || m.Start != 0 || m.Limit != 0 {
			t.Errorf("mapping %+v: functions named, no addresses", m)
		}
	}
	if ids == 0 {
		t.Errorf("no mapping has a build id: %v", p.Mapping)
	}
	if !slices.ContainsFunc(p.Comments, func(c string) bool {
		return strings.HasSuffix(c, ": a sample stands for 10 ms of CPU time (linux.perf SW_CPU_CLOCK, 100 Hz): the profile's period")
	}) {
		t.Errorf("comments %q: no period", p.Comments)
	}
}
