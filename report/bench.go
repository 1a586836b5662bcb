package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/atrace2/atrace2/benchdata"
	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/stats"
)

// A diff of Jetpack Benchmark results (package benchdata) compares each
// benchmark on its own: its metrics (timeNs, allocationCount, …), with the
// samples benchdata.Pair chooses, and the method traces its MethodTrace
// outputs name, as a diff of runs. The --fail-on rules judge every
// benchmark: metric rules its metrics, method and phase rules its traces;
// the checks of one rule across all benchmarks are one family for the
// adjustment (gate.Family), so that a suite of many benchmarks does not
// fail more often without a change than one benchmark does.

// BenchInput is what DiffBenchmarks compares.
type BenchInput struct {
	OldFiles, NewFiles []string // the result files of each side
	Pairs              []*benchdata.Pair
	Findings           []benchdata.Finding // benchdata.CheckContext
	// Traces holds, by benchmark Key, the runs read from the benchmark's
	// profiler outputs; a benchmark without any is absent.
	Traces map[string]*BenchTraces
}

// BenchTraces are one benchmark's runs read from its profiler outputs.
type BenchTraces struct {
	Old, New []*Flat
	// Extra is the benchmark's startup phase series (phase rules).
	Extra []gate.Series
	// Unread says which outputs were not read, and why: "4 old and 4
	// new StackSamplingTrace outputs: not compared (the MethodTrace
	// outputs are the runs)".
	Unread []string
}

// BenchOptions shape a diff of benchmark results: those of a diff of runs
// (the rows of each benchmark's methods table, the rules and the gate's
// statistics; Extra is per benchmark, in BenchTraces), and Strict, which
// makes the context findings fail.
type BenchOptions struct {
	DiffOptions
	Strict bool
}

// BenchReport compares two sets of benchmark results benchmark by
// benchmark.
type BenchReport struct {
	Old []string `json:"old"` // the result files
	New []string `json:"new"`
	// Context lists how the sides were not measured alike
	// (benchdata.CheckContext): warnings, or failures when Strict.
	Context    []benchdata.Finding `json:"context"`
	Strict     bool                `json:"strict"`
	Benchmarks []BenchDiff         `json:"benchmarks"` // sorted by Benchmark
	Gate       *GateReport         `json:"gate,omitempty"`
}

// BenchDiff is one benchmark on the two sides.
type BenchDiff struct {
	Benchmark string            `json:"benchmark"` // benchdata.Benchmark.Key: class#name
	Class     string            `json:"class"`
	Name      string            `json:"name"`
	Params    []benchdata.Param `json:"params"`
	Status    string            `json:"status"` // StatusBoth, StatusOldOnly or StatusNewOnly
	OldFiles  int               `json:"old_files"`
	NewFiles  int               `json:"new_files"`
	// Sampling says what the metrics' samples are: "file-medians" (each
	// file's median of the repeats) or "repeats" (every repeat, which
	// makes the test optimistic); "" for a benchmark of one side.
	Sampling benchdata.Sampling `json:"sampling,omitempty"`
	Metrics  []MetricChange     `json:"metrics"`
	// Methods compares the benchmark's method traces (MethodTrace
	// outputs), as a diff of runs; nil when a side has none.
	Methods *DiffReport `json:"methods,omitempty"`
	// OldTraces and NewTraces count the method traces read.
	OldTraces int `json:"old_traces"`
	NewTraces int `json:"new_traces"`
	// Notes are caveats: outputs not read, repeats taken as runs.
	Notes []string `json:"notes,omitempty"`
}

// MetricChange is one metric of a benchmark on the two sides: the medians
// of the samples (Sampling), or for a sampled metric (per frame) of the
// pooled values, with their 90th percentiles.
type MetricChange struct {
	Name    string `json:"name"`
	Sampled bool   `json:"sampled,omitempty"`
	// Status is StatusBoth, or StatusOldOnly or StatusNewOnly for a metric
	// only one side has (its values are then 0 on the other).
	Status string   `json:"status"`
	Old    float64  `json:"old"`
	New    float64  `json:"new"`
	Delta  float64  `json:"delta"`
	Pct    *float64 `json:"pct"`
	// P is the Mann–Whitney U test's p-value of the samples, with at
	// least MinRunsForP on each side.
	P *float64 `json:"p"`
	// OldValues and NewValues are the samples of a metric (not of a
	// sampled metric, which can hold thousands of frames).
	OldValues []float64 `json:"old_values,omitempty"`
	NewValues []float64 `json:"new_values,omitempty"`
	// OldP90 and NewP90 are a sampled metric's 90th percentiles (Old and
	// New are its P50); OldN and NewN count the samples.
	OldP90 *float64 `json:"old_p90,omitempty"`
	NewP90 *float64 `json:"new_p90,omitempty"`
	OldN   int      `json:"old_n"`
	NewN   int      `json:"new_n"`
}

// Notes of a benchmark.
const (
	repeatsNote = "one file on a side: the samples are the repeats of one run, which share the device's state; the test takes them for independent runs, so its p-values are optimistic (give several result files a side)"
)

// DiffBenchmarks compares the benchmarks of in, each on its own, and
// judges opt.Rules on every one (see the top of this file).
func DiffBenchmarks(in BenchInput, opt BenchOptions) (*BenchReport, error) {
	r := &BenchReport{Old: in.OldFiles, New: in.NewFiles, Context: in.Findings, Strict: opt.Strict}
	if r.Context == nil {
		r.Context = []benchdata.Finding{}
	}
	checks := make([][]gate.Check, len(opt.Rules))
	metricRules := metricRuleIndex(opt.Rules)
	for _, p := range in.Pairs {
		b := BenchDiff{Benchmark: p.Key, Class: p.Class, Name: p.Name, Params: p.Params, Status: StatusBoth,
			OldFiles: len(p.Old), NewFiles: len(p.New), Metrics: []MetricChange{}}
		switch {
		case len(p.Old) == 0:
			b.Status = StatusNewOnly
		case len(p.New) == 0:
			b.Status = StatusOldOnly
		}
		if b.Params == nil {
			b.Params = []benchdata.Param{}
		}
		if b.Status == StatusBoth {
			b.Sampling = p.Sampling()
			if b.Sampling == benchdata.Repeats {
				b.Notes = append(b.Notes, repeatsNote)
			}
			series := b.addMetrics(p)
			for k := range series {
				for _, i := range metricRules[series[k].Subject] {
					checks[i] = append(checks[i], gate.Check{Rule: &opt.Rules[i], Series: &series[k]})
				}
			}
			if err := b.addMethods(in.Traces[p.Key], opt.DiffOptions, checks); err != nil {
				return nil, err
			}
		}
		if t := in.Traces[p.Key]; t != nil {
			b.Notes = append(b.Notes, t.Unread...)
		}
		r.Benchmarks = append(r.Benchmarks, b)
	}
	if len(opt.Rules) > 0 {
		r.Gate = judgeChecks(opt.DiffOptions, checks, true)
	}
	return r, nil
}

// metricRuleIndex maps each metric name the rules name to the rules' indices.
func metricRuleIndex(rules []gate.Rule) map[string][]int {
	m := map[string][]int{}
	for i := range rules {
		if rules[i].Metric == "metric" {
			m[rules[i].MetricName] = append(m[rules[i].MetricName], i)
		}
	}
	return m
}

// addMetrics adds the changes of p's metrics and sampled metrics, and
// returns the series of those both sides have, for the metric rules.
func (b *BenchDiff) addMetrics(p *benchdata.Pair) []gate.Series {
	var series []gate.Series
	add := func(name string, sampled bool, old, cur []float64) {
		c := MetricChange{Name: name, Sampled: sampled, Status: StatusBoth, OldN: len(old), NewN: len(cur)}
		switch {
		case len(old) == 0:
			c.Status = StatusNewOnly
		case len(cur) == 0:
			c.Status = StatusOldOnly
		}
		ch := newChange(medianOr0(old), medianOr0(cur))
		c.Old, c.New, c.Delta, c.Pct = ch.Old, ch.New, ch.Delta, ch.Pct
		if len(old) >= MinRunsForP && len(cur) >= MinRunsForP {
			if mw, err := stats.MannWhitneyU(old, cur); err == nil {
				c.P = &mw.P
			}
		}
		if sampled {
			c.OldP90, c.NewP90 = quantile(old, 0.9), quantile(cur, 0.9)
		} else {
			c.OldValues, c.NewValues = old, cur
		}
		b.Metrics = append(b.Metrics, c)
		if c.Status == StatusBoth {
			series = append(series, gate.Series{Subject: name, Group: b.Benchmark, Kind: gate.BenchmarkMetric, Metric: "metric", Old: old, New: cur})
		}
	}
	for _, name := range p.MetricNames() {
		old, cur := p.MetricSamples(name)
		add(name, false, old, cur)
	}
	for _, name := range p.SampledNames() {
		old, cur := p.SampledValues(name)
		add(name, true, old, cur)
	}
	return series
}

func medianOr0(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stats.Median(xs)
}

func quantile(xs []float64, q float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	v := stats.Quantile(xs, q)
	return &v
}

// addMethods compares the benchmark's method traces, when both sides have
// some, and adds the method and phase rules' checks on them to checks.
func (b *BenchDiff) addMethods(t *BenchTraces, opt DiffOptions, checks [][]gate.Check) error {
	if t == nil {
		return nil
	}
	b.OldTraces, b.NewTraces = len(t.Old), len(t.New)
	if len(t.Old) == 0 || len(t.New) == 0 {
		return nil
	}
	d, err := diffRuns(t.Old, t.New, opt)
	if err != nil {
		return err
	}
	if len(opt.Rules) > 0 {
		cs, err := d.ruleChecks(opt.Rules, t.Extra, b.Benchmark, true)
		if err != nil {
			return err
		}
		for i := range cs {
			checks[i] = append(checks[i], cs[i]...)
		}
	}
	d.finish(opt)
	b.Methods = d.r
	return nil
}

// Failed says the context checks fail the run: Strict and a finding.
func (r *BenchReport) Failed() bool { return r.Strict && len(r.Context) > 0 }

// OneSided counts the benchmarks of one side only.
func (r *BenchReport) OneSided() (oldOnly, newOnly int) {
	for _, b := range r.Benchmarks {
		switch b.Status {
		case StatusOldOnly:
			oldOnly++
		case StatusNewOnly:
			newOnly++
		}
	}
	return oldOnly, newOnly
}

// byChange returns the benchmarks of both sides ordered by their largest
// metric change in percent, largest first (markdown).
func (r *BenchReport) byChange() []*BenchDiff {
	var out []*BenchDiff
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Status == StatusBoth {
			out = append(out, &r.Benchmarks[i])
		}
	}
	size := func(b *BenchDiff) float64 {
		m := 0.0
		for i := range b.Metrics {
			m = max(m, b.Metrics[i].size())
		}
		return m
	}
	slices.SortStableFunc(out, func(a, b *BenchDiff) int { return cmp.Compare(size(b), size(a)) })
	return out
}

// size is the change in percent, absolute: +Inf for a change from 0.
func (c *MetricChange) size() float64 {
	if c.Pct == nil {
		if c.Delta != 0 {
			return math.Inf(1)
		}
		return 0
	}
	return math.Abs(*c.Pct)
}
