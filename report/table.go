package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/atrace2/atrace2/internal/units"
)

// TextOptions shape the text output.
type TextOptions struct {
	// Width is the line width to fit: method names are shortened from the
	// left to keep lines within it. 0 never shortens them.
	Width int
}

// minNameWidth is the narrowest a method column is shortened to, however
// narrow the terminal: below it names become unreadable.
const minNameWidth = 40

// truncate shortens name to at most w characters by cutting it on the left
// and writing "…" in its place, which keeps the method name and as much of
// its class as fits: "…ui.FeedAdapter.bind".
func truncate(name string, w int) string {
	n := utf8.RuneCountInString(name)
	if w <= 0 || n <= w {
		return name
	}
	if w == 1 {
		return "…"
	}
	cut := n - (w - 1) // runes to drop
	i := 0
	for range cut {
		_, size := utf8.DecodeRuneInString(name[i:])
		i += size
	}
	return "…" + name[i:]
}

// table lays out rows of cells in aligned columns. The last column holds
// method names: it is left-aligned, never padded, and shortened to fit the
// width; the other columns are right-aligned unless marked left.
type table struct {
	header []string
	left   []bool // per column but the last
	rows   [][]string
}

const gap = "  "

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the table so that lines fit width (0: no limit).
func (t *table) write(w *bufio.Writer, width int) {
	n := len(t.header) - 1
	widths := make([]int, n)
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i := 0; i < n; i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	nameWidth := 0
	if width > 0 {
		used := 0
		for _, cw := range widths {
			used += cw + len(gap)
		}
		nameWidth = max(width-used, minNameWidth)
	}
	for _, r := range append([][]string{t.header}, t.rows...) {
		var line strings.Builder
		for i := 0; i < n; i++ {
			line.WriteString(pad(r[i], widths[i], i < len(t.left) && t.left[i]))
			line.WriteString(gap)
		}
		line.WriteString(truncate(r[n], nameWidth))
		w.WriteString(strings.TrimRight(line.String(), " "))
		w.WriteByte('\n')
	}
}

func pad(s string, w int, left bool) string {
	fill := strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
	if left {
		return s + fill
	}
	return fill + s
}

// Formatting of cells.

func dur(ns int64) string { return units.Duration(ns) }

// value formats a value on a clock: a duration, or a count for Samples.
func value(clock string, v int64) string {
	if clock == Samples.String() {
		return count(v)
	}
	return dur(v)
}

// signedValue formats a change on a clock with its sign.
func signedValue(clock string, v int64) string {
	if clock == Samples.String() {
		return signedCount(v)
	}
	return signedDur(v)
}

// signedDur writes a change with its sign: "+1.2 ms", "-300 µs", "0".
func signedDur(ns int64) string {
	if ns > 0 {
		return "+" + units.Duration(ns)
	}
	return units.Duration(ns)
}

func percent(p float64) string { return strconv.FormatFloat(p, 'f', 1, 64) + "%" }

func signedPercent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	if *p > 0 {
		return "+" + percent(*p)
	}
	return percent(*p)
}

func count(n int64) string { return units.Count(n) }

// plural writes a count and a noun: "1 call", "1,234 calls".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return units.Count(n) + " " + noun + "s"
}

func signedCount(n int64) string {
	if n > 0 {
		return "+" + units.Count(n)
	}
	return units.Count(n)
}

// label names a method in text: with its signature when the name alone is
// ambiguous.
func label(name, sig string, overloaded bool) string {
	if overloaded {
		return name + sig
	}
	return name
}

// totals describes total times: "wall 1.2 s, cpu 800 ms", or "samples
// 1,234".
func totals(clocks []string, ns []int64) string {
	parts := make([]string, len(clocks))
	for i, c := range clocks {
		parts[i] = c + " " + value(c, ns[i])
	}
	return strings.Join(parts, ", ")
}

// sortWords describes a sort order for headers.
func sortWords(sort, clock string) string {
	what := clock + " time"
	if clock == Samples.String() {
		what = "samples"
	}
	switch sort {
	case SortIncl:
		return "inclusive " + what
	case SortCalls:
		return "calls"
	case SortName:
		return "name"
	}
	return "exclusive " + what
}

// flush writes the buffered text and reports the first write error.
func flush(w *bufio.Writer) error {
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func newWriter(w io.Writer) *bufio.Writer { return bufio.NewWriter(w) }
