package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText prints the flat profile as aligned tables, one per thread or
// one for all threads.
func (r *TopReport) WriteText(w io.Writer, opt TextOptions) error {
	bw := newWriter(w)
	var out leftOut
	for i := range r.Tables {
		if i > 0 {
			bw.WriteByte('\n')
		}
		out.add(r.writeTable(bw, &r.Tables[i], opt, i == 0))
	}
	out.write(bw, opt.Width)
	return flush(bw)
}

// writeTable prints one table; the report's notes go under the first
// table's header only. It returns the columns it left out.
func (r *TopReport) writeTable(w *bufio.Writer, t *TopTable, opt TextOptions, first bool) []string {
	who := fmt.Sprintf("all %d threads", t.Threads)
	switch {
	case t.Threads == 1 && t.Thread == nil:
		who = "1 thread"
	case t.Threads == 0 && t.Thread == nil:
		who = "threads not recorded"
	}
	if t.Thread != nil {
		who = fmt.Sprintf("thread %d %q", t.Thread.TID, t.Thread.Name)
	}
	shown := plural(int64(t.Methods), "method")
	if len(t.Rows) < t.Methods {
		shown = fmt.Sprintf("top %s of %s", count(int64(len(t.Rows))), plural(int64(t.Methods), "method"))
	}
	fmt.Fprintf(w, "%s: %s; total %s; %s by %s\n", r.Trace, who, totals(r.Clocks, t.Total),
		shown, sortWords(r.Sort, r.Clocks[0]))
	if first {
		r.writeFocus(w, t)
		writeNotes(w, r.Notes)
		if r.anyIdle() {
			w.WriteString(idleLegend + "\n")
		}
	}
	w.WriteByte('\n')
	tb := &table{}
	for i, c := range r.Clocks {
		c = strings.ToUpper(c)
		tb.header = append(tb.header, "EXCL "+c, "%", "INCL "+c, "%")
		if i == 0 {
			tb.drop = append(tb.drop, 0, 0, 0, 0)
		} else {
			tb.drop = append(tb.drop, dropOtherTime, dropOtherPct, dropOtherIncl, dropOtherPct)
		}
	}
	if !r.CallsUnknown {
		tb.header = append(tb.header, "CALLS", "RECURSIVE", "EXCL "+strings.ToUpper(r.Clocks[0])+"/CALL")
		tb.drop = append(tb.drop, dropCalls, dropRecursive, dropMean)
	}
	tb.header = append(tb.header, "METHOD")
	for _, row := range t.Rows {
		var cells []string
		for i, c := range r.Clocks {
			cells = append(cells, value(c, row.Excl[i]), percent(row.ExclPct[i]), value(c, row.Incl[i]), percent(row.InclPct[i]))
		}
		if !r.CallsUnknown {
			cells = append(cells, count(row.Calls), count(row.Recursive), value(r.Clocks[0], row.MeanExcl[0]))
		}
		tb.addMethod(row.Method, row.Signature, row.Overloaded, cells...)
		if row.Idle {
			tb.mark(idleMark)
		}
	}
	return tb.write(w, opt)
}

// idleMark follows the name of a method that waits (TopRow.Idle), which
// idleLegend explains under the header.
const (
	idleMark   = " (idle)"
	idleLegend = "(idle): the method waits (park, wait, sleep, poll): its time is idle, not work"
)

// anyIdle reports whether a row of the report is marked idle.
func (r *TopReport) anyIdle() bool {
	for i := range r.Tables {
		for j := range r.Tables[i].Rows {
			if r.Tables[i].Rows[j].Idle {
				return true
			}
		}
	}
	return false
}

// The ranks of the columns a table leaves out on a narrow terminal
// (table.drop), first out first: the percentages of the clocks after the
// first, the mean per call, the recursive calls, the inclusive then the
// exclusive times of the clocks after the first, and the calls. The first
// clock's times and percentages always stay.
const (
	dropCalls = 1 + iota
	dropOtherTime
	dropOtherIncl
	dropRecursive
	dropMean
	dropOtherPct
)

// writeFocus says under the first table's header what the focus kept, or,
// without a focus, that a table of several threads sums them, and how to
// narrow it.
func (r *TopReport) writeFocus(w *bufio.Writer, t *TopTable) {
	switch {
	case r.Focus != "":
		fmt.Fprintln(w, r.Focus)
	case t.Thread == nil && t.Threads > 1:
		fmt.Fprintf(w, "the total sums %d threads: --thread main for the main thread alone, --per-thread for a table each", t.Threads)
		if len(r.Clocks) > 1 {
			w.WriteString(", --clock cpu for CPU time only")
		}
		w.WriteByte('\n')
	}
}

// WriteText prints one block per matching method: its callers, itself,
// its exclusive time and its callees, each with its share of the method's
// inclusive time.
func (r *CallsReport) WriteText(w io.Writer, opt TextOptions) error {
	bw := newWriter(w)
	shown := plural(int64(r.Matched), "method") + " match /" + r.Pattern + "/"
	switch {
	case r.Matched == 1:
		shown = "1 method matches /" + r.Pattern + "/"
	case len(r.Methods) < r.Matched:
		shown += fmt.Sprintf(", the top %d by %s shown", len(r.Methods), sortWords(SortIncl, r.Clocks[0]))
	}
	fmt.Fprintf(bw, "%s: %s; all threads; total %s\n", r.Trace, shown, totals(r.Clocks, r.Total))
	what := "time"
	if r.Clocks[0] == Samples.String() {
		what = "samples"
	}
	fmt.Fprintf(bw, "parent and child shares are of the method's inclusive %s; see --help for the definitions\n", what)
	writeNotes(bw, r.Notes)
	var out leftOut
	for i := range r.Methods {
		bw.WriteByte('\n')
		out.add(r.writeMethod(bw, &r.Methods[i], opt))
	}
	if len(out) > 0 {
		bw.WriteByte('\n')
		out.write(bw, opt.Width)
	}
	return flush(bw)
}

func (r *CallsReport) writeMethod(w *bufio.Writer, m *CallsMethod, opt TextOptions) []string {
	name := label(m.Method, m.Signature, m.Overloaded)
	if r.CallsUnknown {
		fmt.Fprintf(w, "%s: inclusive %s\n", name, r.ofTotal(m.Incl, m.InclPct))
	} else {
		fmt.Fprintf(w, "%s: %s (%s recursive); inclusive %s\n", name, plural(m.Calls, "call"), count(m.Recursive),
			r.ofTotal(m.Incl, m.InclPct))
	}
	tb := &table{left: []bool{true}}
	tb.header = []string{""}
	tb.drop = []int{0}
	for i, c := range r.Clocks {
		tb.header = append(tb.header, strings.ToUpper(c), "%")
		if i == 0 {
			tb.drop = append(tb.drop, 0, 0)
		} else {
			tb.drop = append(tb.drop, dropOtherTime, dropOtherPct)
		}
	}
	calls := func(cells []string, s string) []string {
		if r.CallsUnknown {
			return cells
		}
		return append(cells, s)
	}
	tb.header = append(calls(tb.header, "CALLS"), "METHOD")
	tb.drop = append(tb.drop, dropCalls)
	rel := func(role string, x *Relative) {
		cells := []string{role}
		for i, c := range r.Clocks {
			cells = append(cells, value(c, x.Time[i]), percent(x.Pct[i]))
		}
		tb.addMethod(x.Method, x.Signature, x.Overloaded, calls(cells, count(x.Calls))...)
	}
	for i := range m.Parents {
		rel("parent", &m.Parents[i])
	}
	full := make([]float64, len(r.Clocks))
	for i := range full {
		full[i] = 100
	}
	rel("method", &Relative{Method: m.Method, Signature: m.Signature, Overloaded: m.Overloaded,
		Calls: m.Calls, Time: m.Incl, Pct: full})
	self := []string{"self"}
	for i, c := range r.Clocks {
		self = append(self, value(c, m.Self[i]), percent(m.SelfPct[i]))
	}
	what := "(exclusive time)"
	if r.Clocks[0] == Samples.String() {
		what = "(exclusive samples)"
	}
	tb.add(append(calls(self, ""), what)...)
	for i := range m.Children {
		rel("child", &m.Children[i])
	}
	return tb.write(w, opt)
}

// writeNotes prints a report's caveats, one line each.
func writeNotes(w *bufio.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// ofTotal describes times with their share of the total: "wall 12 ms
// (45.0% of the total), cpu 8 ms (40.0%)".
func (r *CallsReport) ofTotal(ns []int64, pcts []float64) string {
	parts := make([]string, len(r.Clocks))
	for i, c := range r.Clocks {
		of := ""
		if i == 0 {
			of = " of the total"
		}
		parts[i] = fmt.Sprintf("%s %s (%s%s)", c, value(c, ns[i]), percent(pcts[i]), of)
	}
	return strings.Join(parts, ", ")
}

// WriteText prints the gate's verdicts, when there are rules, and the diff
// table on the first clock; CSV and JSON carry every clock.
func (r *DiffReport) WriteText(w io.Writer, opt TextOptions) error {
	bw := newWriter(w)
	c := r.Clocks[0]
	t := r.Total[0]
	fmt.Fprintf(bw, "%s → %s: total %s %s → %s (%s, %s)\n", r.Old, r.New, c, valuef(c, t.Old), valuef(c, t.New),
		signedValuef(c, t.Delta), signedPercent(t.Pct))
	writeNotes(bw, r.Notes)
	r.writeRuns(bw)
	r.writeGate(bw, opt)
	fmt.Fprintf(bw, "%s, %s only in the old trace, %s only in the new; sorted by the change in %s",
		plural(int64(r.Methods), "method"), count(int64(r.OldOnly)), count(int64(r.NewOnly)), sortWords(r.Sort, c))
	if r.Sort == SortName {
		fmt.Fprintf(bw, "; times on the %s clock", c)
	}
	if len(r.Clocks) > 1 {
		fmt.Fprintf(bw, "; %s in --format csv and json", strings.Join(r.Clocks[1:], ", "))
	}
	if r.Hidden > 0 {
		fmt.Fprintf(bw, "; %s under the threshold hidden", count(int64(r.Hidden)))
	}
	if shown := len(r.Rows) + r.Hidden; shown < r.Methods {
		fmt.Fprintf(bw, "; top %d shown", len(r.Rows))
	}
	bw.WriteString("\n\n")
	// On a narrow terminal the old and new values go first (calls, then
	// inclusive, then exclusive), then the change of calls and the
	// p-values (the verdicts above show those that decide); the changes
	// and their percentages stay.
	withP := r.hasP()
	tb := &table{header: []string{"OLD EXCL", "NEW EXCL", "Δ EXCL", "Δ%"}, drop: []int{2, 2, 0, 0}}
	if withP {
		tb.header, tb.drop = append(tb.header, "P"), append(tb.drop, 1)
	}
	tb.header, tb.drop = append(tb.header, "OLD INCL", "NEW INCL", "Δ INCL", "Δ%"), append(tb.drop, 3, 3, 0, 0)
	if withP {
		tb.header, tb.drop = append(tb.header, "P"), append(tb.drop, 1)
	}
	if !r.CallsUnknown {
		tb.header, tb.drop = append(tb.header, "OLD CALLS", "NEW CALLS", "Δ CALLS"), append(tb.drop, 4, 4, 1)
	}
	tb.header = append(tb.header, "METHOD")
	for i := range r.Rows {
		row := &r.Rows[i]
		cells := changeCells(row, c, withP)
		if !r.CallsUnknown {
			cells = append(cells, side(row, true, countf(row.Calls.Old)), side(row, false, countf(row.Calls.New)),
				signedCountf(row.Calls.Delta))
		}
		tb.addMethod(row.Method, row.Signature, row.Overloaded, cells...)
	}
	leftOut(tb.write(bw, opt)).write(bw, opt.Width)
	return flush(bw)
}

// side returns s, or "-" when the row's method is absent from that trace.
func side(row *DiffRow, old bool, s string) string {
	if (old && row.Status == StatusNewOnly) || (!old && row.Status == StatusOldOnly) {
		return "-"
	}
	return s
}

// diffPercent writes the change in percent, "new" and "gone" for methods
// present in one trace only.
func diffPercent(row *DiffRow, ch Change) string {
	switch row.Status {
	case StatusNewOnly:
		return "new"
	case StatusOldOnly:
		return "gone"
	}
	return signedPercent(ch.Pct)
}

// changeCells are a diff row's exclusive and inclusive changes on clock c,
// as text and markdown show them: old, new, Δ and Δ%, then p with withP.
func changeCells(row *DiffRow, c string, withP bool) []string {
	var cells []string
	for _, ch := range []Change{row.Excl[0], row.Incl[0]} {
		cells = append(cells, side(row, true, valuef(c, ch.Old)), side(row, false, valuef(c, ch.New)),
			signedValuef(c, ch.Delta), diffPercent(row, ch))
		if withP {
			cells = append(cells, pCell(ch.PValue()))
		}
	}
	return cells
}
