// Package stacks aggregates the event stream into a call tree per thread:
// for every distinct (thread, call stack) the number of times that exact
// stack was entered and its exclusive time on each clock. pprof samples,
// folded stacks and the terminal reports are all views of this tree.
//
// Time is given to the stack that is current between two events of a
// thread, so inclusive times computed from it never double-count
// recursion: a nanosecond belongs to exactly one stack.
package stacks

import (
	"github.com/atrace2/atrace2/convert/stream"
)

// NodeID indexes Aggregator.Nodes.
type NodeID int32

// NoNode is the parent of a thread's root.
const NoNode NodeID = -1

// Node is one call-stack prefix of one thread. A thread's root node has
// Frame -1 and stands for "no method running"; it is never a sample.
type Node struct {
	Parent NodeID
	Thread stream.ThreadIndex
	Frame  stream.FrameID
	Depth  int   // 0 for a thread's root, 1 for an outermost frame
	Calls  int64 // times this exact stack was entered
	Wall   int64 // exclusive wall ns
	CPU    int64 // exclusive thread CPU ns
	// Orphan marks frames the converter began at the trace start because
	// they were running before tracing began; they are kept apart from
	// ordinary calls of the same method at the same place.
	Orphan bool
	// Open marks a stack whose frame was still running when tracing stopped
	// (at least one of its instances ended at the trace end).
	Open bool
}

// IsRoot reports whether n is a thread's root.
func (n *Node) IsRoot() bool { return n.Parent == NoNode }

// edge is a child's key: its parent node, its frame and whether it is an
// orphan frame, packed into one word so the map takes its fast path.
type edge uint64

func edgeOf(parent NodeID, frame stream.FrameID, orphan bool) edge {
	e := edge(uint32(parent))<<32 | edge(uint32(frame))<<1
	if orphan {
		e |= 1
	}
	return e
}

type threadCursor struct {
	cur            NodeID
	lastWall, last int64 // last wall and CPU time seen on the thread
}

// Aggregator is a stream.Exporter that builds the tree. Memory grows with
// the number of distinct stacks, not with the number of events.
type Aggregator struct {
	t       *stream.Trace
	nodes   []Node
	edges   map[edge]NodeID
	threads []threadCursor
}

var _ stream.Exporter = (*Aggregator)(nil)

// New returns an empty aggregator.
func New() *Aggregator { return &Aggregator{edges: make(map[edge]NodeID)} }

// Begin creates one root per thread.
func (a *Aggregator) Begin(t *stream.Trace) error {
	a.t = t
	a.threads = make([]threadCursor, len(t.Threads))
	for i := range t.Threads {
		a.threads[i].cur = NodeID(len(a.nodes))
		a.nodes = append(a.nodes, Node{Parent: NoNode, Thread: stream.ThreadIndex(i), Frame: -1})
	}
	return nil
}

// Event gives the time since the thread's previous event to the current
// stack, then moves into or out of a frame.
func (a *Aggregator) Event(ev *stream.Event) error {
	tc := &a.threads[ev.Thread]
	n := &a.nodes[tc.cur]
	n.Wall += ev.Wall - tc.lastWall
	n.CPU += ev.CPU - tc.last
	tc.lastWall, tc.last = ev.Wall, ev.CPU
	if ev.Kind == stream.End {
		if ev.Flags&stream.Synthetic != 0 {
			n.Open = true
		}
		tc.cur = n.Parent
		return nil
	}
	orphan := ev.Flags&stream.Synthetic != 0
	k := edgeOf(tc.cur, ev.Frame, orphan)
	id, ok := a.edges[k]
	if !ok {
		id = NodeID(len(a.nodes))
		a.nodes = append(a.nodes, Node{Parent: tc.cur, Thread: ev.Thread, Frame: ev.Frame,
			Depth: n.Depth + 1, Orphan: orphan})
		a.edges[k] = id
	}
	a.nodes[id].Calls++
	tc.cur = id
	return nil
}

// Finish does nothing: the tree is complete.
func (a *Aggregator) Finish() error { return nil }

// Trace returns the trace the tree was built from.
func (a *Aggregator) Trace() *stream.Trace { return a.t }

// Nodes returns every node, parents before children, thread roots first.
func (a *Aggregator) Nodes() []Node { return a.nodes }

// Stack appends the frames of node id to buf, outermost first.
func (a *Aggregator) Stack(id NodeID, buf []stream.FrameID) []stream.FrameID {
	start := len(buf)
	for n := &a.nodes[id]; !n.IsRoot(); n = &a.nodes[n.Parent] {
		buf = append(buf, n.Frame)
	}
	s := buf[start:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return buf
}
