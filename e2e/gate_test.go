package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// The regression gate end to end (issue 24): `atrace2 diff --old … --new …
// --fail-on RULE` on run sets that tracegen.App.Run generates with
// run-to-run noise, one method optionally stretched by a known factor.
// Expected verdicts come from an oracle that replays the generated records
// with its own stack (gateTimes) and needs no statistics of its own: a
// change counts as clearly significant only when the two sides do not
// overlap at all, where the exact two-sided Mann–Whitney p of n and m runs
// is 2/C(n+m, n) (1.6e-4 for gateRuns = 8 and 8), and as clearly below a
// percentage threshold when the medians' change is a margin below it.
// Subjects in between are logged, not asserted.
//
// A rule's p-values are adjusted for its number of checks (Benjamini–
// Hochberg by default, or Holm), either way at most multiplied by it: with
// 8 runs a side, complete separation stays below 0.05 for rules of up to
// 300 checks, which every rule here is.

// gateVerdict is one element of `diff --format json`'s gate.verdicts.
type gateVerdict struct {
	Rule      string   `json:"rule"`
	Subject   string   `json:"subject"`
	Kind      string   `json:"kind"`
	Metric    string   `json:"metric"`
	Clock     string   `json:"clock"`
	Verdict   string   `json:"verdict"`
	OldMedian float64  `json:"old"`
	NewMedian float64  `json:"new"`
	Delta     float64  `json:"delta"`
	Pct       *float64 `json:"pct"`
	P         *float64 `json:"p"`
	Threshold string   `json:"threshold"`
}

type gateReport struct {
	Verdicts []gateVerdict `json:"verdicts"`
	Outcome  string        `json:"outcome"`
}

// gateCalm is noise under which a +10% rule keeps every unchanged method
// of tracegen.FeedApp clearly inside the threshold (per run, about 2 % on
// a method's total and 4 % on a single call).
var gateCalm = tracegen.Noise{Run: 0.01, Method: 0.01, Call: 0.04, Pauses: 2, PauseMax: 1000}

// gateSet is a generated run set on disk: the traces and their files.
type gateSet struct {
	traces []*tracegen.Trace
	paths  []string
}

// writeGateSet writes runs 0..n-1 of a with o as dir/name-I.trace.
// gateRuns is the number of runs per side of the sets that must regress.
const gateRuns = 8

func writeGateSet(t testing.TB, dir, name string, a *tracegen.App, o tracegen.RunOptions, n int) gateSet {
	t.Helper()
	var s gateSet
	for i, tr := range a.Runs(o, n) {
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.trace", name, i))
		if err := os.WriteFile(p, tr.Regular(), 0o644); err != nil {
			t.Fatal(err)
		}
		s.traces = append(s.traces, tr)
		s.paths = append(s.paths, p)
	}
	return s
}

// gateDiff runs `atrace2 diff --old OLDS --new NEWS ARGS`.
func gateDiff(t testing.TB, olds, news []string, args ...string) result {
	t.Helper()
	a := append([]string{"diff", "--old"}, olds...)
	a = append(a, "--new")
	a = append(a, news...)
	return atrace2(t, nil, append(a, args...)...)
}

// gateJSON decodes a --format json report and fails on anything else.
func gateJSON(t testing.TB, r result) gateReport {
	t.Helper()
	var rep struct {
		Gate *gateReport `json:"gate"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Gate == nil {
		t.Fatalf("diff --format json: %v (or no gate)\nstderr: %s\nstdout: %.2000s", err, r.stderr, r.stdout)
	}
	return *rep.Gate
}

// gateTimes is the oracle's replay of one run: per method label
// (class.name), its exclusive and inclusive wall time in ns, all threads
// and calls summed. The methods of FeedApp do not recurse, so inclusive
// times add up.
func gateTimes(tr *tracegen.Trace) map[string][2]float64 {
	label := map[uint32]string{}
	for _, m := range tr.Methods {
		label[m.ID] = m.Class + "." + m.Name
	}
	type frame struct{ method, enter, children uint32 }
	stacks := map[uint32][]frame{}
	out := map[string][2]float64{}
	for _, r := range tr.Records {
		st := stacks[r.Thread]
		if r.Action == tracegen.Enter {
			stacks[r.Thread] = append(st, frame{method: r.Method, enter: r.Wall})
			continue
		}
		f := st[len(st)-1]
		st = st[:len(st)-1]
		incl := r.Wall - f.enter
		v := out[label[f.method]]
		v[0] += 1000 * float64(incl-f.children)
		v[1] += 1000 * float64(incl)
		out[label[f.method]] = v
		if len(st) > 0 {
			st[len(st)-1].children += incl
		}
		stacks[r.Thread] = st
	}
	return out
}

// gateSeries is the oracle's values of one method and metric (0 excl, 1
// incl), one per run.
func gateSeries(runs []map[string][2]float64, label string, metric int) []float64 {
	var xs []float64
	for _, r := range runs {
		xs = append(xs, r[label][metric])
	}
	return xs
}

func gateMedian(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// gateExpect is the oracle's verdict of a percentage rule on one series:
// "ok" when the medians changed by less than pct−margin either way,
// "regressed" when they grew by more than pct+margin and every new run is
// above every old run (with gateRuns runs a side, p = 2/12870, below 0.05
// after the adjustment for up to 300 checks), "" when it cannot tell
// without the test's own statistics.
func gateExpect(old, cur []float64, pct, margin float64) string {
	mo, mn := gateMedian(old), gateMedian(cur)
	change := 100 * (mn - mo) / mo
	switch {
	case math.Abs(change) < pct-margin:
		return "ok"
	case change > pct+margin && slices.Min(cur) > slices.Max(old) && len(old) >= gateRuns && len(cur) >= gateRuns:
		return "regressed"
	}
	return ""
}

// gateMethod is a verdict's method label: class.name, as the oracle's,
// since FeedApp has no overloads (whose labels would end with the
// signature).
func gateMethod(v gateVerdict) string { return v.Subject }

// checkGateVerdicts compares the wall-clock verdicts of `excl>+PCT%` and
// `incl>+PCT%` (rules given as ruleExcl, ruleIncl) with the oracle, and
// requires every method of the oracle to be judged by both. It returns
// the labels the oracle expects regressed.
func checkGateVerdicts(t *testing.T, rep gateReport, olds, news []map[string][2]float64, ruleExcl, ruleIncl string, pct float64) []string {
	t.Helper()
	judged := map[string]gateVerdict{}
	for _, v := range rep.Verdicts {
		if v.Kind != "method" || v.Clock != "wall" {
			continue
		}
		judged[v.Rule+" "+gateMethod(v)] = v
	}
	var regressed []string
	for label := range olds[0] {
		for metric, rule := range []string{ruleExcl, ruleIncl} {
			old, cur := gateSeries(olds, label, metric), gateSeries(news, label, metric)
			v, ok := judged[rule+" "+label]
			if !ok {
				t.Errorf("%s: no wall verdict for %s", rule, label)
				continue
			}
			if math.Abs(v.OldMedian-gateMedian(old)) > 0.5 || math.Abs(v.NewMedian-gateMedian(cur)) > 0.5 {
				t.Errorf("%s %s: medians %.0f → %.0f ns, the oracle's %.0f → %.0f", rule, label, v.OldMedian, v.NewMedian, gateMedian(old), gateMedian(cur))
			}
			want := gateExpect(old, cur, pct, 3)
			if want == "regressed" {
				regressed = append(regressed, rule+" "+label)
			}
			if want != "" && v.Verdict != want {
				t.Errorf("%s %s: %s (%+.1f%%, p %v), the oracle says %s (old %v, new %v)", rule, label, v.Verdict, ptr(v.Pct), ptr(v.P), want, old, cur)
			}
			if want == "" {
				t.Logf("%s %s: %s (%+.1f%%), not asserted", rule, label, v.Verdict, ptr(v.Pct))
			}
		}
	}
	slices.Sort(regressed)
	return regressed
}

func ptr(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestGateStretch: ImageLoader.load made 1.5 times slower in every new run
// (gateRuns runs a side) regresses its exclusive time and the inclusive time of
// its callers whose change the stretch makes clearly larger than 10 %;
// every other method stays ok; the exit status is 3 in every format, and
// 0 for the same old runs against unstretched new runs.
func TestGateStretch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(0)
	const load = "com.example.feed.ImageLoader.load"
	old := writeGateSet(t, dir, "old", app, tracegen.RunOptions{Noise: gateCalm, Seed: 100}, gateRuns)
	plain := writeGateSet(t, dir, "plain", app, tracegen.RunOptions{Noise: gateCalm, Seed: 101}, gateRuns)
	slow := writeGateSet(t, dir, "slow", app, tracegen.RunOptions{Noise: gateCalm, Seed: 101, Stretch: load, Factor: 1.5}, gateRuns)
	rules := []string{"--fail-on", "excl>+10%", "--fail-on", "incl>+10%"}

	oldT := make([]map[string][2]float64, gateRuns)
	plainT := make([]map[string][2]float64, gateRuns)
	slowT := make([]map[string][2]float64, gateRuns)
	for i := range gateRuns {
		oldT[i], plainT[i], slowT[i] = gateTimes(old.traces[i]), gateTimes(plain.traces[i]), gateTimes(slow.traces[i])
	}

	r := gateDiff(t, old.paths, slow.paths, append(rules, "--format", "json")...)
	if r.code != 3 {
		t.Fatalf("stretched: exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	rep := gateJSON(t, r)
	if rep.Outcome != "regressed" {
		t.Errorf("outcome %q, want regressed", rep.Outcome)
	}
	regressed := checkGateVerdicts(t, rep, oldT, slowT, "excl>+10%", "incl>+10%", 10)
	// By the plan (tracegen.FeedApp): the stretch adds half of load's 96 ×
	// 400 µs, 19.2 ms, to onBindViewHolder (96 × 830 µs: +24 %), to
	// RecyclerView.onLayout (+23 %) and to Choreographer.doFrame (about
	// 122 ms: +16 %).
	want := []string{
		"excl>+10% " + load,
		"incl>+10% android.view.Choreographer.doFrame",
		"incl>+10% androidx.recyclerview.widget.RecyclerView.onLayout",
		"incl>+10% com.example.feed.FeedAdapter.onBindViewHolder",
		"incl>+10% " + load,
	}
	if !slices.Equal(regressed, want) {
		t.Errorf("the oracle expects regressed %q, the plan %q", regressed, want)
	}
	var got []string
	for _, v := range rep.Verdicts {
		if v.Verdict == "regressed" {
			got = append(got, v.Rule+" "+gateMethod(v)+" "+v.Kind+" "+v.Clock)
		}
	}
	t.Logf("regressed: %q", got)

	// The same verdicts in the other formats, with the same exit status.
	junit := gateDiff(t, old.paths, slow.paths, append(rules, "--format", "junit")...)
	if junit.code != 3 {
		t.Errorf("--format junit: exit %d, want 3\nstderr: %s", junit.code, junit.stderr)
	}
	checkGateJUnit(t, junit.stdout, rep)
	md := gateDiff(t, old.paths, slow.paths, append(rules, "--format", "markdown")...)
	if md.code != 3 {
		t.Errorf("--format markdown: exit %d, want 3\nstderr: %s", md.code, md.stderr)
	}
	if !strings.Contains(md.stdout, "regressed") || !strings.Contains(md.stdout, "ImageLoader.load") {
		t.Errorf("--format markdown names no regression of ImageLoader.load:\n%.3000s", md.stdout)
	}
	text := gateDiff(t, old.paths, slow.paths, rules...)
	if text.code != 3 {
		t.Errorf("text: exit %d, want 3\nstderr: %s", text.code, text.stderr)
	}
	if !strings.Contains(text.stdout, "regressed") || !strings.Contains(text.stdout, "ImageLoader.load") {
		t.Errorf("text names no regression of ImageLoader.load:\n%.3000s", text.stdout)
	}

	// Without the stretch nothing regresses.
	r = gateDiff(t, old.paths, plain.paths, append(rules, "--format", "json")...)
	if r.code != 0 {
		t.Errorf("unstretched: exit %d, want 0\nstderr: %s", r.code, r.stderr)
	}
	rep = gateJSON(t, r)
	if rep.Outcome == "regressed" {
		t.Errorf("unstretched: outcome %q", rep.Outcome)
	}
	if regressed := checkGateVerdicts(t, rep, oldT, plainT, "excl>+10%", "incl>+10%", 10); len(regressed) > 0 {
		t.Errorf("unstretched: the oracle expects %q regressed", regressed)
	}
}

// junitDoc is the part of a JUnit report the test reads.
type junitDoc struct {
	XMLName xml.Name
	Suites  []junitSuite `xml:"testsuite"`
	// A bare <testsuite> root holds its cases directly.
	Cases []junitCase `xml:"testcase"`
}

type junitSuite struct {
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	Failures  []struct{} `xml:"failure"`
	Skipped   []struct{} `xml:"skipped"`
}

// checkGateJUnit validates a JUnit report against Jenkins' schema (see
// xmllintSchema) and requires one test case per verdict of the JSON
// report of the same run, and a failure exactly for each regression.
func checkGateJUnit(t *testing.T, doc string, rep gateReport) {
	t.Helper()
	xmllintSchema(t, doc)
	var d junitDoc
	if err := xml.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatalf("--format junit: %v\n%.2000s", err, doc)
	}
	cases := d.Cases
	for _, s := range d.Suites {
		cases = append(cases, s.Cases...)
	}
	if len(cases) != len(rep.Verdicts) {
		t.Errorf("--format junit: %d test cases, %d verdicts in the JSON report", len(cases), len(rep.Verdicts))
	}
	var failed, regressed []string
	for _, c := range cases {
		if len(c.Failures) > 0 {
			failed = append(failed, c.Classname+" "+c.Name)
		}
	}
	for _, v := range rep.Verdicts {
		if v.Verdict == "regressed" {
			regressed = append(regressed, v.Subject)
		}
	}
	if len(failed) != len(regressed) {
		t.Errorf("--format junit: failures %q, regressions %q", failed, regressed)
	}
	for _, s := range regressed {
		if !slices.ContainsFunc(failed, func(f string) bool { return strings.Contains(f, s) }) {
			t.Errorf("--format junit: no failure names %s (failures %q)", s, failed)
		}
	}
}

// xmllintSchema validates doc with xmllint against testdata's Jenkins
// JUnit schema (testdata/jenkins-junit.xsd.md). It skips when xmllint is
// missing, unless ATRACE2_XMLLINT=require (.ci/run sets it;
// .ci/setup-xmllint.sh installs it).
func xmllintSchema(t *testing.T, doc string) {
	t.Helper()
	if err := runXmllint(t, doc); err != nil {
		t.Errorf("--format junit does not validate against Jenkins' JUnit schema: %v\n%.3000s", err, doc)
	}
}

var xmllintOnce struct {
	sync.Once
	path string
	err  error // set when the schema accepts a bad report: the check cannot fail
}

// runXmllint returns xmllint's complaint about doc, or nil.
func runXmllint(t *testing.T, doc string) error {
	t.Helper()
	xsd := filepath.Join(repoRoot(t), "e2e", "testdata", "jenkins-junit.xsd")
	check := func(path, doc string) error {
		cmd := exec.Command(path, "--noout", "--schema", xsd, "-")
		cmd.Stdin = strings.NewReader(doc)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, out.String())
		}
		return nil
	}
	xmllintOnce.Do(func() {
		p, err := exec.LookPath("xmllint")
		if err != nil {
			return
		}
		xmllintOnce.path = p
		// The check must be able to fail: a test case without its
		// required name, and an element the schema does not know.
		for _, bad := range []string{
			`<testsuites><testsuite name="s" tests="1"><testcase classname="c"/></testsuite></testsuites>`,
			`<testsuites><testsuite name="s" tests="1"><testcase name="n"><verdict/></testcase></testsuite></testsuites>`,
		} {
			if check(p, bad) == nil {
				xmllintOnce.err = fmt.Errorf("xmllint accepts the invalid report %s", bad)
			}
		}
		if check(p, `<testsuites><testsuite name="s" tests="1"><testcase name="n" classname="c"><failure message="m">x</failure></testcase></testsuite></testsuites>`) != nil {
			xmllintOnce.err = fmt.Errorf("xmllint refuses a valid report")
		}
	})
	if xmllintOnce.path == "" {
		if os.Getenv("ATRACE2_XMLLINT") == "require" {
			t.Fatal("xmllint not found and ATRACE2_XMLLINT=require (.ci/setup-xmllint.sh installs it)")
		}
		t.Log("xmllint not found: the JUnit report is not validated against the schema (.ci/setup-xmllint.sh installs it)")
		return nil
	}
	if xmllintOnce.err != nil {
		t.Fatal(xmllintOnce.err)
	}
	return check(xmllintOnce.path, doc)
}
