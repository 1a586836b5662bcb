package rundiff

import (
	"errors"
	"fmt"
	"slices"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/report"
)

// Config is what a diff compares, and how: diff's flags.
type Config struct {
	// Driver is the run's load stage: its options (the global flags), the
	// inputs it opens, and its UI, which prints each read's diagnostics.
	Driver *driver.Driver

	Traces   []string // OLD NEW
	Old, New []string // --old, --new
	// OldMapping and NewMapping are the mapping.txt of each side, when
	// the builds differ (else the global --mapping names both).
	OldMapping, NewMapping string
	Benchmark              string // --benchmark: a pattern of class#name, or ""

	Sort              string
	Limit             int
	Threshold         string   // a duration or a percentage
	FailOn            []string // the rules
	Alpha             float64
	Adjust            string // bh, holm or none
	InconclusiveFails bool
}

// Result is a diff's outcome.
type Result struct {
	// Report is *report.DiffReport, or *report.BenchReport for benchmark
	// results.
	Report report.GateWriter
	Gate   *report.GateReport // nil without rules
	// Failure fails the run once the report is written: with --strict,
	// benchmark results whose sides were not measured alike; else a
	// *GateError when the gate failed; nil when it passed.
	Failure   error
	unchecked []string // the rules that checked nothing, and why
}

// Warnings are the lines (without the program's name) to print on
// standard error after the report: each rule that checked nothing (a
// pattern with a typo passes by checking nothing, and the gate would be
// off), and the rules that cannot decide at these run counts, which a
// text report prints itself and which are repeated so that a CI log shows
// them whatever file the report went to (not with --quiet).
func (r *Result) Warnings(text, quiet bool) []string {
	ws := slices.Clone(r.unchecked)
	if r.Gate == nil || text || quiet {
		return ws
	}
	for _, u := range r.Gate.Undecided {
		ws = append(ws, "warning: "+report.UndecidedLine(u, r.Gate))
	}
	return ws
}

// Run reads both sides and compares them.
func Run(c Config) (*Result, error) {
	th, err := report.ParseThreshold(c.Threshold)
	if err != nil {
		return nil, driver.Usagef("--threshold: %v", err)
	}
	bench, err := c.benchmarkSides()
	if err != nil {
		return nil, err
	}
	if bench {
		return c.runBenchmarks(th)
	}
	if c.Benchmark != "" {
		return nil, driver.Usagef("--benchmark chooses among Jetpack Benchmark results: give benchmarkData.json files or their folders to --old and --new")
	}
	olds, news, err := c.sides()
	if err != nil {
		return nil, err
	}
	if err := c.checkStreams(append(olds[:len(olds):len(olds)], news...)); err != nil {
		return nil, err
	}
	opt, phases, err := c.options(th)
	if err != nil {
		return nil, err
	}
	if len(phases) > 0 {
		if opt.Extra, err = c.phaseSeries(c.Driver, olds, news, phases); err != nil {
			return nil, err
		}
	}
	od, nd := c.drivers()
	oldFlats, err := c.flats(od, olds)
	if err != nil {
		return nil, err
	}
	newFlats, err := c.flats(nd, news)
	if err != nil {
		return nil, err
	}
	r, err := report.DiffRuns(oldFlats, newFlats, opt)
	if err := ruleUsage(err); err != nil {
		return nil, err
	}
	return &Result{Report: r, Gate: r.Gate, Failure: gateFailure(r.Gate), unchecked: unchecked(r.Gate, func(string) string {
		return "its pattern matches no method of the runs"
	})}, nil
}

// GateError is a failed gate: Outcome is report.OutcomeRegressed, or
// report.OutcomeInconclusive with --inconclusive=fail (the CLI exits 3 or
// 4).
type GateError struct {
	Outcome string
	msg     string
}

func (e *GateError) Error() string { return e.msg }

// gateFailure is the error of a failed gate, nil when it passed.
func gateFailure(gr *report.GateReport) error {
	switch o := gr.Exit(); o {
	case report.OutcomeRegressed:
		return &GateError{o, fmt.Sprintf("the gate failed: %s regressed", checks(gr.Regressed))}
	case report.OutcomeInconclusive:
		return &GateError{o, fmt.Sprintf("the gate failed: %s inconclusive and --inconclusive=fail", checks(gr.Inconclusive))}
	}
	return nil
}

func checks(n int) string {
	if n == 1 {
		return "1 check"
	}
	return fmt.Sprintf("%d checks", n)
}

// options checks the flags of the gate and reads the rules; phases are the
// phase rules among them.
func (c *Config) options(th report.Threshold) (opt report.DiffOptions, phases []gate.Rule, err error) {
	if c.Driver.Options().Flags.Mapping != "" && (c.OldMapping != "" || c.NewMapping != "") {
		return opt, nil, driver.Usagef("--mapping names the map of both traces: give it, or --old-mapping and --new-mapping, not both")
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		return opt, nil, driver.Usagef("--alpha %g: want a significance level between 0 and 1, such as 0.05", c.Alpha)
	}
	adjust, err := gate.ParseAdjustment(c.Adjust)
	if err != nil {
		return opt, nil, driver.Usagef("--adjust: %v", err)
	}
	opt = report.DiffOptions{Sort: c.Sort, Limit: c.Limit, Threshold: th, Alpha: c.Alpha, Adjust: adjust, InconclusiveFails: c.InconclusiveFails}
	for i, s := range c.FailOn {
		if slices.Contains(c.FailOn[:i], s) {
			continue // a rule given twice is judged once
		}
		r, err := gate.ParseRule(s)
		if err != nil {
			return opt, nil, driver.Usagef("--fail-on: %v", err)
		}
		opt.Rules = append(opt.Rules, r)
		if r.Phase != "" {
			phases = append(phases, r)
		}
	}
	return opt, phases, nil
}

// drivers are the drivers of each side: --old-mapping and --new-mapping,
// or --mapping for both.
func (c *Config) drivers() (od, nd *driver.Driver) {
	if c.OldMapping == "" && c.NewMapping == "" {
		return c.Driver, c.Driver
	}
	with := func(path string) *driver.Driver {
		opt := c.Driver.Options()
		opt.Flags.Mapping = path
		return c.Driver.With(opt)
	}
	return with(c.OldMapping), with(c.NewMapping)
}

// ruleUsage makes a rule the runs cannot judge a usage error.
func ruleUsage(err error) error {
	var ruleErr *report.RuleError
	if errors.Is(err, report.ErrNoCalls) || errors.Is(err, report.ErrThresholdUnit) || errors.As(err, &ruleErr) {
		return driver.Usagef("%v", err)
	}
	return err
}

// sides returns the old and the new runs: OLD NEW, or --old and --new.
func (c *Config) sides() (olds, news []input.Arg, err error) {
	if len(c.Old) == 0 && len(c.New) == 0 {
		ins, err := driver.Args(c.Traces)
		if err != nil {
			return nil, nil, err
		}
		if len(ins) != 2 {
			return nil, nil, driver.Usagef("diff compares two traces, got %d", len(ins))
		}
		return ins[:1], ins[1:], nil
	}
	if len(c.Traces) > 0 {
		return nil, nil, driver.Usagef("give OLD NEW, or --old and --new, not both (%s)", c.Traces[0])
	}
	if len(c.Old) == 0 || len(c.New) == 0 {
		return nil, nil, driver.Usagef("--old and --new go together: give at least one trace to each")
	}
	if olds, err = driver.Args(c.Old); err != nil {
		return nil, nil, err
	}
	if news, err = driver.Args(c.New); err != nil {
		return nil, nil, err
	}
	return olds, news, nil
}

// checkStreams refuses two inputs that read the same pipe.
func (c *Config) checkStreams(ins []input.Arg) error {
	stdin := 0
	for i, a := range ins {
		if a.Path == "-" {
			stdin++
		}
		for _, b := range ins[:i] {
			if stdin < 2 && c.Driver.SameStream(a, b) {
				if len(ins) == 2 {
					return driver.Usagef("OLD and NEW name the same pipe, which can be read only once")
				}
				return driver.Usagef("%s and %s name the same pipe, which can be read only once", b.Name(), a.Name())
			}
		}
	}
	if stdin > 1 {
		if len(ins) == 2 {
			return driver.Usagef("only one of OLD and NEW can be standard input")
		}
		return driver.Usagef("only one run can be standard input")
	}
	return nil
}

// flats reads the runs one at a time with d and keeps only each run's flat
// totals, so that memory does not grow with the call trees of N runs.
func (c *Config) flats(d *driver.Driver, ins []input.Arg) ([]*report.Flat, error) {
	flats := make([]*report.Flat, len(ins))
	for i, a := range ins {
		in, err := d.Load(a)
		if err != nil {
			return nil, err
		}
		p, err := in.Profile()
		if err != nil {
			return nil, err
		}
		flats[i] = p.Flat()
	}
	return flats, nil
}

// unchecked lists a warning for each rule of gr that checked nothing,
// saying why.
func unchecked(gr *report.GateReport, why func(rule string) string) []string {
	if gr == nil {
		return nil
	}
	checked := map[string]bool{}
	for _, v := range gr.Verdicts {
		checked[v.Rule] = true
	}
	var ws []string
	for _, rule := range gr.Rules {
		if !checked[rule] {
			ws = append(ws, fmt.Sprintf("warning: --fail-on %q checked nothing: %s", rule, why(rule)))
		}
	}
	return ws
}
