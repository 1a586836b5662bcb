package benchdata

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/stats"
)

func boolp(b bool) *bool { return &b }

// file is a result file with one context and benchmarks.
func file(path, device, fingerprint, mode string, locked *bool, bs ...Benchmark) *File {
	return &File{Path: path, Context: Context{Device: device, Fingerprint: fingerprint, CompilationMode: mode, CPULocked: locked}, Benchmarks: bs}
}

func bench(class, name string, thermal int64, metrics ...Metric) Benchmark {
	return Benchmark{Class: class, Name: name, Params: nameParams(name), Metrics: metrics, ThermalThrottleSleepSeconds: thermal}
}

func metric(name string, runs ...float64) Metric {
	return Metric{Name: name, Runs: runs, Median: stats.Median(runs), Min: slices.Min(runs), Max: slices.Max(runs)}
}

// TestPairUp: benchmarks pair by class and name, params included; one-sided
// ones are listed with no runs on the other side; with two files a side
// the samples are the files' medians, with one the repeats.
func TestPairUp(t *testing.T) {
	a := bench("C", "a", 0, metric("timeNs", 10, 30, 20), metric("allocationCount", 1, 1, 1))
	b := bench("C", "b[x=1,y=(2,3)]", 0, metric("timeNs", 5, 6))
	c := bench("D", "a", 0, metric("timeNs", 7))
	a2 := bench("C", "a", 0, metric("timeNs", 40, 44, 42, 46))
	olds := []*File{file("o1.json", "d", "f", "speed", nil, a, b), file("o2.json", "d", "f", "speed", nil, a2)}
	news := []*File{file("n1.json", "d", "f", "speed", nil, c, a2), file("n2.json", "d", "f", "speed", nil, a)}
	pairs := PairUp(olds, news)
	var got []string
	for _, p := range pairs {
		got = append(got, p.Key+" "+string(rune('0'+len(p.Old)))+string(rune('0'+len(p.New))))
	}
	if want := []string{"C#a 22", "C#b[x=1,y=(2,3)] 10", "D#a 01"}; !slices.Equal(got, want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	p := pairs[0]
	// Medians by hand: a's 10 30 20 → 20; a2's 40 44 42 46 → (42+44)/2 = 43.
	if p.Sampling() != FileMedians {
		t.Errorf("sampling %s", p.Sampling())
	}
	if o, n := p.MetricSamples("timeNs"); !slices.Equal(o, []float64{20, 43}) || !slices.Equal(n, []float64{43, 20}) {
		t.Errorf("timeNs samples %v %v", o, n)
	}
	// allocationCount is in a only: the files of a2 have no value.
	if o, n := p.MetricSamples("allocationCount"); !slices.Equal(o, []float64{1}) || !slices.Equal(n, []float64{1}) {
		t.Errorf("allocationCount samples %v %v", o, n)
	}
	if names := p.MetricNames(); !slices.Equal(names, []string{"allocationCount", "timeNs"}) {
		t.Errorf("names %v", names)
	}
	// One file on the new side: the repeats.
	one := PairUp(olds, news[1:])
	if one[0].Sampling() != Repeats {
		t.Errorf("sampling %s", one[0].Sampling())
	}
	if o, n := one[0].MetricSamples("timeNs"); !slices.Equal(o, []float64{10, 30, 20, 40, 44, 42, 46}) || !slices.Equal(n, []float64{10, 30, 20}) {
		t.Errorf("repeats %v %v", o, n)
	}
	if m := Match(pairs, regexp.MustCompile(`^C#b\[`)); len(m) != 1 || m[0].Key != "C#b[x=1,y=(2,3)]" {
		t.Errorf("Match: %v", m)
	}
	if !slices.Equal(pairs[1].Params, []Param{{"x", "1"}, {"y", "(2,3)"}}) {
		t.Errorf("params %q", pairs[1].Params)
	}
}

func TestSampledAndOutputs(t *testing.T) {
	b := Benchmark{Class: "C", Name: "scroll", Sampled: []SampledMetric{{Name: "frameDurationCpuMs", Runs: [][]float64{{1, 2}, {3}}}},
		Outputs: []ProfilerOutput{{MethodTrace, "Trace Iteration 0", "C_scroll-method.trace"}, {StackSamplingTrace, "Stack", "sub/C_scroll.simpleperf.pb"},
			{MethodTrace, "Trace Iteration 1", `win\C_scroll-1.trace`}}}
	f := &File{Path: filepath.Join("out", "dev", "p-benchmarkData.json"), Benchmarks: []Benchmark{b}}
	g := &File{Path: "q-benchmarkData.json", Benchmarks: []Benchmark{b}}
	p := PairUp([]*File{f}, []*File{g, g})[0]
	if o, n := p.SampledValues("frameDurationCpuMs"); !slices.Equal(o, []float64{1, 2, 3}) || !slices.Equal(n, []float64{1, 2, 3, 1, 2, 3}) {
		t.Errorf("pooled %v %v", o, n)
	}
	o, n := p.Outputs(MethodTrace)
	if want := []string{filepath.Join("out", "dev", "C_scroll-method.trace"), filepath.Join("out", "dev", "win", "C_scroll-1.trace")}; !slices.Equal(o, want) || len(n) != 4 {
		t.Errorf("method traces %v %v; want %v", o, n, want)
	}
	if ty := p.OutputTypes(); !slices.Equal(ty, []string{MethodTrace, StackSamplingTrace}) {
		t.Errorf("types %v", ty)
	}
}

// TestCheckContext: each check, by hand.
func TestCheckContext(t *testing.T) {
	hot := bench("C", "a", 12, metric("timeNs", 1))
	cool := bench("C", "a", 0, metric("timeNs", 1))
	same := func() []*File { return []*File{file("o.json", "pixel", "fp1", "speed", boolp(true), cool)} }
	for _, tc := range []struct {
		name       string
		olds, news []*File
		want       []string
	}{
		{"alike", same(), same(), nil},
		{"device", same(), []*File{file("n.json", "sunfish", "fp1", "speed", boolp(true), cool)},
			[]string{"device: the sides differ in device: old pixel, new sunfish"}},
		{"fingerprint and mode", same(), []*File{file("n.json", "pixel", "fp2", "verify", boolp(true), cool)},
			[]string{"fingerprint: the sides differ in build fingerprint: old fp1, new fp2",
				"compilation: the sides differ in compilation mode: old speed, new verify"}},
		{"mixed alike", []*File{file("o1.json", "a", "f", "m", nil, cool), file("o2.json", "b", "f", "m", nil, cool)},
			[]*File{file("n1.json", "b", "f", "m", nil, cool), file("n2.json", "a", "f", "m", nil, cool)},
			[]string{"device: each side mixes devices: a, b"}},
		{"not said", []*File{file("o.json", "", "", "", nil, cool)}, same(), nil},
		{"clocks", same(), []*File{file("n.json", "pixel", "fp1", "speed", boolp(false), cool)},
			[]string{"clocks: CPU clocks were not locked in 1 of 2 files: n.json (new)"}},
		{"thermal", []*File{file("o.json", "pixel", "fp1", "speed", boolp(true), hot)}, same(),
			[]string{"thermal: C#a: thermal throttling slept 12 s in o.json (old)"}},
	} {
		var got []string
		for _, f := range CheckContext(tc.olds, tc.news, PairUp(tc.olds, tc.news)) {
			got = append(got, f.Check+": "+f.Message)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestCorpusPair: the two results of one startup benchmark on one Pixel 4a
// (measure.sh, with and without its SDK): one file a side, so the samples
// are the 35 repeats of each; the contexts agree.
func TestCorpusPair(t *testing.T) {
	old, cur := corpus(t, "measure_startup_09-07-2025-msr-disabled.json"), corpus(t, "measure_startup_09-07-2025-msr-enabled.json")
	pairs := PairUp([]*File{old}, []*File{cur})
	if len(pairs) != 1 || !pairs[0].Both() || pairs[0].Key != "sh.measure.benchmark.StartupBenchmark#startupBenchmark" {
		t.Fatalf("pairs %+v", pairs)
	}
	p := pairs[0]
	o, n := p.MetricSamples("timeToInitialDisplayMs")
	if p.Sampling() != Repeats || len(o) != 35 || len(n) != 35 || o[0] != 515.798801 || n[34] != 545.109689 {
		t.Errorf("samples: %s, %d and %d, first %v last %v", p.Sampling(), len(o), len(n), o[0], n[34])
	}
	if f := CheckContext([]*File{old}, []*File{cur}, pairs); len(f) != 0 {
		t.Errorf("findings %+v", f)
	}
	// Each lists 35 Perfetto traces, which are not in the corpus.
	if po, pn := p.Outputs(PerfettoTrace); len(po) != 35 || len(pn) != 35 || !strings.HasSuffix(po[0], "StartupBenchmark_startupBenchmark_iter000_2025-07-09-11-47-17.perfetto-trace") {
		t.Errorf("outputs %d %d %v", len(po), len(pn), po[:1])
	}
	// Against androidx's Microbenchmark fixture nothing pairs.
	micro := corpus(t, "androidx_micro-legacy-trivialbench.json")
	all := PairUp([]*File{old}, []*File{micro})
	if len(all) != 3 || all[0].Both() || all[1].Both() || all[2].Both() {
		t.Errorf("one-sided pairs %+v", all)
	}
	var checks []string
	for _, f := range CheckContext([]*File{old}, []*File{micro}, all) {
		checks = append(checks, f.Check)
	}
	if !slices.Equal(checks, []string{"device", "fingerprint"}) {
		t.Errorf("checks %v, want device and fingerprint (both compile verify)", checks)
	}
}
