package testutil

import (
	"math"
	"slices"
)

// ExactMannWhitneyP is the two-sided exact Mann–Whitney p-value of a and b
// by enumeration, an oracle independent of internal/stats for tests: every
// choice of len(a) of the pooled values is tried, each value ranked by the
// number of smaller values plus the mean position among the equal ones
// (midranks), and the choices whose rank sum is at least as far from its
// mean len(a)·(N+1)/2 as a's count. It takes C(N, len(a)) steps: keep N
// small (up to about 20).
func ExactMannWhitneyP(a, b []float64) float64 {
	pool := append(slices.Clone(a), b...)
	n, k := len(pool), len(a)
	rank := make([]float64, n)
	for i, v := range pool {
		less, equal := 0, 0
		for _, w := range pool {
			switch {
			case w < v:
				less++
			case w == v:
				equal++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2
	}
	mean, obs := float64(k*(n+1))/2, 0.0
	for i := range k {
		obs += rank[i]
	}
	dev := math.Abs(obs - mean)
	var hit, all int
	var choose func(from, left int, sum float64)
	choose = func(from, left int, sum float64) {
		if left == 0 {
			all++
			if math.Abs(sum-mean) >= dev-1e-9 {
				hit++
			}
			return
		}
		for i := from; i <= n-left; i++ {
			choose(i+1, left-1, sum+rank[i])
		}
	}
	choose(0, k, 0)
	return float64(hit) / float64(all)
}

// BH is Benjamini and Hochberg's adjusted p-values of ps, in their order,
// from the definition, for tests: the adjusted value of p is the smallest
// m/j·p_(j) over the ranks j at or after its own (rank: the number of
// p-values at or below it), at most 1.
func BH(ps []float64) []float64 {
	m := len(ps)
	sorted := slices.Sorted(slices.Values(ps))
	out := make([]float64, m)
	for i, p := range ps {
		rank := 0
		for _, q := range sorted {
			if q <= p {
				rank++
			}
		}
		best := 1.0
		for j := rank; j <= m; j++ {
			best = math.Min(best, float64(m)/float64(j)*sorted[j-1])
		}
		out[i] = best
	}
	return out
}
