package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// rootTrace writes a dual-clock trace (µs) for --root:
//
//	main:   A(10 wall, 4 cpu) { B(6, 2) { A(4, 2) { C(2, 2) } } }, idle 100, D(8, 2) { A(6, 2) }
//	worker: B(7, 3)
//	bg:     A(2, 2), then an exit of O, which it never entered: O is an
//	        orphan frame around A, open from the trace start
func rootTrace(t *testing.T) string {
	t.Helper()
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_000_000})
	m := func(name string) uint32 { return b.Method("com.ex.K", name, "()V", "K.java") }
	a, bb, c, d, o := m("A"), m("B"), m("C"), m("D"), m("O")
	main := b.Thread(1, "main")
	main.Call(a, 10, 4, func() {
		main.Call(bb, 6, 2, func() {
			main.Call(a, 4, 2, func() { main.Call(c, 2, 2, nil) })
		})
	})
	main.Idle(100)
	main.Call(d, 8, 2, func() { main.Call(a, 6, 2, nil) })
	b.Thread(2, "worker").Call(bb, 7, 3, nil)
	bg := b.Thread(3, "bg")
	bg.Call(a, 2, 2, nil)
	bg.Advance(3, 1)
	bg.Exit(o)
	path := filepath.Join(t.TempDir(), "root.trace")
	if err := os.WriteFile(path, b.Trace().Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRootFolded: the hand-computed stacks of rootTrace under --root.
// Recursion A→B→A→C counts once, at the outer A; main's two separate
// matches merge into one A; bg's A under the orphan frame O is a root;
// the worker, without a match, disappears.
func TestRootFolded(t *testing.T) {
	in := rootTrace(t)
	for _, c := range []struct {
		root, clock, want string
	}{
		{`K\.A$`, "wall", `bg (tid 3);com.ex.K.A 2
main (tid 1);com.ex.K.A 16
main (tid 1);com.ex.K.A;com.ex.K.B 6
main (tid 1);com.ex.K.A;com.ex.K.B;com.ex.K.A 4
main (tid 1);com.ex.K.A;com.ex.K.B;com.ex.K.A;com.ex.K.C 2
`},
		{`K\.A$`, "cpu", `bg (tid 3);com.ex.K.A 2
main (tid 1);com.ex.K.A 6
main (tid 1);com.ex.K.A;com.ex.K.B 2
main (tid 1);com.ex.K.A;com.ex.K.B;com.ex.K.A 2
main (tid 1);com.ex.K.A;com.ex.K.B;com.ex.K.A;com.ex.K.C 2
`},
		// B under A on main, B alone on the worker.
		{`\.B`, "wall", `main (tid 1);com.ex.K.B 6
main (tid 1);com.ex.K.B;com.ex.K.A 4
main (tid 1);com.ex.K.B;com.ex.K.A;com.ex.K.C 2
worker (tid 2);com.ex.K.B 7
`},
		// The orphan frame itself, from the trace start (0) to its exit
		// at 148 (bg starts where the worker ended, 143; A takes 2, then
		// 3 more): 148 − 2 self.
		{`K\.O`, "wall", `bg (tid 3);com.ex.K.O 146
bg (tid 3);com.ex.K.O;com.ex.K.A 2
`},
	} {
		code, out, errOut := runCLI(t, nil, "folded", "-q", "--clock", c.clock, "--root", c.root, in)
		if code != 0 {
			t.Fatalf("--root %s: exit %d: %s", c.root, code, errOut)
		}
		if got := sortLines(out); got != c.want {
			t.Errorf("--root %s --clock %s:\ngot\n%s\nwant\n%s", c.root, c.clock, got, c.want)
		}
	}
}

func sortLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// TestRootTop: top's rows under --root A (wall µs): A's self time is
// 10 + 4 + 6 + 2 = 22 in 4 calls, one of them recursive; its inclusive
// time counts the outer calls only: 22 + 6 + 2 = 30.
func TestRootTop(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "top", "-q", "--clock", "wall", "--root", `K\.A$`, rootTrace(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := out[strings.Index(out, "EXCL WALL"):]
	want := `EXCL WALL      %  INCL WALL       %  CALLS  RECURSIVE  EXCL WALL/CALL  METHOD
    22 µs  73.3%      30 µs  100.0%      4          1          5.5 µs  com.ex.K.A
     6 µs  20.0%      12 µs   40.0%      1          0            6 µs  com.ex.K.B
     2 µs   6.7%       2 µs    6.7%      1          0            2 µs  com.ex.K.C
`
	if rows != want {
		t.Errorf("got\n%s\nwant\n%s", rows, want)
	}
	if !strings.Contains(out, "total wall 30 µs") {
		t.Errorf("the header does not give the focused total 30 µs:\n%s", out)
	}
}

// TestRootNoMatch: a pattern no method matches leaves the outputs empty
// and says so; an invalid pattern is a usage error naming it.
func TestRootNoMatch(t *testing.T) {
	in := rootTrace(t)
	code, out, errOut := runCLI(t, nil, "folded", "--root", "nothing", in)
	if code != 0 || out != "" {
		t.Errorf("exit %d, output %q; want 0 and nothing", code, out)
	}
	if want := `no method matches --root "nothing": the outputs are empty`; !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	for _, args := range [][]string{{"folded", in}, {"top", in}, {"info", in}, {"folded", sampledHprof(t)}} {
		args = append([]string{"--root", "(a"}, args...)
		code, _, errOut := runCLI(t, nil, args...)
		if want := "atrace2: --root \"(a\": error parsing regexp: missing closing ): `(a`\n"; code != exitUsage || errOut != want {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", args, code, errOut, exitUsage, want)
		}
	}
}

// TestRootEveryCommand: --root is global: every command takes it, and
// every output of a conversion keeps the same subtrees.
func TestRootEveryCommand(t *testing.T) {
	in := rootTrace(t)
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"info"}, {"dump"}, {"top"}, {"calls", "K.B"}, {"diff", in}, {"folded", "-o", out("f.txt")},
		{"pprof", "-o", out("p.pb.gz")}, {"perfetto", "-o", out("p.pftrace")}, {"speedscope", "-o", out("s.json")},
		{"convert", "--pprof", out("c.pb.gz"), "--folded", out("c.txt"), "--speedscope", out("c.json")},
	} {
		args = append([]string{"-q", "--root", `K\.B`, args[0], in}, args[1:]...)
		if code, _, errOut := runCLI(t, nil, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	f, _ := os.ReadFile(out("f.txt"))
	c, _ := os.ReadFile(out("c.txt"))
	if string(f) != string(c) || !strings.Contains(string(f), "worker (tid 2);com.ex.K.B 7") {
		t.Errorf("folded and convert --folded differ or miss the worker's B:\n%s\n%s", f, c)
	}
	_, dump, _ := runCLI(t, nil, "dump", "-q", "--root", `K\.B`, in)
	// B, A and C on main, B on the worker.
	if strings.Contains(dump, "K.D") || strings.Count(dump, "enter") != 4 {
		t.Errorf("dump keeps more than B's subtrees:\n%s", dump)
	}
}

// TestRootEveryRoot: a pattern matching exactly the outermost frames of
// every thread leaves folded, top and pprof as they are without it, on
// random traces (orphans, unknown methods, wrapped clocks).
func TestRootEveryRoot(t *testing.T) {
	dir := t.TempDir()
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 23))
		in := filepath.Join(dir, "random.trace")
		if err := os.WriteFile(in, tracegen.Random(rng, 3, "dual").Regular(), 0o644); err != nil {
			t.Fatal(err)
		}
		_, whole, _ := runCLI(t, nil, "folded", "-q", in)
		if whole == "" {
			continue
		}
		var roots []string
		for _, line := range strings.Split(strings.TrimSpace(whole), "\n") {
			stack := strings.Split(line[:strings.LastIndexByte(line, ' ')], ";")
			if len(stack) > 1 && !slices.Contains(roots, stack[1]) {
				roots = append(roots, stack[1])
			}
		}
		for i, r := range roots {
			roots[i] = "^" + regexp.QuoteMeta(r) + "$"
		}
		pattern := strings.Join(roots, "|")
		for _, args := range [][]string{
			{"folded", "-q"}, {"folded", "-q", "--clock", "cpu"}, {"top", "-q", "-n", "0"},
			{"pprof", "-q", "-o", "-"},
		} {
			_, want, _ := runCLI(t, nil, append(args, in)...)
			_, got, errOut := runCLI(t, nil, append(args, "--root", pattern, in)...)
			if args[0] == "top" {
				// top's header says what the focus is, or, without one, how
				// to choose a thread: the table is what must not change.
				want, got = withoutFocusLine(want), withoutFocusLine(got)
			}
			if got != want {
				t.Fatalf("seed %d, %v --root %s: the output changed (%s)\ngot\n%.2000s\nwant\n%.2000s", seed, args, pattern, errOut, got, want)
			}
		}
	}
}

// sampledHprof writes samplegen's Dalvik fixture: thread main samples
// main→parse:21 ×3, main→parse:20→parse:30 ×2, main→parse:20→parseLong
// ×5; worker run ×2, run→parse:20 ×1.
func sampledHprof(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.hprof")
	if err := os.WriteFile(path, samplegen.Fixture().Dalvik(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRootSampled: a sampled profile's stacks start at their outermost
// match; recursion (parse in parse) counts once; stacks without a match go.
func TestRootSampled(t *testing.T) {
	in := sampledHprof(t)
	code, out, errOut := runCLI(t, nil, "folded", "--root", `App\.parse$`, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := `main (thread 1);com.example.App.parse 3
main (thread 1);com.example.App.parse;com.example.App.parse 2
main (thread 1);com.example.App.parse;java.lang.Long.parseLong 5
worker (thread 2);com.example.App.parse 1
`
	if got := sortLines(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if want := "focus: root App\\.parse$: 11 of 13 samples\n"; !strings.HasSuffix(errOut, want) {
		t.Errorf("stderr %q, want it to end in %q", errOut, want)
	}
	code, top, _ := runCLI(t, nil, "top", "-q", "--root", `App\.parse$`, in)
	if code != 0 || !strings.Contains(top, "total samples 11;") {
		t.Errorf("top: exit %d, want a total of 11 samples:\n%s", code, top)
	}
	// Every outermost frame: nothing changes.
	_, whole, _ := runCLI(t, nil, "folded", "-q", in)
	_, all, _ := runCLI(t, nil, "folded", "-q", "--root", `^com\.example\.(App\.main|Worker\.run)$`, in)
	if all != whole {
		t.Errorf("--root on every outermost frame changed folded:\n%s\nwant\n%s", all, whole)
	}
	code, out, errOut = runCLI(t, nil, "folded", "--root", "nothing", in)
	if code != 0 || out != "" || !strings.Contains(errOut, `no stack matches --root "nothing"`) {
		t.Errorf("no match: exit %d, output %q, stderr %q", code, out, errOut)
	}
}

// withoutFocusLine drops top's header line about the focus (or the hint
// given without one).
func withoutFocusLine(s string) string {
	var kept []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "focus: ") && !strings.HasPrefix(l, "the total sums ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
