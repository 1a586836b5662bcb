package units

import "testing"

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

func TestMicrosAndCount(t *testing.T) {
	if got := Micros(1_234_000); got != "1234" {
		t.Errorf("Micros = %q", got)
	}
	if got := Micros(1_234_567); got != "1234.567" {
		t.Errorf("Micros = %q", got)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
