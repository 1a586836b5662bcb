package gate

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustRule(t *testing.T, s string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ptr(x float64) *float64 { return &x }

// ms scales a list of milliseconds to nanoseconds.
func ms(xs ...float64) []float64 {
	for i := range xs {
		xs[i] *= 1e6
	}
	return xs
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rule     string
		old, new []float64
		alpha    float64
		verdict  Verdict
		oldMed   float64
		newMed   float64
		pct      *float64
		p        *float64
	}{
		// Medians 12 and 22 ms: +10 ms > 2 ms. Complete separation of 5
		// vs 5: p = 2/C(10,5) = 2/252 < 0.05. Pct = 100·10/12.
		{"regressed", "incl>+2ms", ms(10, 11, 12, 13, 14), ms(24, 20, 22, 21, 23), 0.05,
			Regressed, 12e6, 22e6, ptr(100 * 10.0 / 12), ptr(2.0 / 252)},
		// The same at alpha 0.005: not significant.
		{"regressed at a stricter alpha", "incl>+2ms", ms(10, 11, 12, 13, 14), ms(24, 20, 22, 21, 23), 0.005,
			Inconclusive, 12e6, 22e6, ptr(100 * 10.0 / 12), ptr(2.0 / 252)},
		// Medians 20 and 25: +5 > 2, but the runs interleave: ranks a =
		// 1 3 5, b = 2 4 6; R1 = 9 is 1.5 from the mean 10.5, and 14 of
		// the C(6,3) = 20 rank triples are at least as far (sums 6..9:
		// 1+1+2+3, and 12..15 mirrored): p = 0.7.
		{"inconclusive: not significant", "excl>+2ms", ms(10, 20, 30), ms(15, 25, 35), 0.05,
			Inconclusive, 20e6, 25e6, ptr(25), ptr(14.0 / 20)},
		// Two runs per side: no test, so at most inconclusive.
		{"inconclusive: two runs", "incl>+2ms", ms(10, 10), ms(20, 20), 0.05,
			Inconclusive, 10e6, 20e6, ptr(100), nil},
		{"inconclusive: one run", "incl>+2ms", ms(10), ms(20), 0.05,
			Inconclusive, 10e6, 20e6, ptr(100), nil},
		// −10 ms passes the threshold downward; p = 2/20 (3 vs 3 apart).
		{"improved", "incl>+2ms", ms(20, 21, 22), ms(10, 11, 12), 0.05,
			Improved, 21e6, 11e6, ptr(-100 * 10.0 / 21), ptr(0.1)},
		// Improvements need no significance.
		{"improved, one run", "incl>+2ms", ms(20), ms(10), 0.05,
			Improved, 20e6, 10e6, ptr(-50), nil},
		// +1 ms < 2 ms. Midranks: 10→1, the 11s→2.5, the 12s→4.5, 13→6;
		// R1 = 8 is 2.5 from the mean 10.5. Triples at least as far:
		// 1+2.5+2.5 = 6 (1 way), 1+2.5+4.5 = 8 (2·2), 2.5+4.5+6 = 13
		// (2·2), 4.5+4.5+6 = 15 (1): 10 of 20, p = 0.5.
		{"ok", "incl>+2ms", ms(10, 11, 12), ms(11, 12, 13), 0.05,
			OK, 11e6, 12e6, ptr(100 / 11.0), ptr(0.5)},
		// Exactly the threshold does not pass it ('>' is strict), either
		// way; 4 vs 4 apart gives p = 2/70 = 0.0286.
		{"at the threshold", "incl>+2ms", ms(10, 10, 10, 10), ms(12, 12, 12, 12), 0.05,
			OK, 10e6, 12e6, ptr(20), ptr(2.0 / 70)},
		{"at the threshold down", "incl>+2ms", ms(12, 12, 12, 12), ms(10, 10, 10, 10), 0.05,
			OK, 12e6, 10e6, ptr(-100 * 2.0 / 12), ptr(2.0 / 70)},
		// Even counts: medians (2+3)/2 and (12+13)/2 ms, with a method
		// absent from one old run (0).
		{"even counts", "incl>+2ms", ms(0, 2, 3, 4), ms(11, 12, 13, 14), 0.05,
			Regressed, 2.5e6, 12.5e6, ptr(400), ptr(2.0 / 70)},
		// Percentages: +11 % > 10 %, 4 vs 4 apart.
		{"percent", "calls>+10%", []float64{100, 100, 100, 100}, []float64{111, 111, 111, 111}, 0.05,
			Regressed, 100, 111, ptr(11), ptr(2.0 / 70)},
		{"percent at the threshold", "calls>+10%", []float64{100, 100, 100, 100}, []float64{110, 110, 110, 110}, 0.05,
			OK, 100, 110, ptr(10), ptr(2.0 / 70)},
		// An old median 0 and a new one above: +∞ %, which passes any
		// percentage; Pct stays nil. 3 vs 3 apart: p = 0.1.
		{"percent from 0", "calls>+1000%", []float64{0, 0, 0}, []float64{5, 5, 5}, 0.05,
			Inconclusive, 0, 5, nil, ptr(0.1)},
		{"percent from 0, 4 runs", "calls>+1000%", []float64{0, 0, 0, 0}, []float64{5, 5, 5, 5}, 0.05,
			Regressed, 0, 5, nil, ptr(2.0 / 70)},
		// With a 0 among the new runs: midranks 3 (five 0s) and 7 (three
		// 5s); R1 = 12 is 6 from the mean 18. Quadruples of x zeros and
		// 4−x fives: x=4 sum 12, C(5,4) = 5 ways; x=3 sum 16, 10·3 = 30;
		// x=2 sum 20, 10·3 = 30; x=1 sum 24, 5·1 = 5. At least 6 away:
		// 5+5 of 70, p = 1/7: not significant.
		{"percent from 0, ties", "calls>+1000%", []float64{0, 0, 0, 0}, []float64{0, 5, 5, 5}, 0.05,
			Inconclusive, 0, 5, nil, ptr(10.0 / 70)},
		{"percent 0 to 0", "calls>+0%", []float64{0, 0, 0}, []float64{0, 0, 0}, 0.05,
			OK, 0, 0, nil, ptr(1)},
		// Counts: +6 > 5 calls; at alpha 0.05 p = 2/70 is significant.
		{"count", "calls>+5", []float64{5, 5, 5, 5}, []float64{11, 11, 11, 11}, 0.05,
			Regressed, 5, 11, ptr(120), ptr(2.0 / 70)},
		{"count at the threshold", "calls>+5", []float64{5, 5, 5, 5}, []float64{10, 10, 10, 10}, 0.05,
			OK, 5, 10, ptr(100), ptr(2.0 / 70)},
		// A side with no values: inconclusive, medians 0.
		{"empty side", "incl>+2ms", nil, ms(1, 2, 3), 0.05,
			Inconclusive, 0, 0, nil, nil},
		// Phase rules are judged like the others.
		{"phase", "phase:first-frame>+5%", ms(100, 101, 102, 103, 104), ms(110, 111, 112, 113, 114), 0.05,
			Regressed, 102e6, 112e6, ptr(100 * 10.0 / 102), ptr(2.0 / 252)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRule(t, tc.rule)
			s := Series{Subject: "a.B.c", Kind: Method, Metric: r.Metric, Clock: "wall", Old: tc.old, New: tc.new}
			got := Judge(&r, &s, tc.alpha)
			if got.Verdict != tc.verdict || got.OldMedian != tc.oldMed || got.NewMedian != tc.newMed ||
				got.Delta != tc.newMed-tc.oldMed || !samePtr(got.Pct, tc.pct) || !samePtr(got.P, tc.p) {
				t.Errorf("Judge = %s old %v new %v delta %v pct %v p %v,\nwant %s old %v new %v pct %v p %v",
					got.Verdict, got.OldMedian, got.NewMedian, got.Delta, show(got.Pct), show(got.P),
					tc.verdict, tc.oldMed, tc.newMed, show(tc.pct), show(tc.p))
			}
			want := Result{Rule: tc.rule, Subject: "a.B.c", Kind: Method, Metric: r.Metric, Clock: "wall",
				Threshold: tc.rule[len(tc.rule)-len(got.Threshold):]}
			if got.Rule != want.Rule || got.Subject != want.Subject || got.Kind != want.Kind ||
				got.Metric != want.Metric || got.Clock != want.Clock || got.Threshold != want.Threshold {
				t.Errorf("Judge = %+v, want the rule's and series' names %+v", got, want)
			}
		})
	}
}

func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) <= 1e-12*math.Abs(*b)
}

func show(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestApplies(t *testing.T) {
	method := func(subject, sig, metric, clock string) Series {
		return Series{Subject: subject, Signature: sig, Kind: Method, Metric: metric, Clock: clock}
	}
	var (
		plain      = method("a.B.run", "(I)V", "incl", "wall")
		overloaded = method("a.B.run(I)V", "(I)V", "incl", "wall")
		cpu        = method("a.B.run", "(I)V", "incl", "cpu")
		excl       = method("a.B.run", "(I)V", "excl", "wall")
		calls      = method("a.B.run", "(I)V", "calls", "")
		total      = Series{Subject: "total", Kind: Total, Metric: "incl", Clock: "wall"}
		phase      = Series{Subject: "first-frame", Kind: Phase, Metric: "phase", Clock: "wall"}
		phaseCPU   = Series{Subject: "first-frame", Kind: Phase, Metric: "phase", Clock: "cpu"}
		bind       = Series{Subject: "bind", Kind: Phase, Metric: "phase", Clock: "wall"}
	)
	all := []Series{plain, overloaded, cpu, excl, calls, total, phase, phaseCPU, bind}
	names := []string{"plain", "overloaded", "cpu", "excl", "calls", "total", "phase", "phaseCPU", "bind"}
	for _, tc := range []struct {
		rule string
		want []bool // per series of all
	}{
		// No clock: every clock (the CLI sets the first clock before
		// Evaluate); no pattern: methods and totals.
		{"incl>+1ms", []bool{true, true, true, false, false, true, false, false, false}},
		{"incl.cpu>+1ms", []bool{false, false, true, false, false, false, false, false, false}},
		{"excl.wall>+1ms", []bool{false, false, false, true, false, false, false, false, false}},
		{"calls>+1", []bool{false, false, false, false, true, false, false, false, false}},
		// A pattern: methods only, unanchored, tried with and without
		// the signature, whether or not the label shows it.
		{`B\.run:incl>+1ms`, []bool{true, true, true, false, false, false, false, false, false}},
		{`^a\.B\.run$:incl.wall>+1ms`, []bool{true, true, false, false, false, false, false, false, false}},
		{`^a\.B\.run\(I\)V$:incl.wall>+1ms`, []bool{true, true, false, false, false, false, false, false, false}},
		{`\(J\)V:incl>+1ms`, []bool{false, false, false, false, false, false, false, false, false}},
		{`total:incl>+1ms`, []bool{false, false, false, false, false, false, false, false, false}},
		{`.:calls>+1`, []bool{false, false, false, false, true, false, false, false, false}},
		// Phase rules: their phase on their clock (default wall).
		{"phase:first-frame>+5%", []bool{false, false, false, false, false, false, true, false, false}},
		{"phase:first-frame:cpu>+5%", []bool{false, false, false, false, false, false, false, true, false}},
		{"phase:bind>+5%", []bool{false, false, false, false, false, false, false, false, true}},
	} {
		r := mustRule(t, tc.rule)
		for i := range all {
			if got := r.Applies(&all[i]); got != tc.want[i] {
				t.Errorf("%q applies to %s: %v, want %v", tc.rule, names[i], got, tc.want[i])
			}
		}
	}
}

func TestEvaluateSummarize(t *testing.T) {
	rules := []Rule{mustRule(t, "calls>+5"), mustRule(t, `fast:incl>+1ms`), mustRule(t, "incl>+50%")}
	series := []Series{
		{Subject: "a.slow", Kind: Method, Metric: "incl", Clock: "wall", Old: ms(10, 10, 10, 10, 10), New: ms(20, 20, 20, 20, 20)},
		{Subject: "a.fast", Kind: Method, Metric: "incl", Clock: "wall", Old: ms(1, 1, 1), New: ms(3, 3, 3)},
		{Subject: "a.fast", Kind: Method, Metric: "calls", Old: []float64{1, 1, 1}, New: []float64{1, 1, 1}},
	}
	rs := Evaluate(rules, series, Options{Alpha: 0.05}).Results
	type key struct {
		rule, subject string
		v             Verdict
	}
	want := []key{
		{"calls>+5", "a.fast", OK},
		{`fast:incl>+1ms`, "a.fast", Inconclusive}, // 3 vs 3: p = 0.1
		{"incl>+50%", "a.slow", Regressed},         // 5 vs 5: p = 2/252, BH's (and Holm's) 2·p = 0.016
		{"incl>+50%", "a.fast", Inconclusive},
	}
	if len(rs) != len(want) {
		t.Fatalf("Evaluate: %d results, want %d: %+v", len(rs), len(want), rs)
	}
	for i, w := range want {
		if got := (key{rs[i].Rule, rs[i].Subject, rs[i].Verdict}); got != w {
			t.Errorf("result %d: %+v, want %+v", i, got, w)
		}
	}
	for _, tc := range []struct {
		rs   []Result
		want Outcome
	}{
		{nil, Pass},
		{rs[:1], Pass},
		{[]Result{{Verdict: Improved}, {Verdict: OK}}, Pass},
		{rs[:2], InconclusiveOnly},
		{rs, AnyRegressed},
		{rs[2:3], AnyRegressed},
	} {
		if got := Summarize(tc.rs); got != tc.want {
			t.Errorf("Summarize(%d results) = %s, want %s", len(tc.rs), got, tc.want)
		}
	}
}

func TestResultJSON(t *testing.T) {
	r := mustRule(t, "incl>+2ms")
	res := Judge(&r, &Series{Subject: "a.B.c", Kind: Method, Metric: "incl", Clock: "wall", Old: ms(1, 2, 3), New: ms(1, 2, 3)}, 0.05)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // else '>' in a rule is \u003e
	if err := enc.Encode(struct {
		V Result  `json:"v"`
		O Outcome `json:"o"`
	}{res, AnyRegressed}); err != nil {
		t.Fatal(err)
	}
	const want = `{"v":{"rule":"incl>+2ms","subject":"a.B.c","kind":"method","metric":"incl","clock":"wall","verdict":"ok",` +
		`"old_median":2000000,"new_median":2000000,"delta":0,"pct":0,"p":1,"p_adjusted":1,"threshold":"+2ms"},"o":"regressed"}` + "\n"
	if b.String() != want {
		t.Errorf("JSON:\n got %s\nwant %s", b.String(), want)
	}
}

// TestNoChangeFalsePositives: two sides from one skewed distribution, with
// the loosest rule (any increase): regressed needs an increase and p <
// alpha, so it happens about alpha/2 of the time. For 5 vs 5 without ties
// that is exactly 4/252 = 0.016 (U ≤ 2 on the upper side).
func TestNoChangeFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := mustRule(t, "incl>+0ns")
	const trials = 4000
	regressed := 0
	for range trials {
		s := Series{Subject: "a.B.c", Kind: Method, Metric: "incl", Clock: "wall",
			Old: make([]float64, 5), New: make([]float64, 5)}
		for i := range s.Old {
			s.Old[i] = math.Round(1e6 * (1 + rng.ExpFloat64()))
			s.New[i] = math.Round(1e6 * (1 + rng.ExpFloat64()))
		}
		if Judge(&r, &s, 0.05).Verdict == Regressed {
			regressed++
		}
	}
	// σ of the rate over 4000 trials ≈ 0.002.
	if rate := float64(regressed) / trials; math.Abs(rate-4.0/252) > 0.008 {
		t.Errorf("no change: regressed in %.4f of the trials, want about %.4f", rate, 4.0/252)
	}
}

// TestEvaluateHolm: one rule over three methods that all slowed past the
// threshold, each completely separated: 5 vs 5 (p = 2/252), 4 vs 4
// (p = 2/70) and 3 vs 3 (p = 2/20). Holm with m = 3, by hand: sorted,
// 3·2/252 = 0.0238, max(0.0238, 2·2/70 = 0.0571) = 0.0571, max(0.0571,
// 1·0.1) = 0.1. Only the first stays below 0.05; alone, the 4 vs 4 method
// would regress (0.0286).
func TestEvaluateHolm(t *testing.T) {
	r := []Rule{mustRule(t, "excl>+10%")}
	series := []Series{
		{Subject: "a.three", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1), New: ms(2, 2, 2)},
		{Subject: "a.five", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1, 1, 1), New: ms(2, 2, 2, 2, 2)},
		{Subject: "a.four", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1, 1), New: ms(2, 2, 2, 2)},
	}
	rs := Evaluate(r, series, Options{Alpha: 0.05, Adjust: Holm}).Results
	want := []struct {
		p, adj float64
		v      Verdict
	}{{0.1, 0.1, Inconclusive}, {2.0 / 252, 3 * 2.0 / 252, Regressed}, {2.0 / 70, 2 * 2.0 / 70, Inconclusive}}
	for i, w := range want {
		got := rs[i]
		if got.P == nil || got.PAdjusted == nil || math.Abs(*got.P-w.p) > 1e-12 || math.Abs(*got.PAdjusted-w.adj) > 1e-12 || got.Verdict != w.v {
			t.Errorf("%s: p %v, adjusted %v, %s; want %g, %g, %s", got.Subject, deref(got.P), deref(got.PAdjusted), got.Verdict, w.p, w.adj, w.v)
		}
	}
	if one := Judge(&r[0], &series[2], 0.05); one.Verdict != Regressed || *one.PAdjusted != *one.P {
		t.Errorf("4 vs 4 alone: %s, p %v adjusted %v; want regressed, adjusted = p", one.Verdict, *one.P, *one.PAdjusted)
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
