package pprofout_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// randomTrace is a small trace in tracegen's text form with random enters,
// exits, orphan exits and stray exits on a few threads, and methods that
// share names (so that frames share functions).
func randomTrace(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("version 3\nclock dual\nvm art\n")
	threads := 1 + rng.IntN(4)
	for t := 1; t <= threads; t++ {
		fmt.Fprintf(&b, "thread %d t%d\n", t, t)
	}
	methods := 2 + rng.IntN(8)
	for m := 1; m <= methods; m++ {
		fmt.Fprintf(&b, "method %#x x M%d ()V X.java\n", m*4, m%5)
	}
	open := make([][]int, threads+1)
	now := 0
	for range 20 + rng.IntN(300) {
		t := 1 + rng.IntN(threads)
		now += 1 + rng.IntN(3)
		st := open[t]
		switch r := rng.IntN(10); {
		case r < 5 || len(st) == 0 && r < 8:
			m := 1 + rng.IntN(methods)
			if len(st) > 0 && rng.IntN(3) > 0 { // a method calls the same few
				m = 1 + (st[len(st)-1]*3+rng.IntN(2))%methods
			}
			open[t] = append(st, m)
			fmt.Fprintf(&b, "%d enter %#x %d %d\n", t, m*4, now, now)
		case len(st) > 0 && r < 9:
			open[t] = st[:len(st)-1]
			fmt.Fprintf(&b, "%d exit %#x %d %d\n", t, st[len(st)-1]*4, now, now)
		default: // an orphan exit, or an exit of a method not on the stack
			fmt.Fprintf(&b, "%d exit %#x %d %d\n", t, (1+rng.IntN(methods))*4, now, now)
		}
	}
	return b.String()
}

// TestRandomTracesMatchNodes checks the samples of profiles of one and two
// random traces against sums of the call trees' nodes by thread, synthetic
// label and function stack, computed here without the builder: each
// (labels, stack) is one sample that holds the sums of all its nodes.
func TestRandomTracesMatchNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	dir := t.TempDir()
	for i := range 150 {
		var paths []string
		for k := range 1 + rng.IntN(2) {
			paths = append(paths, writeTrace(t, dir, fmt.Sprintf("r%d.trace", k), randomTrace(rng)))
		}
		want := map[string][3]int64{}
		for _, p := range paths {
			a := tree(t, p)
			tr := a.Trace()
			for id, n := range a.Nodes() {
				if n.IsRoot() {
					continue
				}
				var names []string
				for _, f := range a.Stack(stacks.NodeID(id), nil) {
					fr := &tr.Frames[f]
					names = append(names, fr.Name+" "+fr.Signature)
				}
				th := &tr.Threads[n.Thread]
				synth := map[[2]bool]string{{true, false}: pprofout.SyntheticOrphan,
					{false, true}: pprofout.SyntheticOpen, {true, true}: pprofout.SyntheticBoth}[[2]bool{n.Orphan, n.Open}]
				k := fmt.Sprintf("%s/%d/%s %s", th.Name, th.ID, synth, strings.Join(names, ";"))
				v := want[k]
				want[k] = [3]int64{v[0] + n.Calls, v[1] + n.CPU, v[2] + n.Wall}
			}
		}
		p := build(t, paths...)
		got := map[string][3]int64{}
		for _, s := range p.Sample {
			var names []string
			for j := len(s.Location) - 1; j >= 0; j-- {
				names = append(names, s.Location[j].Line[0].Function.SystemName)
			}
			synth := strings.Join(s.Label[pprofout.LabelSynthetic], ",")
			k := fmt.Sprintf("%s/%d/%s %s", s.Label[pprofout.LabelThread][0], s.NumLabel[pprofout.LabelTID][0], synth, strings.Join(names, ";"))
			if _, dup := got[k]; dup {
				t.Fatalf("case %d: two samples for %s", i, k)
			}
			got[k] = [3]int64{s.Value[0], s.Value[1], s.Value[2]}
		}
		if !maps.Equal(got, want) {
			keys := slices.Sorted(maps.Keys(want))
			t.Fatalf("case %d (%s): %d samples, want %d; first expected: %s %v, got %v",
				i, filepath.Base(paths[0]), len(got), len(want), keys[0], want[keys[0]], got[keys[0]])
		}
	}
}
