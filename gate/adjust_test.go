package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestAdjusted: four p-values adjusted by hand. Sorted: 0.005, 0.01, 0.03,
// 0.04 (m = 4).
//
//	BH, from the largest: 4/4·0.04 = 0.04; min(0.04, 4/3·0.03 = 0.04);
//	min(0.04, 4/2·0.01 = 0.02) = 0.02; min(0.02, 4/1·0.005 = 0.02).
//	Holm, from the smallest: 4·0.005 = 0.02; max(0.02, 3·0.01) = 0.03;
//	max(0.03, 2·0.03) = 0.06; max(0.06, 1·0.04) = 0.06.
func TestAdjusted(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005}
	for _, tc := range []struct {
		a    Adjustment
		want []float64
	}{
		{BH, []float64{0.02, 0.04, 0.04, 0.02}},
		{Holm, []float64{0.03, 0.06, 0.06, 0.02}},
		{None, ps},
	} {
		got := tc.a.adjusted(ps)
		for i := range got {
			if !near(got[i], tc.want[i]) {
				t.Errorf("%s: %v, want %v", tc.a, got, tc.want)
				break
			}
		}
	}
	for _, ps := range [][]float64{ps, {0.3}, {0.01, 0.01, 0.5, 0.02}} {
		if got, want := BH.adjusted(ps), testutil.BH(ps); !slices.EqualFunc(got, want, near) {
			t.Errorf("BH %v = %v; by the definition %v", ps, got, want)
		}
	}
	if got := BH.adjusted([]float64{0.3}); got[0] != 0.3 {
		t.Errorf("one p-value: %v, want it unchanged", got)
	}
}

// TestAdjustedRejects ties the adjusted p-values to the textbook
// procedures on random p-values (with ties): BH rejects the k* smallest,
// k* the largest k with p_(k) < k/m·alpha (step-up); Holm rejects the
// smallest ones up to the first k with p_(k) ≥ alpha/(m−k+1) (step-down).
// A check is rejected exactly when its adjusted p is below alpha. (The
// p-values are not on a grid, where m/k·p = alpha would be decided by
// rounding.)
func TestAdjustedRejects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 2000 {
		m := 1 + rng.IntN(30)
		ps := make([]float64, m)
		for i := range ps {
			ps[i] = rng.Float64() * rng.Float64() * 0.2 // many small
			if i > 0 && rng.IntN(4) == 0 {
				ps[i] = ps[rng.IntN(i)] // ties
			}
		}
		alpha := []float64{0.01, 0.05, 0.1}[trial%3]
		sorted := slices.Sorted(slices.Values(ps))
		bhK := 0
		for k := m; k >= 1; k-- {
			if sorted[k-1] < float64(k)/float64(m)*alpha {
				bhK = k
				break
			}
		}
		holmK := 0
		for k := 1; k <= m && sorted[k-1] < alpha/float64(m-k+1); k++ {
			holmK = k
		}
		for _, tc := range []struct {
			a Adjustment
			k int
		}{{BH, bhK}, {Holm, holmK}} {
			adj := tc.a.adjusted(ps)
			for i, p := range ps {
				// p is rejected when it is among the k smallest; ties
				// with the k-th go together (a tie above it cannot be,
				// since both procedures decide by value).
				want := tc.k > 0 && p <= sorted[tc.k-1]
				if got := adj[i] < alpha; got != want {
					t.Fatalf("%s, alpha %g, p-values %v: p %g adjusted %g, rejected %v, want %v", tc.a, alpha, ps, p, adj[i], got, want)
				}
			}
		}
	}
}

// TestBestCase: the adjusted p-value of a check whose p is replaced by a
// smaller x, against replacing it and adjusting all of them again.
func TestBestCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for range 3000 {
		m := 1 + rng.IntN(12)
		ps := make([]float64, m)
		for i := range ps {
			ps[i] = math.Round(rng.Float64()*100) / 400
		}
		sorted := slices.Sorted(slices.Values(ps))
		i := rng.IntN(m)
		x := ps[i] * []float64{0, 0.3, 1}[rng.IntN(3)]
		if rng.IntN(4) == 0 {
			x = sorted[0] // a tie with the smallest
			if x > ps[i] {
				x = ps[i]
			}
		}
		k, _ := slices.BinarySearch(sorted, ps[i])
		for _, a := range []Adjustment{BH, Holm, None} {
			repl := slices.Clone(ps)
			repl[i] = x
			want := a.adjusted(repl)[i]
			if got := newBestCase(a, sorted, x).at(k); !near(got, want) {
				t.Fatalf("%s: p-values %v, check %d (p %g) at x = %g: %g, want %g", a, ps, i, ps[i], x, got, want)
			}
		}
	}
}

func TestParseAdjustment(t *testing.T) {
	for _, a := range []Adjustment{BH, Holm, None} {
		if got, err := ParseAdjustment(a.String()); err != nil || got != a {
			t.Errorf("ParseAdjustment(%q) = %v, %v", a, got, err)
		}
	}
	if _, err := ParseAdjustment("bonferroni"); err == nil || err.Error() != `adjustment "bonferroni": expected bh, holm or none` {
		t.Errorf("ParseAdjustment(bonferroni): %v", err)
	}
	if BH.Name() != "Benjamini–Hochberg" || Holm.Name() != "Holm" || None.Name() != "none" || Adjustment(0) != BH {
		t.Error("names, or the zero Adjustment is not BH")
	}
}

// exactP is the exact Mann–Whitney p-value by enumeration: the oracle.
var exactP = testutil.ExactMannWhitneyP

func TestExactPOracle(t *testing.T) {
	for _, tc := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 2.0 / 20},
		// a = 1 2 2, b = 2 3 3: 6 of the 20 choices are as far (by hand
		// in internal/stats' tests).
		{[]float64{1, 2, 2}, []float64{2, 3, 3}, 6.0 / 20},
	} {
		if got := exactP(tc.a, tc.b); !near(got, tc.want) {
			t.Errorf("exactP(%v, %v) = %g, want %g", tc.a, tc.b, got, tc.want)
		}
	}
}

// fiveVsFive is a rule's 29 checks at 5 runs a side, of which `slow` are
// 1.5 times slower in every new run (completely separated: p = 2/252) and
// the others unchanged and interleaved.
func fiveVsFive(slow int) []Series {
	var ss []Series
	for i := range 29 {
		s := Series{Subject: "m" + string(rune('A'+i)), Kind: Method, Metric: "incl", Clock: "wall",
			Old: ms(10, 10.5, 11, 11.5, 12), New: ms(10.25, 10.75, 11.25, 11.75, 12.25)}
		if i < slow {
			s.New = ms(15, 15.75, 16.5, 17.25, 18)
		}
		ss = append(ss, s)
	}
	return ss
}

// TestFiveVsFive: the defect of issue 35. Five of 29 checks completely
// separated at 5 runs a side: BH adjusts their p = 2/252 to 29/5·2/252 =
// 0.046 < 0.05, regressed; Holm to 29·2/252 = 0.23, inconclusive, and the
// rule cannot decide: 6 runs a side give 29·2/924 = 0.063, 7 give
// 29·2/3432 = 0.017. With four separated, BH gives 29/4·2/252 = 0.058: no
// longer enough. Without adjustment each is 2/252.
func TestFiveVsFive(t *testing.T) {
	r := []Rule{mustRule(t, "incl>+20%")}
	sep := 2.0 / 252
	calm := exactP(ms(10, 10.5, 11, 11.5, 12), ms(10.25, 10.75, 11.25, 11.75, 12.25))
	if got := exactP(ms(10, 10.5, 11, 11.5, 12), ms(15, 15.75, 16.5, 17.25, 18)); !near(got, sep) {
		t.Fatalf("oracle: separated p = %g, want 2/252", got)
	}
	for _, tc := range []struct {
		adjust  Adjustment
		slow    int
		adj     float64 // of a slow check
		verdict Verdict
		undec   *Undecided
	}{
		{BH, 5, 29.0 / 5 * sep, Regressed, nil},
		{BH, 4, 29.0 / 4 * sep, Inconclusive, &Undecided{Checks: 29, OldRuns: 5, NewRuns: 5, MinP: ptr(sep), MinPAdjusted: ptr(29.0 / 4 * sep), RunsNeeded: 7}},
		{Holm, 5, 29 * sep, Inconclusive, &Undecided{Checks: 29, OldRuns: 5, NewRuns: 5, MinP: ptr(sep), MinPAdjusted: ptr(29 * sep), RunsNeeded: 7}},
		{None, 1, sep, Regressed, nil},
	} {
		ev := Evaluate(r, fiveVsFive(tc.slow), Options{Alpha: 0.05, Adjust: tc.adjust})
		if len(ev.Results) != 29 {
			t.Fatalf("%s: %d results", tc.adjust, len(ev.Results))
		}
		for i, res := range ev.Results {
			wantP, wantV := calm, OK
			if i < tc.slow {
				wantP, wantV = sep, tc.verdict
			}
			if res.P == nil || !near(*res.P, wantP) || res.Verdict != wantV || i < tc.slow && !near(*res.PAdjusted, tc.adj) {
				t.Errorf("%s, %d slow: %s: p %v adjusted %v %s; want p %g adjusted %g %s", tc.adjust, tc.slow, res.Subject,
					deref(res.P), deref(res.PAdjusted), res.Verdict, wantP, tc.adj, wantV)
			}
		}
		switch {
		case tc.undec == nil && len(ev.Undecided) != 0:
			t.Errorf("%s, %d slow: undecided %+v, want none", tc.adjust, tc.slow, ev.Undecided)
		case tc.undec != nil:
			tc.undec.Rule = "incl>+20%"
			if len(ev.Undecided) != 1 || !sameUndecided(ev.Undecided[0], *tc.undec) {
				t.Errorf("%s, %d slow: undecided %+v, want %+v", tc.adjust, tc.slow, ev.Undecided, *tc.undec)
			}
		}
	}
}

func sameUndecided(a, b Undecided) bool {
	eq := func(x, y *float64) bool { return x == nil && y == nil || x != nil && y != nil && near(*x, *y) }
	return a.Rule == b.Rule && a.Checks == b.Checks && a.OldRuns == b.OldRuns && a.NewRuns == b.NewRuns &&
		eq(a.MinP, b.MinP) && eq(a.MinPAdjusted, b.MinPAdjusted) && a.RunsNeeded == b.RunsNeeded
}

// TestUndecidedNoTest: with 2 runs a side there is no test at all; the
// rule's 29 checks need 7 runs a side under bh and holm (as above), 4
// without adjustment (2/70 = 0.029; 3 a side give 0.1).
func TestUndecidedNoTest(t *testing.T) {
	r := []Rule{mustRule(t, "incl>+20%")}
	ss := fiveVsFive(1)
	for i := range ss {
		ss[i].Old, ss[i].New = ss[i].Old[:2], ss[i].New[:2]
	}
	for a, need := range map[Adjustment]int{BH: 7, Holm: 7, None: 4} {
		ev := Evaluate(r, ss, Options{Adjust: a})
		want := Undecided{Rule: "incl>+20%", Checks: 29, OldRuns: 2, NewRuns: 2, RunsNeeded: need}
		if len(ev.Undecided) != 1 || !sameUndecided(ev.Undecided[0], want) {
			t.Errorf("%s: undecided %+v, want %+v", a, ev.Undecided, want)
		}
	}
	// A rule with nothing inconclusive is not undecided, whatever its runs.
	if ev := Evaluate([]Rule{mustRule(t, "incl>+90%")}, ss, Options{}); len(ev.Undecided) != 0 {
		t.Errorf("no inconclusive verdict: undecided %+v", ev.Undecided)
	}
}

// TestEvaluateBH: the three methods of TestEvaluateHolm under BH, by hand:
// sorted 2/252, 2/70, 0.1 (m = 3): 3/3·0.1 = 0.1; min(0.1, 3/2·2/70 =
// 0.0429); min(0.0429, 3·2/252 = 0.0238). The 4 vs 4 method, inconclusive
// under Holm (0.0571), regresses.
func TestEvaluateBH(t *testing.T) {
	r := []Rule{mustRule(t, "excl>+10%")}
	series := []Series{
		{Subject: "a.three", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1), New: ms(2, 2, 2)},
		{Subject: "a.five", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1, 1, 1), New: ms(2, 2, 2, 2, 2)},
		{Subject: "a.four", Kind: Method, Metric: "excl", Clock: "wall", Old: ms(1, 1, 1, 1), New: ms(2, 2, 2, 2)},
	}
	ev := Evaluate(r, series, Options{Alpha: 0.05})
	for i, w := range []struct {
		p, adj float64
		v      Verdict
	}{{0.1, 0.1, Inconclusive}, {2.0 / 252, 3 * 2.0 / 252, Regressed}, {2.0 / 70, 1.5 * 2.0 / 70, Regressed}} {
		got := ev.Results[i]
		if got.P == nil || !near(*got.P, w.p) || !near(*got.PAdjusted, w.adj) || got.Verdict != w.v {
			t.Errorf("%s: p %v, adjusted %v, %s; want %g, %g, %s", got.Subject, deref(got.P), deref(got.PAdjusted), got.Verdict, w.p, w.adj, w.v)
		}
	}
	// a.three stays inconclusive whatever its 3 runs a side measure:
	// the smallest p they allow is 0.1, at rank 3 of 3 under BH 0.1. With
	// 5 runs a side 3·2/252 = 0.024 would decide (4: 3·2/70 = 0.086).
	want := Undecided{Rule: "excl>+10%", Checks: 3, OldRuns: 3, NewRuns: 3, MinP: ptr(0.1), MinPAdjusted: ptr(0.1), RunsNeeded: 5}
	if len(ev.Undecided) != 1 || !sameUndecided(ev.Undecided[0], want) {
		t.Errorf("undecided %+v, want %+v", ev.Undecided, want)
	}
}

// TestMetricRule: a benchmark metric rule applies to its metric only, takes
// an amount in the metric's unit, and keeps the series' group.
func TestMetricRule(t *testing.T) {
	r := mustRule(t, "metric:timeNs>+0.5")
	s := Series{Subject: "timeNs", Group: "C#a", Kind: BenchmarkMetric, Metric: "metric",
		Old: []float64{10, 10.1, 10.2, 10.3, 10.4}, New: []float64{11, 11.1, 11.2, 11.3, 11.4}}
	other := s
	other.Subject = "allocationCount"
	if !r.Applies(&s) || r.Applies(&other) || ptrRule(mustRule(t, "phase:bind>+1%")).Applies(&s) || ptrRule(mustRule(t, "excl>+1%")).Applies(&s) {
		t.Fatal("Applies")
	}
	// Medians 10.2 → 11.2: +1.0 > 0.5; separated: p = 2/252.
	res := Judge(&r, &s, 0.05)
	if res.Verdict != Regressed || res.Group != "C#a" || !near(res.Delta, 1.0) || !near(*res.P, 2.0/252) || res.Kind.String() != "metric" {
		t.Errorf("%+v", res)
	}
	if res := Judge(ptrRule(mustRule(t, "metric:timeNs>+1.5")), &s, 0.05); res.Verdict != OK {
		t.Errorf("+1.0 against +1.5: %s", res.Verdict)
	}
}

func ptrRule(r Rule) *Rule { return &r }
