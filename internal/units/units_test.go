package units

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{0, "0"}, {850, "850 ns"}, {1_000, "1 µs"}, {12_500, "12.5 µs"}, {123_456, "123.5 µs"},
		{3_210_000, "3.21 ms"}, {4_987_000_000, "4.987 s"}, {-2_000_000, "-2 ms"}, {61_000_000_000, "61 s"},
	} {
		if got := Duration(c.ns); got != c.want {
			t.Errorf("Duration(%d) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestFormatMicrosAndCount(t *testing.T) {
	if got := FormatMicros(1_234_000); got != "1234" {
		t.Errorf("FormatMicros = %q", got)
	}
	if got := FormatMicros(1_234_567); got != "1234.567" {
		t.Errorf("FormatMicros = %q", got)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFormatMicrosExact(t *testing.T) {
	for ns, want := range map[int64]string{
		0: "0", 1: "0.001", 10: "0.010", 999: "0.999", 1000: "1", 1001: "1.001", -1: "-0.001", -1_234_500: "-1234.500",
		math.MaxInt64: "9223372036854775.807", math.MinInt64: "-9223372036854775.808",
		1<<62 + 7: "4611686018427387.911", // past float64's exact range
	} {
		if got := FormatMicros(ns); got != want {
			t.Errorf("FormatMicros(%d) = %q, want %q", ns, got, want)
		}
	}
	// Where float64 is exact enough, the result is what formatting the
	// quotient as a float gives.
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		ns := rng.Int64N(1<<52) - 1<<51
		want := strconv.FormatFloat(float64(ns)/1000, 'f', 3, 64)
		if ns%1000 == 0 {
			want = strconv.FormatInt(ns/1000, 10)
		}
		if got := FormatMicros(ns); got != want {
			t.Fatalf("FormatMicros(%d) = %q, want %q", ns, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 frames"}, {1, "1 frame"}, {2, "2 frames"}, {1024, "1,024 frames"}, {-1, "-1 frames"}} {
		if got := Plural(c.n, "frame", "frames"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Agree(1, "was", "were") != "was" || Agree(3, "was", "were") != "were" {
		t.Error("Agree")
	}
}
