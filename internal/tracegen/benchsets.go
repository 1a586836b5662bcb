package tracegen

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A BenchSuite is a Jetpack Benchmark suite whose results [BenchSuite.Write]
// generates: per run of the suite, a *-benchmarkData.json as androidx's
// ResultWriter writes it (package benchdata reads it) and, for the
// benchmarks with an App, one method trace each beside it, named in the
// benchmark's profilerOutputs as a MethodTrace. For tests of
// `atrace2 diff` over benchmark results.
type BenchSuite struct {
	Package    string // the file is Package-benchmarkData.json
	Device     string // context.build.device
	Benchmarks []BenchSpec
}

// BenchSpec is one benchmark of a [BenchSuite].
type BenchSpec struct {
	Class, Name string
	// Metrics are the metrics' typical values: each repeat draws around
	// them (BenchRunOptions).
	Metrics map[string]float64
	// App, when set, is what the benchmark traces: each run writes one
	// run of it ([App.Run]) as the benchmark's MethodTrace output.
	App *App
}

// BenchRunOptions choose one run of a [BenchSuite].
type BenchRunOptions struct {
	Seed    uint64 // with the file's index, seeds the noise
	Repeats int    // values per metric (0: 5)
	// RunNoise is the σ of the log of a factor drawn once per file and
	// benchmark (the device's state); RepeatNoise the σ of a factor per
	// repeat.
	RunNoise, RepeatNoise float64
	// Slow names a benchmark (Class#Name) whose metric SlowMetric is
	// multiplied by Factor in every repeat, and whose trace is made with
	// TraceStretch (a method label, [RunOptions.Stretch]) by Factor.
	Slow, SlowMetric, TraceStretch string
	Factor                         float64
	// TraceNoise is the method traces' noise ([RunOptions.Noise]).
	TraceNoise Noise
}

// BenchRun is what [BenchSuite.Write] wrote: the oracle of tests.
type BenchRun struct {
	Path string // the JSON file
	// Values are the metrics' values, by benchmark (Class#Name) and metric.
	Values map[string]map[string][]float64
	// Traces are the method traces, by benchmark.
	Traces map[string]*Trace
}

// Write writes run i of the suite into dir (created if needed).
func (s *BenchSuite) Write(dir string, o BenchRunOptions, i int) (*BenchRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	lognormal := func(sigma float64) float64 { return math.Exp(sigma * rng.NormFloat64()) }
	repeats := o.Repeats
	if repeats == 0 {
		repeats = 5
	}
	type metric struct {
		Minimum float64   `json:"minimum"`
		Maximum float64   `json:"maximum"`
		Median  float64   `json:"median"`
		Runs    []float64 `json:"runs"`
	}
	type output struct {
		Type     string `json:"type"`
		Label    string `json:"label"`
		Filename string `json:"filename"`
	}
	type benchmark struct {
		Name                        string            `json:"name"`
		Params                      map[string]string `json:"params"`
		ClassName                   string            `json:"className"`
		TotalRunTimeNs              int64             `json:"totalRunTimeNs"`
		Metrics                     map[string]metric `json:"metrics"`
		SampledMetrics              map[string]any    `json:"sampledMetrics"`
		WarmupIterations            int               `json:"warmupIterations"`
		RepeatIterations            int               `json:"repeatIterations"`
		ThermalThrottleSleepSeconds int64             `json:"thermalThrottleSleepSeconds"`
		ProfilerOutputs             []output          `json:"profilerOutputs,omitempty"`
	}
	out := &BenchRun{Values: map[string]map[string][]float64{}, Traces: map[string]*Trace{}}
	values := out.Values
	var bs []benchmark
	for _, spec := range s.Benchmarks {
		key := spec.Class + "#" + spec.Name
		b := benchmark{Name: spec.Name, Params: map[string]string{}, ClassName: spec.Class, TotalRunTimeNs: 1_000_000_000,
			Metrics: map[string]metric{}, SampledMetrics: map[string]any{}, WarmupIterations: 10, RepeatIterations: repeats}
		values[key] = map[string][]float64{}
		names := make([]string, 0, len(spec.Metrics))
		for n := range spec.Metrics {
			names = append(names, n)
		}
		slices.Sort(names) // the noise is drawn in name order
		for _, n := range names {
			run := lognormal(o.RunNoise)
			runs := make([]float64, repeats)
			for r := range runs {
				v := spec.Metrics[n] * run * lognormal(o.RepeatNoise)
				if key == o.Slow && n == o.SlowMetric {
					v *= o.Factor
				}
				runs[r] = v
			}
			values[key][n] = runs
			b.Metrics[n] = metric{Minimum: slices.Min(runs), Maximum: slices.Max(runs), Median: median(runs), Runs: runs}
		}
		if spec.App != nil {
			ro := RunOptions{Noise: o.TraceNoise, Seed: o.Seed ^ uint64(len(bs)+1)<<32}
			if key == o.Slow {
				ro.Stretch, ro.Factor = o.TraceStretch, o.Factor
			}
			name := fmt.Sprintf("%s_%s_%03d-method.trace", simpleName(spec.Class), spec.Name, i)
			tr := spec.App.Run(ro, i)
			out.Traces[key] = tr
			if err := os.WriteFile(filepath.Join(dir, name), tr.Regular(), 0o644); err != nil {
				return nil, err
			}
			b.ProfilerOutputs = []output{{Type: "MethodTrace", Label: "Trace", Filename: name}}
		}
		bs = append(bs, b)
	}
	doc := map[string]any{
		"context": map[string]any{
			"build": map[string]any{"brand": "google", "device": s.Device, "fingerprint": "google/" + s.Device + "/" + s.Device + ":15/AP4A/1:user/release-keys",
				"id": "AP4A", "model": "Pixel", "type": "user", "version": map[string]any{"codename": "REL", "sdk": 35}},
			"cpuCoreCount": 8, "cpuLocked": true, "cpuMaxFreqHz": 2_000_000_000, "memTotalBytes": 8 << 30,
			"sustainedPerformanceModeEnabled": false, "artMainlineVersion": 350_000_000, "osCodenameAbbreviated": "A",
			"compilationMode": "speed-profile",
		},
		"benchmarks": bs,
	}
	data, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, err
	}
	out.Path = filepath.Join(dir, s.Package+"-benchmarkData.json")
	return out, os.WriteFile(out.Path, data, 0o644)
}

func simpleName(class string) string {
	return class[strings.LastIndexByte(class, '.')+1:]
}

// median is the middle value, the mean of the two middle ones for an even
// count (as the writer computes it).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
