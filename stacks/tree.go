package stacks

import "github.com/atrace2/atrace2/stream"

// Tree is a finished call tree: the nodes of one trace in their canonical
// order (see TreeBuilder.Finish) and the trace they belong to. It is the
// layer the views read: pprof profiles (package pprofout), folded stacks
// (package folded) and the terminal reports (package report) are each
// computed from a Tree, never from the builder. Nothing changes a Tree.
type Tree struct {
	trace *stream.Trace
	nodes []Node
}

// Tree returns the tree the builder built, or nil before Begin and
// Finish have run.
func (a *TreeBuilder) Tree() *Tree {
	if a.t == nil || a.tree != nil || a.nodes == nil {
		return nil
	}
	return &Tree{trace: a.t, nodes: a.nodes}
}

// Trace returns the trace the tree was built from: its frames, threads,
// clocks and repair statistics.
func (t *Tree) Trace() *stream.Trace { return t.trace }

// Nodes returns every node, parents before children, thread roots first
// (in thread order), each thread's tree depth first.
func (t *Tree) Nodes() []Node { return t.nodes }

// Stack appends the frames of node id to buf, outermost first.
func (t *Tree) Stack(id NodeID, buf []stream.FrameID) []stream.FrameID {
	return appendStack(t.nodes, id, buf)
}
