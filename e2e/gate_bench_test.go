package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// benchSuite is a generated Jetpack Benchmark suite: two benchmarks that
// trace tracegen.FeedApp(0) and one without traces.
var benchSuite = tracegen.BenchSuite{Package: "com.example.benchmark", Device: "pixel8", Benchmarks: []tracegen.BenchSpec{
	{Class: "com.example.benchmark.FeedBenchmark", Name: "bind", Metrics: map[string]float64{"timeNs": 120_000, "allocationCount": 40}, App: tracegen.FeedApp(0)},
	{Class: "com.example.benchmark.FeedBenchmark", Name: "scroll[mode=fast]", Metrics: map[string]float64{"timeNs": 900_000}, App: tracegen.FeedApp(0)},
	{Class: "com.example.benchmark.ParseBenchmark", Name: "parse", Metrics: map[string]float64{"timeNs": 50_000}},
}}

const (
	benchBind = "com.example.benchmark.FeedBenchmark#bind"
	benchLoad = "com.example.feed.ImageLoader.load"
)

// writeBenchSide writes n runs of benchSuite as Gradle lays them out, one
// folder per run (DIR/run-I/connected/pixel8/…-benchmarkData.json and the
// traces beside it), and returns what each run wrote.
func writeBenchSide(t *testing.T, dir string, o tracegen.BenchRunOptions, n int) []*tracegen.BenchRun {
	t.Helper()
	var runs []*tracegen.BenchRun
	for i := range n {
		r, err := benchSuite.Write(filepath.Join(dir, fmt.Sprintf("run-%d", i), "connected", "pixel8"), o, i)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

// benchJSON is the part of `diff --format json` over benchmarks the tests read.
type benchJSON struct {
	Old, New   []string
	Benchmarks []struct {
		Benchmark string `json:"benchmark"`
		Status    string `json:"status"`
		Sampling  string `json:"sampling"`
		Metrics   []struct {
			Name      string    `json:"name"`
			Old       float64   `json:"old"`
			New       float64   `json:"new"`
			P         *float64  `json:"p"`
			OldValues []float64 `json:"old_values"`
			NewValues []float64 `json:"new_values"`
		} `json:"metrics"`
		OldTraces int `json:"old_traces"`
		NewTraces int `json:"new_traces"`
	} `json:"benchmarks"`
	Gate struct {
		Outcome  string `json:"outcome"`
		Verdicts []struct {
			Rule      string   `json:"rule"`
			Benchmark string   `json:"benchmark"`
			Subject   string   `json:"subject"`
			Verdict   string   `json:"verdict"`
			Old       float64  `json:"old"`
			New       float64  `json:"new"`
			P         *float64 `json:"p"`
			PAdjusted *float64 `json:"p_adjusted"`
		} `json:"verdicts"`
	} `json:"gate"`
}

// TestGateBenchmarks: five results a side of benchSuite, the new ones with
// FeedBenchmark#bind's timeNs 1.5 times higher in every repeat and
// ImageLoader.load 1.5 times slower in its traces. The oracle, from the
// values and traces the generator wrote: each benchmark's samples are the
// five files' medians of their repeats; the p-values are the exact
// Mann–Whitney enumeration; the rule's p-values over the three benchmarks
// adjust by Benjamini–Hochberg's definition. bind's timeNs (every new
// file's median above every old one: p = 2/252) regresses and the others
// stay ok; load's exclusive time regresses in bind only.
func TestGateBenchmarks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := tracegen.BenchRunOptions{Seed: 50, RunNoise: 0.02, RepeatNoise: 0.02, TraceNoise: gateCalm}
	olds := writeBenchSide(t, filepath.Join(dir, "base"), base, 5)
	slow := base
	slow.Seed, slow.Slow, slow.SlowMetric, slow.TraceStretch, slow.Factor = 51, benchBind, "timeNs", benchLoad, 1.5
	news := writeBenchSide(t, filepath.Join(dir, "head"), slow, 5)

	r := atrace2(t, nil, "diff", "--old", filepath.Join(dir, "base"), "--new", filepath.Join(dir, "head"),
		"--fail-on", "metric:timeNs>+10%", "--fail-on", `ImageLoader\.load:excl>+10%`, "--format", "json")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	var rep benchJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Old) != 5 || len(rep.New) != 5 || len(rep.Benchmarks) != 3 {
		t.Fatalf("%d and %d files, %d benchmarks", len(rep.Old), len(rep.New), len(rep.Benchmarks))
	}

	// The oracle's metric samples: per file, the median of its repeats.
	samples := func(runs []*tracegen.BenchRun, bench, metric string) []float64 {
		var xs []float64
		for _, r := range runs {
			xs = append(xs, gateMedian(r.Values[bench][metric]))
		}
		return xs
	}
	var keys []string
	var ps []float64
	for _, b := range rep.Benchmarks {
		keys = append(keys, b.Benchmark)
		if b.Status != "both" || b.Sampling != "file-medians" {
			t.Errorf("%s: %s, %s", b.Benchmark, b.Status, b.Sampling)
		}
		for _, m := range b.Metrics {
			o, n := samples(olds, b.Benchmark, m.Name), samples(news, b.Benchmark, m.Name)
			p := testutil.ExactMannWhitneyP(o, n)
			if !slices.Equal(m.OldValues, o) || !slices.Equal(m.NewValues, n) || m.Old != gateMedian(o) || m.New != gateMedian(n) ||
				m.P == nil || math.Abs(*m.P-p) > 1e-12 {
				t.Errorf("%s %s: samples %v → %v, medians %v → %v, p %v; the oracle's %v → %v, %v → %v, p %v",
					b.Benchmark, m.Name, m.OldValues, m.NewValues, m.Old, m.New, ptr(m.P), o, n, gateMedian(o), gateMedian(n), p)
			}
			if m.Name == "timeNs" {
				ps = append(ps, p)
			}
		}
	}
	if want := []string{benchBind, "com.example.benchmark.FeedBenchmark#scroll[mode=fast]", "com.example.benchmark.ParseBenchmark#parse"}; !slices.Equal(keys, want) {
		t.Fatalf("benchmarks %v, want %v", keys, want)
	}
	if o, n := samples(olds, benchBind, "timeNs"), samples(news, benchBind, "timeNs"); slices.Min(n) <= slices.Max(o) || math.Abs(ps[0]-2.0/252) > 1e-12 {
		t.Fatalf("the oracle: bind's samples %v and %v are not separated (p %g)", o, n, ps[0])
	}
	adjusted := testutil.BH(ps)

	// The verdicts: timeNs of each benchmark; load's excl on each clock
	// in each benchmark with traces.
	oldT := map[string][]map[string][2]float64{}
	newT := map[string][]map[string][2]float64{}
	for _, r := range olds {
		for k, tr := range r.Traces {
			oldT[k] = append(oldT[k], gateTimes(tr))
		}
	}
	for _, r := range news {
		for k, tr := range r.Traces {
			newT[k] = append(newT[k], gateTimes(tr))
		}
	}
	seen := 0
	for _, v := range rep.Gate.Verdicts {
		switch {
		case v.Rule == "metric:timeNs>+10%":
			i := slices.Index(keys, v.Benchmark)
			want := "ok"
			if v.Benchmark == benchBind {
				want = "regressed"
			}
			if v.Verdict != want || v.PAdjusted == nil || math.Abs(*v.PAdjusted-adjusted[i]) > 1e-12 {
				t.Errorf("%s timeNs: %s, adjusted p %v; want %s, %g (BH of %v)", v.Benchmark, v.Verdict, ptr(v.PAdjusted), want, adjusted[i], ps)
			}
			seen++
		case v.Subject == benchLoad && v.Rule == `ImageLoader\.load:excl>+10%`:
			o, n := gateSeries(oldT[v.Benchmark], benchLoad, 0), gateSeries(newT[v.Benchmark], benchLoad, 0)
			want := gateExpect(o, n, 10, 3)
			if v.Benchmark == benchBind && want != "regressed" && slices.Min(n) > slices.Max(o) {
				want = "regressed" // 5 a side: the oracle's gateRuns is 8; one check, p = 2/252
			}
			if want == "" || v.Verdict != want {
				t.Errorf("%s load: %s (%v → %v); the oracle %q (old %v, new %v)", v.Benchmark, v.Verdict, v.Old, v.New, want, o, n)
			}
			seen++
		}
	}
	// timeNs of 3 benchmarks; load's excl on the wall clock (the rule's,
	// the first) in the 2 with traces.
	if seen != 5 || rep.Gate.Outcome != "regressed" {
		t.Errorf("%d verdicts seen, outcome %s: %+v", seen, rep.Gate.Outcome, rep.Gate.Verdicts)
	}

	// --benchmark picks one: the others' verdicts and rows are gone.
	r = atrace2(t, nil, "diff", "--old", filepath.Join(dir, "base"), "--new", filepath.Join(dir, "head"), "--benchmark", `#scroll\[`,
		"--fail-on", "metric:timeNs>+10%", "--format", "json")
	if r.code != 0 || strings.Count(r.stdout, `"benchmark": "com.example`) != 2 { // the benchmark and its one verdict
		t.Errorf("--benchmark: exit %d\n%.2000s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// Every format in a CI job: JUnit against the schema, markdown under
	// the cap.
	for _, format := range []string{"junit", "markdown", "csv", "text"} {
		r := atrace2(t, nil, "diff", "--old", filepath.Join(dir, "base"), "--new", filepath.Join(dir, "head"),
			"--fail-on", "metric:timeNs>+10%", "--fail-on", `ImageLoader\.load:excl>+10%`, "--format", format)
		if r.code != 3 || !strings.Contains(r.stdout, benchBind) {
			t.Errorf("%s: exit %d\n%.1000s", format, r.code, r.stdout)
		}
		if format == "junit" && !strings.Contains(r.stdout, "<skipped") {
			xmllintSchema(t, r.stdout)
		}
	}
}

// TestGateBenchmarksContext: the new side on another device and unlocked
// clocks: warnings, exit 0 without rules; --strict fails (exit 1) after
// writing the report. A result file whose traces were not copied is
// compared on its metrics, with a note. A broken result file is one line
// naming it and the offset.
func TestGateBenchmarksContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := tracegen.BenchRunOptions{Seed: 60, RunNoise: 0.02, RepeatNoise: 0.02}
	olds := writeBenchSide(t, filepath.Join(dir, "base"), o, 3)
	other := benchSuite
	other.Device = "sunfish"
	cur, err := other.Write(filepath.Join(dir, "head"), o, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The traces of the new run are not there.
	for _, r := range []*tracegen.BenchRun{cur} {
		names, _ := filepath.Glob(filepath.Join(filepath.Dir(r.Path), "*.trace"))
		for _, n := range names {
			os.Remove(n)
		}
	}
	r := atrace2(t, nil, "diff", "--old", filepath.Join(dir, "base"), "--new", cur.Path)
	if r.code != 0 || !strings.Contains(r.stdout, "context: warning: device: the sides differ in device: old pixel8 (Pixel), new sunfish (Pixel)") ||
		!strings.Contains(r.stdout, "note: 1 of 1 MethodTrace outputs not found beside their result files") {
		t.Errorf("exit %d\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = atrace2(t, nil, "--strict", "diff", "--old", filepath.Join(dir, "base"), "--new", cur.Path, "--format", "json")
	if r.code != 1 || !strings.Contains(r.stdout, `"check": "device"`) ||
		r.stderr != "atrace2: the comparison failed: --strict, and the sides were not measured alike (device, fingerprint)\n" {
		t.Errorf("--strict: exit %d, stderr %q\n%.500s", r.code, r.stderr, r.stdout)
	}
	bad := filepath.Join(dir, "bad-benchmarkData.json")
	os.WriteFile(bad, []byte(`{"benchmarks":[{"className":"C","name":"n","metrics":{"timeNs":{"runs":[1,"x"]}}}]}`), 0o644)
	r = atrace2(t, nil, "diff", "--old", olds[0].Path, "--new", bad)
	if want := "atrace2: " + bad + ": offset 74 (0x4a): benchmarks[0].metrics.runs: expected a number, found a JSON string\n"; r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("broken file: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
}
