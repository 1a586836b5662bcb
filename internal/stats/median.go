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
