package gate

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
)

// Kind is the kind of a threshold.
type Kind uint8

// Threshold kinds.
const (
	Duration Kind = iota + 1 // a time: +2ms (incl, excl, phase)
	Percent                  // a share of the old median: +10% (every metric)
	Count                    // a number of calls: +5 (calls only)
	Amount                   // an amount in a benchmark metric's unit: +10, +0.5 (metric rules only)
)

// String returns "duration", "percent", "count" or "amount".
func (k Kind) String() string {
	switch k {
	case Duration:
		return "duration"
	case Percent:
		return "percent"
	case Count:
		return "count"
	case Amount:
		return "amount"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Threshold is how far a median may rise before a rule fires. Only the
// field of its Kind is set; each is non-negative.
type Threshold struct {
	Kind    Kind
	Nanos   int64   // Duration
	Percent float64 // Percent: 10 for +10%
	Count   int64   // Count
	// Amount is in the metric's own unit: a plain number (+10 allocations)
	// or a duration converted to the unit a time metric's name ends with
	// (+2ms is 2000000 for timeNs, 2 for timeToInitialDisplayMs).
	Amount float64
}

// Rule is one --fail-on rule.
type Rule struct {
	Text    string         // as given
	Pattern *regexp.Regexp // nil: every method, and the thread totals
	Phase   string         // non-empty: a startup phase rule "phase:NAME:CLOCK>..."
	// MetricName is a benchmark metric rule's metric ("metric:NAME>…"),
	// such as timeNs or allocationCount.
	MetricName string
	Metric     string // "incl", "excl", "calls", "phase", or "metric"
	// Clock is "wall", "cpu" or "offcpu"; "" for calls, and for incl and
	// excl rules that name no clock: the caller sets it to the traces'
	// first clock before Evaluate (Applies compares it as a string).
	Clock     string
	Threshold Threshold
}

// Grammar of a rule, for error messages.
const (
	methodGrammar = "[METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD"
	phaseGrammar  = "phase:NAME[:CLOCK]>THRESHOLD"
	metricGrammar = "metric:NAME>THRESHOLD"
)

var (
	phaseName  = regexp.MustCompile(`^[a-z-]+$`)
	metricName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
)

// ParseRule parses a rule, `[METHOD_PATTERN:]METRIC[.CLOCK]>THRESHOLD`,
// `phase:NAME[:CLOCK]>THRESHOLD` or `metric:NAME>THRESHOLD` (see the
// package doc). The threshold follows the last '>'; the pattern is
// everything before the last ':' that precedes it. The phase name is not
// checked against the known phases (startup.Names): any lower-case name
// with '-' is accepted here; nor is a metric's name against the metrics of
// the benchmarks.
func ParseRule(s string) (Rule, error) {
	r := Rule{Text: s}
	i := strings.LastIndexByte(s, '>')
	if i < 0 {
		return Rule{}, fmt.Errorf("rule %q: expected %s, %s or %s, as in incl>+2ms", s, methodGrammar, phaseGrammar, metricGrammar)
	}
	left, thr := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	var err error
	if name, ok := strings.CutPrefix(left, "phase:"); ok {
		err = r.parsePhase(name)
	} else if name, ok := strings.CutPrefix(left, "metric:"); ok {
		err = r.parseMetric(name)
	} else {
		err = r.parseMethod(left)
	}
	if err == nil {
		err = r.parseThreshold(thr)
	}
	if err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, err)
	}
	return r, nil
}

func (r *Rule) parsePhase(s string) error {
	name, clock, hasClock := strings.Cut(s, ":")
	if !phaseName.MatchString(name) {
		return fmt.Errorf("phase name %q: expected lower-case letters and '-', as in phase:first-frame>+5%%", name)
	}
	r.Phase, r.Metric, r.Clock = name, "phase", "wall"
	if hasClock {
		if !validClock(clock) {
			return fmt.Errorf("clock %q: expected wall, cpu or offcpu", clock)
		}
		r.Clock = clock
	}
	return nil
}

func (r *Rule) parseMetric(name string) error {
	if !metricName.MatchString(name) {
		return fmt.Errorf("metric name %q: expected the name of a benchmark metric, as in metric:timeNs>+5%%", name)
	}
	r.MetricName, r.Metric = name, "metric"
	return nil
}

// metricUnit is the duration a time metric's value counts, by the suffix
// of its name (timeNs, timeToInitialDisplayMs, frameDurationCpuMs), and 0
// for other metrics.
func metricUnit(name string) time.Duration {
	switch {
	case strings.HasSuffix(name, "Ns"):
		return time.Nanosecond
	case strings.HasSuffix(name, "Us"):
		return time.Microsecond
	case strings.HasSuffix(name, "Ms"):
		return time.Millisecond
	}
	return 0
}

func (r *Rule) parseMethod(s string) error {
	metric := s
	if j := strings.LastIndexByte(s, ':'); j >= 0 {
		pat := s[:j]
		if pat == "" {
			return fmt.Errorf("empty METHOD_PATTERN before ':': drop the ':' to check every method")
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return fmt.Errorf("METHOD_PATTERN %q: expected a Go regular expression: %s", pat, syntaxCode(err))
		}
		r.Pattern, metric = re, s[j+1:]
	}
	name, clock, hasClock := strings.Cut(metric, ".")
	switch name {
	case "incl", "excl", "calls":
	default:
		return fmt.Errorf("metric %q: expected incl, excl or calls, optionally with .wall, .cpu or .offcpu (%s)", metric, methodGrammar)
	}
	r.Metric = name
	if !hasClock {
		return nil
	}
	if name == "calls" {
		return fmt.Errorf("metric %q: calls has no clock: write calls", metric)
	}
	if !validClock(clock) {
		return fmt.Errorf("clock %q: expected wall, cpu or offcpu", clock)
	}
	r.Clock = clock
	return nil
}

// syntaxCode is what is wrong in a regular expression, without the
// expression regexp quotes raw (it may hold a newline).
func syntaxCode(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return strconv.Quote(err.Error())
}

func validClock(c string) bool { return c == "wall" || c == "cpu" || c == "offcpu" }

// parseThreshold parses THRESHOLD for r.Metric: a duration (any unit of
// time.ParseDuration: ns, us, µs, ms, s, m, h), a percentage, or a count,
// with an optional leading '+'.
func (r *Rule) parseThreshold(s string) error {
	const kinds = "expected a duration (+2ms), a percentage (+10%) or a count (+5)"
	if s == "" {
		return fmt.Errorf("no threshold after '>': %s", kinds)
	}
	v := strings.TrimPrefix(s, "+")
	if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
		return fmt.Errorf("threshold %q: expected an increase such as +2ms (improvements are reported without a rule)", s)
	}
	if r.Metric == "metric" {
		return r.parseAmount(s, v)
	}
	switch {
	case strings.HasSuffix(v, "%"):
		p, err := strconv.ParseFloat(v[:len(v)-1], 64)
		if err != nil || math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return fmt.Errorf("threshold %q: expected a percentage such as +10%%", s)
		}
		r.Threshold = Threshold{Kind: Percent, Percent: p}
	case v != "" && strings.Trim(v, "0123456789") == "":
		if r.Metric != "calls" {
			return fmt.Errorf("threshold %q is a count: %s takes a duration (+2ms) or a percentage (+10%%)", s, r.Metric)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("threshold %q: expected a count below 2^63", s)
		}
		r.Threshold = Threshold{Kind: Count, Count: n}
	default:
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("threshold %q: %s", s, kinds)
		}
		if r.Metric == "calls" {
			return fmt.Errorf("threshold %q is a duration: calls takes a count (+5) or a percentage (+10%%)", s)
		}
		r.Threshold = Threshold{Kind: Duration, Nanos: int64(d)}
	}
	return nil
}

// parseAmount parses a metric rule's threshold v (s as given): a
// percentage, a number in the metric's unit, or a duration for a metric
// whose name says its unit (metricUnit).
func (r *Rule) parseAmount(s, v string) error {
	if p, ok := strings.CutSuffix(v, "%"); ok {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("threshold %q: expected a percentage such as +10%%", s)
		}
		r.Threshold = Threshold{Kind: Percent, Percent: x}
		return nil
	}
	if x, err := strconv.ParseFloat(v, 64); err == nil && v != "" && strings.Trim(v, "0123456789.") == "" {
		r.Threshold = Threshold{Kind: Amount, Amount: x}
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("threshold %q: expected a percentage (+5%%), a number in the metric's unit (+10) or, for a time metric, a duration (+2ms)", s)
	}
	unit := metricUnit(r.MetricName)
	if unit == 0 {
		return fmt.Errorf("threshold %q is a duration: %s has no unit of time in its name (…Ns, …Us or …Ms); give a number in its unit or a percentage", s, r.MetricName)
	}
	r.Threshold = Threshold{Kind: Amount, Amount: float64(d) / float64(unit)}
	return nil
}
