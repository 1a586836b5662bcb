package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/atrace2/atrace2/gate"
)

// Markdown (docs/outputs.md §5.2) is GitHub-flavoured markdown for a
// CI job summary ($GITHUB_STEP_SUMMARY): a heading with the gate's result,
// the verdicts other than ok, then the methods, largest changes first. It
// stays under MarkdownOptions.MaxBytes (GitHub's 1 MiB limit of a step
// summary): tables are cut there and say how many rows were left out.

// MaxMarkdown is GitHub's size limit of a job's step summary.
const MaxMarkdown = 1 << 20

// MarkdownOptions shape the markdown output.
type MarkdownOptions struct {
	MaxBytes int // 0: MaxMarkdown
}

// WriteMarkdown writes the report as markdown.
func (r *DiffReport) WriteMarkdown(w io.Writer, opt MarkdownOptions) error {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = MaxMarkdown
	}
	const reserve = 256 // for the last "rows left out" line
	var b bytes.Buffer
	c := r.Clocks[0]
	t := r.Total[0]
	title := "atrace2 diff"
	if g := r.Gate; g != nil {
		title += ": " + gateWords(g)
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	fmt.Fprintf(&b, "%s → %s: total %s %s → %s (%s, %s)", mdText(r.Old), mdText(r.New), c, valuef(c, t.Old), valuef(c, t.New),
		signedValuef(c, t.Delta), signedPercent(t.Pct))
	if r.OldRuns != nil || r.NewRuns != nil {
		b.WriteString("; medians of the runs")
		if r.hasP() {
			b.WriteString(", p from a two-sided Mann–Whitney U test")
			switch g := r.Gate; {
			case g == nil:
			case g.Adjust == gate.None:
				b.WriteString(" (in the verdicts not adjusted for each rule's number of checks: --adjust none)")
			default:
				b.WriteString(" (in the verdicts, adjusted for each rule's number of checks: " + g.Adjust.Name() + ")")
			}
		}
	}
	b.WriteString("\n\n")
	if g := r.Gate; g != nil {
		mdGateHead(&b, g)
		// The verdicts take at most half of what is left, so that a gate
		// of thousands of checks still shows the largest changes.
		vlimit := limit - reserve
		if len(r.Rows) > 0 {
			vlimit = b.Len() + (limit-reserve-b.Len())/2
		}
		mdVerdicts(&b, g.Verdicts, false, vlimit)
	}
	if len(r.Rows) > 0 && b.Len() < limit-reserve {
		fmt.Fprintf(&b, "### Methods by the change in %s\n\n", sortWords(r.Sort, c))
		r.mdMethods(&b, limit-reserve)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

// mdGateHead writes the gate's summary line and the rules that cannot
// decide.
func mdGateHead(b *bytes.Buffer, g *GateReport) {
	fmt.Fprintf(b, "%s with %s: **%s regressed**, %s inconclusive, %s improved, %s ok (alpha %g%s).\n\n",
		plural(int64(len(g.Verdicts)), "check"), plural(int64(len(g.Rules)), "rule"),
		count(int64(g.Regressed)), count(int64(g.Inconclusive)), count(int64(g.Improved)), count(int64(g.OK)),
		g.Alpha, map[bool]string{true: ", inconclusive fails"}[g.InconclusiveFails])
	for _, u := range g.Undecided {
		b.WriteString("- " + mdText(UndecidedLine(u, g)) + "\n")
	}
	if len(g.Undecided) > 0 {
		b.WriteString("\n")
	}
}

// mdVerdicts writes the verdicts other than ok, in the order of vs, with
// a benchmark column when benchmarks, under limit bytes.
func mdVerdicts(b *bytes.Buffer, vs []Verdict, benchmarks bool, limit int) {
	var lines []string
	for _, v := range vs {
		if v.Verdict == string(gate.OK) {
			continue
		}
		o, n, d := verdictValues(v)
		cells := []string{v.Verdict}
		if benchmarks {
			cells = append(cells, mdCode(v.Benchmark))
		}
		cells = append(cells, mdCode(v.Rule), metricWords(v), o, n, d, signedPercent(v.Pct), pCell(v.PAdjusted), mdCode(v.Subject))
		lines = append(lines, mdRow(cells...))
	}
	if len(lines) == 0 {
		return
	}
	head := mdRow("verdict", "rule", "metric", "old", "new", "Δ", "Δ%", "p adj", "subject") + "|---|---|---|--:|--:|--:|--:|--:|---|\n"
	if benchmarks {
		head = mdRow("verdict", "benchmark", "rule", "metric", "old", "new", "Δ", "Δ%", "p adj", "subject") + "|---|---|---|---|--:|--:|--:|--:|--:|---|\n"
	}
	mdTable(b, head, lines, limit, "verdicts")
}

// mdMethods writes the methods table, largest changes first, under limit
// bytes.
func (r *DiffReport) mdMethods(b *bytes.Buffer, limit int) {
	c := r.Clocks[0]
	withP := r.hasP()
	head := []string{"old excl", "new excl", "Δ excl", "Δ%"}
	if withP {
		head = append(head, "p")
	}
	head = append(head, "old incl", "new incl", "Δ incl", "Δ%")
	if withP {
		head = append(head, "p")
	}
	head = append(head, "method")
	align := strings.Repeat("--:|", len(head)-1) + "---|"
	var lines []string
	for i := range r.Rows {
		row := &r.Rows[i]
		lines = append(lines, mdRow(append(changeCells(row, c, withP), mdCode(label(row.Method, row.Signature, row.Overloaded)))...))
	}
	mdTable(b, mdRow(head...)+"|"+align+"\n", lines, limit, "methods")
	if more := r.Methods - len(r.Rows) - r.Hidden; more > 0 || r.Hidden > 0 {
		fmt.Fprintf(b, "%d more methods not shown (--limit), %d under the threshold.\n", more, r.Hidden)
	}
}

// mdTable writes a table's header and as many lines as keep b under
// limit bytes, then says how many were left out.
func mdTable(b *bytes.Buffer, head string, lines []string, limit int, what string) {
	if b.Len()+len(head) > limit {
		fmt.Fprintf(b, "%s %s left out: the summary's size limit.\n\n", count(int64(len(lines))), what)
		return
	}
	b.WriteString(head)
	for i, l := range lines {
		if b.Len()+len(l) > limit {
			fmt.Fprintf(b, "\n%s of %s %s left out: the summary's size limit.\n\n", count(int64(len(lines)-i)), count(int64(len(lines))), what)
			return
		}
		b.WriteString(l)
	}
	b.WriteString("\n")
}

func mdRow(cells ...string) string { return "| " + strings.Join(cells, " | ") + " |\n" }

// mdCode writes s as inline code inside a table cell.
func mdCode(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`, "\n", " ").Replace(s) + "`"
}

// mdText escapes the characters markdown would take as markup.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "|", `\|`, "<", "&lt;", "[", `\[`).Replace(s)
}
