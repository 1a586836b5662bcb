package main

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
// is a usage error.
func (c *DiffCmd) benchmarkSides() (bool, error) {
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
		return false, usagef("give OLD NEW, or --old and --new, not both (%s)", c.Traces[0])
	case n < len(all):
		return false, usagef("--old and --new take traces, or Jetpack Benchmark results (benchmarkData.json files and folders holding them), not both")
	case len(c.Old) == 0 || len(c.New) == 0:
		return false, usagef("--old and --new go together: give at least one result file or folder to each")
	}
	return true, nil
}

// runBenchmarks is diff over Jetpack Benchmark results: the benchmarks of
// the two sides paired by class and name (package benchdata), each
// compared on its own (report.DiffBenchmarks).
func (c *DiffCmd) runBenchmarks(e *env, th report.Threshold) error {
	opt, phases, err := c.options(e, th)
	if err != nil {
		return err
	}
	var pattern *regexp.Regexp
	if c.Benchmark != "" {
		if pattern, err = regexp.Compile(c.Benchmark); err != nil {
			return usagef("--benchmark %q: expected a regular expression: %v", c.Benchmark, err)
		}
	}
	olds, oldPaths, err := openResults(c.Old)
	if err != nil {
		return err
	}
	news, newPaths, err := openResults(c.New)
	if err != nil {
		return err
	}
	pairs := benchdata.Match(benchdata.PairUp(olds, news), pattern)
	in := report.BenchInput{OldFiles: oldPaths, NewFiles: newPaths, Pairs: pairs,
		Findings: benchdata.CheckContext(olds, news, pairs), Traces: map[string]*report.BenchTraces{}}
	od, nd := c.mappings(e)
	for _, p := range pairs {
		if !p.Both() {
			continue
		}
		t, err := benchTraces(e, od, nd, p, phases)
		if err != nil {
			return err
		}
		if t != nil {
			in.Traces[p.Key] = t
		}
	}
	r, err := report.DiffBenchmarks(in, report.BenchOptions{DiffOptions: opt, Strict: e.opt.Flags.Strict})
	if err := ruleUsage(err); err != nil {
		return err
	}
	if err := c.writeBench(e, r); err != nil {
		return err
	}
	warnUncheckedBench(e, r)
	c.warnUndecided(e, r.Gate)
	if r.Failed() {
		var checks []string
		for _, f := range r.Context {
			if !slices.Contains(checks, f.Check) {
				checks = append(checks, f.Check)
			}
		}
		return &exitCodeError{code: exitError, msg: fmt.Sprintf("the comparison failed: --strict, and the sides were not measured alike (%s)", strings.Join(checks, ", "))}
	}
	return gateExit(r.Gate)
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
// rules. A trace named but not found beside its result file (the JSON
// copied without its traces) is left out with a note; one that cannot be
// read is an error. It returns nil for a benchmark without profiler
// outputs.
func benchTraces(e *env, od, nd *driver.Driver, p *benchdata.Pair, phases []gate.Rule) (*report.BenchTraces, error) {
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
			if t.Old, oldIns, err = loadPresent(e, od, old, t); err != nil {
				return nil, err
			}
			if t.New, newIns, err = loadPresent(e, nd, cur, t); err != nil {
				return nil, err
			}
			if len(phases) > 0 && len(oldIns) > 0 && len(newIns) > 0 {
				if t.Extra, err = phaseSeries(e, od, oldIns, newIns, phases); err != nil {
					return nil, err
				}
			}
		case benchdata.StackSamplingTrace:
			// TODO(pin34): read simpleperf's protobuf (and ART sampled
			// traces) here, as the runs of the benchmark's sampled
			// profile, once the sampled-profile readers of issue 34 land.
			t.Unread = append(t.Unread, fmt.Sprintf("%d old and %d new StackSamplingTrace outputs: not read yet (simpleperf protobuf)", len(old), len(cur)))
		default: // PerfettoTrace: system traces, not method profiles
			t.Unread = append(t.Unread, fmt.Sprintf("%d old and %d new %s outputs: not read", len(old), len(cur), typ))
		}
	}
	return t, nil
}

// loadPresent reads the method traces of paths that exist, and notes in t
// how many are missing.
func loadPresent(e *env, d *driver.Driver, paths []string, t *report.BenchTraces) ([]*report.Flat, []input.Arg, error) {
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
		t.Unread = append(t.Unread, fmt.Sprintf("%d of %d MethodTrace outputs not found beside their result files (%s): left out", missing, len(paths), paths[0]))
	}
	flats, err := loadFlats(e, d, ins)
	return flats, ins, err
}

// writeBench prints r on stdout in the chosen format.
func (c *DiffCmd) writeBench(e *env, r *report.BenchReport) error {
	f := reportFlags{Format: c.Format, Wide: c.Wide}
	switch c.Format {
	case "junit", "markdown":
	default:
		return f.write(e, r)
	}
	out, err := e.createOutput("-", false, "")
	if err != nil {
		return err
	}
	defer out.Abort()
	if c.Format == "junit" {
		err = r.WriteJUnit(out)
	} else {
		err = r.WriteMarkdown(out, report.MarkdownOptions{})
	}
	if err != nil {
		return err
	}
	return out.Commit()
}

// warnUncheckedBench warns of each rule that checked nothing in any
// benchmark, and says why.
func warnUncheckedBench(e *env, r *report.BenchReport) {
	gr := r.Gate
	if gr == nil {
		return
	}
	checked := map[string]bool{}
	for _, v := range gr.Verdicts {
		checked[v.Rule] = true
	}
	traces := false
	for _, b := range r.Benchmarks {
		traces = traces || b.Methods != nil
	}
	for _, rule := range gr.Rules {
		if checked[rule] {
			continue
		}
		why := "its pattern matches no method of the benchmarks' method traces"
		switch {
		case strings.HasPrefix(rule, "metric:"):
			why = "no benchmark of both sides has that metric"
		case !traces:
			why = "no benchmark has method traces (MethodTrace outputs) on both sides"
		}
		fmt.Fprintf(e.stderr, "atrace2: warning: --fail-on %q checked nothing: %s\n", rule, why)
	}
}
