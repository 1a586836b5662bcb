package stats

import (
	"math"
	"slices"
)

// Median returns the middle value of xs, the mean of the two middle values
// for an even count, and NaN for none. It does not modify xs.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of xs by linear
// interpolation between the closest ranks (R's type 7, NumPy's default):
// sorted, x[h] with h = (n−1)·q, interpolated between x[⌊h⌋] and x[⌊h⌋+1].
// Quantile(xs, 0.5) is Median(xs). It returns NaN for no values or a q
// outside [0, 1], and does not modify xs.
func Quantile(xs []float64, q float64) float64 {
	n := len(xs)
	if n == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	h := float64(n-1) * q
	lo := int(h)
	if lo >= n-1 {
		return s[n-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}
