package stacks

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// dumpTree renders every node as "thread:frames samples calls wall [cut]".
func dumpTree(t *Tree) string {
	var b strings.Builder
	for i, n := range t.Nodes() {
		id := NodeID(i)
		fmt.Fprintf(&b, "%d:%v %d %d %d", n.Thread, t.Stack(id, nil), t.Samples(id), n.Calls, n.Wall)
		if t.Cut(id) {
			b.WriteString(" cut")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestStackBuilderCounted: roots first, then the nodes in the order the
// stacks first reach them; counts add up on a node; depth-limited stacks
// as deep as the deepest are cut.
func TestStackBuilderCounted(t *testing.T) {
	tr := &stream.Trace{Name: "x", Frames: make([]stream.Frame, 3)}
	src := &Source{MaxDepth: 2, DepthLimited: true}
	b := NewStackBuilder(tr, Values{Kind: Counted, Serials: true}, src)
	b.Grow(8)
	main := b.AddThread(stream.Thread{ID: 7, Name: "main"}, false)
	none := b.AddThread(stream.Thread{Name: UnknownThreadName}, true)
	b.Add(main, []stream.FrameID{0, 1}, 0, 0, 5)
	b.Add(none, []stream.FrameID{2}, 0, 0, 1)
	b.Add(main, []stream.FrameID{0}, 0, 0, 3)
	b.Add(main, []stream.FrameID{0, 1}, 0, 0, 1<<62)
	b.Add(main, []stream.FrameID{0, 1}, 0, 0, 1<<62) // saturates
	tree := b.Tree()
	want := "0:[] 0 0 0\n1:[] 0 0 0\n0:[0] 3 0 0\n0:[0 1] 9223372036854775807 0 0 cut\n1:[2] 1 0 0\n"
	if got := dumpTree(tree); got != want {
		t.Errorf("nodes:\n%s\nwant:\n%s", got, want)
	}
	if u, ok := tree.UnknownThread(); !ok || u != none {
		t.Errorf("UnknownThread = %d, %v", u, ok)
	}
	if tree.Weight(2) != 3 || tree.Source() != src || tr.Threads[0].MaxDepth != 2 || tr.Threads[1].MaxDepth != 1 {
		t.Errorf("weight %d, source %p, threads %+v", tree.Weight(2), tree.Source(), tr.Threads)
	}
}

// TestStackBuilderTimed: calls and wall time on the nodes, no samples; the
// weight is the wall time.
func TestStackBuilderTimed(t *testing.T) {
	tr := &stream.Trace{Name: "x", Frames: make([]stream.Frame, 2), HasWall: true}
	b := NewStackBuilder(tr, Values{Kind: Timed}, nil)
	th := b.AddThread(stream.Thread{Name: "main"}, false)
	b.Add(th, []stream.FrameID{1, 0}, 2, 400, 99)
	b.Add(th, []stream.FrameID{1, 0}, 1, 100, 99)
	tree := b.Tree()
	if want := "0:[] 0 0 0\n0:[1] 0 0 0\n0:[1 0] 0 3 500\n"; dumpTree(tree) != want {
		t.Errorf("nodes:\n%s\nwant:\n%s", dumpTree(tree), want)
	}
	if _, ok := tree.UnknownThread(); ok || tree.Weight(2) != 500 || tree.Cut(2) {
		t.Errorf("unknown thread %v, weight %d, cut %v", ok, tree.Weight(2), tree.Cut(2))
	}
}

// TestTreeClocks: a Timed tree shows the clocks of its trace that a value
// picks (stream.Value.Clocks); a Counted tree holds counts, which only
// ValueAuto shows, whatever clocks its trace claims.
func TestTreeClocks(t *testing.T) {
	dual := &stream.Trace{HasWall: true, HasCPU: true}
	timed := NewStackBuilder(dual, Values{Kind: Timed}, nil).Tree()
	counted := NewStackBuilder(&stream.Trace{HasWall: true, HasCPU: true}, Values{Kind: Counted}, nil).Tree()
	wallOnly := NewStackBuilder(&stream.Trace{HasWall: true}, Values{Kind: Timed}, nil).Tree()
	for _, c := range []struct {
		tree           *Tree
		v              stream.Value
		wall, cpu, err bool
	}{
		{timed, stream.ValueAuto, true, true, false},
		{timed, stream.ValueWall, true, false, false},
		{timed, stream.ValueCPU, false, true, false},
		{timed, stream.ValueOffCPU, true, true, false},
		{wallOnly, stream.ValueCPU, false, false, true},
		{wallOnly, stream.ValueOffCPU, false, false, true},
		{counted, stream.ValueAuto, false, false, false},
		{counted, stream.ValueWall, false, false, true},
		{counted, stream.ValueOffCPU, false, false, true},
	} {
		wall, cpu, err := c.tree.Clocks(c.v)
		var ve *stream.ValueError
		if wall != c.wall || cpu != c.cpu || (err != nil) != c.err || err != nil && !errors.As(err, &ve) {
			t.Errorf("%s tree, %v: %v, %v, %v; want %v, %v, error %v", c.tree.Values().Kind, c.v, wall, cpu, err, c.wall, c.cpu, c.err)
		}
	}
}
