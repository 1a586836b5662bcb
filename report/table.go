package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atrace2/atrace2/internal/units"
)

// TextOptions shape the text output.
type TextOptions struct {
	// Width is the line width to fit: method names are shortened to keep
	// lines within it. 0 never shortens them.
	Width int
	// Fit also leaves columns out, the least useful first, when the
	// method names would otherwise be shortened below minNameWidth: for a
	// terminal, where a longer line wraps. A line after the table names
	// the columns left out.
	Fit bool
}

// minNameWidth is the narrowest a method column is shortened to, however
// narrow the terminal: below it names become unreadable.
const minNameWidth = 40

// fitNameWidth is the narrowest a method column is shortened to when a
// table leaves columns out to fit a terminal (TextOptions.Fit): a little
// narrower than minNameWidth, which keeps the calls on 80 columns.
const fitNameWidth = 36

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

// shorten fits a method's label, name followed by its JVM signature sig
// ("" when the name alone is shown), into w characters. The signature is
// what tells overloads apart, so it is shortened first but kept: to the
// simple names of its parameter types ("(View,int)" for
// "(Landroid/view/View;I)V"), which get at least a third of the width, cut
// on the right beyond it ("(View,in…)"); the name is then shortened to the
// rest (shortenName).
func shorten(name, sig string, w int, abbrev bool) string {
	n, ns := utf8.RuneCountInString(name), utf8.RuneCountInString(sig)
	if w <= 0 || n+ns <= w {
		return name + sig
	}
	if ns == 0 {
		return shortenName(name, w, abbrev)
	}
	compact := compactSignature(sig)
	nc := utf8.RuneCountInString(compact)
	if n+nc <= w {
		return name + compact
	}
	room := min(nc, max(w-n, w/3, 3))
	if room < nc {
		compact = truncateRight(compact[:len(compact)-1], room-1) + ")"
	}
	return shortenName(name, max(1, w-utf8.RuneCountInString(compact)), abbrev) + compact
}

// compactSignature writes a JVM method descriptor's parameters as the
// simple names of their types: "(Ljava/util/List;[IJ)V" becomes
// "(List,int[],long)". A signature that is not a descriptor is returned as
// it is.
func compactSignature(sig string) string {
	if !strings.HasPrefix(sig, "(") {
		return sig
	}
	end := strings.IndexByte(sig, ')')
	if end < 0 {
		return sig
	}
	var b strings.Builder
	b.WriteByte('(')
	params := sig[1:end]
	for i := 0; i < len(params); {
		if i > 0 {
			b.WriteByte(',')
		}
		dims := 0
		for i < len(params) && params[i] == '[' {
			dims++
			i++
		}
		if i == len(params) {
			return sig
		}
		if params[i] == 'L' {
			semi := strings.IndexByte(params[i:], ';')
			if semi < 0 {
				return sig
			}
			class := params[i+1 : i+semi]
			b.WriteString(class[strings.LastIndexByte(class, '/')+1:])
			i += semi + 1
		} else {
			prim, ok := primitives[params[i]]
			if !ok {
				return sig
			}
			b.WriteString(prim)
			i++
		}
		b.WriteString(strings.Repeat("[]", dims))
	}
	b.WriteByte(')')
	return b.String()
}

var primitives = map[byte]string{'B': "byte", 'C': "char", 'D': "double", 'F': "float", 'I': "int", 'J': "long", 'S': "short", 'Z': "boolean"}

// truncateRight shortens s to at most w characters by cutting it on the
// right and writing "…" in its place.
func truncateRight(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	i, k := 0, 0
	for k < w-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…"
}

// shortenName fits a method's <class>.<method> into w characters. With
// abbrev, the package names are first cut to their initial, outermost
// first ("j.u.c.locks.LockSupport.park"); what is still too long is cut on
// the left (truncate).
func shortenName(name string, w int, abbrev bool) string {
	n := utf8.RuneCountInString(name)
	if !abbrev || n <= w {
		return truncate(name, w)
	}
	parts := strings.Split(name, ".")
	for i := 0; i < len(parts)-2 && n > w; i++ {
		r, size := utf8.DecodeRuneInString(parts[i])
		if !unicode.IsLower(r) {
			break // the class: packages are lower case
		}
		n -= utf8.RuneCountInString(parts[i]) - 1
		parts[i] = parts[i][:size]
	}
	return truncate(strings.Join(parts, "."), w)
}

// table lays out rows of cells in aligned columns. The last column holds
// method names: it is left-aligned, never padded, and shortened to fit the
// width; the other columns are right-aligned unless marked left.
type table struct {
	header []string
	left   []bool // per column but the last
	// drop ranks the columns but the last for TextOptions.Fit: 0 is never
	// left out; while lines do not fit, the columns of the highest rank
	// left go out together.
	drop []int
	rows []row
}

// row is a table's line: cells, the last one being a method label with
// its signature from sig on (len(last cell) when it has none).
type row struct {
	cells []string
	sig   int
	mark  string // after the method's label, kept when it is shortened
}

const gap = "  "

// add appends a line whose last cell is printed as is, or cut on the left.
func (t *table) add(cells ...string) {
	t.rows = append(t.rows, row{cells: cells, sig: len(cells[len(cells)-1])})
}

// addMethod appends a line whose last cell is a method's label (label):
// when it must be shortened, its signature is shortened first.
func (t *table) addMethod(name, sig string, overloaded bool, cells ...string) {
	if !overloaded {
		sig = ""
	}
	t.rows = append(t.rows, row{cells: append(cells, name+sig), sig: len(name)})
}

// mark appends s to the method label of the last row, after shortening.
func (t *table) mark(s string) { t.rows[len(t.rows)-1].mark = s }

// write prints the table so that lines fit opt.Width (0: no limit), and
// returns the headers of the columns it left out (TextOptions.Fit), which
// the report names once after its tables (leftOut).
func (t *table) write(w *bufio.Writer, opt TextOptions) []string {
	all := append([]row{{cells: t.header, sig: len(t.header[len(t.header)-1])}}, t.rows...)
	n := len(t.header) - 1
	widths := make([]int, n)
	nameMax := 0
	for _, r := range all {
		for i := 0; i < n; i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r.cells[i]))
		}
		nameMax = max(nameMax, utf8.RuneCountInString(r.cells[n]))
	}
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	var dropped []string
	minName := minNameWidth
	if opt.Fit && opt.Width > 0 {
		minName = fitNameWidth
		dropped = t.fit(keep, widths, opt.Width-min(nameMax, minName))
	}
	nameWidth := 0
	if opt.Width > 0 {
		used := 0
		for i, cw := range widths {
			if keep[i] {
				used += cw + len(gap)
			}
		}
		nameWidth = max(opt.Width-used, minName)
	}
	for _, r := range all {
		var line strings.Builder
		for i := 0; i < n; i++ {
			if keep[i] {
				line.WriteString(pad(r.cells[i], widths[i], i < len(t.left) && t.left[i]))
				line.WriteString(gap)
			}
		}
		last := r.cells[n]
		room := nameWidth
		if room > 0 {
			room = max(1, room-utf8.RuneCountInString(r.mark))
		}
		line.WriteString(shorten(last[:r.sig], last[r.sig:], room, opt.Fit))
		line.WriteString(r.mark)
		w.WriteString(strings.TrimRight(line.String(), " "))
		w.WriteByte('\n')
	}
	return dropped
}

// leftOut gathers the columns the tables of a report left out, each once.
type leftOut []string

func (l *leftOut) add(cols []string) {
	for _, c := range cols {
		if !slices.Contains(*l, c) {
			*l = append(*l, c)
		}
	}
}

// write says which columns were left out, after the report's tables, on
// one line that fits the width: naming them when it can.
func (l leftOut) write(w *bufio.Writer, width int) {
	if len(l) == 0 {
		return
	}
	what, them := plural(int64(len(l)), "column"), "them"
	if len(l) == 1 {
		them = "it"
	}
	line := fmt.Sprintf("(%s left out to fit %d columns: %s; --wide prints %s)", what, width, strings.Join(l, ", "), them)
	if utf8.RuneCountInString(line) > width {
		line = fmt.Sprintf("(%s left out to fit %d columns; --wide prints %s)", what, width, them)
	}
	w.WriteString(line)
	w.WriteByte('\n')
}

// fit clears keep for the columns left out so that the kept ones take at
// most room characters with their gaps, and returns their headers.
func (t *table) fit(keep []bool, widths []int, room int) []string {
	used := 0
	for _, cw := range widths {
		used += cw + len(gap)
	}
	var dropped []string
	for used > room {
		rank := 0
		for i, k := range keep {
			if k && i < len(t.drop) {
				rank = max(rank, t.drop[i])
			}
		}
		if rank == 0 {
			break
		}
		for i := range keep {
			if keep[i] && i < len(t.drop) && t.drop[i] == rank {
				keep[i] = false
				used -= widths[i] + len(gap)
				dropped = append(dropped, t.columnName(i))
			}
		}
	}
	return dropped
}

// columnName names column i in the line after the table: its header, or
// for a "%" column the header before it and "%".
func (t *table) columnName(i int) string {
	h := t.header[i]
	if h == "%" && i > 0 {
		return t.header[i-1] + " %"
	}
	return h
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

// plural counts n of a noun whose plural takes an s (units.Plural).
func plural(n int64, noun string) string { return units.Plural(n, noun, noun+"s") }
