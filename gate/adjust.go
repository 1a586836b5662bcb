package gate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/atrace2/atrace2/internal/stats"
)

// Adjustment is how the p-values of one rule's checks are adjusted for
// their number before they are compared with alpha (see the package doc,
// "Many checks").
type Adjustment uint8

// Adjustments. The zero value is the default.
const (
	// BH is Benjamini and Hochberg's step-up adjustment (the default).
	// With no change at all it fails a rule with probability at most
	// alpha, as Holm does; when a change moves many checks together (a
	// slower method moves its callers' inclusive times too) their small
	// p-values support each other, and 5 runs a side can be enough.
	BH Adjustment = iota
	// Holm is Holm's step-down adjustment: the chance of any false
	// regression stays at most alpha whatever the other checks do, at
	// the price of power (a rule of m checks needs p below alpha/m).
	Holm
	// None compares each p-value with alpha as it is: a rule over
	// hundreds of methods then fails most unchanged run sets.
	None
)

var adjustments = [...]string{BH: "bh", Holm: "holm", None: "none"}

// String returns "bh", "holm" or "none", as --adjust takes it.
func (a Adjustment) String() string {
	if int(a) < len(adjustments) {
		return adjustments[a]
	}
	return "Adjustment(" + strconv.Itoa(int(a)) + ")"
}

// Name is the adjustment's name for people: "Benjamini–Hochberg",
// "Holm" or "none".
func (a Adjustment) Name() string {
	switch a {
	case BH:
		return "Benjamini–Hochberg"
	case Holm:
		return "Holm"
	}
	return a.String()
}

// MarshalText makes an Adjustment its String in JSON.
func (a Adjustment) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// ParseAdjustment reads "bh", "holm" or "none".
func ParseAdjustment(s string) (Adjustment, error) {
	for i, name := range adjustments {
		if s == name {
			return Adjustment(i), nil
		}
	}
	return 0, fmt.Errorf("adjustment %q: expected bh, holm or none", s)
}

// adjusted returns the adjusted p-values of ps (all in [0, 1]), in the
// order of ps. Sorted by p, p_(1) ≤ … ≤ p_(m):
//
//   - BH: the k-th becomes min over j ≥ k of min(1, m/j · p_(j));
//   - Holm: the k-th becomes max over j ≤ k of min(1, (m−j+1) · p_(j));
//   - None: p itself.
//
// Ties keep their order, and both formulas give tied values one adjusted
// value.
func (a Adjustment) adjusted(ps []float64) []float64 {
	m := len(ps)
	out := slices.Clone(ps)
	if a == None || m < 2 {
		return out
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(ps[x], ps[y]) })
	fm := float64(m)
	if a == Holm {
		run := 0.0
		for j, i := range idx {
			run = max(run, min(1, (fm-float64(j))*ps[i]))
			out[i] = run
		}
		return out
	}
	run := 1.0
	for j := m - 1; j >= 0; j-- {
		i := idx[j]
		run = min(run, fm/float64(j+1)*ps[i])
		out[i] = run
	}
	return out
}

// bestCase gives, for each check of a rule, the adjusted p-value it would
// get if its own p-value were x while the others kept theirs: x is the
// smallest p its run counts allow, so never above its own. It is built
// once per x from the sorted p-values of all m checks and answers for the
// check at position k of them in constant time.
type bestCase struct {
	a    Adjustment
	m, r int     // r: the p-values below x, ranks 1 … r; x takes rank r+1
	x    float64 // the p-value put in
	// holm: Holm's value at rank r+1, which depends on ranks 1 … r only,
	// the same whichever check (at k ≥ r) x replaces.
	holm float64
	// BH's value at rank r+1 is the minimum over the ranks after it of
	// m/j·q_j, q being sorted without the check's own p, with x inserted:
	// up to rank k+1 the ranks hold sorted[j−2], after it sorted[j−1].
	// shifted[j] = min over r+2 ≤ i ≤ j of m/i·sorted[i−2];
	// rest[j] = min over i ≥ j of m/i·sorted[i−1] (1 beyond m).
	shifted, rest []float64
}

func newBestCase(a Adjustment, sorted []float64, x float64) *bestCase {
	m := len(sorted)
	b := &bestCase{a: a, m: m, x: x}
	b.r, _ = slices.BinarySearch(sorted, x)
	fm := float64(m)
	switch {
	case a == None || m < 2:
	case a == Holm:
		for j := 0; j < b.r; j++ {
			b.holm = max(b.holm, min(1, (fm-float64(j))*sorted[j]))
		}
	default:
		b.shifted = make([]float64, m+2)
		b.rest = make([]float64, m+2)
		run := 1.0
		for j := 0; j <= m+1; j++ {
			if j >= b.r+2 && j <= m {
				run = min(run, fm/float64(j)*sorted[j-2])
			}
			b.shifted[j] = run
		}
		b.rest[m+1] = 1
		for j := m; j >= 1; j-- {
			b.rest[j] = min(b.rest[j+1], fm/float64(j)*sorted[j-1])
		}
	}
	return b
}

// at is the adjusted p-value of the check at position k of the sorted
// p-values (k ≥ r: its own p is not below x).
func (b *bestCase) at(k int) float64 {
	fm := float64(b.m)
	switch {
	case b.a == None || b.m < 2:
		return b.x
	case b.a == Holm:
		return max(b.holm, min(1, (fm-float64(b.r))*b.x))
	}
	v := min(1, fm/float64(b.r+1)*b.x, b.shifted[min(k+1, b.m+1)])
	if k+2 <= b.m {
		v = min(v, b.rest[k+2])
	}
	return v
}

// Undecided is a rule that cannot decide at the run counts given: some of
// its changes passed the threshold, and even the clearest result these
// counts allow (every new run slower than every old one) would not be
// significant after the adjustment for the rule's checks, so they stay
// inconclusive whatever the runs measured. RunsNeeded runs a side would let
// it decide.
type Undecided struct {
	Rule   string `json:"rule"`
	Checks int    `json:"checks"` // the p-values adjusted together
	// OldRuns and NewRuns are the run counts of its undecided checks (of
	// the one closest to deciding, when they differ).
	OldRuns int `json:"old_runs"`
	NewRuns int `json:"new_runs"`
	// MinP is the smallest p-value those counts allow, 2/C(old+new, old)
	// up to 20 runs a side; nil with fewer than MinRuns runs on a side
	// (no test). MinPAdjusted is its adjusted value: what that check would
	// get were its p MinP, the other checks keeping theirs.
	MinP         *float64 `json:"min_p"`
	MinPAdjusted *float64 `json:"min_p_adjusted"`
	// RunsNeeded is the number of runs a side with which one check whose
	// runs are all slower than the old ones would be significant after
	// the adjustment, whatever the rule's other checks give: the smallest
	// n with factor·MinP(n, n) < alpha, the factor being the rule's
	// number of checks for bh and holm and 1 for none. 0 when no count up
	// to 1000 is enough.
	RunsNeeded int `json:"runs_needed"`
}

// runsNeeded is Undecided.RunsNeeded for m checks.
func runsNeeded(a Adjustment, m int, alpha float64) int {
	factor := float64(max(m, 1))
	if a == None {
		factor = 1
	}
	for n := MinRuns; n <= 1000; n++ {
		if factor*stats.MinP(n, n) < alpha {
			return n
		}
	}
	return 0
}

// undecided returns the Undecided of one rule's judged checks, or nil when
// the rule has no inconclusive verdict or could turn one into a
// regression at its run counts. ns holds each check's run counts.
func undecided(rs []Result, ns [][2]int, a Adjustment, alpha float64) *Undecided {
	var ps []float64
	for i := range rs {
		if rs[i].P != nil {
			ps = append(ps, *rs[i].P)
		}
	}
	slices.Sort(ps)
	var u *Undecided
	bestAdj := math.Inf(1)
	cases := map[[2]int]*bestCase{}
	for i := range rs {
		if rs[i].Verdict != Inconclusive {
			continue
		}
		n1, n2 := ns[i][0], ns[i][1]
		adj := math.Inf(1) // no test: nothing can decide
		var minP *float64
		if rs[i].P != nil {
			b := cases[ns[i]]
			if b == nil {
				b = newBestCase(a, ps, stats.MinP(n1, n2))
				cases[ns[i]] = b
			}
			k, _ := slices.BinarySearch(ps, *rs[i].P)
			adj, minP = b.at(k), &b.x
			if adj < alpha {
				return nil // this check could regress at these counts
			}
		}
		if u == nil || adj < bestAdj {
			bestAdj = adj
			u = &Undecided{Rule: rs[i].Rule, OldRuns: n1, NewRuns: n2, MinP: minP}
			if minP != nil {
				u.MinPAdjusted = &adj
			}
		}
	}
	if u != nil {
		// With fewer than MinRuns runs no check has a p-value yet; with
		// enough, every check would.
		u.Checks = cmp.Or(len(ps), len(rs))
		u.RunsNeeded = runsNeeded(a, u.Checks, alpha)
	}
	return u
}
