package report

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/gate"
)

// Cells of medians: the mean of two middle values can be a half.

func integral(v float64) bool { return v == math.Trunc(v) && math.Abs(v) < 1<<62 }

// valuef formats a median on a clock: a duration, or a count for Samples.
func valuef(clock string, v float64) string {
	if clock == Samples.String() {
		return countf(v)
	}
	return dur(int64(math.Round(v)))
}

func signedValuef(clock string, v float64) string {
	if integral(v) {
		return signedValue(clock, int64(v))
	}
	if clock == Samples.String() {
		return signedCountf(v)
	}
	return signedDur(int64(math.Round(v)))
}

// countf formats a count, with one decimal when it is a median of two.
func countf(v float64) string {
	if integral(v) {
		return count(int64(v))
	}
	return count(int64(v)) + strconv.FormatFloat(math.Abs(v-math.Trunc(v)), 'f', 1, 64)[1:]
}

func signedCountf(v float64) string {
	if integral(v) {
		return signedCount(int64(v))
	}
	if v > 0 {
		return "+" + countf(v)
	}
	if v < 0 && v > -1 {
		return "-" + countf(-v)
	}
	return countf(v)
}

// pCell formats a p-value: "0.0079", "<0.0001", or "" without one.
func pCell(p *float64) string {
	switch {
	case p == nil:
		return ""
	case *p < 0.0001:
		return "<0.0001"
	}
	return strconv.FormatFloat(*p, 'f', 4, 64)
}

// hasP says the report has p-values: at least MinRunsForP runs per side.
func (r *DiffReport) hasP() bool {
	return len(r.OldRuns) >= MinRunsForP && len(r.NewRuns) >= MinRunsForP
}

// writeRuns says what the values of a diff of several runs are.
func (r *DiffReport) writeRuns(w *bufio.Writer) {
	if r.OldRuns == nil && r.NewRuns == nil {
		return
	}
	fmt.Fprintf(w, "medians of %d old and %d new runs (a run without a method counts 0)", max(len(r.OldRuns), 1), max(len(r.NewRuns), 1))
	if r.hasP() {
		w.WriteString("; P: two-sided Mann–Whitney U test")
	} else {
		fmt.Fprintf(w, "; no p-values with fewer than %d runs per side", MinRunsForP)
	}
	w.WriteString("\n")
}

// writeGate prints the rules' verdicts: regressions, then inconclusive,
// then improvements; the oks are counted, not listed.
func (r *DiffReport) writeGate(w *bufio.Writer, opt TextOptions) {
	g := r.Gate
	if g == nil {
		return
	}
	w.WriteString("\n")
	writeGateHead(w, g, r.hasP())
	if tb := gateTable(g.Verdicts, false); len(tb.rows) > 0 {
		w.WriteString("\n")
		leftOut(tb.write(w, opt)).write(w, opt.Width)
	}
	w.WriteString("\n")
}

// writeGateHead prints the gate's summary line, what P ADJ is (withP: the
// runs have p-values), and the rules that cannot decide.
func writeGateHead(w *bufio.Writer, g *GateReport, withP bool) {
	fmt.Fprintf(w, "gate: %s: %s, %s: %d regressed, %d inconclusive, %d improved, %d ok; alpha %s",
		gateWords(g), plural(int64(len(g.Rules)), "rule"), plural(int64(len(g.Verdicts)), "check"),
		g.Regressed, g.Inconclusive, g.Improved, g.OK, strconv.FormatFloat(g.Alpha, 'g', -1, 64))
	if g.InconclusiveFails {
		w.WriteString("; inconclusive fails")
	}
	w.WriteString("\n")
	if withP {
		w.WriteString("P ADJ: " + adjustWords(g.Adjust) + ", compared with alpha\n")
	}
	for _, u := range g.Undecided {
		w.WriteString("gate: " + UndecidedLine(u, g) + "\n")
	}
}

// gateTable lays out the verdicts other than ok (sorted last).
func gateTable(vs []Verdict, benchmarks bool) *table {
	tb := &table{header: []string{"VERDICT", "RULE", "METRIC", "OLD", "NEW", "Δ", "Δ%", "P ADJ", "SUBJECT"}, left: []bool{true, true, true},
		drop: []int{0, 3, 1, 2, 2, 0, 0, 0}} // on a narrow terminal: the rule, then the old and new values, then the metric
	for _, v := range vs {
		if v.Verdict == string(gate.OK) {
			if benchmarks {
				continue // sorted by benchmark first
			}
			break // sorted last
		}
		c := v.Clock
		switch v.Metric {
		case "calls":
			c = Samples.String() // a count
		case "metric":
			tb.add(v.Verdict, v.Rule, "metric", metricf(v.Old), metricf(v.New), signedMetricf(v.Delta), signedPercent(v.Pct), pCell(v.PAdjusted), v.Subject)
			continue
		}
		tb.add(v.Verdict, v.Rule, metricWords(v), valuef(c, v.Old), valuef(c, v.New), signedValuef(c, v.Delta),
			signedPercent(v.Pct), pCell(v.PAdjusted), v.Subject)
	}
	return tb
}

// gateWords is the gate's result in one word or two.
func gateWords(g *GateReport) string {
	switch g.Outcome {
	case OutcomeRegressed:
		return "FAIL"
	case OutcomeInconclusive:
		if g.InconclusiveFails {
			return "FAIL (inconclusive)"
		}
		return "pass (inconclusive)"
	}
	return "pass"
}

// metricWords names a verdict's metric: "excl wall", "calls", "phase wall".
func metricWords(v Verdict) string {
	return strings.TrimSpace(v.Metric + " " + v.Clock)
}

// metricf formats a benchmark metric's value, in the metric's own unit:
// four significant digits (5.543, 477.8, 65), whole numbers from 10,000 on
// with separators.
func metricf(v float64) string {
	if math.Abs(v) >= 10000 {
		return count(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func signedMetricf(v float64) string {
	if v > 0 {
		return "+" + metricf(v)
	}
	return metricf(v)
}
