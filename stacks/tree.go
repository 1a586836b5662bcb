package stacks

import "github.com/atrace2/atrace2/stream"

// Tree is a finished call tree: the nodes of one input in their order
// (parents before children, thread roots first), the trace whose frames
// and threads they name, and the value schema (Values) that says what a
// node holds. It is the one model every input becomes, whatever its
// format: a method trace's events (TreeBuilder) and a sampled profile's
// counted stacks (StackBuilder) both give a Tree. The views read it:
// pprof profiles (package pprofout), folded stacks (package folded), the
// terminal reports (package report) and speedscope's sampled profiles are
// each computed from a Tree, never from the input. Nothing changes a Tree.
type Tree struct {
	trace   *stream.Trace
	nodes   []Node
	values  Values
	samples []int64 // Counted: per node, the samples whose stack is exactly the node
	// unknown is the thread of the stacks whose input names none, -1
	// when every stack has its thread.
	unknown stream.ThreadIndex
	source  *Source
}

// Tree returns the tree the builder built, or nil before Begin and
// Finish have run. Its nodes are Timed: calls and exclusive times.
func (a *TreeBuilder) Tree() *Tree {
	if a.t == nil || a.tree != nil || a.nodes == nil {
		return nil
	}
	return &Tree{trace: a.t, nodes: a.nodes, unknown: -1}
}

// Trace returns the trace the tree was built from: its frames, threads,
// clocks and repair statistics.
func (t *Tree) Trace() *stream.Trace { return t.trace }

// Nodes returns every node, parents before children, thread roots first
// (in thread order). A TreeBuilder's tree lists each thread's tree depth
// first; a StackBuilder's, the nodes in the order stacks first reached
// them.
func (t *Tree) Nodes() []Node { return t.nodes }

// Stack appends the frames of node id to buf, outermost first.
func (t *Tree) Stack(id NodeID, buf []stream.FrameID) []stream.FrameID {
	return appendStack(t.nodes, id, buf)
}

// Values returns the tree's value schema.
func (t *Tree) Values() Values { return t.values }

// Samples returns the number of samples whose stack is exactly node id in
// a Counted tree, 0 in a Timed one.
func (t *Tree) Samples(id NodeID) int64 {
	if t.samples == nil {
		return 0
	}
	return t.samples[id]
}

// Weight is node id's own value in the tree's main unit: its samples in a
// Counted tree; in a Timed one its exclusive ns on the trace's first clock
// (wall when the trace has it, else thread CPU).
func (t *Tree) Weight(id NodeID) int64 {
	switch n := &t.nodes[id]; {
	case t.values.Kind == Counted:
		return t.samples[id]
	case !t.trace.HasWall && t.trace.HasCPU:
		return n.CPU
	default:
		return n.Wall
	}
}

// Clocks reports which clocks of the tree's trace a view of v shows
// (stream.Value.Clocks). A Counted tree holds sample counts: its first
// value is the count, which ValueAuto shows. With a sampling period
// (Values.Period) it also has a CPU time, estimated as samples × Period,
// which ValueAuto shows after the count where a view shows several values,
// and ValueCPU alone. Any other value is a *stream.ValueError.
func (t *Tree) Clocks(v stream.Value) (wall, cpu bool, err error) {
	if t.values.Kind == Counted {
		estimate := t.values.Period > 0
		switch {
		case v == stream.ValueAuto:
			return false, estimate, nil
		case v == stream.ValueCPU && estimate:
			return false, true, nil
		case estimate:
			return false, false, &stream.ValueError{Value: v, HasCPU: true}
		}
		return false, false, &stream.ValueError{Value: v}
	}
	return v.Clocks(t.trace)
}

// EstimatedCPU is the CPU time that samples of a Counted tree with a
// period stand for, samples × Values.Period, at most the largest int64;
// 0 without a period.
func (t *Tree) EstimatedCPU(samples int64) int64 {
	p := t.values.Period
	if p <= 0 || samples <= 0 {
		return 0
	}
	if samples > (1<<63-1)/p {
		return 1<<63 - 1
	}
	return samples * p
}

// UnknownThread returns the index of the thread that stands for the
// stacks whose input does not say which thread they ran on (named
// UnknownThreadName), if the tree has such stacks. Views show them without
// a thread.
func (t *Tree) UnknownThread() (stream.ThreadIndex, bool) { return t.unknown, t.unknown >= 0 }

// Source returns what the input states about itself beyond its stacks
// when it is a list of counted stacks (a sampled profile); nil for a tree
// built from events.
func (t *Tree) Source() *Source { return t.source }

// Cut reports whether the stack of node id may be missing outer frames:
// the input's profiler cut stacks at a depth limit (Source.DepthLimited)
// and the stack is as deep as the deepest one.
func (t *Tree) Cut(id NodeID) bool {
	s := t.source
	return s != nil && s.DepthLimited && s.MaxDepth > 0 && int(t.nodes[id].Depth) >= s.MaxDepth
}
