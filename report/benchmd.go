package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/benchdata"
)

// WriteMarkdown writes the report as markdown for a CI job summary, under
// opt.MaxBytes (GitHub's 1 MiB by default): the files and the context
// findings, the gate's summary and its verdicts other than ok (regressions
// first, then by the size of the change in percent), the metrics of every
// benchmark, largest changes first, the methods of the benchmarks with
// method traces (those with the largest metric changes first), and the
// benchmarks of one side.
func (r *BenchReport) WriteMarkdown(w io.Writer, opt MarkdownOptions) error {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = MaxMarkdown
	}
	const reserve = 256
	var b bytes.Buffer
	title := "atrace2 diff of benchmarks"
	switch {
	case r.Failed():
		title += ": FAIL (context, --strict)"
	case r.Gate != nil:
		title += ": " + gateWords(r.Gate)
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	oldOnly, newOnly := r.OneSided()
	fmt.Fprintf(&b, "%s → %s: %s, %d on both sides, %d only in the old, %d only in the new.\n\n",
		mdText(filesWords(r.Old, "old")), mdText(filesWords(r.New, "new")), plural(int64(len(r.Benchmarks)), "benchmark"),
		len(r.Benchmarks)-oldOnly-newOnly, oldOnly, newOnly)
	for _, f := range r.Context {
		b.WriteString("- " + mdText(r.findingWords()+": "+f.Check+": "+f.Message) + "\n")
	}
	if len(r.Context) > 0 {
		b.WriteString("\n")
	}
	if g := r.Gate; g != nil {
		mdGateHead(&b, g)
		vs := slices.Clone(g.Verdicts)
		slices.SortStableFunc(vs, func(a, b Verdict) int {
			return cmp.Or(cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)), cmp.Compare(changeSize(b, true), changeSize(a, true)))
		})
		mdVerdicts(&b, vs, true, b.Len()+(limit-reserve-b.Len())/2)
	}
	r.mdMetrics(&b, limit-reserve)
	for _, bd := range r.byChange() {
		if bd.Methods == nil || len(bd.Methods.Rows) == 0 || b.Len() >= limit-reserve {
			continue
		}
		m := bd.Methods
		fmt.Fprintf(&b, "### Methods of %s\n\n%d old and %d new traces: %s\n\n", mdCode(bd.Benchmark), bd.OldTraces, bd.NewTraces,
			sortWords(m.Sort, m.Clocks[0]))
		m.mdMethods(&b, limit-reserve)
	}
	for _, side := range []string{StatusOldOnly, StatusNewOnly} {
		var keys []string
		for _, bd := range r.Benchmarks {
			if bd.Status == side {
				keys = append(keys, mdCode(bd.Benchmark))
			}
		}
		if len(keys) > 0 && b.Len() < limit-reserve {
			line := fmt.Sprintf("Only in the %s results (%d): %s\n\n", strings.TrimSuffix(side, "-only"), len(keys), strings.Join(keys, ", "))
			if b.Len()+len(line) > limit-reserve {
				line = fmt.Sprintf("Only in the %s results: %d benchmarks (the list is left out: the summary's size limit).\n\n", strings.TrimSuffix(side, "-only"), len(keys))
			}
			b.WriteString(line)
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// mdMetrics writes one table of every benchmark's metrics, the largest
// changes in percent first.
func (r *BenchReport) mdMetrics(b *bytes.Buffer, limit int) {
	type line struct {
		size float64
		text string
	}
	var lines []line
	for i := range r.Benchmarks {
		bd := &r.Benchmarks[i]
		if bd.Status != StatusBoth {
			continue
		}
		samples := "file medians"
		if bd.Sampling != benchdata.FileMedians {
			samples = "repeats (optimistic)"
		}
		for k := range bd.Metrics {
			c := &bd.Metrics[k]
			name, how := c.Name, samples
			if c.Sampled {
				name += " (P50)"
				how = "pooled frames"
			}
			lines = append(lines, line{c.size(), mdRow(mdCode(bd.Benchmark), mdCode(name), metricSide(*c, true, metricf(c.Old)),
				metricSide(*c, false, metricf(c.New)), signedMetricf(c.Delta), metricPercent(*c), pCell(c.P), optMetric(c.OldP90), optMetric(c.NewP90), how)})
		}
	}
	if len(lines) == 0 || b.Len() >= limit {
		return
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(b.size, a.size) })
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	b.WriteString("### Metrics, largest changes first\n\n")
	head := mdRow("benchmark", "metric", "old", "new", "Δ", "Δ%", "p", "old P90", "new P90", "samples") + "|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n"
	mdTable(b, head, texts, limit, "metrics")
}
