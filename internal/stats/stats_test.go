package stats

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},     // (2+3)/2
		{[]float64{0, 0, 10, 10}, 5},     // a method absent from half the runs
		{[]float64{9, 1, 1000, 2, 3}, 3}, // one slow run does not move it
	} {
		in := slices.Clone(tc.xs)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("Median modified its input: %v, was %v", in, tc.xs)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func seq(from, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(from + i)
	}
	return xs
}

func TestMannWhitneyExact(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []float64
		u1, u2 float64
		p      float64
	}{
		// One run per side: ranks a=1, b=2; U1 = 1−1 = 0. Of the
		// C(2,1) = 2 arrangements (rank sum 1 or 2, mean 1.5) both are
		// 0.5 from the mean: p = 2/2.
		{"one per side", []float64{1}, []float64{2}, 0, 1, 1},
		// All equal: every rank is the midrank; every arrangement has
		// the same sum, p = 1; U1 = U2 = 9/2.
		{"all equal", []float64{7, 7, 7}, []float64{7, 7, 7}, 4.5, 4.5, 1},
		// Complete separation: only the observed arrangement and its
		// mirror are as extreme: p = 2/C(n1+n2, n1).
		{"separated 3v3", seq(1, 3), seq(4, 3), 0, 9, 2.0 / 20},
		{"separated 3v4", seq(1, 3), seq(4, 4), 0, 12, 2.0 / 35},
		{"separated 4v4", seq(1, 4), seq(5, 4), 0, 16, 2.0 / 70},
		{"separated 4v4 reversed", seq(5, 4), seq(1, 4), 16, 0, 2.0 / 70},
		{"separated 3v5", seq(1, 3), seq(4, 5), 0, 15, 2.0 / 56},
		{"separated 5v5", seq(1, 5), seq(6, 5), 0, 25, 2.0 / 252},
		{"separated 20v20", seq(1, 20), seq(21, 20), 0, 400, 2.0 / 137846528820},
		// Unequal sizes, no ties: a = 1.1 3.3 5.5 has ranks 1 3 5 among
		// b = 2.2 4.4 6.6 7.7 (ranks 2 4 6 7): R1 = 9, U1 = 9−6 = 3,
		// U2 = 12−3 = 9. The C(7,3) = 35 rank triples have mean sum 12;
		// those at least 3 away (sum ≤ 9 or ≥ 15): sum 6 {123}, 7 {124},
		// 8 {125 134}, 9 {126 135 234} = 7, and 7 mirrored: p = 14/35.
		{"unequal sizes", []float64{1.1, 3.3, 5.5}, []float64{2.2, 4.4, 6.6, 7.7}, 3, 9, 14.0 / 35},
		// Ties: a = 1 2 2, b = 2 3 3. Midranks: 1→1, the three 2s →3,
		// the two 3s →5.5. R1 = 1+3+3 = 7, U1 = 7−6 = 1 (no a > b, two
		// a = b pairs count ½ each), U2 = 8. Arrangements of 3 of the 6
		// pooled values (mean sum 10.5, observed 3.5 away), by how many
		// come from each tie group (1 | 3 | 5.5):
		//   1,2,0: C(1,1)C(3,2) = 3, sum 7    (3.5 away: counts)
		//   1,1,1: 1·3·2 = 6,        sum 9.5  (1)
		//   1,0,2: 1,                sum 12   (1.5)
		//   0,3,0: 1,                sum 9    (1.5)
		//   0,2,1: 3·2 = 6,          sum 11.5 (1)
		//   0,1,2: 3,                sum 14   (3.5: counts)
		// 20 in all, 6 count: p = 6/20.
		{"ties", []float64{1, 2, 2}, []float64{2, 3, 3}, 1, 8, 6.0 / 20},
		// Ties, unequal sizes, a method absent from three runs (0):
		// a = 0 0 5, b = 0 7 9 11. Midranks: the three 0s →2, 5→4, 7→5,
		// 9→6, 11→7. R1 = 2+2+4 = 8, U1 = 8−6 = 2 (5 > 0 once, two
		// 0 = 0 pairs), U2 = 10. Triples (mean sum 12, observed 4 away),
		// by x values from the 0s (C(3,x) ways each):
		//   x=3: sum 6, 1 way (counts)
		//   x=2: 4 + one of 4 5 6 7 = 8..11, 3 ways each; sum 8 counts: 3
		//   x=1: 2 + a pair of 4 5 6 7 = 11..15, 18 ways, none counts
		//   x=0: a triple of 4 5 6 7 = 15..18, 4 ways; ≥ 16 count: 3
		// 1+12+18+4 = 35 in all, 1+3+3 = 7 count: p = 7/35. (The
		// distribution is not symmetric: doubling the lower tail 4/35
		// would give 8/35.)
		{"ties with zeros", []float64{0, 0, 5}, []float64{0, 7, 9, 11}, 2, 10, 7.0 / 35},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := MannWhitneyU(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if r.U1 != tc.u1 || r.U2 != tc.u2 || !r.Exact || r.Z != 0 {
				t.Errorf("U1 %v U2 %v exact %v z %v, want U1 %v U2 %v exact, z 0", r.U1, r.U2, r.Exact, r.Z, tc.u1, tc.u2)
			}
			if !close(r.P, tc.p, 1e-12) {
				t.Errorf("p = %v, want %v", r.P, tc.p)
			}
			// The test is two-sided: swapping the samples swaps U only.
			s, _ := MannWhitneyU(tc.b, tc.a)
			if s.U1 != r.U2 || s.U2 != r.U1 || s.P != r.P {
				t.Errorf("swapped: U1 %v U2 %v p %v, want %v %v %v", s.U1, s.U2, s.P, r.U2, r.U1, r.P)
			}
		})
	}
}

func close(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestMannWhitneyNormal checks the approximation against an independent
// computation in Python (math module only):
//
//	a = [float(i) for i in range(25)]       # 0..24
//	b = [float(i + 10) for i in range(22)]  # 10..31
//	# pooled midranks; the 15 values 10..24 are tied in pairs
//	R1 = 437.5; U1 = R1 - 25*26/2 = 112.5; U2 = 550 - 112.5 = 437.5
//	ties = 15 * (2**3 - 2) = 90
//	sigma = math.sqrt(25*22/12 * ((47+1) - ties/(47*46)))  # 46.883814311586576
//	z = -(abs(U1 - 25*22/2) - 0.5) / sigma                 # -3.4553502606114606
//	p = math.erfc(abs(z) / math.sqrt(2))                   # 0.000549578364676442
//
// By hand, U1 = 105 pairs a > b (a = 11..24 each beats a−10 values of b)
// plus 15 tied pairs at ½.
func TestMannWhitneyNormal(t *testing.T) {
	r, err := MannWhitneyU(seq(0, 25), seq(10, 22))
	if err != nil {
		t.Fatal(err)
	}
	if r.Exact || r.U1 != 112.5 || r.U2 != 437.5 {
		t.Errorf("exact %v U1 %v U2 %v, want approximation, 112.5, 437.5", r.Exact, r.U1, r.U2)
	}
	if !close(r.Z, -3.4553502606114606, 1e-12) || !close(r.P, 0.000549578364676442, 1e-9) {
		t.Errorf("z %v p %v, want -3.4553502606114606 0.000549578364676442", r.Z, r.P)
	}
	// One side above 20 is enough for the approximation.
	if r, _ := MannWhitneyU(seq(0, 3), seq(0, 21)); r.Exact {
		t.Errorf("3 vs 21: exact, want the approximation")
	}
	// All equal: σ = 0, p = 1.
	same := make([]float64, 30)
	if r, _ := MannWhitneyU(same, same); r.P != 1 || r.Z != 0 || r.U1 != 450 {
		t.Errorf("30 equal vs 30 equal: %+v, want U1 450, z 0, p 1", r)
	}
}

// TestNormalNearExact compares the approximation with the exact count just
// past the limit, where both are cheap: 21 vs 21 with ties.
func TestNormalNearExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		a, b := make([]float64, 21), make([]float64, 21)
		shift := rng.IntN(8)
		for i := range a {
			a[i] = float64(rng.IntN(30))
			b[i] = float64(rng.IntN(30) + shift)
		}
		r, err := MannWhitneyU(a, b)
		if err != nil {
			t.Fatal(err)
		}
		rk, _ := rank(a, b)
		exact := exactP(rk, 21, 21)
		if math.Abs(r.P-exact) > 0.01 {
			t.Errorf("a %v b %v: approximation %v, exact %v", a, b, r.P, exact)
		}
	}
}

// TestExactBruteForce checks the counting by enumerating every
// arrangement of the pooled midranks for small random samples with ties.
func TestExactBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n1, n2 := 1+rng.IntN(7), 1+rng.IntN(7)
		a, b := make([]float64, n1), make([]float64, n2)
		vals := 1 + rng.IntN(6)
		for i := range a {
			a[i] = float64(rng.IntN(vals))
		}
		for i := range b {
			b[i] = float64(rng.IntN(vals) + rng.IntN(2))
		}
		r, err := MannWhitneyU(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteP(a, b); !close(r.P, want, 1e-12) {
			t.Errorf("a %v b %v: p %v, enumeration %v", a, b, r.P, want)
		}
	}
}

// bruteP is the exact two-sided p-value by enumeration: midranks computed
// by counting, every subset of n1 pooled positions tried.
func bruteP(a, b []float64) float64 {
	pool := append(slices.Clone(a), b...)
	n := len(pool)
	mid := make([]float64, n)
	for i, v := range pool {
		less, equal := 0, 0
		for _, w := range pool {
			if w < v {
				less++
			} else if w == v {
				equal++
			}
		}
		mid[i] = float64(less) + float64(equal+1)/2
	}
	sumA := 0.0
	for i := range a {
		sumA += mid[i]
	}
	mean := float64(len(a)*(n+1)) / 2
	dev := math.Abs(sumA - mean)
	hit, all := 0, 0
	for set := 0; set < 1<<n; set++ {
		if popcount(set) != len(a) {
			continue
		}
		s := 0.0
		for i := range n {
			if set&(1<<i) != 0 {
				s += mid[i]
			}
		}
		all++
		if math.Abs(s-mean) >= dev-1e-9 {
			hit++
		}
	}
	return float64(hit) / float64(all)
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestMannWhitneyErrors(t *testing.T) {
	if _, err := MannWhitneyU(nil, []float64{1}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty a: %v, want ErrEmpty", err)
	}
	if _, err := MannWhitneyU([]float64{1}, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty b: %v, want ErrEmpty", err)
	}
	if _, err := MannWhitneyU([]float64{1, math.NaN()}, []float64{1}); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN: %v, want ErrNaN", err)
	}
}

// TestIdenticalDistributions: two samples from one distribution are
// significant at alpha 0.05 no more often than alpha says. For 5 vs 5
// without ties the exact U distribution starts 1, 1, 2, 3 (of C(10,5) = 252
// arrangements): U ≤ 2 gives p = 2·4/252 = 0.032, U = 3 gives 14/252 =
// 0.056, so p < 0.05 happens with probability exactly 8/252 = 0.032.
func TestIdenticalDistributions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 4000
	sig := 0
	for range trials {
		a, b := make([]float64, 5), make([]float64, 5)
		for i := range a {
			a[i], b[i] = rng.ExpFloat64(), rng.ExpFloat64()
		}
		if r, _ := MannWhitneyU(a, b); r.P < 0.05 {
			sig++
		}
	}
	// 8/252 = 0.0317; 4000 trials: σ ≈ 0.0028.
	if rate := float64(sig) / trials; math.Abs(rate-8.0/252) > 0.012 {
		t.Errorf("false-positive rate %v at alpha 0.05, want about %v", rate, 8.0/252)
	}
	// Identical samples: p = 1.
	x := []float64{3, 1, 4, 1, 5}
	if r, _ := MannWhitneyU(x, x); r.P != 1 {
		t.Errorf("identical samples: p %v, want 1", r.P)
	}
}

func BenchmarkMannWhitneyTies20(b *testing.B) {
	x, y := make([]float64, 20), make([]float64, 20)
	for i := range x {
		x[i], y[i] = float64(i%7), float64(i%5+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		MannWhitneyU(x, y)
	}
}

func BenchmarkMannWhitney10(b *testing.B) {
	x, y := seq(0, 10), seq(5, 10)
	for i := range y {
		y[i] += 0.5
	}
	b.ReportAllocs()
	for b.Loop() {
		MannWhitneyU(x, y)
	}
}

// BenchmarkSumCounts is the exact distribution of 20 vs 20 without the
// cache: distinct values, and values with ties.
func BenchmarkSumCounts(b *testing.B) {
	for _, tc := range []struct {
		name string
		x, y []float64
	}{
		{"distinct", seq(0, 20), seq(20, 20)},
		{"ties", seq(0, 20), seq(5, 20)},
	} {
		rk, _ := rank(tc.x, tc.y)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sumCounts(rk.groups, 20)
			}
		})
	}
}

// TestConcurrent runs tests with many tie structures (more than the cache
// keeps) from several goroutines: the results match a fresh computation
// (run it with -race).
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 200 {
				a, b := make([]float64, 3+rng.IntN(8)), make([]float64, 3+rng.IntN(8))
				for i := range a {
					a[i] = float64(rng.IntN(6))
				}
				for i := range b {
					b[i] = float64(rng.IntN(7))
				}
				r, err := MannWhitneyU(a, b)
				if err != nil {
					t.Error(err)
					return
				}
				rk, _ := rank(a, b)
				m, obs := len(a), rk.sumA
				if len(b) < m {
					m, obs = len(b), rk.sumB
				}
				lo, counts := sumCounts(rk.groups, m)
				mean, dev := m*(len(a)+len(b)+1), abs(obs-m*(len(a)+len(b)+1))
				var hit, all uint64
				for i, c := range counts {
					all += c
					if abs(lo+i-mean) >= dev {
						hit += c
					}
				}
				if len(rk.groups) > 1 && r.P != float64(hit)/float64(all) {
					t.Errorf("a %v b %v: p %v, fresh %v", a, b, r.P, float64(hit)/float64(all))
				}
			}
		})
	}
	wg.Wait()
}

// TestMinP: complete separation, 2/C(n1+n2, n1) up to ExactMax (the
// binomial by math/big here), and beyond it the normal approximation of
// U1 = 0 without ties: z = (n1n2/2 − 0.5)/√(n1n2(N+1)/12).
func TestMinP(t *testing.T) {
	for _, n := range [][2]int{{3, 3}, {3, 4}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {10, 10}, {20, 20}, {3, 20}} {
		c := new(big.Int).Binomial(int64(n[0]+n[1]), int64(n[0]))
		want, _ := new(big.Rat).SetFrac(big.NewInt(2), c).Float64()
		if got := MinP(n[0], n[1]); math.Abs(got-want) > 1e-12*want {
			t.Errorf("MinP(%d, %d) = %g, want 2/%s = %g", n[0], n[1], got, c, want)
		}
	}
	for _, n := range [][2]int{{21, 21}, {5, 30}, {40, 40}} {
		f1, f2 := float64(n[0]), float64(n[1])
		z := (f1*f2/2 - 0.5) / math.Sqrt(f1*f2*(f1+f2+1)/12)
		if got, want := MinP(n[0], n[1]), math.Erfc(z/math.Sqrt2); math.Abs(got-want) > 1e-12*want {
			t.Errorf("MinP(%d, %d) = %g, want %g", n[0], n[1], got, want)
		}
	}
	if MinP(0, 5) != 1 || MinP(5, 0) != 1 {
		t.Error("MinP of an empty side: want 1")
	}
}

// TestQuantile: by hand. 1..10: h = 9·0.9 = 8.1, between 9 and 10: 9.1;
// the median's h = 4.5: 5.5. Three values 1 4 10 at 0.9: h = 1.8, 4 + 0.8·6
// = 8.8.
func TestQuantile(t *testing.T) {
	ten := seq(1, 10)
	for _, tc := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{ten, 0.9, 9.1}, {ten, 0.5, 5.5}, {ten, 0, 1}, {ten, 1, 10},
		{[]float64{10, 1, 4}, 0.9, 8.8}, {[]float64{7}, 0.9, 7},
	} {
		if got := Quantile(tc.xs, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %g) = %g, want %g", tc.xs, tc.q, got, tc.want)
		}
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(Quantile(ten, q)) {
			t.Errorf("Quantile at %g: want NaN", q)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) || Quantile(ten, 0.5) != Median(ten) {
		t.Error("Quantile of nothing, or at 0.5")
	}
}
