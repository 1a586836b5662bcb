package rundiff

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/benchdata"
	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/report"
)

// benchmarkSides says --old and --new name Jetpack Benchmark results
// (benchdata.IsResultArg: folders, .json files) rather than traces; a mix
// is a usage error. OLD NEW that are both results become --old and --new.
func (c *Config) benchmarkSides() (bool, error) {
	if len(c.Old) == 0 && len(c.New) == 0 && len(c.Traces) == 2 && benchdata.IsResultArg(c.Traces[0]) && benchdata.IsResultArg(c.Traces[1]) {
		c.Old, c.New, c.Traces = c.Traces[:1], c.Traces[1:], nil // OLD NEW: one result (or folder) a side
	}
	all := slices.Concat(c.Old, c.New)
	n := 0
	for _, a := range all {
		if benchdata.IsResultArg(a) {
			n++
		}
	}
	switch {
	case n == 0:
		return false, nil
	case len(c.Traces) > 0:
		return false, driver.Usagef("give OLD NEW, or --old and --new, not both (%s)", c.Traces[0])
	case n < len(all):
		return false, driver.Usagef("--old and --new take traces, or Jetpack Benchmark results (benchmarkData.json files and folders holding them), not both")
	case len(c.Old) == 0 || len(c.New) == 0:
		return false, driver.Usagef("--old and --new go together: give at least one result file or folder to each")
	}
	return true, nil
}

// runBenchmarks is diff over Jetpack Benchmark results: the benchmarks of
// the two sides paired by class and name (package benchdata), each
// compared on its own (report.DiffBenchmarks).
func (c *Config) runBenchmarks(th report.Threshold) (*Result, error) {
	opt, phases, err := c.options(th)
	if err != nil {
		return nil, err
	}
	var pattern *regexp.Regexp
	if c.Benchmark != "" {
		if pattern, err = regexp.Compile(c.Benchmark); err != nil {
			return nil, driver.Usagef("--benchmark %q: expected a regular expression: %v", c.Benchmark, err)
		}
	}
	olds, oldPaths, err := openResults(c.Old)
	if err != nil {
		return nil, err
	}
	news, newPaths, err := openResults(c.New)
	if err != nil {
		return nil, err
	}
	pairs := benchdata.Match(benchdata.PairUp(olds, news), pattern)
	in := report.BenchInput{OldFiles: oldPaths, NewFiles: newPaths, Pairs: pairs,
		Findings: benchdata.CheckContext(olds, news, pairs), Traces: map[string]*report.BenchTraces{}}
	od, nd := c.drivers()
	for _, p := range pairs {
		if !p.Both() {
			continue
		}
		t, err := c.benchTraces(od, nd, p, phases)
		if err != nil {
			return nil, err
		}
		if t != nil {
			in.Traces[p.Key] = t
		}
	}
	r, err := report.DiffBenchmarks(in, report.BenchOptions{DiffOptions: opt, Strict: c.Driver.Options().Flags.Strict})
	if err := ruleUsage(err); err != nil {
		return nil, err
	}
	res := &Result{Report: r, Gate: r.Gate, Failure: gateFailure(r.Gate), unchecked: uncheckedBench(r)}
	if r.Failed() {
		var checks []string
		for _, f := range r.Context {
			if !slices.Contains(checks, f.Check) {
				checks = append(checks, f.Check)
			}
		}
		res.Failure = fmt.Errorf("the comparison failed: --strict, and the sides were not measured alike (%s)", strings.Join(checks, ", "))
	}
	return res, nil
}

// openResults reads the result files of one side: the files given and
// those found in the folders given.
func openResults(args []string) ([]*benchdata.File, []string, error) {
	paths, err := benchdata.Find(args)
	if err != nil {
		return nil, nil, err
	}
	files := make([]*benchdata.File, len(paths))
	for i, p := range paths {
		if files[i], err = benchdata.Open(p); err != nil {
			return nil, nil, err
		}
	}
	return files, paths, nil
}

// benchTraces reads the profiler outputs of one benchmark of both sides:
// its method traces, one run each, and their startup phases for phase
// rules (both sides read with the old side's driver); or, for a benchmark
// without method traces, its stack samples (StackSamplingTrace:
// simpleperf's protobuf, or an ART sampled method trace), one run each. A
// trace named but not found beside its result file (the JSON copied
// without its traces) is left out with a note; one that cannot be read is
// an error. It returns nil for a benchmark without profiler outputs.
func (c *Config) benchTraces(od, nd *driver.Driver, p *benchdata.Pair, phases []gate.Rule) (*report.BenchTraces, error) {
	types := p.OutputTypes()
	if len(types) == 0 {
		return nil, nil
	}
	t := &report.BenchTraces{}
	for _, typ := range types {
		old, cur := p.Outputs(typ)
		switch typ {
		case benchdata.MethodTrace:
			var err error
			var oldIns, newIns []input.Arg
			if t.Old, oldIns, err = c.loadPresent(od, old, t, typ); err != nil {
				return nil, err
			}
			if t.New, newIns, err = c.loadPresent(nd, cur, t, typ); err != nil {
				return nil, err
			}
			if len(phases) > 0 && len(oldIns) > 0 && len(newIns) > 0 {
				if t.Extra, err = c.phaseSeries(od, oldIns, newIns, phases); err != nil {
					return nil, err
				}
			}
		case benchdata.StackSamplingTrace:
			if slices.Contains(types, benchdata.MethodTrace) {
				// Samples and calls are no runs of one measure: the
				// method traces are the benchmark's runs.
				t.Unread = append(t.Unread, fmt.Sprintf("%d old and %d new StackSamplingTrace outputs: not compared (the MethodTrace outputs are the runs)", len(old), len(cur)))
				continue
			}
			var err error
			if t.Old, _, err = c.loadPresent(od, old, t, typ); err != nil {
				return nil, err
			}
			if t.New, _, err = c.loadPresent(nd, cur, t, typ); err != nil {
				return nil, err
			}
		default: // PerfettoTrace: system traces, not method profiles
			t.Unread = append(t.Unread, fmt.Sprintf("%d old and %d new %s outputs: not read", len(old), len(cur), typ))
		}
	}
	return t, nil
}

// loadPresent reads the outputs of type typ at paths that exist, and notes
// in t how many are missing.
func (c *Config) loadPresent(d *driver.Driver, paths []string, t *report.BenchTraces, typ string) ([]*report.Flat, []input.Arg, error) {
	var ins []input.Arg
	missing := 0
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			missing++
			continue
		}
		ins = append(ins, input.Arg{Path: p})
	}
	if missing > 0 {
		t.Unread = append(t.Unread, fmt.Sprintf("%d of %d %s outputs not found beside their result files (%s): left out", missing, len(paths), typ, paths[0]))
	}
	flats, err := c.flats(d, ins)
	return flats, ins, err
}

// uncheckedBench warns of each rule that checked nothing in any
// benchmark, and says why.
func uncheckedBench(r *report.BenchReport) []string {
	traces := false
	for _, b := range r.Benchmarks {
		traces = traces || b.Methods != nil
	}
	return unchecked(r.Gate, func(rule string) string {
		switch {
		case strings.HasPrefix(rule, "metric:"):
			return "no benchmark of both sides has that metric"
		case !traces:
			return "no benchmark has method traces (MethodTrace outputs) on both sides"
		}
		return "its pattern matches no method of the benchmarks' method traces"
	})
}
