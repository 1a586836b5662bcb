package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/startup"
)

// writeColdStart writes tracegen.ColdStart(opt) to dir/name.
func writeColdStart(t *testing.T, dir, name string, opt tracegen.ColdStartOptions) (string, *tracegen.ColdStartTrace) {
	t.Helper()
	cs := tracegen.ColdStart(opt)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, cs.Trace.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, cs
}

// TestStartupGolden: the text and JSON of the generated cold start, and
// of the one whose tracing started inside bind.
func TestStartupGolden(t *testing.T) {
	dir := t.TempDir()
	cold, _ := writeColdStart(t, dir, "cold.trace", tracegen.ColdStartOptions{})
	late, _ := writeColdStart(t, dir, "late.trace", tracegen.ColdStartOptions{LateStart: true})
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"startup-cold.txt", []string{"startup", cold}},
		{"startup-cold.json", []string{"startup", "--format", "json", cold}},
		{"startup-late.txt", []string{"startup", "-q", late}},
	} {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.golden, strings.ReplaceAll(out, dir, "TMP"))
	}
}

// TestStartupJSON compares the JSON of every phase of several traces with
// what the generator says, and checks that they come as an array.
func TestStartupJSON(t *testing.T) {
	dir := t.TempDir()
	opts := []tracegen.ColdStartOptions{{}, {LateStart: true}, {Stretch: "first-frame", Factor: 2}}
	var paths []string
	var want []*tracegen.ColdStartTrace
	for i, o := range opts {
		p, cs := writeColdStart(t, dir, fmt.Sprintf("run%d.trace", i), o)
		paths, want = append(paths, p), append(want, cs)
	}
	code, out, errOut := runCLI(t, nil, append([]string{"startup", "-q", "--format", "json"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var reps []startup.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("not a JSON array of reports: %v\n%s", err, out)
	}
	if len(reps) != len(opts) {
		t.Fatalf("%d reports, want %d", len(reps), len(opts))
	}
	for i, r := range reps {
		if r.Trace != paths[i] {
			t.Errorf("report %d is of %s, want %s", i, r.Trace, paths[i])
		}
		for j, g := range want[i].Phases {
			p := r.Phases[j]
			got := [6]int64{p.Begin, p.End, p.Wall, p.CPU, p.OffCPU, int64(len(p.Top))}
			exp := [6]int64{1000 * int64(g.Begin), 1000 * int64(g.End), 1000 * int64(g.Wall), 1000 * int64(g.CPU), 1000 * int64(g.OffCPU), int64(len(g.Top))}
			if p.Name != g.Name || p.Recorded != g.Recorded || got != exp {
				t.Errorf("%s %s: got %v recorded %v, want %v recorded %v", paths[i], g.Name, got, p.Recorded, exp, g.Recorded)
			}
			for k, m := range g.Top {
				if p.Top[k].Name != m.Name || p.Top[k].Wall != 1000*int64(m.Wall) {
					t.Errorf("%s %s top %d: %+v, want %+v", paths[i], g.Name, k, p.Top[k], m)
				}
			}
		}
	}
}

// TestStartupRefusals: the flags that hide part of the main thread and
// sampled profiles are usage errors.
func TestStartupRefusals(t *testing.T) {
	cold, _ := writeColdStart(t, t.TempDir(), "cold.trace", tracegen.ColdStartOptions{})
	ar, err := txtar.ParseFile("../../samples/testdata/cases/jvm-samples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	hprof := filepath.Join(t.TempDir(), "p.hprof.txt")
	if err := os.WriteFile(hprof, ar.Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"startup", "--thread", "main", cold}, `--thread: startup phases are always read on the main thread`},
		{[]string{"startup", "--root", "doFrame", cold}, `--root: `},
		{[]string{"startup", "--from", "1ms", cold}, `--from/--to: `},
		{[]string{"startup", hprof}, `has no timestamps; startup phases need a method trace`},
	} {
		code, _, errOut := runCLI(t, nil, c.args...)
		if code != exitUsage || !regexp.MustCompile(c.stderr).MatchString(errOut) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.stderr)
		}
	}
}

// testEnv is the run of a command with default flags, quiet.
func testEnv(t *testing.T) *env {
	t.Helper()
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, opener: input.NewOpener(strings.NewReader(""))}
	opt, err := driver.NewOptions(driver.Flags{Quiet: true, Clock: "auto", TimeUnit: "auto", MaxDepth: 10000, MappingMismatch: "error"})
	if err != nil {
		t.Fatal(err)
	}
	e.opt, e.d = opt, driver.New(opt, e.opener, nil)
	return e
}

// testPhaseSeries is phaseSeries with the run's driver.
func testPhaseSeries(t *testing.T, olds, news []input.Arg, rs []gate.Rule) ([]gate.Series, error) {
	e := testEnv(t)
	return phaseSeries(e, e.d, olds, news, rs)
}

func rules(t *testing.T, texts ...string) []gate.Rule {
	t.Helper()
	var rs []gate.Rule
	for _, s := range texts {
		r, err := gate.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestPhaseSeries: one series per (phase, clock) the rules name, with
// each run's phase time; first-frame stretched 3× in the new runs.
func TestPhaseSeries(t *testing.T) {
	dir := t.TempDir()
	var olds, news []input.Arg
	for i := range 4 {
		p, _ := writeColdStart(t, dir, fmt.Sprintf("old%d.trace", i), tracegen.ColdStartOptions{})
		olds = append(olds, input.Arg{Path: p})
		p, _ = writeColdStart(t, dir, fmt.Sprintf("new%d.trace", i), tracegen.ColdStartOptions{Stretch: "first-frame", Factor: 3})
		news = append(news, input.Arg{Path: p})
	}
	rs := rules(t, "incl>+10%", "phase:first-frame>+5%", "phase:first-frame:cpu>+5%", "phase:first-frame:wall>+1ms", "phase:bind:offcpu>+5%")
	series, err := testPhaseSeries(t, olds, news, rs)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: first-frame 11,100 µs wall, 7,800 µs CPU; 3× its self times.
	f := func(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }
	want := []gate.Series{
		{Subject: "first-frame", Kind: gate.Phase, Metric: "phase", Clock: "wall", Old: f(11_100_000, 4), New: f(33_300_000, 4)},
		{Subject: "first-frame", Kind: gate.Phase, Metric: "phase", Clock: "cpu", Old: f(7_800_000, 4), New: f(23_400_000, 4)},
		{Subject: "bind", Kind: gate.Phase, Metric: "phase", Clock: "offcpu", Old: f(9_050_000, 4), New: f(9_050_000, 4)},
	}
	if fmt.Sprint(series) != fmt.Sprint(want) {
		t.Fatalf("series\n%+v\nwant\n%+v", series, want)
	}
	res := gate.Evaluate(rs, series, gate.Options{Alpha: 0.05}).Results
	verdicts := map[string]gate.Verdict{}
	for _, r := range res {
		verdicts[r.Rule+" "+r.Subject] = r.Verdict
	}
	for _, k := range []string{"phase:first-frame>+5% first-frame", "phase:first-frame:cpu>+5% first-frame", "phase:first-frame:wall>+1ms first-frame"} {
		if verdicts[k] != gate.Regressed {
			t.Errorf("%s: %s, want regressed (all: %v)", k, verdicts[k], verdicts)
		}
	}
	if v := verdicts["phase:bind:offcpu>+5% bind"]; v != gate.OK {
		t.Errorf("bind: %s, want ok", v)
	}
	if s, err := testPhaseSeries(t, olds, news, rules(t, "incl>+1%")); err != nil || s != nil {
		t.Errorf("no phase rule: %v, %v; want none", s, err)
	}
}

func TestPhaseSeriesErrors(t *testing.T) {
	dir := t.TempDir()
	cold, _ := writeColdStart(t, dir, "cold.trace", tracegen.ColdStartOptions{})
	late, _ := writeColdStart(t, dir, "late.trace", tracegen.ColdStartOptions{LateStart: true})
	wall, cs := writeColdStart(t, dir, "wall.trace", tracegen.ColdStartOptions{})
	cs.Trace.Clock = "wall"
	if err := os.WriteFile(wall, cs.Trace.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	arg := func(p string) []input.Arg { return []input.Arg{{Path: p}} }
	for _, c := range []struct {
		old, new string
		rule     string
		usage    bool
		err      string
	}{
		{cold, cold, "phase:first-draw>+5%", true, `no startup phase "first-draw"; the phases are bind, application-create, activity-create, activity-start, activity-resume, first-frame, fully-drawn`},
		{cold, late, "phase:bind>+5%", false, `late.trace: phase bind: not recorded \(began before tracing started\)`},
		{cold, wall, "phase:activity-create:cpu>+5%", false, `wall.trace: phase activity-create: the trace has no cpu time`},
		{"-", cold, "phase:bind>+5%", true, `<stdin>: phase rules read each run a second time`},
	} {
		_, err := testPhaseSeries(t, arg(c.old), arg(c.new), rules(t, c.rule))
		var ue *driver.UsageError
		if err == nil || !regexp.MustCompile(c.err).MatchString(err.Error()) || asUsage(err, &ue) != c.usage {
			t.Errorf("%s: error %v (usage %v), want %q (usage %v)", c.rule, err, asUsage(err, &ue), c.err, c.usage)
		}
	}
}

func asUsage(err error, ue **driver.UsageError) bool {
	u, ok := err.(*driver.UsageError)
	*ue = u
	return ok
}

// TestStartupCorpus checks the phases of the real traces (../shared/corpus)
// that have any: ART on Android 8 (-wrap11 accessors) and Dalvik.
func TestStartupCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not available at %s: %v", dir, err)
	}
	// Phase: begin, end, wall, cpu (µs); "-" when not recorded. Every
	// trace but test1 was recorded in sampling mode (info says so), and the
	// report notes it.
	for _, c := range []struct {
		file   string
		phases string
	}{
		{"Flank-mirror-goog-studio-main__streaming.trace", "activity-create 16959576 17019879 60303 24267; activity-start 17019879 17022316 2437 1659; activity-resume 17022316 17025045 2729 1353; first-frame 17037646 17112680 75034 16684"},
		{"firefox-devtools-profiler__art-trace-regular.trace.gz", "activity-create -; activity-start 120020 125623 5603 4048; activity-resume 125623 131248 5625 3796; first-frame 246627 264582 17955 5677"},
		{"zhkl0228-TraceReader__test2.trace", "activity-create 2282664 3338351 1055687 538717"},
		{"Grigory-Rylov-android-methods-profiler__legacy.trace", "activity-create -"},
		{"zhkl0228-TraceReader__test1.trace", ""},
	} {
		code, out, errOut := runCLI(t, nil, "startup", "-q", "--format", "json", filepath.Join(dir, c.file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errOut)
		}
		var rs []startup.Report
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("%s: %d reports, want an array of 1", c.file, len(rs))
		}
		r := rs[0]
		var got []string
		for _, p := range r.Phases {
			switch {
			case p.Recorded:
				got = append(got, fmt.Sprintf("%s %d %d %d %d", p.Name, p.Begin/1000, p.End/1000, p.Wall/1000, p.CPU/1000))
			case p.Reason != startup.ReasonMissing:
				got = append(got, p.Name+" -")
			}
		}
		if s := strings.Join(got, "; "); s != c.phases {
			t.Errorf("%s:\n got %s\nwant %s", c.file, s, c.phases)
		}
		sampled := !strings.Contains(c.file, "test1")
		if noted := len(r.Notes) == 1 && strings.HasPrefix(r.Notes[0], "looks like a sampling-mode trace"); noted != sampled {
			t.Errorf("%s: notes %q; want the sampling-mode note: %v", c.file, r.Notes, sampled)
		}
	}
}
