// Package stacks aggregates the event stream into a call tree per thread:
// for every distinct (thread, call stack) the number of times that exact
// stack was entered and its exclusive time on each clock. pprof samples,
// folded stacks and the terminal reports are all views of this tree.
//
// Time is given to the stack that is current between two events of a
// thread, so inclusive times computed from it never double-count
// recursion: a nanosecond belongs to exactly one stack.
//
// Fast paths. TreeBuilder.Events moves to the latest child or the parent
// without a branch on which; event, slow and enter take any event (the
// reference path, taken for every event under the build tag
// atrace2_reference; TestFastEqualsReference and FuzzTree compare the
// trees of the two). The edge table (edges.go) stands in for a map from
// (parent, frame) to child (TestEdgeTable compares the two).
// TestOnePassEqualsTwoPasses ties the tree of one read to that of two.
package stacks

import (
	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/stream"
)

// NodeID indexes TreeBuilder.Nodes.
type NodeID int32

// NoNode is the parent of a thread's root.
const NoNode NodeID = -1

// Node is one call-stack prefix of one thread. A thread's root node has
// Frame -1 and stands for "no method running"; it is never a sample.
type Node struct {
	Parent NodeID
	Thread stream.ThreadIndex
	Frame  stream.FrameID
	Depth  int32 // 0 for a thread's root, 1 for an outermost frame
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

// buildNode is a node while the tree is built: a Node without what Finish
// works out from the tree's shape (the thread and the depth), so that two
// recent children and the latest one's frame fit in the same 48 bytes (the
// fields are in the order that packs them so).
type buildNode struct {
	parent NodeID
	frame  stream.FrameID
	// recent holds the two children entered last, the latest first (0 when
	// none), tried before the edge table: a method mostly calls the same
	// one or two callees again, and the table costs a cache miss a lookup.
	// Orphan frames, entered once per thread at most, are left out.
	recent [2]NodeID
	// latest is the frame of recent[0] plus one, 0 when there is none:
	// Events compares it with an enter's frame without reading the child.
	latest       stream.FrameID
	orphan, open bool
	// indexed says the node's children are in the edge table. Until a
	// third ordinary child comes, recent holds them all and the table
	// only the orphan frames: most nodes never have three children, so the
	// table holds a small share of the edges, and a new stack costs no
	// failed lookup (BenchmarkAggregate).
	indexed bool
	// calls counts the node's ends, not its begins: Events then writes
	// only the node it leaves, already in hand. The stream is balanced, so
	// the two counts agree once it ends (an orphan exit in one pass, which
	// has neither, counts itself in reroot).
	calls, wall, cpu int64
}

// OffCPU returns the node's exclusive off-CPU ns: the time the thread was
// on this stack but not running (blocked, waiting, descheduled), that is
// max(0, Wall − CPU). It is derived where it is read rather than stored:
// it means something only when the trace has both clocks, and the clamp at
// 0 (thread CPU clocks tick coarsely and can run ahead of the wall clock
// over a short stack) applies per node, the tree's distinct stack, so that
// every view sums the same values.
func (n *Node) OffCPU() int64 { return max(0, n.Wall-n.CPU) }

// IsRoot reports whether n is a thread's root.
func (n *Node) IsRoot() bool { return n.Parent == NoNode }

// edge is a child's key: its parent node, its frame and whether it is an
// orphan frame, packed into one word that the edge table hashes and
// compares at once: the parent (never below 0, so 31 bits) above the
// frame's 32 bits, above the orphan bit. (With the parent shifted by 32,
// a frame below 0 spilled into its lowest bit: TestNegativeFrame.)
type edge uint64

func edgeOf(parent NodeID, frame stream.FrameID, orphan bool) edge {
	e := edge(uint32(parent))<<33 | edge(uint32(frame))<<1
	if orphan {
		e |= 1
	}
	return e
}

type threadCursor struct {
	root, cur         NodeID
	lastWall, lastCPU int64    // last wall and CPU time seen on the thread
	nodes             []NodeID // one pass: the thread's nodes, for re-rooting
}

// TreeBuilder is a stream.Exporter that builds the tree. Memory grows with
// the number of distinct stacks, not with the number of events. It takes
// the stream in one read (convert.Aggregate): an orphan exit puts
// everything the thread did so far under the orphan's frame.
type TreeBuilder struct {
	t       *stream.Trace
	tree    []buildNode // the nodes while events come; nil after Finish
	nodes   []Node      // the nodes after Finish
	edges   *edgeTable
	threads []threadCursor
	// reference sends every event through the reference path (event), as
	// the build tag atrace2_reference does for every builder: the tests
	// compare the two (TestFastEqualsReference).
	reference bool
	// firstCap is the tree's first capacity, in nodes: defaultTreeCap,
	// or less in the package's tests, whose traces are small, so that
	// every doubling, and the pointers into the tree it invalidates, gets
	// exercised.
	firstCap int
}

var _ stream.Exporter = (*TreeBuilder)(nil)

// New returns an empty tree builder.
func New() *TreeBuilder { return &TreeBuilder{edges: newEdgeTable(), firstCap: defaultTreeCap} }

// Begin forgets any earlier tree and creates one root per thread known so
// far; in one read, threads that appear later get theirs on their first
// event.
func (a *TreeBuilder) Begin(t *stream.Trace) error {
	if a.t != nil || a.tree != nil || a.nodes != nil {
		*a = TreeBuilder{edges: newEdgeTable(), reference: a.reference, firstCap: a.firstCap} // a read that starts over (convert.Output)
	}
	a.t = t
	a.grow(stream.ThreadIndex(len(t.Threads) - 1))
	return nil
}

// grow makes roots up to thread i.
func (a *TreeBuilder) grow(i stream.ThreadIndex) {
	for th := stream.ThreadIndex(len(a.threads)); th <= i; th++ {
		root := a.add(buildNode{parent: NoNode, frame: -1})
		a.threads = append(a.threads, threadCursor{root: root, cur: root, nodes: []NodeID{root}})
	}
}

// add appends a node to the tree. The tree doubles when full, where append
// grows a large slice by a quarter and clears the new part: each growth
// writes a fresh copy, and the first write to a page of fresh memory costs
// a page fault, while make leaves fresh pages alone until nodes fill them.
// Fewer growths mean fewer page faults and a lower peak RSS; BenchmarkAggregate
// and the top and pprof runs of atrace2-bench guard it.
func (a *TreeBuilder) add(b buildNode) NodeID {
	if len(a.tree) == cap(a.tree) {
		grown := make([]buildNode, len(a.tree), max(2*cap(a.tree), a.firstCap))
		copy(grown, a.tree)
		a.tree = grown
	}
	a.tree = append(a.tree, b)
	return NodeID(len(a.tree) - 1)
}

// defaultTreeCap is the tree's first capacity, in nodes: enough for the
// distinct stacks of the 100 MB benchmark trace. The memory is reserved,
// not used: the operating system gives a fresh allocation its pages as they
// are first written, so a small trace touches only what it needs, and a
// large one skips the doublings up to here, each of which copied the tree
// into memory touched for the first time (page faults and peak RSS;
// BenchmarkAggregate and atrace2-bench's pprof runs guard it).
const defaultTreeCap = 1 << 17

// Events gives each event's time since its thread's previous event to the
// current stack, then moves into or out of a frame. The tables come at
// Finish.
func (a *TreeBuilder) Events(b *stream.Batch) error { return a.events(b.Events) }

// events is Events on the events alone, so that the batch takes no
// register in the loop (BenchmarkAggregate, BenchmarkTree).
func (a *TreeBuilder) events(evs []stream.Event) error {
	if reference.Only || a.reference {
		for i := range evs {
			a.event(&evs[i])
		}
		return nil
	}
	var tc *threadCursor
	last := stream.ThreadIndex(-1)
	for i := range evs {
		ev := &evs[i]
		// Records come in per-thread runs: look the thread up once per run.
		if ev.Thread != last {
			if int(ev.Thread) >= len(a.threads) {
				a.grow(ev.Thread)
			}
			tc, last = &a.threads[ev.Thread], ev.Thread
		}
		n := &a.tree[tc.cur]
		n.wall += ev.Wall - tc.lastWall
		n.cpu += ev.CPU - tc.lastCPU
		tc.lastWall, tc.lastCPU = ev.Wall, ev.CPU
		// An exit, and an enter of the child entered last, are taken here
		// without a branch on which of the two the event is: that follows
		// no pattern, and the CPU would mispredict it half the time. Both
		// look at the latest child, and the thread moves to it or to the
		// parent. Anything else is slow. (When there is no child, latest
		// is 0, which only a frame of -1 matches: a frame below 0 goes to
		// slow too. Orphan frames are never among the recent children.)
		var enter, miss uint8 // 0 or 1, set without branches
		if ev.Kind == stream.Begin {
			enter = 1
		}
		if n.latest != ev.Frame+1 {
			miss = 1
		}
		if ev.Kind > stream.End || ev.Flags&stream.Synthetic != 0 || enter&miss != 0 || ev.Frame < 0 {
			a.slow(tc, n, ev)
			continue
		}
		// The parent on an exit, the latest child on an enter: a mask
		// picks one without a branch (as of Go 1.26 the compiler branches
		// on an if here, and mispredicts half the events).
		pick := -NodeID(enter) // all ones on an enter
		tc.cur = n.parent ^ (n.parent^n.recent[0])&pick
		n.calls += int64(1 - enter)
	}
	return nil
}

// event is the reference path: it takes one event of any kind, as Events
// does, in the plainest way.
func (a *TreeBuilder) event(ev *stream.Event) {
	if int(ev.Thread) >= len(a.threads) {
		a.grow(ev.Thread)
	}
	tc := &a.threads[ev.Thread]
	n := &a.tree[tc.cur]
	n.wall += ev.Wall - tc.lastWall
	n.cpu += ev.CPU - tc.lastCPU
	tc.lastWall, tc.lastCPU = ev.Wall, ev.CPU
	a.slow(tc, n, ev)
}

// slow takes the events Events does not: exits at the trace end, orphan
// exits, orphan frames and enters of another child than the latest (or of
// a frame below 0).
func (a *TreeBuilder) slow(tc *threadCursor, n *buildNode, ev *stream.Event) {
	switch ev.Kind {
	case stream.End:
		if ev.Flags&stream.Synthetic != 0 {
			n.open = true
		}
		n.calls++
		tc.cur = n.parent
	case stream.Enclose:
		a.reroot(tc, ev)
	default:
		a.enter(tc, n, ev)
	}
}

// enter moves the thread into a child of its current node n other than the
// latest (Events has tried that one).
func (a *TreeBuilder) enter(tc *threadCursor, n *buildNode, ev *stream.Event) {
	orphan := ev.Flags&stream.Synthetic != 0
	if d := n.recent[0]; d > 0 && !orphan && n.latest == ev.Frame+1 {
		tc.cur = d // the latest child, which Events takes on its fast path
		return
	}
	if d := n.recent[1]; d > 0 && !orphan {
		if h := &a.tree[d]; h.frame == ev.Frame {
			n.recent, n.latest = [2]NodeID{d, n.recent[0]}, h.frame+1
			tc.cur = d
			return
		}
	}
	parent := tc.cur
	k := edgeOf(parent, ev.Frame, orphan)
	inTable := orphan || n.indexed // where this child is, if it exists
	var id NodeID
	ok := false
	if inTable {
		id, ok = a.edges.get(k)
	}
	if !ok {
		id = a.add(buildNode{parent: parent, frame: ev.Frame, orphan: orphan})
		p := &a.tree[parent] // n may point into the array add replaced
		switch {
		case inTable:
			a.edges.put(k, id)
		case p.recent[1] != 0: // a third child: index them all
			p.indexed = true
			for _, c := range p.recent {
				a.edges.put(edgeOf(parent, a.tree[c].frame, false), c)
			}
			a.edges.put(k, id)
		}
		tc.nodes = append(tc.nodes, id)
	}
	if !orphan {
		p := &a.tree[parent] // n may point into the array append replaced
		p.recent, p.latest = [2]NodeID{id, p.recent[0]}, ev.Frame+1
	}
	tc.cur = id
}

// reroot handles an orphan exit in one pass: the frame ran from the trace
// start until now, so everything the thread did so far goes under it, and
// so does the time the root collected while no frame seemed to run. The
// tree is then the one two passes build with the frame opened up front.
func (a *TreeBuilder) reroot(tc *threadCursor, ev *stream.Event) {
	root := tc.root
	rn := a.tree[root]
	o := a.add(buildNode{parent: root, frame: ev.Frame, orphan: true, calls: 1,
		wall: rn.wall, cpu: rn.cpu, recent: rn.recent, latest: rn.latest, indexed: rn.indexed})
	r := &a.tree[root]
	r.wall, r.cpu, r.recent, r.latest = 0, 0, [2]NodeID{}, 0
	r.indexed = false // its one child is o, an orphan frame
	for _, id := range tc.nodes {
		n := &a.tree[id]
		if n.parent != root {
			continue
		}
		n.parent = o
		if n.orphan || rn.indexed { // the edge is in the table
			a.edges.delete(edgeOf(root, n.frame, n.orphan))
			a.edges.put(edgeOf(o, n.frame, n.orphan), id)
		}
	}
	a.edges.put(edgeOf(root, ev.Frame, true), o)
	tc.nodes = append(tc.nodes, o)
}

// Finish puts the nodes in their canonical order: thread roots first, then
// each thread's tree depth first, children in the order they were first
// entered. One pass and two passes so give the same node order. The Tree
// keeps t, the complete Trace.
func (a *TreeBuilder) Finish(t *stream.Trace) error {
	if a.tree == nil && a.nodes != nil {
		return nil // finished already
	}
	a.t = t
	a.canonical()
	for i := range a.threads {
		a.threads[i].nodes = nil
	}
	return nil
}

// canonical renumbers the nodes (see Finish).
func (a *TreeBuilder) canonical() {
	n := len(a.tree)
	// Children lists in creation order, as one flat array (CSR).
	start := make([]int32, n+1)
	for _, b := range a.tree {
		if b.parent != NoNode {
			start[b.parent+1]++
		}
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	kids := make([]NodeID, start[n])
	fill := append([]int32(nil), start[:n]...)
	for id, b := range a.tree {
		if b.parent != NoNode {
			kids[fill[b.parent]] = NodeID(id)
			fill[b.parent]++
		}
	}
	order := make([]NodeID, 0, n)
	for _, tc := range a.threads {
		order = append(order, tc.root)
	}
	var stack []NodeID
	for _, tc := range a.threads {
		stack = append(stack[:0], tc.root)
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if id != tc.root {
				order = append(order, id)
			}
			for j := start[id+1] - 1; j >= start[id]; j-- { // reversed: popped in order
				stack = append(stack, kids[j])
			}
		}
	}
	newID := make([]NodeID, n)
	for i, id := range order {
		newID[id] = NodeID(i)
	}
	// Parents come before their children in the new order, so a child's
	// thread and depth follow from its parent's.
	nodes := make([]Node, n)
	for i, id := range order {
		b := &a.tree[id]
		nd := Node{Parent: NoNode, Frame: b.frame, Calls: b.calls,
			Wall: b.wall, CPU: b.cpu, Orphan: b.orphan, Open: b.open}
		if b.parent == NoNode {
			nd.Thread = stream.ThreadIndex(i) // the roots come first, in thread order
		} else {
			nd.Parent = newID[b.parent]
			nd.Thread, nd.Depth = nodes[nd.Parent].Thread, nodes[nd.Parent].Depth+1
		}
		nodes[i] = nd
	}
	a.nodes, a.tree = nodes, nil
	a.edges = nil // only Event needs it, and no event comes after Finish
	for i := range a.threads {
		a.threads[i].root = newID[a.threads[i].root]
		a.threads[i].cur = newID[a.threads[i].cur]
	}
}

// Trace returns the trace the tree was built from.
func (a *TreeBuilder) Trace() *stream.Trace { return a.t }

// Nodes returns every node after Finish, parents before children, thread
// roots first (in thread order), each thread's tree depth first.
func (a *TreeBuilder) Nodes() []Node { return a.nodes }

// Stack appends the frames of node id to buf, outermost first.
func (a *TreeBuilder) Stack(id NodeID, buf []stream.FrameID) []stream.FrameID {
	return appendStack(a.nodes, id, buf)
}

// appendStack appends the frames from a thread's root down to node id.
func appendStack(nodes []Node, id NodeID, buf []stream.FrameID) []stream.FrameID {
	start := len(buf)
	for n := &nodes[id]; !n.IsRoot(); n = &nodes[n.Parent] {
		buf = append(buf, n.Frame)
	}
	s := buf[start:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return buf
}
