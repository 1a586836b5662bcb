package startup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/units"
)

// WriteText prints the report: a table of the phases, then each recorded
// phase's top methods. Times a clock of the trace cannot give are "-".
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	thread := "no main thread (no thread has the trace's pid or is named main)"
	if r.Thread != "" {
		thread = fmt.Sprintf("main thread %q (tid %d)", r.Thread, r.ThreadID)
	}
	activities := "activities"
	if r.Activities == 1 {
		activities = "activity"
	}
	fmt.Fprintf(bw, "%s: %s; %d %s created", r.Trace, thread, r.Activities, activities)
	if r.Activities > 1 {
		bw.WriteString(", the phases are of the first")
	}
	bw.WriteString("\n")
	for _, n := range r.Notes {
		fmt.Fprintf(bw, "note: %s\n", n)
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(bw, "the trace has one clock: no %s\n", strings.Join(r.Missing, ", "))
	}
	has := func(field string) bool { return !slices.Contains(r.Missing, field) }
	cell := func(field string, ns int64) string {
		if !has(field) {
			return "-"
		}
		return units.Duration(ns)
	}
	rows := [][]string{{"PHASE", "BEGIN", "END", "WALL", "CPU", "OFF-CPU", ""}}
	for i := range r.Phases {
		p := &r.Phases[i]
		if !p.Recorded {
			row := []string{p.Name, "-", "-", "-", "-", "-", "(" + p.Reason + ")"}
			if p.Begin != 0 && has("begin") {
				row[1] = units.Duration(p.Begin)
			}
			if p.End != 0 && has("end") {
				row[2] = units.Duration(p.End)
			}
			rows = append(rows, row)
			continue
		}
		rows = append(rows, []string{p.Name, cell("begin", p.Begin), cell("end", p.End),
			cell("wall", p.Wall), cell("cpu", p.CPU), cell("offcpu", p.OffCPU), ""})
	}
	writeTable(bw, rows)
	if p := r.Phase(markers[FullyDrawn].name); p != nil && p.Recorded {
		fmt.Fprintf(bw, "fully-drawn: from the begin of %s to the end of Activity.reportFullyDrawn\n", p.From)
	}
	clock := "wall"
	if !r.HasWall {
		clock = "thread CPU"
	}
	for i := range r.Phases {
		p := &r.Phases[i]
		if !p.Recorded || len(p.Top) == 0 {
			continue
		}
		methods := "methods"
		if len(p.Top) == 1 {
			methods = "method"
		}
		fmt.Fprintf(bw, "\n%s: top %d %s by exclusive %s time\n", p.Name, len(p.Top), methods, clock)
		rows := [][]string{{"WALL", "CPU", "OFF-CPU", "METHOD"}}
		for _, m := range p.Top {
			rows = append(rows, []string{cell("wall", m.Wall), cell("cpu", m.CPU), cell("offcpu", m.OffCPU), m.Name})
		}
		writeTable(bw, rows)
	}
	return bw.Flush()
}

// writeTable prints rows with the first column left-aligned, the last as
// is, and the others right-aligned, two spaces apart.
func writeTable(bw *bufio.Writer, rows [][]string) {
	n := len(rows[0])
	widths := make([]int, n)
	for _, row := range rows {
		for i, c := range row[:n-1] {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", max(0, widths[i]-len([]rune(c))))
			switch {
			case i == n-1:
				b.WriteString(c)
			case i == 0 && n > 4:
				b.WriteString(c + pad + "  ")
			default:
				b.WriteString(pad + c + "  ")
			}
		}
		bw.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
}

// WriteTexts writes the reports of several traces as text, a blank line
// between two.
func WriteTexts(w io.Writer, reps []*Report) error {
	for i, r := range reps {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := r.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the reports as an array, also of one report: a script
// then reads the output of a glob that matched one trace like any other.
func WriteJSON(w io.Writer, reps []*Report) error {
	b, err := json.MarshalIndent(reps, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
