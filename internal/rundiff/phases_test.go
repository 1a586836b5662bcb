package rundiff

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/tracegen"
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

// testConfig is a diff's configuration with default flags, quiet.
func testConfig(t *testing.T) *Config {
	t.Helper()
	opt, err := driver.NewOptions(driver.Flags{Quiet: true, Clock: "auto", TimeUnit: "auto", MaxDepth: 10000, MappingMismatch: "error"})
	if err != nil {
		t.Fatal(err)
	}
	return &Config{Driver: driver.New(opt, input.NewOpener(strings.NewReader("")), nil)}
}

// testPhaseSeries is phaseSeries with the run's driver.
func testPhaseSeries(t *testing.T, olds, news []input.Arg, rs []gate.Rule) ([]gate.Series, error) {
	c := testConfig(t)
	return c.phaseSeries(c.Driver, olds, news, rs)
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
