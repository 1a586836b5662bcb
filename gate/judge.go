package gate

import (
	"math"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/stats"
)

// MinRuns is the number of runs each side needs for the Mann–Whitney U
// test: with fewer, a change that passes a threshold is inconclusive.
const MinRuns = 3

// SubjectKind says what a Series measures.
type SubjectKind uint8

// Subject kinds.
const (
	Method          SubjectKind = iota + 1 // one method, all threads combined
	Total                                  // the thread totals
	Phase                                  // a startup phase (package startup)
	BenchmarkMetric                        // a Jetpack Benchmark metric (package benchdata)
)

var subjectKinds = [...]string{Method: "method", Total: "total", Phase: "phase", BenchmarkMetric: "metric"}

// String returns "method", "total", "phase" or "metric".
func (k SubjectKind) String() string {
	if int(k) < len(subjectKinds) && subjectKinds[k] != "" {
		return subjectKinds[k]
	}
	return "SubjectKind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText makes a SubjectKind its String in JSON.
func (k SubjectKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Series is one subject's values on one metric, one value per run (a run
// where the method is absent counts 0).
type Series struct {
	Subject string // method label as report prints it, "total", the phase name, or the metric's name
	// Group names what the series belongs to when the checks of one run
	// of the gate come from several, such as the benchmark of
	// `diff` over benchmark results; "" otherwise. Results keep it.
	Group string
	// Signature is a method's signature, "" for totals and phases. The
	// label of an overloaded method ends with it; a rule's pattern is
	// matched against the label with and without it.
	Signature string
	Kind      SubjectKind
	Metric    string    // "excl", "incl", "calls", "phase", "metric"
	Clock     string    // "wall", "cpu", "offcpu" ("" for calls and metrics)
	Old, New  []float64 // ns or counts (a metric's unit), one per run
}

// Verdict is the outcome of one rule on one series.
type Verdict string

// Verdicts.
const (
	// Regressed: the change of the medians passes the threshold and, with
	// at least MinRuns runs per side, the test says p < alpha.
	Regressed Verdict = "regressed"
	// Inconclusive: the change passes the threshold, but the test is not
	// significant or a side has fewer than MinRuns runs.
	Inconclusive Verdict = "inconclusive"
	// OK: the change does not pass the threshold either way.
	OK Verdict = "ok"
	// Improved: the change passes the threshold downward (a decrease by
	// more than the threshold). Reported, never fails.
	Improved Verdict = "improved"
)

// Result is the verdict of one rule on one series.
type Result struct {
	Rule      string      `json:"rule"` // Rule.Text
	Group     string      `json:"group,omitempty"`
	Subject   string      `json:"subject"`
	Kind      SubjectKind `json:"kind"`
	Metric    string      `json:"metric"`
	Clock     string      `json:"clock,omitempty"`
	Verdict   Verdict     `json:"verdict"`
	OldMedian float64     `json:"old_median"`
	NewMedian float64     `json:"new_median"`
	Delta     float64     `json:"delta"` // NewMedian − OldMedian
	Pct       *float64    `json:"pct"`   // 100·Delta/OldMedian; nil when OldMedian is 0
	P         *float64    `json:"p"`     // nil with fewer than MinRuns runs per side
	// PAdjusted is P adjusted for the rule's other checks (Family, by
	// Options.Adjust), the p-value the verdict uses; P itself when Judge
	// is called alone.
	PAdjusted *float64 `json:"p_adjusted"`
	Threshold string   `json:"threshold"` // as given
}

// Applies reports whether r checks s. A phase rule applies to the series
// of its phase on its clock, a metric rule to the series of its metric. A
// method rule applies to the series of its
// metric and clock (a rule with Clock "" to every clock) whose subject is
// a method its pattern matches, or, without a pattern, to every method
// and to the totals. The pattern is unanchored (^ and $ anchor it) and is
// tried on the label without the signature ("pkg.Class.method") and with
// it ("pkg.Class.method(I)V"): a method matches when either does.
func (r *Rule) Applies(s *Series) bool {
	switch r.Metric {
	case "phase":
		return s.Kind == Phase && s.Subject == r.Phase && s.Clock == r.Clock
	case "metric":
		return s.Kind == BenchmarkMetric && s.Subject == r.MetricName
	}
	if s.Kind != Method && s.Kind != Total || s.Metric != r.Metric {
		return false
	}
	if r.Clock != "" && s.Clock != r.Clock {
		return false
	}
	if r.Pattern == nil {
		return true
	}
	if s.Kind != Method {
		return false
	}
	name, full := s.Subject, s.Subject
	if sig := s.Signature; sig != "" {
		if base, ok := strings.CutSuffix(s.Subject, sig); ok {
			name = base
		} else {
			full = s.Subject + sig
		}
	}
	return r.Pattern.MatchString(name) || r.Pattern.MatchString(full)
}

// Judge gives r's verdict on s (see Verdict) at the significance level
// alpha. A side without values (a caller's mistake) is inconclusive, with
// medians 0.
func Judge(r *Rule, s *Series, alpha float64) Result {
	res := Result{
		Rule: r.Text, Group: s.Group, Subject: s.Subject, Kind: s.Kind, Metric: s.Metric, Clock: s.Clock,
		Threshold: thresholdText(r.Text),
	}
	if len(s.Old) == 0 || len(s.New) == 0 {
		res.Verdict = Inconclusive
		return res
	}
	res.OldMedian, res.NewMedian = stats.Median(s.Old), stats.Median(s.New)
	res.Delta = res.NewMedian - res.OldMedian
	if res.OldMedian != 0 {
		pct := 100 * res.Delta / res.OldMedian
		res.Pct = &pct
	}
	if len(s.Old) >= MinRuns && len(s.New) >= MinRuns {
		if mw, err := stats.MannWhitneyU(s.Old, s.New); err == nil {
			res.P, res.PAdjusted = &mw.P, &mw.P
		}
	}
	up, down := passes(r.Threshold, res.OldMedian, res.Delta)
	switch {
	case up && res.P != nil && *res.P < alpha:
		res.Verdict = Regressed
	case up:
		res.Verdict = Inconclusive
	case down:
		res.Verdict = Improved
	default:
		res.Verdict = OK
	}
	return res
}

// passes reports whether the change delta from old passes t upward (more
// than t) or downward (less than −t). A percentage of an old value 0 is
// +∞ % for any increase and −∞ % for any decrease.
func passes(t Threshold, old, delta float64) (up, down bool) {
	var change, limit float64
	switch t.Kind {
	case Duration:
		change, limit = delta, float64(t.Nanos)
	case Count:
		change, limit = delta, float64(t.Count)
	case Amount:
		change, limit = delta, t.Amount
	case Percent:
		limit = t.Percent
		switch {
		case old != 0:
			change = 100 * delta / old
		case delta > 0:
			change = math.Inf(1)
		case delta < 0:
			change = math.Inf(-1)
		}
	default:
		return false, false
	}
	return change > limit, change < -limit
}

// thresholdText is the threshold of a rule's text, as given.
func thresholdText(text string) string {
	if i := strings.LastIndexByte(text, '>'); i >= 0 {
		return strings.TrimSpace(text[i+1:])
	}
	return ""
}

// Options are the gate's statistics: the significance level and the
// adjustment for many checks.
type Options struct {
	Alpha  float64    // 0: 0.05
	Adjust Adjustment // the zero value is BH
}

func (o Options) alpha() float64 {
	if o.Alpha == 0 {
		return 0.05
	}
	return o.Alpha
}

// Evaluation is what Evaluate gives: the verdicts, and the rules that
// cannot decide at the run counts given.
type Evaluation struct {
	Results   []Result
	Undecided []Undecided
}

// Evaluate judges every series by every rule that applies to it, in the
// order of rules, then of series; each rule's checks are one family
// (Family).
func Evaluate(rules []Rule, series []Series, opt Options) Evaluation {
	var ev Evaluation
	for i := range rules {
		var checks []Check
		for j := range series {
			if rules[i].Applies(&series[j]) {
				checks = append(checks, Check{&rules[i], &series[j]})
			}
		}
		rs, u := Family(checks, opt)
		ev.Results = append(ev.Results, rs...)
		if u != nil {
			ev.Undecided = append(ev.Undecided, *u)
		}
	}
	return ev
}

// Check is one rule applied to one series.
type Check struct {
	Rule   *Rule
	Series *Series
}

// Family judges checks that belong together, normally every check of one
// rule (the caller may give each its own copy of the rule, such as one
// whose clock defaults differently per benchmark), and adjusts their
// p-values for their number with opt.Adjust before the verdicts compare
// them with alpha. A rule over every method tests hundreds of them: at
// alpha 0.05 a few would pass the test by chance in every pair of
// unchanged run sets, and the gate would fail without a change. It returns
// the results in the order of checks and, when the family has inconclusive
// verdicts that no result at these run counts could make regressions, an
// Undecided naming the first check's rule.
func Family(checks []Check, opt Options) ([]Result, *Undecided) {
	alpha := opt.alpha()
	rs := make([]Result, len(checks))
	ns := make([][2]int, len(checks))
	var idx []int
	var ps []float64
	for i, c := range checks {
		rs[i] = Judge(c.Rule, c.Series, alpha)
		ns[i] = [2]int{len(c.Series.Old), len(c.Series.New)}
		if rs[i].P != nil {
			idx = append(idx, i)
			ps = append(ps, *rs[i].P)
		}
	}
	for k, adj := range opt.Adjust.adjusted(ps) {
		res := &rs[idx[k]]
		res.PAdjusted = &adj
		switch res.Verdict {
		case Regressed, Inconclusive: // the change passed the threshold upward
			if adj < alpha {
				res.Verdict = Regressed
			} else {
				res.Verdict = Inconclusive
			}
		}
	}
	return rs, undecided(rs, ns, opt.Adjust, alpha)
}

// Outcome sums up the verdicts of a run of the gate.
type Outcome uint8

// Outcomes. (The names differ from the verdicts': Regressed is a Verdict.)
const (
	Pass             Outcome = iota // no verdict is regressed or inconclusive
	AnyRegressed                    // at least one verdict is regressed (exit 3)
	InconclusiveOnly                // none regressed, at least one inconclusive (exit 4 with --inconclusive=fail)
)

var outcomes = [...]string{Pass: "pass", AnyRegressed: "regressed", InconclusiveOnly: "inconclusive"}

// String returns "pass", "regressed" or "inconclusive".
func (o Outcome) String() string {
	if int(o) < len(outcomes) {
		return outcomes[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// MarshalText makes an Outcome its String in JSON.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Summarize returns AnyRegressed when a result regressed, else
// InconclusiveOnly when one is inconclusive, else Pass.
func Summarize(rs []Result) Outcome {
	o := Pass
	for i := range rs {
		switch rs[i].Verdict {
		case Regressed:
			return AnyRegressed
		case Inconclusive:
			o = InconclusiveOnly
		}
	}
	return o
}
