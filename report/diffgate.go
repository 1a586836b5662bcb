package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/stats"
)

// Outcomes of a gate (gate.Outcome's names): the exit status the command
// line gives each.
const (
	OutcomePass         = "pass"         // no rule regressed (exit 0)
	OutcomeRegressed    = "regressed"    // a rule regressed (exit 3)
	OutcomeInconclusive = "inconclusive" // no regression, some inconclusive (exit 4 with --inconclusive=fail, else 0)
)

// GateReport is the verdicts of the --fail-on rules on every method, the
// thread totals and the extra series (startup phases), judged before
// --limit and --threshold hide rows.
type GateReport struct {
	Rules []string `json:"rules"`
	Alpha float64  `json:"alpha"`
	// Adjust is how each rule's p-values were adjusted for its number of
	// checks: "bh" (Benjamini–Hochberg), "holm" or "none".
	Adjust gate.Adjustment `json:"adjust"`
	// InconclusiveFails says an inconclusive verdict fails the gate
	// (--inconclusive=fail).
	InconclusiveFails bool   `json:"inconclusive_fails"`
	Outcome           string `json:"outcome"` // OutcomePass, OutcomeRegressed or OutcomeInconclusive
	Regressed         int    `json:"regressed"`
	Inconclusive      int    `json:"inconclusive"`
	Improved          int    `json:"improved"`
	OK                int    `json:"ok"`
	// Verdicts has one entry per (rule, subject) checked: regressions
	// first, then inconclusive, improved and ok; each group by the size
	// of the change, largest first.
	Verdicts []Verdict `json:"verdicts"`
	// Undecided lists the rules that cannot decide at these run counts:
	// their inconclusive verdicts would stay so whatever the runs measured.
	Undecided []gate.Undecided `json:"undecided,omitempty"`
}

// Verdict is one rule's verdict on one subject: a method (as the tables
// label it), "total" (all threads), a startup phase or a benchmark metric.
type Verdict struct {
	Rule string `json:"rule"`
	// Benchmark is the benchmark (class#name) of a diff of benchmark
	// results; "" otherwise.
	Benchmark string   `json:"benchmark,omitempty"`
	Subject   string   `json:"subject"`
	Kind      string   `json:"kind"`   // "method", "total", "phase" or "metric"
	Metric    string   `json:"metric"` // "excl", "incl", "calls", "phase" or "metric"
	Clock     string   `json:"clock"`  // "wall", "cpu", "offcpu", "samples"; "" for calls
	Verdict   string   `json:"verdict"`
	Old       float64  `json:"old"` // median of the old runs
	New       float64  `json:"new"`
	Delta     float64  `json:"delta"`
	Pct       *float64 `json:"pct"`
	P         *float64 `json:"p"` // nil with fewer than MinRunsForP runs per side
	// PAdjusted is P adjusted for the other checks of the rule
	// (GateReport.Adjust), the p-value the verdict compares with alpha.
	PAdjusted *float64 `json:"p_adjusted"`
	Threshold string   `json:"threshold"`
}

// Exit is the gate's answer: OutcomeRegressed, OutcomeInconclusive when it
// fails on inconclusive results, or OutcomePass.
func (g *GateReport) Exit() string {
	if g == nil || g.Outcome == OutcomeInconclusive && !g.InconclusiveFails {
		return OutcomePass
	}
	return g.Outcome
}

func median(xs []int64) float64 { return stats.Median(floats(xs)) }

func floats(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// pValue is the two-sided Mann–Whitney U test's p-value of two samples.
func pValue(before, after []int64) *float64 {
	mw, err := stats.MannWhitneyU(floats(before), floats(after))
	if err != nil {
		return nil
	}
	return &mw.P
}

// seriesClocks are the clocks the gate judges: the report's, and the
// off-CPU time when every run has the wall and the thread-CPU clock.
func (j *joined) seriesClocks(clocks []Basis) []Basis {
	out := slices.Clone(clocks)
	if slices.Contains(out, OffCPU) {
		return out
	}
	for _, f := range append(j.olds[:len(j.olds):len(j.olds)], j.news...) {
		if !f.dual {
			return out
		}
	}
	return append(out, OffCPU)
}

// series returns the values the rules judge: per method, the exclusive
// and inclusive time on each clock and the calls; per clock, the total
// time of all threads (as metric "excl" and "incl").
func (j *joined) series(clocks []Basis, noCalls bool) []gate.Series {
	var out []gate.Series
	vals := func(runs []*Flat, v func(*Flat) int64) []float64 {
		xs := make([]float64, len(runs))
		for i, f := range runs {
			xs[i] = float64(v(f))
		}
		return xs
	}
	for _, c := range clocks {
		total := func(f *Flat) int64 { return f.total.at(c) }
		o, n := vals(j.olds, total), vals(j.news, total)
		for _, metric := range []string{"excl", "incl"} {
			out = append(out, gate.Series{Subject: "total", Kind: gate.Total, Metric: metric, Clock: c.String(), Old: o, New: n})
		}
	}
	for i, k := range j.keys {
		subject := label(k.name, k.sig, j.overloaded[i])
		add := func(metric, clock string, v func(*stat) int64) {
			o, _ := j.values(i, true, v)
			n, _ := j.values(i, false, v)
			out = append(out, gate.Series{Subject: subject, Signature: k.sig, Kind: gate.Method, Metric: metric, Clock: clock,
				Old: floats(o), New: floats(n)})
		}
		for _, c := range clocks {
			add("excl", c.String(), func(s *stat) int64 { return s.excl.at(c) })
			add("incl", c.String(), func(s *stat) int64 { return s.incl.at(c) })
		}
		if !noCalls {
			add("calls", "", func(s *stat) int64 { return s.calls })
		}
	}
	return out
}

// ruleChecks returns, for each rule in order, its checks on the runs'
// methods, the totals and extra (the startup phases), each rule resolved
// for these runs: a time rule without a clock takes their first, and a
// rule they cannot judge (a clock they lack, a duration for sample counts,
// calls of a sampled profile) is a RuleError. Metric rules are left
// without checks when skipMetrics (benchmarks judge them on their
// metrics), else refused. Every series is put in group.
func (d *runsDiff) ruleChecks(rules []gate.Rule, extra []gate.Series, group string, skipMetrics bool) ([][]gate.Check, error) {
	sc := d.j.seriesClocks(d.clocks)
	resolved := slices.Clone(rules)
	for i := range resolved {
		if err := resolveRule(&resolved[i], sc, d.noCalls, skipMetrics); err != nil {
			return nil, err
		}
	}
	series := append(d.j.series(sc, d.noCalls), extra...)
	for i := range series {
		series[i].Group = group
	}
	checks := make([][]gate.Check, len(resolved))
	for i := range resolved {
		for k := range series {
			if resolved[i].Applies(&series[k]) {
				checks[i] = append(checks[i], gate.Check{Rule: &resolved[i], Series: &series[k]})
			}
		}
	}
	return checks, nil
}

// resolveRule gives a time rule without a clock the first of sc, and
// refuses a rule these runs cannot judge.
func resolveRule(r *gate.Rule, sc []Basis, noCalls, skipMetrics bool) error {
	switch r.Metric {
	case "phase":
		return nil
	case "metric":
		if skipMetrics {
			return nil
		}
		return &RuleError{r.Text, errors.New("metric rules judge Jetpack Benchmark results: give benchmarkData.json files or their folders to --old and --new")}
	case "calls":
		if noCalls {
			return &RuleError{r.Text, errors.New("a sampled profile counts samples, not calls")}
		}
		r.Clock = ""
		if r.Threshold.Kind == gate.Duration {
			return &RuleError{r.Text, errors.New("calls take a count (+5) or a percentage (+10%), not a duration")}
		}
		return nil
	}
	if r.Clock == "" {
		r.Clock = sc[0].String()
	}
	if !slices.ContainsFunc(sc, func(b Basis) bool { return b.String() == r.Clock }) {
		return &RuleError{r.Text, fmt.Errorf("the traces have no %s clock (they have %s)", r.Clock, joinClocks(sc))}
	}
	if r.Clock == Samples.String() && r.Threshold.Kind == gate.Duration {
		return &RuleError{r.Text, ErrThresholdUnit}
	}
	if r.Threshold.Kind == gate.Count {
		return &RuleError{r.Text, errors.New("a time takes a duration (+2ms) or a percentage (+10%), not a count")}
	}
	return nil
}

// judgeChecks judges each rule's checks as one family (gate.Family) and
// sums up the verdicts; byGroup sorts them by group first (benchmarks).
func judgeChecks(opt DiffOptions, checks [][]gate.Check, byGroup bool) *GateReport {
	var ev gate.Evaluation
	for _, cs := range checks {
		rs, u := gate.Family(cs, opt.gateOptions())
		ev.Results = append(ev.Results, rs...)
		if u != nil {
			ev.Undecided = append(ev.Undecided, *u)
		}
	}
	return newGateReport(opt, ev, byGroup)
}

// gateOptions are opt's statistics for package gate.
func (opt *DiffOptions) gateOptions() gate.Options {
	return gate.Options{Alpha: cmp.Or(opt.Alpha, DefaultAlpha), Adjust: opt.Adjust}
}

// newGateReport sums up the gate's evaluation of opt.Rules.
func newGateReport(opt DiffOptions, ev gate.Evaluation, byGroup bool) *GateReport {
	g := &GateReport{Alpha: opt.gateOptions().Alpha, Adjust: opt.Adjust, InconclusiveFails: opt.InconclusiveFails, Undecided: ev.Undecided}
	for _, r := range opt.Rules {
		g.Rules = append(g.Rules, r.Text)
	}
	g.Outcome = gate.Summarize(ev.Results).String()
	for _, res := range ev.Results {
		v := Verdict{Rule: res.Rule, Benchmark: res.Group, Subject: res.Subject, Kind: res.Kind.String(), Metric: res.Metric, Clock: res.Clock,
			Verdict: string(res.Verdict), Old: res.OldMedian, New: res.NewMedian, Delta: res.Delta, Pct: res.Pct, P: res.P,
			PAdjusted: res.PAdjusted, Threshold: res.Threshold}
		switch res.Verdict {
		case gate.Regressed:
			g.Regressed++
		case gate.Inconclusive:
			g.Inconclusive++
		case gate.Improved:
			g.Improved++
		default:
			g.OK++
		}
		g.Verdicts = append(g.Verdicts, v)
	}
	slices.SortStableFunc(g.Verdicts, func(a, b Verdict) int {
		group := 0
		if byGroup {
			group = cmp.Compare(a.Benchmark, b.Benchmark)
		}
		return cmp.Or(group, cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)),
			cmp.Compare(changeSize(b, byGroup), changeSize(a, byGroup)))
	})
	return g
}

// changeSize orders verdicts by the size of their change, largest first:
// the absolute change, or across the metrics of benchmarks, whose units
// differ, the absolute change in percent (an old value 0 first).
func changeSize(v Verdict, percent bool) float64 {
	if !percent {
		return math.Abs(v.Delta)
	}
	if v.Pct == nil {
		return math.Inf(1)
	}
	return math.Abs(*v.Pct)
}

// RuleError is a rule that cannot judge these traces, such as a clock
// they do not have.
type RuleError struct {
	Rule string
	Err  error
}

func (e *RuleError) Error() string { return "--fail-on " + e.Rule + ": " + e.Err.Error() }
func (e *RuleError) Unwrap() error { return e.Err }

// DefaultAlpha is the significance level of the gate's test.
const DefaultAlpha = 0.05

func verdictRank(v string) int {
	switch gate.Verdict(v) {
	case gate.Regressed:
		return 0
	case gate.Inconclusive:
		return 1
	case gate.Improved:
		return 2
	}
	return 3
}

func joinClocks(cs []Basis) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += c.String()
	}
	return s
}

// adjustWords says how the p-values of the verdicts were adjusted.
func adjustWords(a gate.Adjustment) string {
	if a == gate.None {
		return "the p-values as they are, not adjusted for each rule's number of checks (--adjust none)"
	}
	return "each rule's p-values adjusted for its number of checks (" + a.Name() + ")"
}

// UndecidedLine says in one line that a rule cannot decide at its run
// counts, and how many runs a side would let it: "rule 'incl>+20%'
// cannot decide with 5 and 5 runs: the smallest p-value they allow, 0.0079,
// is 0.23 after the Holm adjustment for 29 checks, not below alpha 0.05;
// 7 runs a side would let it decide".
func UndecidedLine(u gate.Undecided, g *GateReport) string {
	s := fmt.Sprintf("rule '%s' cannot decide with %d and %d runs: ", u.Rule, u.OldRuns, u.NewRuns)
	alpha := strconv.FormatFloat(g.Alpha, 'g', -1, 64)
	switch {
	case u.MinP == nil:
		s += fmt.Sprintf("the test needs at least %d a side", gate.MinRuns)
	case g.Adjust == gate.None || u.MinPAdjusted == nil:
		s += fmt.Sprintf("the smallest p-value they allow, %s, is not below alpha %s", pShort(*u.MinP), alpha)
	default:
		s += fmt.Sprintf("the smallest p-value they allow, %s, is %s after the %s adjustment for %s, not below alpha %s",
			pShort(*u.MinP), pShort(*u.MinPAdjusted), g.Adjust.Name(), plural(int64(u.Checks), "check"), alpha)
	}
	if u.RunsNeeded == 0 {
		return s + "; no number of runs up to 1000 a side would let it decide"
	}
	return s + fmt.Sprintf("; %d runs a side would let it decide", u.RunsNeeded)
}

// pShort writes a p-value with two significant digits: 0.0079, 0.23.
func pShort(p float64) string { return strconv.FormatFloat(p, 'g', 2, 64) }
