// Package units formats times and counts for people: "12.3 ms", "1,234".
package units

import (
	"math"
	"strconv"
)

// Duration formats nanoseconds with a unit that keeps 3-4 significant
// digits: "0", "850 ns", "12.5 µs", "3.21 ms", "4.987 s".
func Duration(ns int64) string {
	neg := ""
	if ns < 0 {
		neg, ns = "-", -ns
	}
	switch {
	case ns == 0:
		return "0"
	case ns < 1_000:
		return neg + strconv.FormatInt(ns, 10) + " ns"
	case ns < 1_000_000:
		return neg + scaled(ns, 1_000) + " µs"
	case ns < 1_000_000_000:
		return neg + scaled(ns, 1_000_000) + " ms"
	}
	return neg + scaled(ns, 1_000_000_000) + " s"
}

// scaled divides and keeps up to three decimals, trimming zeros.
func scaled(v, unit int64) string {
	digits := 3
	switch q := v / unit; {
	case q >= 100:
		digits = 1
	case q >= 10:
		digits = 2
	}
	s := strconv.FormatFloat(float64(v)/float64(unit), 'f', digits, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

// FormatMicros formats nanoseconds as microseconds for columns that must
// line up and stay exact: "1234" or "1234.567".
func FormatMicros(ns int64) string {
	return string(AppendMicros(nil, ns))
}

// AppendMicros appends FormatMicros(ns) to b, with integer arithmetic
// only, so that it is exact at any size.
func AppendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		if ns == math.MinInt64 {
			return append(b, "9223372036854775.808"...)
		}
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	if frac := ns % 1000; frac != 0 {
		b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	}
	return b
}

// Count formats an integer with thousands separators: "1,234,567".
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// Plural counts n things in the words that agree with the count: "1
// frame", "1,024 frames" (Count's separators).
func Plural(n int64, one, many string) string {
	return Count(n) + " " + Agree(n, one, many)
}

// Agree is one when n is 1, else many: the words that agree with a count
// written elsewhere ("was" or "were").
func Agree(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
