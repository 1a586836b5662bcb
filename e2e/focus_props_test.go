package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// genShape is one kind of generated trace for the focus properties.
type genShape struct {
	name    string
	threads int  // threads, interleaved call tree by call tree
	trees   int  // top-level call trees per thread
	depth   int  // deepest nesting
	recurse bool // a.R.rec calls itself
	orphans int  // orphan exits per thread (methods running before tracing began)
	open    int  // frames left open at the end, per thread
}

var genShapes = []genShape{
	{name: "flat", threads: 2, trees: 30, depth: 1},
	{name: "deep", threads: 1, trees: 6, depth: 9, recurse: true},
	{name: "repairs", threads: 3, trees: 8, depth: 4, orphans: 2, open: 2},
	{name: "mixed", threads: 4, trees: 10, depth: 5, recurse: true, orphans: 1, open: 1},
}

// genTrace lays out a random trace of the shape with tracegen.Builder:
// whole µs on both clocks (clock "dual") or the wall clock only
// ("wall"); thread CPU time is usually below wall time but sometimes
// above it, as real clocks sometimes are.
func genTrace(shape genShape, clock string, seed uint64) *tracegen.Trace {
	rng := rand.New(rand.NewPCG(seed, 23))
	version := 3
	if clock == "wall" {
		version = 2 // one time per record
	}
	b := tracegen.NewBuilder(tracegen.Trace{Version: version, Clock: clock, VM: "art"})
	var methods []uint32
	for _, c := range []string{"Main", "View", "Net", "Db", "Json"} {
		for _, n := range []string{"run", "load", "draw"} {
			methods = append(methods, b.Method("com.ex."+c, n, "()V", c+".java"))
		}
	}
	rec := b.Method("com.ex.R", "rec", "()V", "R.java")
	pick := func() uint32 { return methods[rng.IntN(len(methods))] }
	cost := func() (uint32, uint32) {
		w := uint32(rng.IntN(40))
		c := w * uint32(rng.IntN(11)) / 10
		if rng.IntN(8) == 0 {
			c = w + uint32(rng.IntN(5))
		}
		return w, c
	}
	var tree func(tb *tracegen.ThreadBuilder, depth int)
	tree = func(tb *tracegen.ThreadBuilder, depth int) {
		m := pick()
		if shape.recurse && rng.IntN(3) == 0 {
			m = rec
		}
		w, c := cost()
		tb.Call(m, w, c, func() {
			if depth+1 >= shape.depth {
				return
			}
			for range rng.IntN(4) {
				tree(tb, depth+1)
				tb.Advance(uint32(rng.IntN(3)), 0)
			}
		})
	}
	var tbs []*tracegen.ThreadBuilder
	names := []string{"main", "RenderThread", "OkHttp Dispatcher", "pool-1-thread-1"}
	for i := range shape.threads {
		tb := b.Thread(uint32(i+1), names[i])
		tbs = append(tbs, tb)
		tb.Advance(uint32(rng.IntN(20)), 0)
		for range shape.orphans {
			w, c := cost()
			tb.Advance(w, c)
			tb.Exit(pick())
		}
	}
	for range shape.trees {
		for _, tb := range tbs {
			tree(tb, 0)
			tb.Idle(uint32(rng.IntN(15)))
		}
	}
	for _, tb := range tbs {
		for range shape.open {
			w, c := cost()
			tb.Enter(pick())
			tb.Advance(w, c)
		}
	}
	tr := b.Trace()
	if clock == "wall" {
		for i := range tr.Records {
			tr.Records[i].CPU = 0
		}
	}
	return tr
}

// genCase is one generated trace written to a file.
type genCase struct {
	name  string
	tr    *tracegen.Trace
	path  string
	dual  bool
	end   int64 // the trace end on the wall clock, µs
	roots []string
}

func genCases(t *testing.T) []genCase {
	var cases []genCase
	dir := t.TempDir()
	for i, shape := range genShapes {
		for _, clock := range []string{"dual", "wall"} {
			tr := genTrace(shape, clock, uint64(i)*7+1)
			name := shape.name + "-" + clock
			path := filepath.Join(dir, name+".trace")
			if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
				t.Fatal(err)
			}
			c := genCase{name: name, tr: tr, path: path, dual: clock == "dual"}
			for _, r := range tr.Records {
				c.end = max(c.end, int64(r.Wall))
			}
			// The outermost frames of every thread.
			seen := map[string]bool{}
			for _, th := range oThreads(tr, oFocus{to: -1}) {
				depth := 0
				for _, e := range th.events {
					if e.begin {
						if depth == 0 && !seen[frameName(tr, e.method)] {
							seen[frameName(tr, e.method)] = true
							c.roots = append(c.roots, frameName(tr, e.method))
						}
						depth++
					} else {
						depth--
					}
				}
			}
			slices.Sort(c.roots)
			cases = append(cases, c)
		}
	}
	return cases
}

// focusOutputs are every output of one run, with the focus summary line
// taken out of the repair summary.
type focusOutputs map[string]string

// allOutputs runs every command on the case with the focus args. pprof
// is compared as its samples and sample types (its comments repeat the
// summary).
func allOutputs(t *testing.T, c genCase, args ...string) focusOutputs {
	t.Helper()
	dir := t.TempDir()
	o := focusOutputs{}
	clocks := []string{"wall"}
	if c.dual {
		clocks = append(clocks, "cpu", "offcpu")
	}
	with := func(cmd string, extra ...string) []string {
		return append(append(append([]string{cmd}, args...), extra...), c.path)
	}
	for _, clock := range clocks {
		o["folded "+clock] = run(t, with("folded", "-q", "--clock", clock)...)
		// top's JSON says the focus in a field: the summary line.
		o["top "+clock] = dropFocusLine(run(t, with("top", "-q", "--format", "json", "-n", "0", "--clock", clock)...))
		if clock != "offcpu" {
			o["speedscope "+clock] = run(t, with("speedscope", "-q", "--clock", clock)...)
		}
	}
	o["dump"] = run(t, with("dump", "-q")...)
	pf := filepath.Join(dir, "p.perfetto-trace")
	run(t, with("perfetto", "-q", "-o", pf)...)
	data, err := os.ReadFile(pf)
	if err != nil {
		t.Fatal(err)
	}
	o["perfetto"] = string(data)
	pb := filepath.Join(dir, "p.pb.gz")
	r := atrace2(t, nil, with("pprof", "-o", pb)...)
	if r.code != 0 {
		t.Fatalf("pprof: %+v", r)
	}
	o["stderr"] = dropFocusLine(r.stderr)
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	p.Comments = nil
	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	o["pprof"] = buf.String()
	return o
}

// dropFocusLine removes the focus summary from stderr.
func dropFocusLine(stderr string) string {
	var keep []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.Contains(l, "focus:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// sameOutputs requires equal focusOutputs and says which differ.
func sameOutputs(t *testing.T, what string, got, want focusOutputs) {
	t.Helper()
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: %s differs (%d bytes, want %d)%s", what, k, len(g), len(w), firstDiff(g, w))
		}
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			if len(al[i]) > 300 || len(bl[i]) > 300 {
				return fmt.Sprintf(" at line %d", i+1)
			}
			return fmt.Sprintf(": line %d: %q, want %q", i+1, al[i], bl[i])
		}
	}
	return ""
}

// TestFocusPropertyFromZero: --from 0 with no --to is no window: every
// output is the same, but for the focus summary line.
func TestFocusPropertyFromZero(t *testing.T) {
	for _, c := range genCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sameOutputs(t, "--from 0", allOutputs(t, c, "--from", "0"), allOutputs(t, c))
		})
	}
}

// TestFocusPropertyRootAll: --root matching every thread's outermost
// frames (and so every stack) is no root.
func TestFocusPropertyRootAll(t *testing.T) {
	for _, c := range genCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var alt []string
			for _, r := range c.roots {
				alt = append(alt, regexp.QuoteMeta(r))
			}
			re := "^(" + strings.Join(alt, "|") + ")$"
			sameOutputs(t, "--root "+re, allOutputs(t, c, "--root", re), allOutputs(t, c))
		})
	}
}

// TestFocusPropertySplit: a window split in two at b gives wall times
// that add up exactly, per stack: [a, b] + [b, c] = [a, c]. The shared
// instant b has no length, so it adds nothing to either side; calls (a
// frame across b is kept by both) and thread CPU time (a stretch across
// b counts in neither) do not add up.
func TestFocusPropertySplit(t *testing.T) {
	for _, c := range genCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 5))
			for range 3 {
				cuts := []int64{rng.Int64N(c.end + 1), rng.Int64N(c.end + 1), rng.Int64N(c.end + 1)}
				slices.Sort(cuts)
				a, b, e := cuts[0], cuts[1], cuts[2]
				folded := func(from, to int64) map[string]*oStack {
					return parseFolded(t, run(t, "folded", "-q", "--clock", "wall",
						"--from", fmt.Sprintf("%dus", from), "--to", fmt.Sprintf("%dus", to), c.path), "wall")
				}
				left, right, whole := folded(a, b), folded(b, e), folded(a, e)
				for k, s := range right {
					if left[k] == nil {
						left[k] = &oStack{}
					}
					left[k].wall += s.wall
				}
				if got, want := project(left, "wall"), project(whole, "wall"); got != want {
					t.Errorf("[%d, %d] + [%d, %d] µs:\n%s\nwant [%d, %d]:\n%s", a, b, b, e, got, a, e, want)
				}
				if got, want := project(whole, "wall"), project(oracle(c.tr, oFocus{from: a, to: e}), "wall"); got != want {
					t.Errorf("[%d, %d] µs:\n%s\nwant (oracle)\n%s", a, e, got, want)
				}
			}
		})
	}
}

// TestFocusPropertyOutputsAgree: for a thread filter, a window, a root
// and all three, every output (folded, pprof, top, speedscope, Perfetto)
// equals the oracle on the focused stacks, and so every other output.
func TestFocusPropertyOutputsAgree(t *testing.T) {
	for _, c := range genCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			from, to := c.end/4, c.end*3/5
			threads := []string{"main"}
			if strings.HasPrefix(c.name, "flat") {
				threads = []string{"2"}
			}
			root := regexp.MustCompile(`View\.|R\.rec`)
			window := []string{"--from", fmt.Sprintf("%dus", from), "--to", fmt.Sprintf("%dus", to)}
			for _, f := range []struct {
				name  string
				args  []string
				focus oFocus
			}{
				{"none", nil, oFocus{to: -1}},
				{"thread", []string{"--thread", threads[0]}, oFocus{threads: threads, to: -1}},
				{"window", window, oFocus{from: from, to: to}},
				{"root", []string{"--root", root.String()}, oFocus{root: root, to: -1}},
				{"all", append([]string{"--thread", threads[0], "--root", root.String()}, window...),
					oFocus{threads: threads, from: from, to: to, root: root}},
			} {
				t.Run(f.name, func(t *testing.T) {
					checkOutputsClocks(t, c.path, f.args, oracle(c.tr, f.focus), true, c.dual)
				})
			}
		})
	}
}
