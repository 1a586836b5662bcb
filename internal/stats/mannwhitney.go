package stats

import (
	"errors"
	"math"
	"slices"
	"sync"
)

// ExactMax is the largest sample size for which MannWhitneyU computes the
// exact distribution: with both samples at most this large the p-value is
// exact, otherwise it is the normal approximation (see the package doc).
const ExactMax = 20

// MannWhitney is the result of a two-sided Mann–Whitney U test.
type MannWhitney struct {
	U1, U2 float64 // U of the first and second sample; U1+U2 = n1·n2
	Z      float64 // the normal approximation's z, signed like U1 − n1n2/2 (0 when exact)
	P      float64 // two-sided p-value
	Exact  bool    // exact permutation distribution (no normal approximation)
}

// Errors of MannWhitneyU.
var (
	ErrEmpty = errors.New("mann-whitney u: a sample is empty")
	ErrNaN   = errors.New("mann-whitney u: a sample holds NaN")
)

// MannWhitneyU tests whether a and b come from the same distribution,
// against either being stochastically larger (two-sided). It returns
// ErrEmpty when a or b is empty and ErrNaN when either holds a NaN. It does
// not modify a or b.
func MannWhitneyU(a, b []float64) (MannWhitney, error) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return MannWhitney{}, ErrEmpty
	}
	rk, err := rank(a, b)
	if err != nil {
		return MannWhitney{}, err
	}
	u1 := float64(rk.sumA)/2 - float64(n1*(n1+1))/2
	r := MannWhitney{U1: u1, U2: float64(n1*n2) - u1}
	if n1 <= ExactMax && n2 <= ExactMax {
		r.P, r.Exact = exactP(rk, n1, n2), true
		return r, nil
	}
	r.Z, r.P = normalP(u1, n1, n2, rk.ties)
	return r, nil
}

// ranks are the pooled midranks, doubled so that they are integers.
type ranks struct {
	sumA, sumB int     // doubled rank sums of a and b
	groups     []group // the groups of equal values, in increasing order
	ties       float64 // Σ(t³−t) over the groups
}

// group is a run of t equal pooled values with doubled midrank r.
type group struct{ t, r int }

func rank(a, b []float64) (ranks, error) {
	type item struct {
		v   float64
		inA bool
	}
	pool := make([]item, 0, len(a)+len(b))
	for _, v := range a {
		pool = append(pool, item{v, true})
	}
	for _, v := range b {
		pool = append(pool, item{v, false})
	}
	for _, it := range pool {
		if math.IsNaN(it.v) {
			return ranks{}, ErrNaN
		}
	}
	slices.SortFunc(pool, func(x, y item) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	var rk ranks
	for i := 0; i < len(pool); {
		j := i + 1
		for j < len(pool) && pool[j].v == pool[i].v {
			j++
		}
		// Positions i..j-1 hold ranks i+1..j: their mean doubled is i+1+j.
		g := group{t: j - i, r: i + 1 + j}
		for _, it := range pool[i:j] {
			if it.inA {
				rk.sumA += g.r
			} else {
				rk.sumB += g.r
			}
		}
		t := float64(g.t)
		rk.ties += t*t*t - t
		rk.groups = append(rk.groups, g)
		i = j
	}
	return rk, nil
}

// exactP counts the choices of m = min(n1, n2) of the pooled ranks whose
// doubled sum is at least as far from its mean m(N+1) as the observed
// smaller sample's, and divides by C(N, m). Using the smaller sample only
// makes the table smaller: the two rank sums add up to a constant, so their
// distances from their means are equal.
func exactP(rk ranks, n1, n2 int) float64 {
	if len(rk.groups) == 1 {
		return 1 // every value equal: every choice has the same sum
	}
	n := n1 + n2
	m, obs := n1, rk.sumA
	if n2 < n1 {
		m, obs = n2, rk.sumB
	}
	mean := m * (n + 1)
	dev := abs(obs - mean)
	lo, counts := cachedCounts(rk.groups, m)
	var hit, all uint64
	for i, c := range counts {
		all += c
		if abs(lo+i-mean) >= dev {
			hit += c
		}
	}
	return float64(hit) / float64(all)
}

// The null distribution depends only on m and the sizes of the tie groups
// in order, which repeat: always without ties (all sizes 1), and often for
// the small values of short methods. A few hundred are kept (each at most
// 6.4 kB: 2·20·20+1 sums), and forgotten all at once when there are more.
const cacheMax = 256

var cache struct {
	sync.Mutex
	m map[string]cached
}

type cached struct {
	lo     int
	counts []uint64
}

func cachedCounts(gs []group, m int) (int, []uint64) {
	key := make([]byte, 0, len(gs)+1)
	key = append(key, byte(m))
	for _, g := range gs {
		key = append(key, byte(g.t)) // t ≤ 2·ExactMax
	}
	cache.Lock()
	c, ok := cache.m[string(key)]
	cache.Unlock()
	if ok {
		return c.lo, c.counts
	}
	c.lo, c.counts = sumCounts(gs, m)
	cache.Lock()
	if len(cache.m) >= cacheMax || cache.m == nil {
		cache.m = make(map[string]cached)
	}
	cache.m[string(key)] = c
	cache.Unlock()
	return c.lo, c.counts
}

// sumCounts returns, for each doubled rank sum lo+i, the number counts[i]
// of ways to choose m of the pooled values whose doubled ranks add up to
// it. It counts by dynamic programming over the groups of equal values:
// taking j of a group of t values adds j·r to the sum in C(t, j) ways. Row
// k of the table holds the counts for k values chosen, nonzero only
// between lo[k] and hi[k]; rows that can no longer reach m are left
// behind. The counts are at most C(40, 20) < 2⁶³ for
// n ≤ 2·ExactMax.
func sumCounts(gs []group, m int) (int, []uint64) {
	n := 0
	for _, g := range gs {
		n += g.t
	}
	width := 2*m*n + 1 // doubled ranks are at most 2n
	tab := make([]uint64, (m+1)*width)
	lo, hi := make([]int, m+1), make([]int, m+1)
	for k := 1; k <= m; k++ {
		lo[k], hi[k] = width, -1 // empty
	}
	tab[0] = 1
	seen := 0 // values in the groups so far
	var binom [2*ExactMax + 1]uint64
	for _, g := range gs {
		for j := 1; j <= g.t; j++ {
			binom[j] = binomial(g.t, j)
		}
		// Rows that cannot reach m with the values left are not needed.
		for k := min(seen, m); k >= max(0, m-(n-seen)); k-- {
			if hi[k] < lo[k] {
				continue
			}
			src := tab[k*width+lo[k] : k*width+hi[k]+1]
			for j := 1; j <= g.t && k+j <= m; j++ {
				off := (k+j)*width + lo[k] + j*g.r
				dst := tab[off : off+len(src)]
				b := binom[j]
				for i, c := range src {
					dst[i] += c * b
				}
				lo[k+j] = min(lo[k+j], lo[k]+j*g.r)
				hi[k+j] = max(hi[k+j], hi[k]+j*g.r)
			}
		}
		seen += g.t
	}
	return lo[m], slices.Clone(tab[m*width+lo[m] : m*width+hi[m]+1]) // not the whole table
}

// binomial returns C(n, k) for the small n of the exact test.
func binomial(n, k int) uint64 {
	k = min(k, n-k)
	c := uint64(1)
	for i := 1; i <= k; i++ {
		c = c * uint64(n-k+i) / uint64(i)
	}
	return c
}

// normalP returns the continuity-corrected, tie-corrected z of U1 and its
// two-sided p-value.
func normalP(u1 float64, n1, n2 int, ties float64) (z, p float64) {
	f1, f2, n := float64(n1), float64(n2), float64(n1+n2)
	v := f1 * f2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if v <= 0 {
		return 0, 1 // every value equal
	}
	d := u1 - f1*f2/2
	z = math.Max(math.Abs(d)-0.5, 0) / math.Sqrt(v)
	p = math.Min(math.Erfc(z/math.Sqrt2), 1)
	if d < 0 {
		z = -z
	}
	return z, p
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// MinP returns the smallest p-value MannWhitneyU can give for samples of
// n1 and n2 values: that of complete separation (every value of one
// sample below every value of the other, no ties), 2/C(n1+n2, n1) when the
// test is exact, the normal approximation's beyond ExactMax. It returns 1
// when either size is below 1.
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	a := make([]float64, n1)
	b := make([]float64, n2)
	for i := range a {
		a[i] = float64(i)
	}
	for i := range b {
		b[i] = float64(n1 + i)
	}
	mw, err := MannWhitneyU(a, b)
	if err != nil {
		return 1 // unreachable: the samples are not empty and hold no NaN
	}
	return mw.P
}
