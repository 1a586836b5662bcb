package stacks

import "github.com/atrace2/atrace2/stream"

// UnknownThreadName names the thread of the stacks whose input does not
// say which thread they ran on (JVM hprof without thread=y, ART
// profiles): see Tree.UnknownThread.
const UnknownThreadName = "(thread not recorded)"

// StackBuilder builds the tree of an input that lists stacks and what each
// is worth, rather than events: a sampled profile. Its nodes have the
// meaning of TreeBuilder's, one per distinct (thread, stack prefix), thread
// roots first when every AddThread comes before the first Add (in the
// order AddThread added the threads), then every other node in the order
// the stacks first reach it, parents before children.
type StackBuilder struct {
	tree  Tree
	roots []NodeID // by thread
	edges map[edge]NodeID
}

// NewStackBuilder returns a builder of a tree with the values v whose
// frames are t.Frames (a caller may append frames to t between calls).
// src, which may be nil, is what the input states about itself
// (Tree.Source).
func NewStackBuilder(t *stream.Trace, v Values, src *Source) *StackBuilder {
	b := &StackBuilder{tree: Tree{trace: t, values: v, unknown: -1, source: src}, edges: make(map[edge]NodeID)}
	if v.Kind == Counted {
		b.tree.samples = []int64{}
	}
	return b
}

// AddThread adds a thread to the trace, with its root node, and returns
// its index; unknown marks the thread that stands for the stacks whose
// input names no thread (Tree.UnknownThread).
func (b *StackBuilder) AddThread(th stream.Thread, unknown bool) stream.ThreadIndex {
	t := &b.tree
	th.Index = stream.ThreadIndex(len(t.trace.Threads))
	t.trace.Threads = append(t.trace.Threads, th)
	b.roots = append(b.roots, b.node(Node{Parent: NoNode, Thread: th.Index, Frame: -1}))
	if unknown {
		t.unknown = th.Index
	}
	return th.Index
}

func (b *StackBuilder) node(n Node) NodeID {
	t := &b.tree
	t.nodes = append(t.nodes, n)
	if t.samples != nil {
		t.samples = append(t.samples, 0)
	}
	return NodeID(len(t.nodes) - 1)
}

// Add adds a stack of thread th, frames outermost first, worth calls and
// wall ns (Timed) or samples (Counted) more to its node: Count of the node
// that Root and Child lead to.
func (b *StackBuilder) Add(th stream.ThreadIndex, stack []stream.FrameID, calls, wall, samples int64) {
	cur := b.Root(th)
	for _, f := range stack {
		cur = b.Child(cur, f)
	}
	b.Count(cur, calls, wall, samples)
}

// Count adds calls and wall ns (Timed) or samples (Counted) to node id.
// A thread's root is its empty stack. The sums saturate at the largest
// int64: readers bound each stack's values, not the sums of stacks that
// share a node.
func (b *StackBuilder) Count(id NodeID, calls, wall, samples int64) {
	t := &b.tree
	if t.values.Kind == Counted {
		t.samples[id] = satAdd(t.samples[id], samples)
		return
	}
	n := &t.nodes[id]
	n.Calls = satAdd(n.Calls, calls)
	n.Wall = satAdd(n.Wall, wall)
}

// Root returns the root node of thread th.
func (b *StackBuilder) Root(th stream.ThreadIndex) NodeID { return b.roots[th] }

// Child returns the node of frame f under parent, creating it.
func (b *StackBuilder) Child(parent NodeID, f stream.FrameID) NodeID {
	k := edgeOf(parent, f, false)
	if id, ok := b.edges[k]; ok {
		return id
	}
	t := &b.tree
	par := t.nodes[parent]
	id := b.node(Node{Parent: parent, Thread: par.Thread, Frame: f, Depth: par.Depth + 1})
	b.edges[k] = id
	th := &t.trace.Threads[par.Thread]
	th.MaxDepth = max(th.MaxDepth, int(par.Depth)+1)
	return id
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// Grow makes room for n more nodes: a reader that knows how many frames
// its stacks have in all (each is at most one node) saves the growth.
func (b *StackBuilder) Grow(n int) {
	t := &b.tree
	if n <= 0 {
		return
	}
	if len(t.nodes) == 0 && len(b.edges) == 0 {
		b.edges = make(map[edge]NodeID, n)
	}
	t.nodes = append(make([]Node, 0, len(t.nodes)+n), t.nodes...)
	if t.samples != nil {
		t.samples = append(make([]int64, 0, len(t.samples)+n), t.samples...)
	}
}

// Tree returns the tree built so far. Add no stack after it.
func (b *StackBuilder) Tree() *Tree {
	t := b.tree
	return &t
}
