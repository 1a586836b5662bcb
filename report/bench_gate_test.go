package report

import (
	"bytes"
	"encoding/xml"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/benchdata"
	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/testutil"
)

var exactP = testutil.ExactMannWhitneyP

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// benchFile is a result file with the benchmarks given.
func benchFile(path, device string, bs ...benchdata.Benchmark) *benchdata.File {
	return &benchdata.File{Path: path, Context: benchdata.Context{Device: device}, Benchmarks: bs}
}

func metricOf(name string, runs ...float64) benchdata.Metric {
	s := slices.Sorted(slices.Values(runs))
	return benchdata.Metric{Name: name, Runs: runs, Median: s[len(s)/2], Min: s[0], Max: s[len(s)-1]} // odd counts only
}

// benchSet is the hand-worked suite: four result files a side, each with
//
//   - A#slow: timeNs repeats whose medians (by hand: the middle of three)
//     are 10 11 12 13 in the old files and 15 16 17 18 in the new (every
//     new above every old: p = 2/C(8,4) = 2/70; medians of the samples
//     11.5 and 16.5, +5, +43.48 %);
//   - B#same[n=1]: timeNs medians 10 12 14 16 and 11 13 15 17 (ranks
//     interleaved; medians 13 and 14, +7.69 %), allocationCount 0 in every
//     repeat;
//   - C#gone in the old files only, D#new in the new only;
//
// the new files recorded on another device. A#slow has method traces: the
// runs of runSet's app with work 20 µs (old) and 40 µs (new), four a side.
func benchSet(t *testing.T) BenchInput {
	t.Helper()
	var olds, news []*benchdata.File
	for i, m := range []float64{10, 11, 12, 13} {
		a := benchdata.Benchmark{Class: "A", Name: "slow", Metrics: []benchdata.Metric{metricOf("timeNs", m-1, m, m+1)},
			Sampled: []benchdata.SampledMetric{{Name: "frameDurationCpuMs", Runs: [][]float64{{float64(i + 1), 10}}}}}
		b := benchdata.Benchmark{Class: "B", Name: "same[n=1]", Params: []benchdata.Param{{Name: "n", Value: "1"}},
			Metrics: []benchdata.Metric{metricOf("allocationCount", 0, 0, 0), metricOf("timeNs", 10+2*float64(i)-0.5, 10+2*float64(i), 10+2*float64(i)+3)}}
		c := benchdata.Benchmark{Class: "C", Name: "gone", Metrics: []benchdata.Metric{metricOf("timeNs", 1)}}
		olds = append(olds, benchFile("old"+string(rune('1'+i))+".json", "pixel", a, b, c))
	}
	for i, m := range []float64{15, 16, 17, 18} {
		a := benchdata.Benchmark{Class: "A", Name: "slow", Metrics: []benchdata.Metric{metricOf("timeNs", m, m+0.25, m-0.25)},
			Sampled: []benchdata.SampledMetric{{Name: "frameDurationCpuMs", Runs: [][]float64{{float64(i + 2), 20}}}}}
		b := benchdata.Benchmark{Class: "B", Name: "same[n=1]", Params: []benchdata.Param{{Name: "n", Value: "1"}},
			Metrics: []benchdata.Metric{metricOf("allocationCount", 0, 0, 0), metricOf("timeNs", 11+2*float64(i), 11+2*float64(i)-1, 11+2*float64(i)+1)}}
		d := benchdata.Benchmark{Class: "D", Name: "new", Metrics: []benchdata.Metric{metricOf("timeNs", 1)}}
		news = append(news, benchFile("new"+string(rune('1'+i))+".json", "sunfish", a, b, d))
	}
	pairs := benchdata.PairUp(olds, news)
	var oldRuns, newRuns []*Flat
	for i := range 4 {
		oldRuns = append(oldRuns, run(t, "a"+string(rune('1'+i))+".trace", 20+i, 0))
		newRuns = append(newRuns, run(t, "b"+string(rune('1'+i))+".trace", 40+i, 0))
	}
	return BenchInput{
		OldFiles: []string{"old1.json", "old2.json", "old3.json", "old4.json"},
		NewFiles: []string{"new1.json", "new2.json", "new3.json", "new4.json"},
		Pairs:    pairs, Findings: benchdata.CheckContext(olds, news, pairs),
		Traces: map[string]*BenchTraces{"A#slow": {Old: oldRuns, New: newRuns, Unread: []string{"4 old and 4 new StackSamplingTrace outputs: not compared (the MethodTrace outputs are the runs)"}}},
	}
}

// TestDiffBenchmarks: the medians, p-values, adjusted p-values and
// verdicts of benchSet, against values worked out by hand and the
// enumeration oracle.
func TestDiffBenchmarks(t *testing.T) {
	in := benchSet(t)
	opt := BenchOptions{DiffOptions: DiffOptions{Rules: rules(t, "metric:timeNs>+5%", "metric:allocationCount>+1", "work:excl>+5us"), Alpha: 0.05}}
	r, err := DiffBenchmarks(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, b := range r.Benchmarks {
		keys = append(keys, b.Benchmark+" "+b.Status)
	}
	if want := []string{"A#slow both", "B#same[n=1] both", "C#gone old-only", "D#new new-only"}; !slices.Equal(keys, want) {
		t.Fatalf("benchmarks %v, want %v", keys, want)
	}
	a, b := r.Benchmarks[0], r.Benchmarks[1]
	pa := exactP([]float64{10, 11, 12, 13}, []float64{15, 16, 17, 18})
	pb := exactP([]float64{10, 12, 14, 16}, []float64{11, 13, 15, 17})
	if !near(pa, 2.0/70) || !near(pb, 48.0/70) {
		t.Fatalf("oracle: %g %g", pa, pb)
	}
	check := func(name string, c MetricChange, old, cur, pct, p float64) {
		t.Helper()
		if !near(c.Old, old) || !near(c.New, cur) || c.Pct == nil || !near(*c.Pct, pct) || c.P == nil || !near(*c.P, p) {
			t.Errorf("%s: %g → %g (%v%%), p %v; want %g → %g (%g%%), p %g", name, c.Old, c.New, ptrv(c.Pct), ptrv(c.P), old, cur, pct, p)
		}
	}
	if a.Sampling != benchdata.FileMedians || len(a.Metrics) != 2 || b.Sampling != benchdata.FileMedians {
		t.Fatalf("A: %s, %+v", a.Sampling, a.Metrics)
	}
	check("A timeNs", a.Metrics[0], 11.5, 16.5, 100*5/11.5, pa)
	check("B timeNs", b.Metrics[1], 13, 14, 100/13.0, pb)
	if !slices.Equal(a.Metrics[0].OldValues, []float64{10, 11, 12, 13}) || !slices.Equal(a.Metrics[0].NewValues, []float64{15, 16, 17, 18}) {
		t.Errorf("A samples %v %v", a.Metrics[0].OldValues, a.Metrics[0].NewValues)
	}
	// frameDurationCpuMs pooled: old 1 10 2 10 3 10 4 10, new 2 20 3 20 4
	// 20 5 20. Sorted old 1 2 3 4 10 10 10 10: P50 (4+10)/2 = 7, P90 at
	// h = 7·0.9 = 6.3: 10. New 2 3 4 5 20 20 20 20: P50 12.5, P90 20.
	f := a.Metrics[1]
	wantF := exactP([]float64{1, 10, 2, 10, 3, 10, 4, 10}, []float64{2, 20, 3, 20, 4, 20, 5, 20})
	if !f.Sampled || f.Old != 7 || f.New != 12.5 || *f.OldP90 != 10 || *f.NewP90 != 20 || f.OldN != 8 || !near(*f.P, wantF) || f.OldValues != nil {
		t.Errorf("sampled %+v (p %v, want %g)", f, ptrv(f.P), wantF)
	}
	// allocationCount: 0 everywhere, p 1.
	if c := b.Metrics[0]; c.Old != 0 || c.New != 0 || c.Pct != nil || *c.P != 1 {
		t.Errorf("allocationCount %+v", c)
	}
	// The methods of A: work 20 21 22 23 → 40 41 42 43 µs (medians 21.5
	// and 41.5).
	m := a.Methods
	if m == nil || a.OldTraces != 4 || a.NewTraces != 4 || b.Methods != nil {
		t.Fatalf("methods %v %d %d", m, a.OldTraces, a.NewTraces)
	}
	if row := m.Rows[0]; row.Method != "com.ex.App.work" || row.Excl[0].Old != 21500 || row.Excl[0].New != 41500 {
		t.Errorf("work %+v", row.Excl[0])
	}
	if !slices.Contains(a.Notes, "4 old and 4 new StackSamplingTrace outputs: not compared (the MethodTrace outputs are the runs)") {
		t.Errorf("notes %q", a.Notes)
	}
	// The gate. metric:timeNs>+5%: 2 checks (A, B): BH, sorted 2/70,
	// 48/70: 2/2·48/70 = 0.686; min(0.686, 2/1·2/70) = 0.0571: A is
	// inconclusive. B's +7.69 % passes too, inconclusive. The rule can
	// still decide at 4 runs a side: were B's runs separated too (p =
	// 2/70), both would adjust to 2/2·2/70 = 0.029. (Under Holm it cannot:
	// 2·2/70 = 0.057 whatever B does; 5 a side would let it, 2·2/252 =
	// 0.016.) metric:allocationCount>+1: ok. work:excl: one check, p =
	// 2/70 < 0.05: regressed.
	g := r.Gate
	type v struct {
		bench, rule, subject, verdict string
		adj                           float64
	}
	var got []v
	for _, x := range g.Verdicts {
		got = append(got, v{x.Benchmark, x.Rule, x.Subject, x.Verdict, ptrv(x.PAdjusted)})
	}
	want := []v{
		{"A#slow", "work:excl>+5us", "com.ex.App.work", "regressed", 2.0 / 70},
		{"A#slow", "metric:timeNs>+5%", "timeNs", "inconclusive", 2 * 2.0 / 70},
		{"B#same[n=1]", "metric:timeNs>+5%", "timeNs", "inconclusive", 48.0 / 70},
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(x v) bool {
			return x.bench == w.bench && x.rule == w.rule && x.subject == w.subject && x.verdict == w.verdict && near(x.adj, w.adj)
		}) {
			t.Errorf("no verdict %+v in %+v", w, got)
		}
	}
	if g.Outcome != OutcomeRegressed || len(g.Undecided) != 0 {
		t.Errorf("outcome %s, undecided %+v", g.Outcome, g.Undecided)
	}
	holm := opt
	holm.Adjust = gate.Holm
	rh, _ := DiffBenchmarks(in, holm)
	if u := rh.Gate.Undecided; len(u) != 1 || u[0].Rule != "metric:timeNs>+5%" || u[0].RunsNeeded != 5 || u[0].Checks != 2 || !near(*u[0].MinPAdjusted, 2*2.0/70) {
		t.Errorf("holm: undecided %+v", u)
	}
	// Grouped by benchmark: A's verdicts first.
	if g.Verdicts[0].Benchmark != "A#slow" || g.Verdicts[len(g.Verdicts)-1].Benchmark != "B#same[n=1]" {
		t.Errorf("order %+v", got)
	}
	// Context: the device differs; a warning, or with --strict a failure.
	if len(r.Context) != 1 || r.Context[0].Check != "device" || r.Failed() {
		t.Errorf("context %+v, failed %v", r.Context, r.Failed())
	}
	opt.Strict = true
	if r, _ := DiffBenchmarks(in, opt); !r.Failed() {
		t.Error("--strict: not failed")
	}
	// At alpha 0.1 the family's 0.0571 passes: A regresses.
	opt.Alpha, opt.Strict = 0.1, false
	r2, _ := DiffBenchmarks(in, opt)
	if v := r2.Gate.Verdicts[1]; v.Rule != "metric:timeNs>+5%" || v.Verdict != "regressed" {
		t.Errorf("alpha 0.1: %+v", v)
	}
}

func ptrv(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestDiffBenchmarksRepeats: one file a side takes the repeats, and says
// the test is optimistic. 7 and 7 repeats, every new above every old:
// p = 2/C(14,7) = 2/3432.
func TestDiffBenchmarksRepeats(t *testing.T) {
	old := benchFile("o.json", "d", benchdata.Benchmark{Class: "A", Name: "a", Metrics: []benchdata.Metric{metricOf("timeNs", 1, 2, 3, 4, 5, 6, 7)}})
	cur := benchFile("n.json", "d", benchdata.Benchmark{Class: "A", Name: "a", Metrics: []benchdata.Metric{metricOf("timeNs", 8, 9, 10, 11, 12, 13, 14)}})
	pairs := benchdata.PairUp([]*benchdata.File{old}, []*benchdata.File{cur})
	r, err := DiffBenchmarks(BenchInput{OldFiles: []string{"o.json"}, NewFiles: []string{"n.json"}, Pairs: pairs},
		BenchOptions{DiffOptions: DiffOptions{Rules: rules(t, "metric:timeNs>+2ns")}})
	if err != nil {
		t.Fatal(err)
	}
	b := r.Benchmarks[0]
	if b.Sampling != benchdata.Repeats || b.Notes[0] != repeatsNote || b.Metrics[0].Old != 4 || b.Metrics[0].New != 11 ||
		!near(*b.Metrics[0].P, 2.0/3432) || r.Gate.Verdicts[0].Verdict != "regressed" {
		t.Errorf("%+v, gate %+v", b, r.Gate.Verdicts)
	}
	// Traces' rules on metrics-only benchmarks check nothing; a metric
	// rule in a diff of traces is refused.
	if _, err := DiffRuns([]*Flat{run(t, "a", 1, 0)}, []*Flat{run(t, "b", 1, 0)}, DiffOptions{Rules: rules(t, "metric:timeNs>+5%")}); err == nil ||
		!strings.Contains(err.Error(), "metric rules judge Jetpack Benchmark results") {
		t.Errorf("metric rule on traces: %v", err)
	}
}

// TestDiffBenchmarksGolden writes benchSet in every format (go test
// ./report -run Golden -update rewrites them), and checks the JUnit
// document's counts.
func TestDiffBenchmarksGolden(t *testing.T) {
	r, err := DiffBenchmarks(benchSet(t), BenchOptions{DiffOptions: DiffOptions{
		Rules: rules(t, "metric:timeNs>+5%", "metric:allocationCount>+1", "work:excl>+5us"), Alpha: 0.05, Limit: 2}})
	if err != nil {
		t.Fatal(err)
	}
	var txt, csv, js, junit, md bytes.Buffer
	for _, err := range []error{r.WriteText(&txt, TextOptions{}), r.WriteCSV(&csv), r.WriteJSON(&js), r.WriteJUnit(&junit), r.WriteMarkdown(&md, MarkdownOptions{})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "bench.txt", txt.Bytes())
	golden(t, "bench.csv", csv.Bytes())
	golden(t, "bench.json", js.Bytes())
	golden(t, "bench.junit.xml", junit.Bytes())
	golden(t, "bench.md", md.Bytes())
	var doc junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// Suites: A, B, C (one side), D (one side), context. Cases: A's 4
	// verdicts (3 of timeNs/allocationCount/work... by rule and subject),
	// B's, one per one-sided benchmark, five context checks.
	names := []string{}
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"A#slow", "B#same[n=1]", "C#gone", "D#new", "context"}) || doc.Failures != r.Gate.Regressed ||
		doc.Tests != len(r.Gate.Verdicts)+2+5 {
		t.Errorf("junit: suites %v, %d tests, %d failures", names, doc.Tests, doc.Failures)
	}
	if md.Len() == 0 || md.Len() >= MaxMarkdown {
		t.Errorf("markdown of %d bytes", md.Len())
	}
}

// TestBenchMarkdownCap: a suite of 400 benchmarks, each slower by i %, in
// a summary capped at 8 KiB: under the cap, the metrics table cut with a
// line saying how many rows it left out, the largest change first.
func TestBenchMarkdownCap(t *testing.T) {
	var olds, news []*benchdata.File
	var ob, nb []benchdata.Benchmark
	for i := range 400 {
		name := "b" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		ob = append(ob, benchdata.Benchmark{Class: "com.example.Suite", Name: name, Metrics: []benchdata.Metric{metricOf("timeNs", 100, 101, 102)}})
		f := 1 + float64(i)/100
		nb = append(nb, benchdata.Benchmark{Class: "com.example.Suite", Name: name, Metrics: []benchdata.Metric{metricOf("timeNs", 100*f, 101*f, 102*f)}})
	}
	olds, news = append(olds, benchFile("o.json", "d", ob...)), append(news, benchFile("n.json", "d", nb...))
	r, err := DiffBenchmarks(BenchInput{OldFiles: []string{"o.json"}, NewFiles: []string{"n.json"}, Pairs: benchdata.PairUp(olds, news)},
		BenchOptions{DiffOptions: DiffOptions{Rules: rules(t, "metric:timeNs>+1%")}})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, MarkdownOptions{MaxBytes: 8 << 10}); err != nil {
		t.Fatal(err)
	}
	s := md.String()
	if md.Len() >= 8<<10 || !strings.Contains(s, "metrics left out: the summary's size limit") || !strings.Contains(s, "verdicts left out") {
		t.Errorf("%d bytes:\n%s", md.Len(), s)
	}
	// The largest change, +399 %… of the last benchmark (f = 4.99), comes
	// first in the metrics table.
	table := s[strings.Index(s, "### Metrics"):]
	if first := strings.SplitN(table, "\n", 6)[4]; !strings.Contains(first, "+399.0%") {
		t.Errorf("first metric row %q", first)
	}
}
