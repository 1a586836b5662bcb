package stacks

import (
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
