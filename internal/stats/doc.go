// Package stats holds the statistics of the regression gate (package gate):
// the median of a sample and the two-sided Mann–Whitney U test of two
// samples. It imports only the standard library.
//
// # Why these
//
// Run times are skewed (a run is sometimes much slower: a GC, another
// process, a cold cache) and a CI job records few runs, often 3 to 10 per
// side. The median is not moved by one slow run, and the Mann–Whitney U
// test (also called the Wilcoxon rank-sum test) compares the two samples by
// the ranks of their values, so it assumes no distribution (no normality)
// and one outlier counts as one rank, not as its size.
//
// # The test
//
// The values of both samples are pooled and ranked 1..N (N = n1+n2); equal
// values share the mean of their ranks (midranks). U1 is the rank sum of
// the first sample minus n1(n1+1)/2: the number of pairs (a, b) with a > b,
// plus half the pairs with a = b. U2 = n1·n2 − U1.
//
// Exact, when both samples have at most 20 values (ExactMax): under the
// null hypothesis (both samples from one distribution) every choice of
// which n1 of the N pooled ranks belong to the first sample is equally
// likely, C(N, n1) choices. The p-value is the share of choices whose rank
// sum is at least as far from its mean n1(N+1)/2 as the observed one, on
// either side. With ties this is the exact permutation distribution of the
// midrank sum, conditional on the observed ties (as StatXact and R's coin
// package compute it); without ties it is the classic exact U distribution,
// and the two-sided p-value equals twice the one-sided one. Complete
// separation of n1 and n2 values gives p = 2/C(n1+n2, n1): 0.1 for 3 vs 3,
// 0.0571 for 3 vs 4, 0.0286 for 4 vs 4, 0.0079 for 5 vs 5, the smallest p
// those sizes allow (MinP, which the gate uses to say how many runs a rule
// needs). All-equal samples give p = 1.
//
// Normal approximation, when either sample has more than 20 values: z is
// (|U1 − n1n2/2| − 0.5) / σ, with the continuity correction 0.5 and the
// tie-corrected σ² = n1n2/12 · ((N+1) − Σ(t³−t)/(N(N−1))) (t: the size of
// each group of equal values), signed like U1 − n1n2/2; p = erfc(|z|/√2).
// These are the defaults of R's wilcox.test and of SciPy's mannwhitneyu
// with its asymptotic method. When every value is equal, σ = 0 and p = 1.
package stats
