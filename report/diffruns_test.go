package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/stream"
)

// run is one generated run of a small app: main (10 µs exclusive) calls
// work (w µs) and, when e > 0, extra (e µs); wall and thread CPU are equal.
func run(t *testing.T, name string, w, e int) *Flat {
	t.Helper()
	text := `version 3
clock dual
thread 1 main
method 0x4 com.ex.App main ()V App.java
method 0x8 com.ex.App work ()V App.java
method 0xc com.ex.App extra ()V App.java
1 enter 0x4 0 0
1 enter 0x8 10 10
`
	at := 10 + w
	text += fmt.Sprintf("1 exit 0x8 %d %d\n", at, at)
	if e > 0 {
		text += fmt.Sprintf("1 enter 0xc %d %d\n1 exit 0xc %d %d\n", at, at, at+e, at+e)
		at += e
	}
	text += fmt.Sprintf("1 exit 0x4 %d %d\n", at, at)
	return load(t, name, text).Flat()
}

// runSet is the hand-worked set: work takes 10, 20, 30 µs in the old runs
// (median 20) and 40, 50, 60, 70 in the new (median 55, the mean of the
// middle two); extra ran only in the first old run (6 µs: values 6, 0, 0,
// median 0). Totals: 26, 30, 40 → median 30; 50, 60, 70, 80 → 65.
// Complete separation of 3 and 4 runs: U = 0, exact two-sided p =
// 2/C(7,3) = 2/35.
func runSet(t *testing.T) (olds, news []*Flat) {
	olds = []*Flat{run(t, "a1.trace", 10, 6), run(t, "a2.trace", 20, 0), run(t, "a3.trace", 30, 0)}
	news = []*Flat{run(t, "b1.trace", 40, 0), run(t, "b2.trace", 50, 0), run(t, "b3.trace", 60, 0), run(t, "b4.trace", 70, 0)}
	return olds, news
}

func rules(t *testing.T, texts ...string) []gate.Rule {
	t.Helper()
	var out []gate.Rule
	for _, s := range texts {
		r, err := gate.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func diffRow(t *testing.T, r *DiffReport, method string) *DiffRow {
	t.Helper()
	for i := range r.Rows {
		if r.Rows[i].Method == method {
			return &r.Rows[i]
		}
	}
	t.Fatalf("no row %s", method)
	return nil
}

func TestDiffRunsByHand(t *testing.T) {
	olds, news := runSet(t)
	r, err := DiffRuns(olds, news, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Old != "3 old runs" || r.New != "4 new runs" || fmt.Sprint(r.OldRuns) != "[a1.trace a2.trace a3.trace]" {
		t.Errorf("sides %q %q %q", r.Old, r.New, r.OldRuns)
	}
	if got := fmt.Sprint(r.Total[0].Old, r.Total[0].New, r.Total[0].Delta); got != "30000 65000 35000" {
		t.Errorf("total medians and change = %s, want 30000 65000 35000", got)
	}
	work := diffRow(t, r, "com.ex.App.work")
	for i, ch := range []Change{work.Excl[0], work.Incl[0], work.Excl[1]} {
		if got := fmt.Sprint(ch.Old, ch.New, ch.Delta, *ch.Pct, ch.OldRuns, ch.NewRuns); got != "20000 55000 35000 175 [10000 20000 30000] [40000 50000 60000 70000]" {
			t.Errorf("work change %d = %s", i, got)
		}
		if ch.P == nil || math.Abs(*ch.P-2.0/35) > 1e-12 {
			t.Errorf("work change %d: p = %v, want 2/35", i, ch.P)
		}
	}
	if got := fmt.Sprint(work.Calls.Old, work.Calls.New, work.Calls.Delta, work.Calls.OldRuns); got != "1 1 0 [1 1 1]" {
		t.Errorf("work calls = %s", got)
	}
	extra := diffRow(t, r, "com.ex.App.extra")
	if got := fmt.Sprint(extra.Status+" ", extra.Excl[0].Old, extra.Excl[0].New, extra.Excl[0].OldRuns, extra.Excl[0].NewRuns, extra.Excl[0].Pct); got != "old-only 0 0 [6000 0 0] [0 0 0 0] <nil>" {
		t.Errorf("extra (absent from most runs) = %s", got)
	}
	if r.Methods != 3 || r.OldOnly != 1 || r.NewOnly != 0 {
		t.Errorf("methods %d, old-only %d, new-only %d", r.Methods, r.OldOnly, r.NewOnly)
	}
	// Off-CPU time is 0 in every run: a dual-clock trace has the series.
	j := joinRuns(olds, news)
	if got := fmt.Sprint(j.seriesClocks([]Basis{Wall, CPU})); got != "[wall cpu offcpu]" {
		t.Errorf("series clocks %s, want wall, cpu, offcpu", got)
	}
}

func TestDiffRunsTiesAndEvenCounts(t *testing.T) {
	olds := []*Flat{run(t, "a1", 10, 0), run(t, "a2", 10, 0), run(t, "a3", 20, 0), run(t, "a4", 25, 0)}
	news := []*Flat{run(t, "b1", 10, 0), run(t, "b2", 20, 0), run(t, "b3", 20, 0)}
	r, err := DiffRuns(olds, news, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	work := diffRow(t, r, "com.ex.App.work")
	// Old: 10, 10, 20, 25 → (10+20)/2 = 15; new: 10, 20, 20 → 20.
	if got := fmt.Sprint(work.Excl[0].Old, work.Excl[0].New, work.Excl[0].Delta); got != "15000 20000 5000" {
		t.Errorf("medians with ties = %s", got)
	}
	if work.Excl[0].P == nil || *work.Excl[0].P <= 0.05 {
		t.Errorf("p = %v: ties and overlap are not significant", work.Excl[0].P)
	}
	// A half survives into the medians of counts and durations.
	r, err = DiffRuns([]*Flat{run(t, "a1", 10, 0), run(t, "a2", 10, 0)}, []*Flat{run(t, "b1", 10, 0), run(t, "b2", 10, 1)}, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	extra := diffRow(t, r, "com.ex.App.extra")
	if got := fmt.Sprint(extra.Excl[0].New, extra.Calls.New, extra.Excl[0].PValue()); got != "500 0.5 <nil>" {
		t.Errorf("halves: %s (no p with 2 runs)", got)
	}
	if got := countf(extra.Calls.New) + " " + signedCountf(-0.5) + " " + valuef("wall", 500.5); got != "0.5 -0.5 501 ns" {
		t.Errorf("half cells %q", got)
	}
}

// TestDiffOneRunIsDiff checks that one run per side is today's diff: no
// per-run values, no p, integral values.
func TestDiffOneRunIsDiff(t *testing.T) {
	old, cur := load(t, "old.trace", oldTrace), load(t, "new.trace", newTrace)
	a, err := Diff(old, cur, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := DiffRuns([]*Flat{old.Flat()}, []*Flat{cur.Flat()}, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ja, jb bytes.Buffer
	if err := a.WriteJSON(&ja); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	if ja.String() != jb.String() || strings.Contains(ja.String(), "_runs") || strings.Contains(ja.String(), `"p"`) {
		t.Errorf("one run per side:\n%s", jb.String())
	}
}

func TestDiffRunsGate(t *testing.T) {
	olds, news := runSet(t)
	for _, c := range []struct {
		alpha   float64
		fails   bool
		outcome string
		exit    string
	}{
		{0.05, false, OutcomeInconclusive, OutcomePass}, // p = 2/35 > 0.05
		{0.05, true, OutcomeInconclusive, OutcomeInconclusive},
		{0.1, false, OutcomeRegressed, OutcomeRegressed},
	} {
		r, err := DiffRuns(olds, news, DiffOptions{Rules: rules(t, "work:excl>+20us", "main:excl.cpu>+1us"), Alpha: c.alpha, InconclusiveFails: c.fails, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		g := r.Gate
		if g.Outcome != c.outcome || g.Exit() != c.exit || len(g.Verdicts) != 2 || g.OK != 1 {
			t.Errorf("alpha %g: outcome %s exit %s, verdicts %+v", c.alpha, g.Outcome, g.Exit(), g.Verdicts)
		}
		if v := g.Verdicts[0]; v.Subject != "com.ex.App.work" || v.Clock != "wall" || v.Delta != 35000 {
			t.Errorf("first verdict %+v", v)
		}
	}
	// Rules see every method and the totals, whatever --limit shows. At
	// alpha 0.1 the three changes of p = 2/35 among 4 checks adjust to
	// 4/3·2/35 = 0.076 under BH (regressed), 4·2/35 = 0.23 under Holm.
	for adj, want := range map[gate.Adjustment]string{
		gate.BH:   "[regressed total regressed com.ex.App.main regressed com.ex.App.work ok com.ex.App.extra]",
		gate.Holm: "[inconclusive total inconclusive com.ex.App.main inconclusive com.ex.App.work ok com.ex.App.extra]",
	} {
		r, err := DiffRuns(olds, news, DiffOptions{Rules: rules(t, "incl>+50%"), Limit: 1, Alpha: 0.1, Adjust: adj})
		if err != nil {
			t.Fatal(err)
		}
		var subjects []string
		for _, v := range r.Gate.Verdicts {
			subjects = append(subjects, v.Verdict+" "+v.Subject)
			if v.Verdict != "ok" && math.Abs(*v.PAdjusted-map[gate.Adjustment]float64{gate.BH: 4.0 / 3 * 2 / 35, gate.Holm: 4 * 2.0 / 35}[adj]) > 1e-15 {
				t.Errorf("%s: %s adjusted p %g", adj, v.Subject, *v.PAdjusted)
			}
		}
		if got := fmt.Sprint(subjects); got != want {
			t.Errorf("%s: incl>+50%% on every subject: %s, want %s", adj, got, want)
		}
	}
	if (&GateReport{Outcome: OutcomeInconclusive}).Exit() != OutcomePass || (*GateReport)(nil).Exit() != OutcomePass {
		t.Error("Exit without --inconclusive=fail or without rules")
	}
}

func TestDiffRunsRuleErrors(t *testing.T) {
	olds, news := runSet(t)
	for _, rule := range []string{"calls>+1ms", "excl>+5"} {
		r, err := gate.ParseRule(rule)
		if err == nil {
			_, err = DiffRuns(olds, news, DiffOptions{Rules: []gate.Rule{r}})
		}
		if err == nil {
			t.Errorf("%s: no error", rule)
		}
	}
	wall := load(t, "wall.trace", "version 3\nclock wall\nthread 1 main\nmethod 0x4 A a ()V A.java\n1 enter 0x4 0 0\n1 exit 0x4 0 5\n").Flat()
	if _, err := DiffRuns([]*Flat{wall}, []*Flat{wall}, DiffOptions{Rules: rules(t, "excl.cpu>+1ms")}); err == nil || !strings.Contains(err.Error(), "no cpu clock") {
		t.Errorf("a cpu rule on wall-only traces: %v", err)
	}
}

// TestDiffRunsGolden writes the hand-worked set with two rules in every
// format (go test ./report -run Golden -update rewrites the files), under
// Holm's adjustment: incl>+50% cannot decide with 3 and 4 runs (the
// smallest p they allow, 2/35, is 4·2/35 = 0.23 for its 4 checks; with 5
// runs a side 4·2/252 = 0.032 < 0.1, with 4 4·2/70 = 0.11).
func TestDiffRunsGolden(t *testing.T) {
	olds, news := runSet(t)
	r, err := DiffRuns(olds, news, DiffOptions{Rules: rules(t, "work:excl>+20us", "incl>+50%", "calls>+1"), Alpha: 0.1, Adjust: gate.Holm})
	if err != nil {
		t.Fatal(err)
	}
	var txt, csv, js, junit, md bytes.Buffer
	for _, err := range []error{r.WriteText(&txt, TextOptions{}), r.WriteCSV(&csv), r.WriteJSON(&js), r.WriteJUnit(&junit), r.WriteMarkdown(&md, MarkdownOptions{})} {
		if err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "diffruns.txt", txt.Bytes())
	golden(t, "diffruns.csv", csv.Bytes())
	golden(t, "diffruns.json", js.Bytes())
	golden(t, "diffruns.junit.xml", junit.Bytes())
	golden(t, "diffruns.md", md.Bytes())
	var doc junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != len(r.Gate.Verdicts) || doc.Failures != r.Gate.Regressed || len(doc.Suites) != 3 {
		t.Errorf("junit: %d tests, %d failures, %d suites", doc.Tests, doc.Failures, len(doc.Suites))
	}
	want := []gate.Undecided{{Rule: "incl>+50%", Checks: 4, OldRuns: 3, NewRuns: 4, MinP: ptr(2.0 / 35), MinPAdjusted: ptr(4 * 2.0 / 35), RunsNeeded: 5}}
	if got := r.Gate.Undecided; len(got) != 1 || got[0].Rule != want[0].Rule || got[0].Checks != 4 || got[0].OldRuns != 3 || got[0].NewRuns != 4 ||
		math.Abs(*got[0].MinP-*want[0].MinP) > 1e-15 || math.Abs(*got[0].MinPAdjusted-*want[0].MinPAdjusted) > 1e-15 || got[0].RunsNeeded != 5 {
		t.Errorf("undecided: %+v, want %+v", got, want)
	}
}

// TestMarkdownCap writes a diff of many long-named methods: the markdown
// stays under the cap and says how many rows it left out.
func TestMarkdownCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("version 3\nclock wall\nthread 1 main\n")
	const n = 4000
	long := strings.Repeat("VeryLongPackageSegment", 8)
	for i := range n {
		fmt.Fprintf(&b, "method 0x%x com.ex.%s.C%d m ()V C.java\n", 4*(i+1), long, i)
	}
	var oldText, newText strings.Builder
	oldText.WriteString(b.String())
	newText.WriteString(b.String())
	for i := range n {
		fmt.Fprintf(&oldText, "1 enter 0x%x 0 %d\n1 exit 0x%x 0 %d\n", 4*(i+1), 10*i, 4*(i+1), 10*i+1+i%7)
		fmt.Fprintf(&newText, "1 enter 0x%x 0 %d\n1 exit 0x%x 0 %d\n", 4*(i+1), 10*i, 4*(i+1), 10*i+2+i%5)
	}
	old, cur := load(t, "old.trace", oldText.String()).Flat(), load(t, "new.trace", newText.String()).Flat()
	r, err := DiffRuns([]*Flat{old}, []*Flat{cur}, DiffOptions{Rules: rules(t, "excl>+0ns")})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if md.Len() > MaxMarkdown || md.Len() < MaxMarkdown-2048 {
		t.Errorf("markdown of %d methods: %d bytes, want just under %d", n, md.Len(), MaxMarkdown)
	}
	if !regexp.MustCompile(`\n[0-9,]+ of [0-9,]+ methods left out: the summary's size limit\.\n`).MatchString(md.String()) {
		t.Errorf("no note of the rows left out:\n%s", md.String()[max(0, md.Len()-500):])
	}
	small := MarkdownOptions{MaxBytes: 4096}
	md.Reset()
	if err := r.WriteMarkdown(&md, small); err != nil {
		t.Fatal(err)
	}
	if md.Len() > small.MaxBytes || !strings.Contains(md.String(), "verdicts left out") {
		t.Errorf("%d bytes over a cap of %d", md.Len(), small.MaxBytes)
	}
	// 4,000 verdicts would fill the cap: they take half, and the largest
	// changes still show.
	if !regexp.MustCompile("### Methods by the change in exclusive wall time\n\n.*\n.*\n(\\| .*\n)+\n[0-9,]+ of 4,000 methods left out").MatchString(md.String()) {
		t.Errorf("no methods table after the verdicts:\n%s", md.String())
	}
}

// TestJUnitInconclusive: an inconclusive result is a skipped test case,
// or a failure with --inconclusive=fail.
func TestJUnitInconclusive(t *testing.T) {
	olds, news := runSet(t)
	for _, fails := range []bool{false, true} {
		r, err := DiffRuns(olds, news, DiffOptions{Rules: rules(t, "work:excl>+20us"), InconclusiveFails: fails})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteJUnit(&b); err != nil {
			t.Fatal(err)
		}
		var doc junitSuites
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		c := doc.Suites[0].Cases[0]
		if fails != (c.Failure != nil && c.Failure.Type == "inconclusive") || fails == (c.Skipped != nil) || doc.Failures != map[bool]int{true: 1}[fails] {
			t.Errorf("inconclusive fails %v:\n%s", fails, b.String())
		}
		if !fails && (doc.Suites[0].Skipped != 1 || !strings.HasPrefix(c.Skipped.Message, "inconclusive: excl wall 20 µs → 55 µs (+35 µs, +175.0%), p 0.05714")) {
			t.Errorf("skipped:\n%s", b.String())
		}
	}
}

// TestDiffSamplingNotes: a side with runs recorded in sampling mode gets
// one note, naming how many of its runs look so.
func TestDiffSamplingNotes(t *testing.T) {
	sampled := stream.Sampling{Likely: true, Interval: 2_960_000}
	one := []*Flat{{Name: "a", sampling: sampled}}
	three := []*Flat{{Name: "a", sampling: sampled}, {Name: "b"}, {Name: "c", sampling: sampled}}
	note := "looks like a sampling-mode trace (about 2.96 ms between samples): calls count sampled entries and times are approximate"
	for _, c := range []struct {
		name string
		runs []*Flat
		want []string
	}{
		{"none", []*Flat{{Name: "a"}, {Name: "b"}}, nil},
		{"one run", one, []string{"old: " + note}},
		{"two of three", three, []string{"old: 2 of 3 runs look like a sampling-mode trace (about 2.96 ms between samples): calls count sampled entries and times are approximate"}},
	} {
		if got := samplingNotes("old", c.runs); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func ptr(x float64) *float64 { return &x }
