package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// TestGateExitCodes: 0 without a regression, 3 with one (gateRuns runs a side:
// 3 a side can never be significant at 0.05, p ≥ 0.1), 4 when a stretch
// passes the threshold with fewer than 3 runs a side (no test,
// inconclusive) and --inconclusive=fail, 1 for a broken trace among the
// runs, 80 for a bad rule or alpha.
func TestGateExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(0)
	const load = "com.example.feed.ImageLoader.load"
	old := writeGateSet(t, dir, "old", app, tracegen.RunOptions{Noise: gateCalm, Seed: 200}, gateRuns)
	slow := writeGateSet(t, dir, "slow", app, tracegen.RunOptions{Noise: gateCalm, Seed: 201, Stretch: load, Factor: 2}, gateRuns)
	rule := []string{"--fail-on", `ImageLoader\.load:excl>+10%`}

	bad := filepath.Join(dir, "bad.trace")
	good, err := os.ReadFile(slow.paths[0])
	if err != nil {
		t.Fatal(err)
	}
	// The key text and half the header: the records are missing.
	if err := os.WriteFile(bad, good[:strings.Index(string(good), "*end\n")+5+16], 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name     string
		old, new []string
		args     []string
		code     int
		stderr   string // a part of stderr, for exits 1 and 80
	}{
		{"regressed", old.paths, slow.paths, rule, 3, ""},
		{"regressed, inconclusive=fail", old.paths, slow.paths, append(rule, "--inconclusive=fail"), 3, ""},
		{"unchanged", old.paths, old.paths[1:], rule, 0, ""},
		{"three runs a side, inconclusive=fail", old.paths[:3], slow.paths[:3], append(rule, "--inconclusive=fail"), 4, ""},
		{"two runs a side", old.paths[:2], slow.paths[:2], rule, 0, ""},
		{"two runs a side, inconclusive=pass", old.paths[:2], slow.paths[:2], append(rule, "--inconclusive=pass"), 0, ""},
		{"two runs a side, inconclusive=fail", old.paths[:2], slow.paths[:2], append(rule, "--inconclusive=fail"), 4, ""},
		{"one run a side, inconclusive=fail", old.paths[:1], slow.paths[:1], append(rule, "--inconclusive=fail"), 4, ""},
		{"no rule", old.paths, slow.paths, nil, 0, ""},
		{"bad trace", old.paths, append(slices.Clone(slow.paths[:2]), bad), rule, 1, "bad.trace"},
		{"missing trace", old.paths, append(slices.Clone(slow.paths[:2]), filepath.Join(dir, "none.trace")), rule, 1, "none.trace"},
		{"bad rule: no threshold", old.paths, slow.paths, []string{"--fail-on", "excl"}, 80, "excl"},
		{"bad rule: metric", old.paths, slow.paths, []string{"--fail-on", "self>+10%"}, 80, "self"},
		{"bad rule: threshold", old.paths, slow.paths, []string{"--fail-on", "excl>+ten%"}, 80, "ten"},
		{"bad rule: pattern", old.paths, slow.paths, []string{"--fail-on", "load(:excl>+10%"}, 80, "load("},
		{"bad alpha: 0", old.paths, slow.paths, append(rule, "--alpha", "0"), 80, "alpha"},
		{"bad alpha: 1.5", old.paths, slow.paths, append(rule, "--alpha", "1.5"), 80, "alpha"},
		{"bad alpha: word", old.paths, slow.paths, append(rule, "--alpha", "five"), 80, "alpha"},
		{"bad --inconclusive", old.paths, slow.paths, append(rule, "--inconclusive", "maybe"), 80, "inconclusive"},
	} {
		r := gateDiff(t, c.old, c.new, c.args...)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", c.name, r.code, c.code, r.stderr)
			continue
		}
		if c.code == 1 || c.code == 80 {
			if lines := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; !strings.Contains(r.stderr, c.stderr) || c.code == 1 && lines != 1 {
				t.Errorf("%s: stderr %q, want one line naming %q", c.name, r.stderr, c.stderr)
			}
			// Flag parse errors print the usage on stdout, as every
			// command does; a data error prints nothing there.
			if c.code == 1 && r.stdout != "" {
				t.Errorf("%s: exit %d with output %.200q", c.name, c.code, r.stdout)
			}
		}
	}
}

// TestGateMarkdownCap: a run set of 8000 methods, one stretched 4 times
// (4 runs a side, all the new ones slower: p = 0.029), gives a
// --format markdown report under 1 MiB (GitHub's job-summary limit) whose
// JSON report is larger than that, with the stretched method in it (the
// largest changes come first).
func TestGateMarkdownCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(8000)
	const m = "com.example.lib.p3.C150.m150"
	old := writeGateSet(t, dir, "old", app, tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 300}, 4)
	slow := writeGateSet(t, dir, "slow", app, tracegen.RunOptions{Noise: tracegen.RealisticNoise, Seed: 301, Stretch: m, Factor: 4}, 4)
	// The rules over every method fill the report; with 8000 checks each,
	// the adjustment leaves their 4-run p-values far above alpha, so the
	// exit status 3 comes from the rule naming the stretched method (one
	// check: 4 vs 4 completely separated, p = 2/70).
	rules := []string{"--fail-on", "excl>+0%", "--fail-on", "incl>+0%", "--fail-on", "calls>+0", "--fail-on", `C150\.m150:excl>+0%`}
	md := gateDiff(t, old.paths, slow.paths, append(rules, "--format", "markdown")...)
	if md.code != 3 {
		t.Fatalf("exit %d, want 3\nstderr: %s", md.code, md.stderr)
	}
	if n := len(md.stdout); n == 0 || n >= 1<<20 {
		t.Errorf("markdown report of %d bytes, want 1 to %d", n, 1<<20-1)
	}
	if !strings.Contains(md.stdout, "left out") {
		t.Errorf("the markdown report of %d bytes says no rows were left out", len(md.stdout))
	}
	if !strings.Contains(md.stdout, "C150.m150") {
		t.Errorf("the markdown report does not name the stretched %s:\n%.2000s", m, md.stdout)
	}
	js := gateDiff(t, old.paths, slow.paths, append(rules, "--format", "json")...)
	if len(js.stdout) < 1<<20 {
		t.Errorf("the JSON report has %d bytes: the set is too small to need the markdown cap", len(js.stdout))
	}
	t.Logf("markdown %d bytes, json %d bytes", len(md.stdout), len(js.stdout))
}

// TestGateFocusBothSides: --thread and --root apply to the old and the new
// runs alike. Had either applied to one side only, the methods it drops
// would be missing from that side (counted 0) and be judged improved or
// regressed.
func TestGateFocusBothSides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(0)
	const read = "java.net.SocketInputStream.read" // on thread feed-loader
	const load = "com.example.feed.ImageLoader.load"
	old := writeGateSet(t, dir, "old", app, tracegen.RunOptions{Noise: gateCalm, Seed: 400}, gateRuns)
	slowRead := writeGateSet(t, dir, "read", app, tracegen.RunOptions{Noise: gateCalm, Seed: 401, Stretch: read, Factor: 1.5}, gateRuns)
	slowLoad := writeGateSet(t, dir, "load", app, tracegen.RunOptions{Noise: gateCalm, Seed: 401, Stretch: load, Factor: 1.5}, gateRuns)
	rules := []string{"--fail-on", "excl>+10%", "--format", "json"}

	// The oracle's methods of each thread, by the plan.
	threadOf := map[string]string{}
	for _, th := range app.Threads {
		var walk func(cs []tracegen.Call)
		walk = func(cs []tracegen.Call) {
			for i := range cs {
				threadOf[cs[i].Label()] = th.Name
				walk(cs[i].Calls)
			}
		}
		walk(th.Calls)
	}
	methods := func(rep gateReport) (all, regressed []string) {
		for _, v := range rep.Verdicts {
			if v.Kind != "method" {
				continue
			}
			if !slices.Contains(all, gateMethod(v)) {
				all = append(all, gateMethod(v))
			}
			if v.Verdict == "regressed" {
				regressed = append(regressed, gateMethod(v))
			}
			if v.Verdict == "improved" {
				t.Errorf("%s improved: a side kept what the other dropped", v.Subject)
			}
		}
		slices.Sort(all)
		return all, regressed
	}

	for _, c := range []struct {
		thread string
		set    gateSet
		code   int
	}{
		{"^main$", slowRead, 0},
		{"feed-loader", slowRead, 3},
		{"^main$", slowLoad, 3},
		{"feed-loader", slowLoad, 0},
	} {
		r := gateDiff(t, old.paths, c.set.paths, append(rules, "--thread", c.thread)...)
		if r.code != c.code {
			t.Errorf("--thread %s: exit %d, want %d\nstderr: %s", c.thread, r.code, c.code, r.stderr)
			continue
		}
		all, regressed := methods(gateJSON(t, r))
		thread := strings.Trim(c.thread, "^$")
		for _, m := range all {
			if threadOf[m] != thread {
				t.Errorf("--thread %s: verdict on %s, of thread %q", c.thread, m, threadOf[m])
			}
		}
		if c.code == 3 && (len(regressed) != 1 || regressed[0] != read && regressed[0] != load) {
			t.Errorf("--thread %s: regressed %q", c.thread, regressed)
		}
	}

	// --root keeps onBindViewHolder and what it calls.
	r := gateDiff(t, old.paths, slowLoad.paths, append(rules, "--root", `FeedAdapter\.onBindViewHolder$`)...)
	if r.code != 3 {
		t.Fatalf("--root: exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	all, regressed := methods(gateJSON(t, r))
	want := []string{"android.widget.TextView.setText", "com.example.feed.FeedAdapter.onBindViewHolder", load, "com.example.feed.Formatter.format"}
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("--root: verdicts on %q, want %q", all, want)
	}
	if !slices.Equal(regressed, []string{load}) {
		t.Errorf("--root: regressed %q, want %s", regressed, load)
	}
}

// TestGateMapping: obfuscated runs of a minified build with --mapping are
// judged by the original names on both sides: the stretched method is
// found by its deobfuscated name, with the old median of the readable
// runs (a side left obfuscated would give the method 0 there, +∞ %).
func TestGateMapping(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := tracegen.FeedApp(0)
	const load = "com.example.feed.ImageLoader.load"
	plan := &tracegen.Plan{MapID: "5a1e0c4d", Classes: []tracegen.ClassPlan{
		{Orig: "com.example.feed.ImageLoader", Obf: "a.b.c", File: "ImageLoader.java", Source: tracegen.SourceKept,
			Methods: []tracegen.MethodPlan{{Name: "load", Signature: "(Ljava/lang/String;Landroid/widget/ImageView;)V", Obf: "a"}}},
		{Orig: "com.example.feed.FeedAdapter", Obf: "a.b.d", File: "FeedAdapter.java", Source: tracegen.SourceKept,
			Methods: []tracegen.MethodPlan{
				{Name: "onBindViewHolder", Signature: "(Lcom/example/feed/FeedAdapter$Holder;I)V", Obf: "b"},
				{Name: "<init>", Signature: "(Ljava/util/List;)V"},
			}},
		{Orig: "com.example.feed.Formatter", Obf: "a.b.e", File: "Formatter.java", Source: tracegen.SourceKept,
			Methods: []tracegen.MethodPlan{{Name: "format", Signature: "(J)Ljava/lang/String;", Obf: "a"}}},
	}}
	write := func(name string, o tracegen.RunOptions) (paths []string, times []map[string][2]float64) {
		for i, tr := range app.Runs(o, gateRuns) {
			ob, err := tracegen.Obfuscate(tr, plan)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name+"-"+string(rune('0'+i))+".trace")
			if err := os.WriteFile(p, ob.Trace.Regular(), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
			times = append(times, gateTimes(tr))
		}
		return paths, times
	}
	oldP, oldT := write("old", tracegen.RunOptions{Noise: gateCalm, Seed: 500})
	newP, _ := write("new", tracegen.RunOptions{Noise: gateCalm, Seed: 501, Stretch: load, Factor: 1.5})
	m, err := tracegen.Obfuscate(app.Run(tracegen.RunOptions{}, 0), plan)
	if err != nil {
		t.Fatal(err)
	}
	mapping := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(mapping, m.R8, 0o644); err != nil {
		t.Fatal(err)
	}
	// Anchored: the obfuscated label a.b.d.b keeps FeedAdapter in its
	// signature (FeedAdapter$Holder is not renamed), and a pattern is also
	// tried on the label with the signature.
	rules := []string{"--fail-on", `^com\.example\.feed\.ImageLoader\.load$:excl>+10%`, "--fail-on", `^com\.example\.feed\.FeedAdapter\.[^.(]+$:excl>+10%`, "--format", "json"}

	r := gateDiff(t, oldP, newP, append(rules, "--mapping", mapping)...)
	if r.code != 3 {
		t.Fatalf("--mapping: exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	rep := gateJSON(t, r)
	var subjects []string
	for _, v := range rep.Verdicts {
		subjects = append(subjects, v.Subject)
		switch gateMethod(v) {
		case load:
			if v.Verdict != "regressed" {
				t.Errorf("%s: %s, want regressed", v.Subject, v.Verdict)
			}
			if want := gateMedian(gateSeries(oldT, load, 0)); v.OldMedian != want {
				t.Errorf("%s: old median %.0f ns, the readable runs' %.0f", v.Subject, v.OldMedian, want)
			}
		case "com.example.feed.FeedAdapter.onBindViewHolder", "com.example.feed.FeedAdapter.<init>":
			if v.Verdict != "ok" {
				t.Errorf("%s: %s, want ok", v.Subject, v.Verdict)
			}
		default:
			t.Errorf("verdict on %s: the rules name ImageLoader.load and FeedAdapter", v.Subject)
		}
	}
	if len(subjects) != 3 {
		t.Errorf("verdicts on %q, want load, onBindViewHolder and <init>", subjects)
	}
	// Without the map the rules' patterns match nothing.
	if r := gateDiff(t, oldP, newP, rules...); r.code != 0 || len(gateJSON(t, r).Verdicts) != 0 {
		t.Errorf("without --mapping: exit %d, verdicts %.500s", r.code, r.stdout)
	}
}
