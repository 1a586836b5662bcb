package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/benchdata"
)

// WriteJSON writes the report as indented JSON.
func (r *BenchReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

// WriteText prints the files compared, the context findings and the gate,
// then each benchmark of both sides, in Key order: its verdicts other than
// ok, its metrics, its notes and its methods table; then the benchmarks of
// one side.
func (r *BenchReport) WriteText(w io.Writer, opt TextOptions) error {
	bw := newWriter(w)
	r.writeHead(bw)
	if g := r.Gate; g != nil {
		bw.WriteString("\n")
		writeGateHead(bw, g, true)
	}
	var cols leftOut
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if b.Status != StatusBoth {
			continue
		}
		fmt.Fprintf(bw, "\n== %s\n%s\n", b.Benchmark, b.samplingWords())
		for _, n := range b.Notes {
			bw.WriteString("note: " + n + "\n")
		}
		if g := r.Gate; g != nil {
			if tb := gateTable(r.verdictsOf(b.Benchmark), true); len(tb.rows) > 0 {
				bw.WriteString("\n")
				cols.add(tb.write(bw, opt))
			}
		}
		bw.WriteString("\n")
		cols.add(b.metricTable().write(bw, opt))
		switch {
		case b.Methods != nil:
			fmt.Fprintf(bw, "\nmethods of %d old and %d new traces:\n", b.OldTraces, b.NewTraces)
			if err := flush(bw); err != nil {
				return err
			}
			if err := b.Methods.WriteText(w, opt); err != nil {
				return err
			}
		case b.OldTraces+b.NewTraces > 0:
			fmt.Fprintf(bw, "\ntraces: %d old and %d new; a side without any: not compared\n", b.OldTraces, b.NewTraces)
		}
	}
	for _, side := range []string{StatusOldOnly, StatusNewOnly} {
		var keys []string
		for _, b := range r.Benchmarks {
			if b.Status == side {
				keys = append(keys, b.Benchmark)
			}
		}
		if len(keys) > 0 {
			fmt.Fprintf(bw, "\nonly in the %s results (%d): %s\n", strings.TrimSuffix(side, "-only"), len(keys), strings.Join(keys, ", "))
		}
	}
	cols.write(bw, opt.Width)
	return flush(bw)
}

// writeHead prints the files of each side, the benchmarks and the context
// findings.
func (r *BenchReport) writeHead(w *bufio.Writer) {
	oldOnly, newOnly := r.OneSided()
	fmt.Fprintf(w, "%s → %s: %s, %d on both sides, %d only in the old, %d only in the new\n",
		filesWords(r.Old, "old"), filesWords(r.New, "new"), plural(int64(len(r.Benchmarks)), "benchmark"),
		len(r.Benchmarks)-oldOnly-newOnly, oldOnly, newOnly)
	for _, f := range r.Context {
		w.WriteString(r.findingWords() + ": " + f.Check + ": " + f.Message + "\n")
	}
}

// findingWords is how a context finding counts: a warning, or a failure.
func (r *BenchReport) findingWords() string {
	if r.Strict {
		return "context: FAIL (--strict)"
	}
	return "context: warning"
}

// filesWords names a side's files: the file, or "3 old result files".
func filesWords(files []string, side string) string {
	if len(files) == 1 {
		return files[0]
	}
	return fmt.Sprintf("%d %s result files", len(files), side)
}

// samplingWords says what the benchmark's samples are.
func (b *BenchDiff) samplingWords() string {
	s := fmt.Sprintf("%d old and %d new result files; ", b.OldFiles, b.NewFiles)
	if b.Sampling == benchdata.FileMedians {
		return s + "metric samples: each file's median of its repeats (sampled metrics: every value, pooled)"
	}
	return s + "metric samples: the repeats (sampled metrics: every value, pooled)"
}

// verdictsOf are the gate's verdicts on one benchmark.
func (r *BenchReport) verdictsOf(key string) []Verdict {
	var out []Verdict
	for _, v := range r.Gate.Verdicts {
		if v.Benchmark == key {
			out = append(out, v)
		}
	}
	return out
}

// metricTable lays out a benchmark's metrics: medians (a sampled metric's
// P50 and P90), the change, the p-value.
func (b *BenchDiff) metricTable() *table {
	tb := &table{header: []string{"OLD", "NEW", "Δ", "Δ%", "P", "OLD P90", "NEW P90", "METRIC"}, drop: []int{1, 1, 0, 0, 2, 3, 3}}
	for _, c := range b.Metrics {
		name := c.Name
		if c.Sampled {
			name += " (P50)"
		}
		tb.add(metricSide(c, true, metricf(c.Old)), metricSide(c, false, metricf(c.New)), signedMetricf(c.Delta),
			metricPercent(c), pCell(c.P), optMetric(c.OldP90), optMetric(c.NewP90), name)
	}
	return tb
}

// metricSide returns s, or "-" when the metric is absent from that side.
func metricSide(c MetricChange, old bool, s string) string {
	if old && c.Status == StatusNewOnly || !old && c.Status == StatusOldOnly {
		return "-"
	}
	return s
}

func metricPercent(c MetricChange) string {
	switch c.Status {
	case StatusNewOnly:
		return "new"
	case StatusOldOnly:
		return "gone"
	}
	return signedPercent(c.Pct)
}

func optMetric(v *float64) string {
	if v == nil {
		return ""
	}
	return metricf(*v)
}

// WriteCSV writes one line per benchmark and subject, grouped by
// benchmark: its metrics (kind metric or sampled: medians, a sampled
// metric's P50 and P90), then its methods (kind method, one line per
// metric and clock: exclusive and inclusive time in ns, calls), as the
// methods table shows them (--limit, --threshold); a benchmark of one side
// is one line with its status and nothing else.
func (r *BenchReport) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"benchmark", "status", "kind", "subject", "signature", "metric", "clock", "old", "new", "delta", "delta_pct", "p", "old_p90", "new_p90"})
	for _, b := range r.Benchmarks {
		if b.Status != StatusBoth {
			cw.Write([]string{b.Benchmark, b.Status, "", "", "", "", "", "", "", "", "", "", "", ""})
			continue
		}
		for _, c := range b.Metrics {
			kind := "metric"
			if c.Sampled {
				kind = "sampled"
			}
			cw.Write([]string{b.Benchmark, c.Status, kind, c.Name, "", "", "", gtoa(c.Old), gtoa(c.New), gtoa(c.Delta),
				pctCell(c.Pct), pFull(c.P), optFull(c.OldP90), optFull(c.NewP90)})
		}
		m := b.Methods
		if m == nil {
			continue
		}
		for _, row := range m.Rows {
			line := func(metric, clock string, ch Change) {
				cw.Write([]string{b.Benchmark, row.Status, "method", row.Method, row.Signature, metric, clock,
					gtoa(ch.Old), gtoa(ch.New), gtoa(ch.Delta), pctCell(ch.Pct), pFull(ch.PValue()), "", ""})
			}
			for i, c := range m.Clocks {
				line("excl", c, row.Excl[i])
				line("incl", c, row.Incl[i])
			}
			if !m.CallsUnknown {
				line("calls", "", row.Calls)
			}
		}
	}
	return flushCSV(cw)
}

func pctCell(p *float64) string {
	if p == nil {
		return ""
	}
	return ftoa(*p)
}

func pFull(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func optFull(v *float64) string {
	if v == nil {
		return ""
	}
	return gtoa(*v)
}
