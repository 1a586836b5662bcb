package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// firstFrame is the oracle's first-frame phase of a tracegen.FeedApp run:
// the wall time in ns of the first Choreographer.doFrame on the main
// thread (FeedApp draws its frames after Activity.performResume).
func firstFrame(t *testing.T, tr *tracegen.Trace) float64 {
	t.Helper()
	var id uint32
	found := false
	for _, m := range tr.Methods {
		if m.Class == "android.view.Choreographer" && m.Name == "doFrame" {
			id, found = m.ID, true
		}
	}
	var enter uint32
	entered := false
	for _, r := range tr.Records {
		if !found || r.Thread != 1 || r.Method != id {
			continue
		}
		if r.Action == tracegen.Enter {
			enter, entered = r.Wall, true
			continue
		}
		if entered {
			return 1000 * float64(r.Wall-enter)
		}
	}
	t.Fatal("no doFrame on the main thread")
	return 0
}

// TestGatePhase: View.draw made 3 times slower adds 1.8 ms to every frame
// of FeedApp, about 10 ms each (+18 %), so the rule
// phase:first-frame:wall>+5% regresses with gateRuns runs a side, and holds
// without the stretch; the phase's medians are the oracle's.
func TestGatePhase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(0)
	old := writeGateSet(t, dir, "old", app, tracegen.RunOptions{Noise: gateCalm, Seed: 600}, gateRuns)
	plain := writeGateSet(t, dir, "plain", app, tracegen.RunOptions{Noise: gateCalm, Seed: 601}, gateRuns)
	slow := writeGateSet(t, dir, "slow", app, tracegen.RunOptions{Noise: gateCalm, Seed: 601, Stretch: "android.view.View.draw", Factor: 3}, gateRuns)
	frames := func(s gateSet) []float64 {
		var xs []float64
		for _, tr := range s.traces {
			xs = append(xs, firstFrame(t, tr))
		}
		return xs
	}
	oldF, plainF, slowF := frames(old), frames(plain), frames(slow)
	rule := []string{"--fail-on", "phase:first-frame:wall>+5%", "--format", "json"}
	for _, c := range []struct {
		name   string
		set    gateSet
		frames []float64
		code   int
		want   string
	}{
		{"stretched", slow, slowF, 3, gateExpect(oldF, slowF, 5, 3)},
		{"plain", plain, plainF, 0, gateExpect(oldF, plainF, 5, 3)},
	} {
		if c.want == "" {
			t.Fatalf("%s: the oracle cannot tell (old %v, new %v)", c.name, oldF, c.frames)
		}
		r := gateDiff(t, old.paths, c.set.paths, rule...)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", c.name, r.code, c.code, r.stderr)
			continue
		}
		rep := gateJSON(t, r)
		if len(rep.Verdicts) != 1 {
			t.Errorf("%s: %d verdicts, want the first frame's only: %+v", c.name, len(rep.Verdicts), rep.Verdicts)
			continue
		}
		v := rep.Verdicts[0]
		if v.Subject != "first-frame" || v.Kind != "phase" || v.Verdict != c.want {
			t.Errorf("%s: %+v, want %s of first-frame", c.name, v, c.want)
		}
		if math.Abs(v.OldMedian-gateMedian(oldF)) > 0.5 || math.Abs(v.NewMedian-gateMedian(c.frames)) > 0.5 {
			t.Errorf("%s: medians %.0f → %.0f ns, the oracle's %.0f → %.0f", c.name, v.OldMedian, v.NewMedian, gateMedian(oldF), gateMedian(c.frames))
		}
	}
}

// TestGatePhaseColdStart: tracegen.ColdStart's cold start with its first
// frame stretched twice against the plain one, 5 identical runs a side
// (every new run slower than every old one: p = 0.0079), regresses
// phase:first-frame:wall>+5% and keeps phase:bind:wall>+5% ok; the medians
// are the phase times of the generator's plan.
func TestGatePhaseColdStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, cs *tracegen.ColdStartTrace) []string {
		var paths []string
		for i := range gateRuns {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.trace", name, i))
			if err := os.WriteFile(p, cs.Trace.Regular(), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
		return paths
	}
	plain := tracegen.ColdStart(tracegen.ColdStartOptions{})
	slow := tracegen.ColdStart(tracegen.ColdStartOptions{Stretch: "first-frame", Factor: 2})
	wall := func(cs *tracegen.ColdStartTrace, phase string) float64 {
		for _, p := range cs.Phases {
			if p.Name == phase && p.Recorded {
				return 1000 * float64(p.Wall)
			}
		}
		t.Fatalf("the cold start has no phase %s", phase)
		return 0
	}
	if w0, w1 := wall(plain, "first-frame"), wall(slow, "first-frame"); w1 < 1.2*w0 || wall(plain, "bind") != wall(slow, "bind") {
		t.Fatalf("plan: first frame %.0f → %.0f ns, bind %.0f → %.0f: not the case this test needs", w0, w1, wall(plain, "bind"), wall(slow, "bind"))
	}
	r := gateDiff(t, write("plain", plain), write("slow", slow),
		"--fail-on", "phase:first-frame:wall>+5%", "--fail-on", "phase:bind:wall>+5%", "--format", "json")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	rep := gateJSON(t, r)
	want := map[string]string{"first-frame": "regressed", "bind": "ok"}
	for _, v := range rep.Verdicts {
		w, ok := want[v.Subject]
		if !ok || v.Kind != "phase" || v.Clock != "wall" {
			t.Errorf("unexpected verdict %+v", v)
			continue
		}
		delete(want, v.Subject)
		if v.Verdict != w || v.OldMedian != wall(plain, v.Subject) || v.NewMedian != wall(slow, v.Subject) {
			t.Errorf("%s: %s, %.0f → %.0f ns; the plan: %s, %.0f → %.0f", v.Subject, v.Verdict, v.OldMedian, v.NewMedian, w, wall(plain, v.Subject), wall(slow, v.Subject))
		}
	}
	if len(want) > 0 {
		t.Errorf("no verdict on %v", want)
	}
}
