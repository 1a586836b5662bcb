package stacks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// feed runs events through a tree builder over a trace with the given frames
// and one thread per name, and finishes it.
func feed(t *testing.T, frames []string, threads int, evs []stream.Event) *TreeBuilder {
	t.Helper()
	a := start(t, frames, threads, evs)
	if err := a.Finish(a.Trace()); err != nil {
		t.Fatal(err)
	}
	return a
}

// start is feed without the Finish.
func start(t *testing.T, frames []string, threads int, evs []stream.Event) *TreeBuilder {
	t.Helper()
	tr := &stream.Trace{HasWall: true, HasCPU: true}
	for i, f := range frames {
		tr.Frames = append(tr.Frames, stream.Frame{ID: stream.FrameID(i), Name: f})
	}
	for i := 0; i < threads; i++ {
		tr.Threads = append(tr.Threads, stream.Thread{Index: stream.ThreadIndex(i)})
	}
	a := newSmall(false)
	if err := a.Begin(tr); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := a.Events(&stream.Batch{Events: []stream.Event{evs[i]}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// dump renders every non-root node as "thread:A;B calls wall cpu [flags]".
func dump(a *TreeBuilder) string {
	var b strings.Builder
	for i, n := range a.Nodes() {
		if n.IsRoot() {
			continue
		}
		var names []string
		for _, f := range a.Stack(NodeID(i), nil) {
			names = append(names, a.Trace().Frames[f].Name)
		}
		fmt.Fprintf(&b, "%d:%s %d %d %d", n.Thread, strings.Join(names, ";"), n.Calls, n.Wall, n.CPU)
		if n.Orphan {
			b.WriteString(" orphan")
		}
		if n.Open {
			b.WriteString(" open")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func ev(k stream.Kind, th, f int, wall, cpu int64, fl stream.Flags) stream.Event {
	return stream.Event{Kind: k, Thread: stream.ThreadIndex(th), Frame: stream.FrameID(f), Wall: wall, CPU: cpu, Flags: fl}
}

func TestExclusiveTimes(t *testing.T) {
	const A, B = 0, 1
	b, e := stream.Begin, stream.End
	a := feed(t, []string{"A", "B"}, 2, []stream.Event{
		ev(b, 0, A, 0, 0, stream.Synthetic), // orphan A, running before tracing
		ev(e, 0, A, 5, 2, 0),
		ev(b, 0, A, 10, 3, 0), // A again, now an ordinary call
		ev(b, 1, B, 12, 0, 0), // another thread interleaves
		ev(b, 0, B, 20, 6, 0),
		ev(b, 0, A, 25, 8, 0), // recursion: A;B;A
		ev(e, 0, A, 27, 9, stream.Unwound),
		ev(e, 0, B, 30, 10, 0),
		ev(b, 0, B, 40, 12, 0),
		ev(e, 0, B, 45, 13, 0),
		ev(e, 1, B, 50, 30, stream.Synthetic), // still open at the end
		ev(e, 0, A, 100, 20, 0),
	})
	// Thread 0: orphan A 0..5; A 10..20, 30..40, 45..100 = 75 wall; B 20..25
	// and 27..30 and 40..45 = 13 wall over 2 calls; A;B;A 25..27.
	// CPU: A 3..6, 10..12, 13..20 = 12; B 6..8, 9..10, 12..13 = 4.
	want := `0:A 1 5 2 orphan
0:A 1 75 12
0:A;B 2 13 4
0:A;B;A 1 2 1
1:B 1 38 30 open
`
	if got := dump(a); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestRecentChildren: a parent that calls two methods in turn keeps both
// among its recent children, the latest first, and an orphan frame is not
// taken for an ordinary call of the same method. (Whether a child is found
// there or in the edge table shows only in the time it takes.)
func TestRecentChildren(t *testing.T) {
	const A, B, C = 0, 1, 2
	b, e := stream.Begin, stream.End
	evs := []stream.Event{
		ev(b, 0, A, 0, 0, stream.Synthetic), ev(e, 0, A, 2, 1, 0), // orphan A: node 1
		ev(b, 0, B, 3, 2, 0), ev(e, 0, B, 5, 3, 0), // node 2; recent: B
		ev(b, 0, A, 6, 4, 0), ev(e, 0, A, 10, 5, 0), // node 3, not the orphan; A, B
		ev(b, 0, B, 11, 6, 0), ev(e, 0, B, 12, 7, 0), // B second in recent: B, A
		ev(b, 0, A, 13, 8, 0), ev(e, 0, A, 16, 9, 0), // and A again: A, B
		ev(b, 0, C, 17, 10, 0), ev(b, 0, A, 18, 11, 0), ev(e, 0, A, 19, 12, 0), ev(e, 0, C, 20, 13, 0),
		ev(b, 0, B, 21, 14, 0), ev(e, 0, B, 23, 15, 0), // B from the edge table: B, C
	}
	for _, c := range []struct {
		events int
		recent [2]NodeID
	}{{4, [2]NodeID{2, 0}}, {6, [2]NodeID{3, 2}}, {8, [2]NodeID{2, 3}}, {10, [2]NodeID{3, 2}}, {16, [2]NodeID{2, 4}}} {
		a := start(t, []string{"A", "B", "C"}, 1, evs[:c.events])
		if got := a.tree[0].recent; got != c.recent || len(a.tree) > 6 {
			t.Errorf("after %d events: recent %v, want %v (%d nodes)", c.events, got, c.recent, len(a.tree))
		}
	}
	a := feed(t, []string{"A", "B", "C"}, 1, evs)
	want := `0:A 1 2 1 orphan
0:B 3 5 3
0:A 2 7 2
0:C 1 2 2
0:C;A 1 1 1
`
	if got := dump(a); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestFinishTwice: a second Finish changes nothing.
func TestFinishTwice(t *testing.T) {
	b, e := stream.Begin, stream.End
	a := feed(t, []string{"A"}, 1, []stream.Event{ev(b, 0, 0, 0, 0, 0), ev(e, 0, 0, 5, 5, 0)})
	before := dump(a)
	if err := a.Finish(a.Trace()); err != nil {
		t.Fatal(err)
	}
	if got := dump(a); got != before {
		t.Errorf("after a second Finish:\n%s\nwant\n%s", got, before)
	}
}

// TestNegativeFrame: a frame below 0, which the converter never sends, is
// not taken for a thread's root (frame -1) that stands as "no child".
func TestNegativeFrame(t *testing.T) {
	b, e := stream.Begin, stream.End
	a := feed(t, []string{"A"}, 2, []stream.Event{
		ev(b, 1, -1, 0, 0, 0), ev(e, 1, -1, 1, 1, 0),
	})
	if n := len(a.Nodes()); n != 3 {
		t.Errorf("%d nodes, want 2 roots and the frame's node", n)
	}
	// Orphan frames are looked up in the edge table: the keys of frame -1
	// under nodes 4 and 5 once were the same (FuzzTree).
	a = feed(t, []string{"A"}, 4, []stream.Event{
		ev(b, 3, -1, 1, 0, stream.Synthetic), ev(b, 3, -1, 2, 1, stream.Synthetic), ev(b, 3, -1, 3, 1, stream.Synthetic),
		ev(e, 3, 0, 3, 3, stream.Synthetic), ev(e, 3, 0, 3, 3, stream.Synthetic), ev(e, 3, 0, 3, 3, stream.Synthetic),
	})
	if got, want := len(a.Nodes()), 4+3; got != want {
		t.Errorf("nested orphan frames -1: %d nodes, want %d", got, want)
	}
}

func TestStackBufferReuse(t *testing.T) {
	b, e := stream.Begin, stream.End
	a := feed(t, []string{"A", "B", "C"}, 1, []stream.Event{
		ev(b, 0, 0, 0, 0, 0), ev(b, 0, 1, 1, 1, 0), ev(b, 0, 2, 2, 2, 0),
		ev(e, 0, 2, 3, 3, 0), ev(e, 0, 1, 4, 4, 0), ev(e, 0, 0, 5, 5, 0),
	})
	buf := []stream.FrameID{9}
	got := a.Stack(3, buf)
	if fmt.Sprint(got) != "[9 0 1 2]" {
		t.Errorf("Stack appended %v, want [9 0 1 2]", got)
	}
}

// TestEdgeIndex follows the edge table while the root gains a third child
// and an orphan exit moves its children under the orphan frame, and while
// an orphan exit comes before a third child: after every event, an edge is
// in the table exactly when it is an orphan frame's or its parent is
// indexed, and the table holds nothing else.
func TestEdgeIndex(t *testing.T) {
	const A, B, C, D, O = 0, 1, 2, 3, 4
	b, e := stream.Begin, stream.End
	indexed := []stream.Event{
		ev(b, 0, A, 0, 0, 0), ev(e, 0, A, 1, 1, 0), // node 1
		ev(b, 0, B, 2, 2, 0), ev(e, 0, B, 3, 3, 0), // node 2: the root has two children
		ev(b, 0, C, 4, 4, 0), ev(e, 0, C, 5, 5, 0), // node 3: a third, the root is indexed
		ev(b, 0, A, 6, 6, 0), ev(e, 0, A, 7, 7, 0), // A again, from the table
		ev(stream.Enclose, 0, O, 8, 8, 0),            // O (node 4) takes the root's children
		ev(b, 0, D, 9, 9, 0), ev(e, 0, D, 10, 10, 0), // node 5 under the root
	}
	unindexed := []stream.Event{
		ev(b, 0, A, 0, 0, 0), ev(e, 0, A, 1, 1, 0), // node 1
		ev(b, 0, B, 2, 2, 0), ev(e, 0, B, 3, 3, 0), // node 2
		ev(stream.Enclose, 0, O, 4, 4, 0),          // O (node 3) takes them; only its edge is in the table
		ev(b, 0, A, 5, 5, 0), ev(e, 0, A, 6, 6, 0), // node 4: A again, but under the root
	}
	for _, c := range []struct {
		evs                  []stream.Event
		events, edges, nodes int
		rootIndexed          bool
	}{
		{indexed, 2, 0, 2, false}, {indexed, 4, 0, 3, false}, {indexed, 6, 3, 4, true},
		{indexed, 8, 3, 4, true}, {indexed, 9, 4, 5, false}, {indexed, 11, 4, 6, false},
		{unindexed, 5, 1, 4, false}, {unindexed, 7, 1, 5, false},
	} {
		a := start(t, []string{"A", "B", "C", "D", "O"}, 1, c.evs[:c.events])
		inTable := 0
		for id, n := range a.tree {
			if n.parent == NoNode {
				continue
			}
			got, ok := a.edges.get(edgeOf(n.parent, n.frame, n.orphan))
			want := n.orphan || a.tree[n.parent].indexed
			if ok != want || ok && got != NodeID(id) {
				t.Errorf("after %d events: node %d in the table %v (as %d), want %v", c.events, id, ok, got, want)
			}
			if ok {
				inTable++
			}
		}
		if inTable != c.edges || a.edges.n != inTable || len(a.tree) != c.nodes || a.tree[0].indexed != c.rootIndexed {
			t.Errorf("after %d events: %d of %d edges in a table of %d, %d nodes, root indexed %v; want %d edges, %d nodes, %v",
				c.events, inTable, c.edges, a.edges.n, len(a.tree), a.tree[0].indexed, c.edges, c.nodes, c.rootIndexed)
		}
	}
}
