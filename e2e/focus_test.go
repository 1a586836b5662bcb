package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// writeTrace writes a description as a regular trace file.
func writeTrace(t *testing.T, tr *tracegen.Trace, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseTrace reads a description in tracegen's text form.
func parseTrace(t *testing.T, text string) *tracegen.Trace {
	t.Helper()
	tr, err := tracegen.ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// focusTrace is the hand-computed cases' trace (dual clock, times µs as
// "cpu wall"). main: an orphan frame a.C.run [0, 30] with a.B.run
// [10, 20] inside, a.A.run [40, 100] with a.B.run [60, 90], and a.A.run
// from 120 still open at the end with a.B.run entered at 200, the trace
// end. worker: a.C.run [50, 150] with a.B.run [70, 80], which uses more
// thread CPU (13 µs) than wall time (10 µs). binder (tid 12): a.A.run
// [5, 8].
const focusTrace = `
version 3
clock dual
thread 1 main
thread 2 worker
thread 12 binder
method 0x4 a.A run ()V A.java
method 0x8 a.B run ()V B.java
method 0xc a.C run ()V C.java
12 enter 0x4 0 5
12 exit 0x4 1 8
1 enter 0x8 1 10
1 exit 0x8 3 20
1 exit 0xc 4 30
1 enter 0x4 5 40
2 enter 0xc 0 50
1 enter 0x8 7 60
2 enter 0x8 2 70
2 exit 0x8 15 80
1 exit 0x8 12 90
1 exit 0x4 13 100
1 enter 0x4 15 120
2 exit 0xc 20 150
1 enter 0x8 18 200
`

// focusCase is one hand-computed focus: the flags, and the folded lines
// expected on the wall, thread-CPU and off-CPU clocks, and the calls per
// stack (top's and pprof's), written out by hand from the rules.
type focusCase struct {
	name                  string
	args                  []string
	focus                 oFocus
	wall, cpu, off, calls string
}

var focusCases = []focusCase{{
	name:  "none",
	focus: oFocus{to: -1},
	// main: C 0→10 and 20→30 (cpu 1+1), C;B 10→20 (cpu 2); A 40→60,
	// 90→100 and the open A 120→200 (cpu 2+1+3), A;B 60→90 (cpu 5); the
	// open B [200, 200] adds nothing. worker: C 50→70, 80→150 (cpu 2+5),
	// C;B 70→80 (cpu 13 > wall 10: off-CPU 0).
	wall: `binder (tid 12);a.A.run 3
main (tid 1);a.A.run 110
main (tid 1);a.A.run;a.B.run 30
main (tid 1);a.C.run 20
main (tid 1);a.C.run;a.B.run 10
worker (tid 2);a.C.run 90
worker (tid 2);a.C.run;a.B.run 10`,
	cpu: `binder (tid 12);a.A.run 1
main (tid 1);a.A.run 6
main (tid 1);a.A.run;a.B.run 5
main (tid 1);a.C.run 2
main (tid 1);a.C.run;a.B.run 2
worker (tid 2);a.C.run 7
worker (tid 2);a.C.run;a.B.run 13`,
	off: `binder (tid 12);a.A.run 2
main (tid 1);a.A.run 104
main (tid 1);a.A.run;a.B.run 25
main (tid 1);a.C.run 18
main (tid 1);a.C.run;a.B.run 8
worker (tid 2);a.C.run 83`,
	calls: `binder (tid 12);a.A.run 1
main (tid 1);a.A.run 2
main (tid 1);a.A.run;a.B.run 2
main (tid 1);a.C.run 1
main (tid 1);a.C.run;a.B.run 1
worker (tid 2);a.C.run 1
worker (tid 2);a.C.run;a.B.run 1`,
}, {
	// [25 µs, 95 µs]: the orphan C [0, 30] straddles from (5 µs kept,
	// its CPU stretch 20→30 starts outside: 0), B [10, 20] ends before
	// it; A [40, 100] and worker's C [50, 150] straddle to (90→95 and
	// 80→95 count wall, no CPU); binder ended at 8 and the open A begins
	// at 120: gone.
	name:  "window",
	args:  []string{"--from", "25us", "--to", "95us"},
	focus: oFocus{from: 25, to: 95},
	wall: `main (tid 1);a.A.run 25
main (tid 1);a.A.run;a.B.run 30
main (tid 1);a.C.run 5
worker (tid 2);a.C.run 35
worker (tid 2);a.C.run;a.B.run 10`,
	cpu: `main (tid 1);a.A.run 2
main (tid 1);a.A.run;a.B.run 5
worker (tid 2);a.C.run 2
worker (tid 2);a.C.run;a.B.run 13`,
	off: `main (tid 1);a.A.run 23
main (tid 1);a.A.run;a.B.run 25
main (tid 1);a.C.run 5
worker (tid 2);a.C.run 33`,
	calls: `main (tid 1);a.A.run 1
main (tid 1);a.A.run;a.B.run 1
main (tid 1);a.C.run 1
worker (tid 2);a.C.run 1
worker (tid 2);a.C.run;a.B.run 1`,
}, {
	// From 150 µs to the end: the open A [120, 200] is cut at 150 (50 µs,
	// no CPU: its stretch began at 120); the open B [200, 200] and
	// worker's C, which ends at 150 exactly, meet the closed window at
	// an instant: each is a call with no time.
	name:  "from-open-frames",
	args:  []string{"--from", "150us"},
	focus: oFocus{from: 150, to: -1},
	wall:  `main (tid 1);a.A.run 50`,
	cpu:   ``,
	off:   `main (tid 1);a.A.run 50`,
	calls: `main (tid 1);a.A.run 1
main (tid 1);a.A.run;a.B.run 1
worker (tid 2);a.C.run 1`,
}, {
	// To 10 µs: only the orphan C (from the trace start) and binder's A
	// meet it; B [10, 20] touches it at its begin. C's stretch 0→10 lies
	// in the window, so its CPU time counts.
	name:  "to-orphan",
	args:  []string{"--to", "10us"},
	focus: oFocus{to: 10},
	wall: `binder (tid 12);a.A.run 3
main (tid 1);a.C.run 10`,
	cpu: `binder (tid 12);a.A.run 1
main (tid 1);a.C.run 1`,
	off: `binder (tid 12);a.A.run 2
main (tid 1);a.C.run 9`,
	calls: `binder (tid 12);a.A.run 1
main (tid 1);a.C.run 1
main (tid 1);a.C.run;a.B.run 1`,
}, {
	name:  "thread-name",
	args:  []string{"--thread", "work"},
	focus: oFocus{threads: []string{"work"}, to: -1},
	wall: `worker (tid 2);a.C.run 90
worker (tid 2);a.C.run;a.B.run 10`,
	cpu: `worker (tid 2);a.C.run 7
worker (tid 2);a.C.run;a.B.run 13`,
	off: `worker (tid 2);a.C.run 83`,
	calls: `worker (tid 2);a.C.run 1
worker (tid 2);a.C.run;a.B.run 1`,
}, {
	// "1" is tid 1 exactly: not tid 12, and no name contains a 1. The
	// open frames still end at the whole trace's end.
	name:  "thread-tid",
	args:  []string{"--thread", "1"},
	focus: oFocus{threads: []string{"1"}, to: -1},
	wall: `main (tid 1);a.A.run 110
main (tid 1);a.A.run;a.B.run 30
main (tid 1);a.C.run 20
main (tid 1);a.C.run;a.B.run 10`,
	cpu: `main (tid 1);a.A.run 6
main (tid 1);a.A.run;a.B.run 5
main (tid 1);a.C.run 2
main (tid 1);a.C.run;a.B.run 2`,
	off: `main (tid 1);a.A.run 104
main (tid 1);a.A.run;a.B.run 25
main (tid 1);a.C.run 18
main (tid 1);a.C.run;a.B.run 8`,
	calls: `main (tid 1);a.A.run 2
main (tid 1);a.A.run;a.B.run 2
main (tid 1);a.C.run 1
main (tid 1);a.C.run;a.B.run 1`,
}, {
	// Repeated: a tid or a name.
	name:  "thread-both",
	args:  []string{"--thread", "12", "--thread", "^work"},
	focus: oFocus{threads: []string{"12", "^work"}, to: -1},
	wall: `binder (tid 12);a.A.run 3
worker (tid 2);a.C.run 90
worker (tid 2);a.C.run;a.B.run 10`,
	cpu: `binder (tid 12);a.A.run 1
worker (tid 2);a.C.run 7
worker (tid 2);a.C.run;a.B.run 13`,
	off: `binder (tid 12);a.A.run 2
worker (tid 2);a.C.run 83`,
	calls: `binder (tid 12);a.A.run 1
worker (tid 2);a.C.run 1
worker (tid 2);a.C.run;a.B.run 1`,
}, {
	// a.B.run becomes the root of every stack that has it.
	name:  "root",
	args:  []string{"--root", `B\.run`},
	focus: oFocus{root: regexp.MustCompile(`B\.run`), to: -1},
	wall: `main (tid 1);a.B.run 40
worker (tid 2);a.B.run 10`,
	cpu: `main (tid 1);a.B.run 7
worker (tid 2);a.B.run 13`,
	off: `main (tid 1);a.B.run 33`,
	calls: `main (tid 1);a.B.run 3
worker (tid 2);a.B.run 1`,
}, {
	// Threads, then the window, then the root.
	name:  "combined",
	args:  []string{"--thread", "main", "--from", "25us", "--to", "95us", "--root", `^a\.A\.`},
	focus: oFocus{threads: []string{"main"}, from: 25, to: 95, root: regexp.MustCompile(`^a\.A\.`)},
	wall: `main (tid 1);a.A.run 25
main (tid 1);a.A.run;a.B.run 30`,
	cpu: `main (tid 1);a.A.run 2
main (tid 1);a.A.run;a.B.run 5`,
	off: `main (tid 1);a.A.run 23
main (tid 1);a.A.run;a.B.run 25`,
	calls: `main (tid 1);a.A.run 1
main (tid 1);a.A.run;a.B.run 1`,
}}

// recursionTrace: a.R.rec calls a.Y.run, which calls a.R.rec twice
// nested, all inside a.X.run; a.Y.run is called again outside a.R.rec.
const recursionTrace = `
version 3
clock dual
thread 1 main
method 0x4 a.X run ()V X.java
method 0x8 a.R rec ()V R.java
method 0xc a.Y run ()V Y.java
1 enter 0x4 0 0
1 enter 0x8 1 10
1 enter 0xc 2 20
1 enter 0x8 3 30
1 enter 0x8 4 35
1 exit 0x8 5 40
1 exit 0x8 6 50
1 exit 0xc 7 60
1 exit 0x8 8 70
1 enter 0xc 9 80
1 exit 0xc 10 90
1 exit 0x4 11 100
`

// TestFocusHandComputed checks every output against the hand-computed
// folded stacks of each rule, and the oracle against them too.
func TestFocusHandComputed(t *testing.T) {
	tr := parseTrace(t, focusTrace)
	path := writeTrace(t, tr, "focus.trace")
	for _, c := range focusCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := oracle(tr, c.focus)
			for clock, hand := range map[string]string{"wall": c.wall, "cpu": c.cpu, "offcpu": c.off, "calls": c.calls} {
				if got := project(want, clock); got != hand {
					t.Errorf("the oracle disagrees with the hand-computed %s stacks:\n%s\nwant\n%s", clock, got, hand)
				}
			}
			checkOutputs(t, path, c.args, want, true)
		})
	}
}

// TestFocusRootRecursion: under --root the outermost a.R.rec becomes the
// root; the inner ones stay in the stacks and count once (inclusive time
// is the whole focused total); a.X.run and the a.Y.run outside a.R.rec
// are dropped.
func TestFocusRootRecursion(t *testing.T) {
	tr := parseTrace(t, recursionTrace)
	path := writeTrace(t, tr, "recursion.trace")
	re := regexp.MustCompile(`R\.rec$`)
	want := oracle(tr, oFocus{root: re, to: -1})
	const wall = `main (tid 1);a.R.rec 20
main (tid 1);a.R.rec;a.Y.run 20
main (tid 1);a.R.rec;a.Y.run;a.R.rec 15
main (tid 1);a.R.rec;a.Y.run;a.R.rec;a.R.rec 5`
	const cpu = `main (tid 1);a.R.rec 2
main (tid 1);a.R.rec;a.Y.run 2
main (tid 1);a.R.rec;a.Y.run;a.R.rec 2
main (tid 1);a.R.rec;a.Y.run;a.R.rec;a.R.rec 1`
	if got := project(want, "wall"); got != wall {
		t.Errorf("oracle wall:\n%s", got)
	}
	if got := project(want, "cpu"); got != cpu {
		t.Errorf("oracle cpu:\n%s", got)
	}
	checkOutputs(t, path, []string{"--root", `R\.rec$`}, want, true)
	// top: a.R.rec's inclusive time is the focused total, counted once.
	var top struct {
		Tables []struct {
			Total []int64 `json:"total_ns"`
			Rows  []struct {
				Method    string  `json:"method"`
				Calls     int64   `json:"calls"`
				Recursive int64   `json:"recursive_calls"`
				Incl      []int64 `json:"incl_ns"`
			} `json:"rows"`
		} `json:"tables"`
	}
	out := run(t, "top", "-q", "--format", "json", "--root", `R\.rec$`, path)
	if err := jsonUnmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range top.Tables[0].Rows {
		if r.Method == "a.R.rec" {
			found = true
			if r.Incl[0] != 60000 || r.Incl[0] != top.Tables[0].Total[0] || r.Calls != 3 || r.Recursive != 2 {
				t.Errorf("top a.R.rec: incl %v (total %v), calls %d, recursive %d; want 60 µs = the total, 3 calls, 2 recursive",
					r.Incl, top.Tables[0].Total, r.Calls, r.Recursive)
			}
		}
	}
	if !found {
		t.Errorf("top has no a.R.rec row:\n%s", out)
	}
}

// checkOutputs runs every output of path with the focus args and
// requires each to equal the expected stacks: folded on the wall,
// thread-CPU and off-CPU clocks; pprof's wall, cpu, calls (and offcpu
// when it has the type); top's exclusive times and calls per method and
// its totals; speedscope's self times on both timelines and its opens;
// Perfetto's slices as trace_processor imports them. calls says whether
// the expected calls are exact (every output counts a cut frame as one
// call).
func checkOutputs(t *testing.T, path string, args []string, want map[string]*oStack, calls bool) {
	t.Helper()
	checkOutputsClocks(t, path, args, want, calls, true)
}

// checkOutputsClocks is checkOutputs for a trace with both clocks
// (dual) or the wall clock only.
func checkOutputsClocks(t *testing.T, path string, args []string, want map[string]*oStack, calls, dual bool) {
	t.Helper()
	clocks := []string{"wall"}
	if dual {
		clocks = append(clocks, "cpu")
	}
	dir := t.TempDir()
	with := func(cmd string, extra ...string) []string {
		return append(append(append([]string{cmd, "-q"}, args...), extra...), path)
	}
	compare := func(what, clock, got string) {
		t.Helper()
		if w := project(want, clock); got != w {
			t.Errorf("%s (%s): got\n%s\nwant\n%s", what, strings.Join(args, " "), got, w)
		}
	}
	for _, clock := range clocks {
		if out, ok := tryRun(t, with("folded", "--clock", clock)...); ok {
			compare("folded --clock "+clock, clock, project(parseFolded(t, out, clock), clock))
		}
	}
	if !dual {
		// Nothing more to check on the clock.
	} else if r := atrace2(t, nil, with("folded", "--clock", "offcpu")...); r.code != 0 {
		t.Errorf("folded --clock offcpu %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	} else {
		off := parseFolded(t, r.stdout, "wall")
		for _, s := range off {
			s.cpu = 0
		}
		compare("folded --clock offcpu", "offcpu", project(off, "wall"))
	}

	pb := filepath.Join(dir, "p.pb.gz")
	run(t, with("pprof", "-o", pb)...)
	ps, poff, types := pprofStacks(t, pb)
	compare("pprof wall", "wall", project(ps, "wall"))
	compare("pprof cpu", "cpu", project(ps, "cpu"))
	if calls {
		compare("pprof calls", "calls", project(ps, "calls"))
	}
	if !dual {
		if strings.Join(types, " ") != "calls/count wall/nanoseconds" {
			t.Errorf("pprof sample types %v on a wall-clock trace", types)
		}
	} else if strings.Join(types, " ") != "calls/count cpu/nanoseconds wall/nanoseconds offcpu/nanoseconds" {
		t.Errorf("pprof sample types %v, want calls, cpu, wall, offcpu", types)
	} else {
		offs := map[string]*oStack{}
		for k, v := range poff {
			offs[k] = &oStack{wall: v}
		}
		compare("pprof offcpu", "offcpu", project(offs, "wall"))
	}

	methods, total := topMethods(t, with("top")[1:]...)
	wantMethods := oMethods(want)
	wantTotal, wantOff := oTotals(want)
	if total.wall != wantTotal.wall || total.cpu != wantTotal.cpu {
		t.Errorf("top totals (%s): wall %d cpu %d, want %d %d", strings.Join(args, " "), total.wall, total.cpu, wantTotal.wall, wantTotal.cpu)
	}
	for _, clock := range []string{"wall", "cpu", "calls"} {
		if clock == "calls" && !calls {
			continue
		}
		got, w := project(methods, clock), project(wantMethods, clock)
		if got != w {
			t.Errorf("top %s per method (%s): got\n%s\nwant\n%s", clock, strings.Join(args, " "), got, w)
		}
	}
	if !dual {
		// No off-CPU clock.
	} else if r := atrace2(t, nil, append([]string{"top", "-q", "--format", "json", "-n", "0", "--clock", "offcpu"}, append(append([]string{}, args...), path)...)...); r.code != 0 {
		t.Errorf("top --clock offcpu: exit %d: %s", r.code, r.stderr)
	} else {
		var top topJSON
		i := -1
		if err := jsonUnmarshal(r.stdout, &top); err == nil && len(top.Tables) == 1 {
			i = slices.Index(top.Clocks, "offcpu")
		}
		if i < 0 {
			t.Errorf("top --clock offcpu: no offcpu clock in %.300s", r.stdout)
		} else if got := top.Tables[0].Total[i] / 1000; got != wantOff {
			t.Errorf("top --clock offcpu (%s): total %d µs, want %d (the per-stack sum)", strings.Join(args, " "), got, wantOff)
		}
	}

	for _, clock := range clocks {
		out, ok := tryRun(t, with("speedscope", "--clock", clock)...)
		if !ok {
			continue
		}
		ss := speedscopeStacks(t, out)
		if clock == "cpu" {
			for _, s := range ss {
				s.cpu, s.wall = s.wall, 0
			}
		}
		compare("speedscope --clock "+clock, clock, project(ss, clock))
		if calls && clock == "wall" {
			compare("speedscope opens", "calls", project(ss, "calls"))
		}
	}

	tp := traceProcessor(t)
	pf := filepath.Join(dir, "p.perfetto-trace")
	run(t, with("perfetto", "-o", pf)...)
	pst, slices := perfettoStacks(t, tp, pf)
	compare("perfetto self wall", "wall", project(pst, "wall"))
	compare("perfetto self thread time", "cpu", project(pst, "cpu"))
	if calls {
		compare("perfetto slices", "calls", project(pst, "calls"))
	}
	if dual {
		checkPerfettoOffCPU(t, slices)
	}
}

// jsonUnmarshal decodes a command's JSON output.
func jsonUnmarshal(out string, v any) error { return json.Unmarshal([]byte(out), v) }

// TestFocusUsageErrors: a focus that cannot apply to the input, or that
// cannot be read, is one line on stderr and exit 80 (usage), before any
// output is written; a window on a trace whose data has no wall clock is
// a data error (exit 1).
func TestFocusUsageErrors(t *testing.T) {
	dir := t.TempDir()
	dual := writeTrace(t, parseTrace(t, focusTrace), "dual.trace")
	cpuOnly := parseTrace(t, focusTrace)
	cpuOnly.Clock, cpuOnly.Version = "thread-cpu", 2
	for i := range cpuOnly.Records {
		cpuOnly.Records[i].Wall = 0
	}
	cpuPath := writeTrace(t, cpuOnly, "cpu.trace")
	wallOnly := parseTrace(t, focusTrace)
	wallOnly.Clock, wallOnly.Version = "wall", 2
	for i := range wallOnly.Records {
		wallOnly.Records[i].CPU = 0
	}
	wallPath := writeTrace(t, wallOnly, "wall.trace")
	sampled := sampledInputs(t, dir)
	var hprof, art string
	for _, p := range sampled {
		switch filepath.Base(p) {
		case "dalvik.hprof":
			hprof = p
		case "art.prof":
			art = p
		}
	}
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		mention string
	}{
		{"window on a sampled profile", []string{"folded", "--from", "1ms", hprof}, 80, "--from"},
		{"--to on a sampled profile", []string{"top", "--to", "1ms", hprof}, 80, "--to"},
		{"window on an ART profile", []string{"pprof", "-o", filepath.Join(dir, "x.pb.gz"), "--from", "1ms", art}, 80, "--from"},
		{"--thread on an ART profile", []string{"folded", "--thread", "main", art}, 80, "--thread"},
		{"window on a thread-CPU-only trace", []string{"folded", "--from", "10us", cpuPath}, 1, "wall clock"},
		{"window on a thread-CPU-only trace, perfetto", []string{"perfetto", "-o", filepath.Join(dir, "x.pftrace"), "--to", "10us", cpuPath}, 1, "wall clock"},
		{"window with --clock cpu on a wall-clock trace", []string{"folded", "--clock", "cpu", "--from", "10us", wallPath}, 80, "cpu"},
		{"invalid --thread regexp", []string{"folded", "--thread", "(", dual}, 80, "--thread"},
		{"invalid --root regexp", []string{"folded", "--root", "a[", dual}, 80, "--root"},
		{"invalid --root regexp, sampled", []string{"top", "--root", "a[", hprof}, 80, "--root"},
		{"invalid --from", []string{"folded", "--from", "soon", dual}, 80, "--from"},
		{"--from after --to", []string{"folded", "--from", "2ms", "--to", "1ms", dual}, 80, "--from"},
		{"negative --from", []string{"folded", "--from=-1ms", dual}, 80, "--from"},
		{"offcpu on a wall-clock trace", []string{"folded", "--clock", "offcpu", wallPath}, 80, "offcpu"},
		{"offcpu on a thread-CPU trace", []string{"top", "--clock", "offcpu", cpuPath}, 80, "offcpu"},
		{"offcpu sort on a wall-clock trace", []string{"top", "-q", "--sort", "offcpu", wallPath}, 80, "offcpu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := atrace2(t, nil, c.args...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != c.code || len(lines) != 1 || !strings.HasPrefix(lines[0], "atrace2: ") || !strings.Contains(r.stderr, c.mention) {
				t.Errorf("atrace2 %s: exit %d, stderr %q; want exit %d and one line naming %s",
					strings.Join(c.args, " "), r.code, r.stderr, c.code, c.mention)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "x.*"))
			for _, l := range left {
				t.Errorf("left %s behind", l)
				os.Remove(l)
			}
		})
	}
}

// TestFocusSummary: the repair summary and info say what the focus kept,
// counted after the threads (the totals are of the kept threads), and
// after the window and the root: threads first, then the window, then the
// root. On focusTrace with --thread main, [25, 95] µs and --root ^a\.A\.:
// 1 of 3 threads; main has 6 frames, of which the window keeps 3 (the
// orphan C, A and its B) and the root 2 (A and its B); main's wall time is
// 170 µs, of which 55 µs are kept.
func TestFocusSummary(t *testing.T) {
	path := writeTrace(t, parseTrace(t, focusTrace), "focus.trace")
	args := []string{"--thread", "main", "--from", "25us", "--to", "95us", "--root", `^a\.A\.`}
	r := atrace2(t, nil, append(append([]string{"folded"}, args...), path)...)
	var focus string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "focus:") {
			focus = l
		}
	}
	for _, want := range []string{"1 of 3 threads", "2 of 6 frames", "55 µs of 170 µs"} {
		if !strings.Contains(focus, want) {
			t.Errorf("focus summary %q does not say %q (stderr %q)", focus, want, r.stderr)
		}
	}
	info := atrace2(t, nil, append(append([]string{"info"}, args...), path)...)
	for _, want := range []string{"1 of 3 threads", "2 of 6 frames", "55 µs of 170 µs"} {
		if !strings.Contains(info.stdout, want) {
			t.Errorf("info does not say %q:\n%s", want, info.stdout)
		}
	}
	// Without a focus, nothing is said.
	if r := atrace2(t, nil, "folded", path); strings.Contains(r.stderr, "focus:") {
		t.Errorf("unfocused stderr mentions a focus: %q", r.stderr)
	}
}

// TestFocusTimelineCuts: in the timelines a window keeps the trace's own
// times (Perfetto, speedscope and dump are not shifted), frames crossing
// a boundary begin or end at it, and dump and Perfetto mark those cuts as
// they mark the policy's synthetic frames. On focusTrace with [25, 95] µs:
// main's orphan a.C.run [0, 30] begins at 25, main's a.A.run [40, 100]
// and worker's a.C.run [50, 150] end at 95.
func TestFocusTimelineCuts(t *testing.T) {
	path := writeTrace(t, parseTrace(t, focusTrace), "focus.trace")
	window := []string{"--from", "25us", "--to", "95us"}

	// dump: the cut begin and ends at the boundaries, with a mark.
	dump := run(t, append(append([]string{"dump", "-q"}, window...), path)...)
	type line struct{ tid, action, wall, method string }
	var lines []line
	for _, l := range strings.Split(dump, "\n") {
		f := strings.Fields(l)
		if len(f) < 6 || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, line{f[0], f[2], f[3], f[len(f)-2]})
	}
	find := func(tid, wall, method string, begin bool) string {
		for _, l := range lines {
			if l.tid == tid && l.wall == wall && l.method == method && strings.HasPrefix(l.action, "enter") == begin {
				return l.action
			}
		}
		t.Errorf("dump has no %s of %s on tid %s at %s µs:\n%s", map[bool]string{true: "enter", false: "exit"}[begin], method, tid, wall, dump)
		return ""
	}
	legend, _, _ := strings.Cut(dump, "\n")
	if !strings.Contains(legend, "cut") {
		t.Errorf("dump's legend does not explain the cut mark: %q", legend)
	}
	for _, c := range []struct {
		tid, wall, method string
		begin             bool
	}{{"1", "25", "a.C.run", true}, {"1", "95", "a.A.run", false}, {"2", "95", "a.C.run", false}} {
		if a := find(c.tid, c.wall, c.method, c.begin); a == "enter" || a == "exit" || a == "enter*" {
			t.Errorf("dump: the cut %s of %s at %s µs is not marked: %q", a, c.method, c.wall, a)
		}
	}
	if a := find("1", "60", "a.B.run", true); a != "enter" {
		t.Errorf("dump: a.B.run at 60 µs is not cut, but reads %q", a)
	}

	// speedscope: the same times, not shifted.
	out := run(t, append(append([]string{"speedscope", "-q"}, window...), path)...)
	for _, want := range []string{`"type":"O","at":25,`, `"type":"C","at":95,`} {
		if !strings.Contains(out, want) {
			t.Errorf("speedscope has no event %s:\n%s", want, out)
		}
	}

	// Perfetto: the slices' times are the trace's, the cut ones say so.
	tp := traceProcessor(t)
	pf := filepath.Join(t.TempDir(), "w.perfetto-trace")
	run(t, append(append([]string{"perfetto", "-q", "-o", pf}, window...), path)...)
	_, slices := perfettoStacks(t, tp, pf)
	var got []string
	for _, s := range slices {
		got = append(got, s.key)
	}
	q := filepath.Join(t.TempDir(), "ts.sql")
	if err := os.WriteFile(q, []byte(`select t.tid, s.ts, s.dur, s.name, exists(select 1 from args a where a.arg_set_id = s.arg_set_id and (a.key like '%cut%' or a.display_value like '%cut%')) as cut from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid) order by t.tid, s.ts, s.depth;`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tp, "-q", q, pf)
	tpOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("trace_processor: %v", err)
	}
	const wantSlices = `"tid","ts","dur","name","cut"
1,25000,5000,"a.C.run",1
1,40000,55000,"a.A.run",1
1,60000,30000,"a.B.run",0
2,50000,45000,"a.C.run",1
2,70000,10000,"a.B.run",0
`
	if string(tpOut) != wantSlices {
		t.Errorf("perfetto slices (%v):\n%s\nwant\n%s", got, tpOut, wantSlices)
	}
}
