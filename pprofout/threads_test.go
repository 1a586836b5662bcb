package pprofout_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pprofout"
)

// sums are one expected sample's values in ns.
type sums struct{ calls, cpu, wall int64 }

// expected maps "thread/tid stack" (root first) to its values; it is
// computed from the call trees that generate the trace, not from the trace.
type expected map[string]*sums

func (e expected) add(key string, cpu, wall uint32) {
	s := e[key]
	if s == nil {
		s = &sums{}
		e[key] = s
	}
	s.calls++
	s.cpu += int64(cpu) * 1000
	s.wall += int64(wall) * 1000
}

func (e expected) dump() string {
	var lines []string
	for k, s := range e {
		lines = append(lines, fmt.Sprintf("%s %d %d %d", k, s.calls, s.cpu, s.wall))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// manyThreads builds a trace of 42 threads, two of them both named "pool",
// each running random call trees over six methods (so recursion is common),
// and returns it with its expected samples.
func manyThreads(seed uint64) (*tracegen.Trace, expected) {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art"})
	var methods []uint32
	for i := range 6 {
		methods = append(methods, b.Method("x", "M"+strconv.Itoa(i), "()V", "X.java"))
	}
	type thread struct {
		tb   *tracegen.ThreadBuilder
		name string
	}
	var threads []thread
	for i := range 40 {
		name := fmt.Sprintf("worker-%d", i)
		threads = append(threads, thread{b.Thread(uint32(100+i), name), name})
	}
	threads = append(threads, thread{b.Thread(300, "pool"), "pool"}, thread{b.Thread(301, "pool"), "pool"})
	want := expected{}
	var call func(th thread, stack string, depth int)
	call = func(th thread, stack string, depth int) {
		m := rng.IntN(len(methods))
		wall := uint32(1 + rng.IntN(50))
		cpu := uint32(rng.IntN(int(wall) + 1))
		key := stack + ";x.M" + strconv.Itoa(m)
		want.add(fmt.Sprintf("%s/%d %s", th.name, th.tb.ID(), key[1:]), cpu, wall)
		var body func()
		if n := rng.IntN(4); depth < 5 && n > 0 {
			body = func() {
				for range n {
					call(th, key, depth+1)
				}
			}
		}
		th.tb.Call(methods[m], wall, cpu, body)
	}
	for range 4 {
		for _, th := range threads {
			call(th, "", 0)
			th.tb.Idle(uint32(rng.IntN(20)))
		}
	}
	return b.Trace(), want
}

// TestManyThreads checks every sample of a 42-thread trace against the call
// trees it was generated from.
func TestManyThreads(t *testing.T) {
	tr, want := manyThreads(1)
	p := build(t, writeGen(t, t.TempDir(), "many.trace", tr))
	if got := dump(p); got != want.dump() {
		t.Errorf("samples differ:\n%s", lineDiff(got, want.dump()))
	}
}

// TestCumulative checks pprof's own flat and cum columns (from its -top
// report, run in process) against inclusive times computed from the
// expected samples: each function counts once per sample, so recursion is
// not counted twice. It also checks -tagfocus on the thread label.
func TestCumulative(t *testing.T) {
	tr, want := manyThreads(2)
	p := build(t, writeGen(t, t.TempDir(), "many.trace", tr))
	for _, c := range []struct{ index, focus, thread string }{
		{"wall", "", ""}, {"cpu", "", ""}, {"calls", "", ""},
		{"wall", "-tagfocus=thread=^pool$", "pool"}, {"cpu", "-tagfocus=thread=^worker-7$", "worker-7"},
	} {
		args := []string{"-top", "-unit=ns", "-sample_index=" + c.index}
		if c.focus != "" {
			args = append(args, c.focus)
		}
		out, err := pprofout.Report(p, args...)
		if err != nil {
			t.Fatal(err)
		}
		got := parseTop(t, out)
		exp := inclusive(want, c.index, c.thread)
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Errorf("%v: pprof says (flat, cum)\n%v\nwant\n%v\nreport:\n%s", args, got, exp, out)
		}
	}
}

// inclusive computes each function's flat and cum value from expected
// samples, optionally of one thread name only.
func inclusive(e expected, index, thread string) map[string][2]int64 {
	out := map[string][2]int64{}
	for k, s := range e {
		who, stack, _ := strings.Cut(k, " ")
		if thread != "" && !strings.HasPrefix(who, thread+"/") {
			continue
		}
		v := map[string]int64{"calls": s.calls, "cpu": s.cpu, "wall": s.wall}[index]
		frames := strings.Split(stack, ";")
		seen := map[string]bool{}
		for i, f := range frames {
			fc := out[f]
			if i == len(frames)-1 {
				fc[0] += v
			}
			if !seen[f] {
				seen[f] = true
				fc[1] += v
			}
			out[f] = fc
		}
	}
	for f, fc := range out {
		if fc == [2]int64{} {
			delete(out, f) // pprof lists no node without any value
		}
	}
	return out
}

// parseTop reads "flat flat% sum% cum cum% name" rows of pprof -top.
func parseTop(t *testing.T, out string) map[string][2]int64 {
	t.Helper()
	rows := map[string][2]int64{}
	_, table, ok := strings.Cut(out, "flat  flat%   sum%        cum   cum%\n")
	if !ok {
		t.Fatalf("no -top table in:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("bad -top row %q", line)
		}
		flat, err1 := strconv.ParseInt(strings.TrimSuffix(f[0], "ns"), 10, 64)
		cum, err2 := strconv.ParseInt(strings.TrimSuffix(f[3], "ns"), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad -top row %q", line)
		}
		rows[f[5]] = [2]int64{flat, cum}
	}
	return rows
}

// lineDiff shows the lines only one side has.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range g {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}

// sampleMap keys a profile's samples by thread, tid, stack and synthetic
// label, for comparing profiles built different ways.
func sampleMap(p *profile.Profile) map[string][]int64 {
	m := map[string][]int64{}
	for _, s := range p.Sample {
		k := fmt.Sprintf("%v/%v %s %v", s.Label["thread"], s.NumLabel["tid"], stackOf(s), s.Label["synthetic"])
		if old, ok := m[k]; ok {
			for i := range old {
				old[i] += s.Value[i]
			}
			continue
		}
		m[k] = slices.Clone(s.Value)
	}
	return m
}
