package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// CSV columns are named <metric>_<clock>_<unit>, one set per clock the
// report has, so a script can pick columns by name whatever the trace's
// clocks. Times are integer ns; sample counts (clock samples, unit count)
// are integers; percentages have four decimals. The calls columns of a
// sampled profile, which counts no calls, are empty.

// WriteJSON writes the top report as indented JSON.
func (r *TopReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteJSON writes the calls report as indented JSON.
func (r *CallsReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteJSON writes the diff report as indented JSON.
func (r *DiffReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// WriteCSV writes one line per method and table: tid and thread are empty
// and "all" for the table of all threads.
func (r *TopReport) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"tid", "thread", "method", "signature", "calls", "recursive_calls"}
	for _, c := range r.Clocks {
		u := unit(c)
		head = append(head, "excl_"+c+u, "excl_"+c+"_pct", "incl_"+c+u, "incl_"+c+"_pct", "mean_excl_"+c+u)
	}
	cw.Write(head)
	for _, t := range r.Tables {
		tid, thread := "", "all"
		if t.Thread != nil {
			tid, thread = strconv.FormatUint(uint64(t.Thread.TID), 10), t.Thread.Name
		}
		for _, row := range t.Rows {
			calls, recurs := callsCell(r.CallsUnknown, row.Calls), callsCell(r.CallsUnknown, row.Recursive)
			rec := []string{tid, thread, row.Method, row.Signature, calls, recurs}
			for i := range r.Clocks {
				rec = append(rec, itoa(row.Excl[i]), ftoa(row.ExclPct[i]), itoa(row.Incl[i]), ftoa(row.InclPct[i]),
					callsCell(r.CallsUnknown, row.MeanExcl[i]))
			}
			cw.Write(rec)
		}
	}
	return flushCSV(cw)
}

// WriteCSV writes, for each method, a "method" line (inclusive time, pct of
// the total), then its "parent", "self" and "child" lines (pct of the
// method's inclusive time).
func (r *CallsReport) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"method", "signature", "relation", "relative", "relative_signature", "calls"}
	for _, c := range r.Clocks {
		head = append(head, c+unit(c), c+"_pct")
	}
	cw.Write(head)
	for _, m := range r.Methods {
		line := func(rel, name, sig string, calls string, ns []int64, pcts []float64) {
			rec := []string{m.Method, m.Signature, rel, name, sig, calls}
			for i := range r.Clocks {
				rec = append(rec, itoa(ns[i]), ftoa(pcts[i]))
			}
			cw.Write(rec)
		}
		calls := func(n int64) string { return callsCell(r.CallsUnknown, n) }
		line("method", m.Method, m.Signature, calls(m.Calls), m.Incl, m.InclPct)
		for _, p := range m.Parents {
			line("parent", p.Method, p.Signature, calls(p.Calls), p.Time, p.Pct)
		}
		line("self", m.Method, m.Signature, "", m.Self, m.SelfPct)
		for _, c := range m.Children {
			line("child", c.Method, c.Signature, calls(c.Calls), c.Time, c.Pct)
		}
	}
	return flushCSV(cw)
}

// WriteCSV writes one line per method with the old and new value, the
// change and the change in percent (empty when the old value is zero) of
// each metric on each clock. With several runs per side the values are the
// medians of the runs (halves possible: "1234.5"), and with at least
// MinRunsForP runs per side each change is followed by its Mann–Whitney
// p-value (<metric>_<clock>_p, calls_p). The per-run values are in json.
func (r *DiffReport) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	withP := r.hasP()
	head := []string{"method", "signature", "status"}
	for _, metric := range []string{"excl", "incl"} {
		for _, c := range r.Clocks {
			p, u := metric+"_"+c, unit(c)
			head = append(head, p+"_old"+u, p+"_new"+u, p+"_delta"+u, p+"_delta_pct")
			if withP {
				head = append(head, p+"_p")
			}
		}
	}
	head = append(head, "calls_old", "calls_new", "calls_delta", "calls_delta_pct")
	if withP {
		head = append(head, "calls_p")
	}
	cw.Write(head)
	for _, row := range r.Rows {
		rec := []string{row.Method, row.Signature, row.Status}
		for _, chs := range [][]Change{row.Excl, row.Incl} {
			for _, ch := range chs {
				rec = appendChange(rec, ch, withP)
			}
		}
		if r.CallsUnknown {
			rec = append(rec, "", "", "", "")
			if withP {
				rec = append(rec, "")
			}
			cw.Write(rec)
			continue
		}
		cw.Write(appendChange(rec, row.Calls, withP))
	}
	return flushCSV(cw)
}

// unit is the suffix of a clock's value columns: _ns, or _count for
// sample counts.
func unit(clock string) string {
	if clock == Samples.String() {
		return "_count"
	}
	return "_ns"
}

// callsCell is a calls value, or empty when the profile counts no calls.
func callsCell(unknown bool, n int64) string {
	if unknown {
		return ""
	}
	return itoa(n)
}

func appendChange(rec []string, ch Change, withP bool) []string {
	p := ""
	if ch.Pct != nil {
		p = ftoa(*ch.Pct)
	}
	rec = append(rec, gtoa(ch.Old), gtoa(ch.New), gtoa(ch.Delta), p)
	if withP {
		p = ""
		if pv := ch.PValue(); pv != nil {
			p = strconv.FormatFloat(*pv, 'g', -1, 64)
		}
		rec = append(rec, p)
	}
	return rec
}

func flushCSV(cw *csv.Writer) error {
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// gtoa writes a median: an integer, or a half for the mean of two middle
// values ("1234.5").
func gtoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
