package stacks

import (
	"fmt"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stream"
)

// This file gives sampled profiles (package samples: hprof text, ART
// profile files) the shape of the method traces' call tree, so that pprof,
// speedscope, folded and the reports read both alike. A sampled profile has
// no events and no timeline: each node holds how often its exact stack was
// seen instead of how long it ran.

// EmptyStackName names the one frame given to samples without a Java frame
// (hprof's "<empty>" traces: the thread ran no Java code when it was
// sampled), so that their count stays visible in every output.
const EmptyStackName = samples.EmptyStackName

// UnknownThreadName names the thread of samples whose file does not say
// which thread they ran on (JVM hprof without thread=y, ART profiles).
const UnknownThreadName = "(thread not recorded)"

// Sampled is the call tree of a sampled profile. Nodes have the meaning of
// TreeBuilder's: one per distinct (thread, stack prefix), thread roots
// first, parents before children. What a stack is worth depends on the
// format (Timed): sample counts in Samples, or for hprof cpu=times the
// calls in Node.Calls and the time in Node.Wall. Node.CPU is always 0:
// cpu=times is elapsed time, not thread CPU time (on Linux and Windows the
// JDK's hprof measures it with the time of day; docs/formats.md §17).
type Sampled struct {
	src     *samples.Profile
	t       *stream.Trace
	nodes   []Node
	counts  []int64 // per node: samples whose stack is exactly the node (0 when Timed)
	unknown stream.ThreadIndex
}

// FromSamples builds the tree of p, which must satisfy p.Check (Read's
// profiles do). name is the input's name, as stream.Trace.Name is.
//
// The trace it describes (Trace) has one stream.Frame per p.Frames entry,
// at the same index, plus EmptyStackName when a stack is empty; Frame.Line
// is the line that was running (hprof), not the method's first line. Its
// threads are the threads that have samples, in p.Threads order, named
// "thread <id>" when the file gives no name, then UnknownThreadName for
// samples without a thread. HasWall is set for cpu=times.
func FromSamples(name string, p *samples.Profile) (*Sampled, error) {
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("sampled profile: invariant violation: %w", err)
	}
	s := &Sampled{src: p, unknown: -1,
		t: &stream.Trace{Name: name, HasWall: p.Format == samples.JVMHprofTimes}}
	// Every frame of every stack is at most one node: size for that.
	size := len(p.Threads) + 1
	for _, smp := range p.Samples {
		size += max(len(smp.Stack), 1)
	}
	s.nodes, s.counts = make([]Node, 0, size), make([]int64, 0, size)
	s.frames()
	threadOf := s.threads()
	edges := make(map[edge]NodeID, size)
	empty := stream.FrameID(-1)
	for _, smp := range p.Samples {
		cur := NodeID(threadOf[smp.Thread+1])
		stack := smp.Stack
		if len(stack) == 0 {
			if empty < 0 {
				empty = s.addFrame(stream.Frame{Name: EmptyStackName, Method: EmptyStackName})
			}
			stack = []int{int(empty)}
		}
		for _, f := range stack {
			cur = s.child(edges, cur, stream.FrameID(f))
		}
		s.add(cur, &smp)
	}
	return s, nil
}

// frames converts the profile's frames, keeping their indices.
func (s *Sampled) frames() {
	for _, f := range s.src.Frames {
		s.addFrame(stream.Frame{
			Name: f.Name, Class: f.Class, Method: f.Method, Signature: f.Signature,
			File: stream.SourcePath(f.Class, f.File), Line: f.Line, HasLine: f.HasLine, Listed: true,
			Obfuscated: f.Obfuscated, ObfuscatedSignature: f.ObfuscatedSignature, Synthesized: f.Synthesized,
		})
	}
}

func (s *Sampled) addFrame(f stream.Frame) stream.FrameID {
	f.ID = stream.FrameID(len(s.t.Frames))
	s.t.Frames = append(s.t.Frames, f)
	return f.ID
}

// threads creates the threads that have samples and their roots, and
// returns the root of each profile thread index + 1 (index 0 stands for
// "no thread"); -1 for threads without samples.
func (s *Sampled) threads() []int {
	p := s.src
	used := make([]bool, len(p.Threads)+1)
	for _, smp := range p.Samples {
		used[smp.Thread+1] = true
	}
	root := make([]int, len(used))
	for i := range root {
		root[i] = -1
	}
	for i := 1; i < len(used); i++ {
		if used[i] {
			th := p.Threads[i-1]
			name := th.Name
			if name == "" {
				name = fmt.Sprintf("thread %d", th.ID)
			}
			root[i] = s.addThread(stream.Thread{ID: threadID(th.ID), Name: name, Listed: th.Name != ""})
		}
	}
	if used[0] {
		root[0] = s.addThread(stream.Thread{Name: UnknownThreadName})
		s.unknown = stream.ThreadIndex(len(s.t.Threads) - 1)
	}
	return root
}

// threadID keeps an hprof serial number in stream.Thread's 32 bits; the
// writers number threads from small values, so nothing is lost in practice.
func threadID(id int64) stream.ThreadID {
	if id < 0 || id > 1<<32-1 {
		return 0
	}
	return stream.ThreadID(id)
}

// addThread adds a thread and its root node and returns the root's id.
func (s *Sampled) addThread(th stream.Thread) int {
	th.Index = stream.ThreadIndex(len(s.t.Threads))
	s.t.Threads = append(s.t.Threads, th)
	s.nodes = append(s.nodes, Node{Parent: NoNode, Thread: th.Index, Frame: -1})
	s.counts = append(s.counts, 0)
	return len(s.nodes) - 1
}

// child returns the node of frame f under parent, creating it.
func (s *Sampled) child(edges map[edge]NodeID, parent NodeID, f stream.FrameID) NodeID {
	k := edgeOf(parent, f, false)
	if id, ok := edges[k]; ok {
		return id
	}
	par := &s.nodes[parent]
	id := NodeID(len(s.nodes))
	s.nodes = append(s.nodes, Node{Parent: parent, Thread: par.Thread, Frame: f, Depth: par.Depth + 1})
	s.counts = append(s.counts, 0)
	edges[k] = id
	th := &s.t.Threads[par.Thread]
	th.MaxDepth = max(th.MaxDepth, int(par.Depth)+1)
	return id
}

// add counts one sample at its stack's node. The sums saturate: the reader
// bounds each sample's values, not the sums of samples that share a node.
func (s *Sampled) add(id NodeID, smp *samples.Sample) {
	n := &s.nodes[id]
	if s.t.HasWall {
		n.Calls = satAdd(n.Calls, smp.Count)
		n.Wall = satAdd(n.Wall, smp.TimeNanos)
		return
	}
	s.counts[id] = satAdd(s.counts[id], smp.Count)
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// Source returns the profile the tree was built from.
func (s *Sampled) Source() *samples.Profile { return s.src }

// Trace returns the tables of the tree: name, threads, frames. It has no
// header and no events.
func (s *Sampled) Trace() *stream.Trace { return s.t }

// Nodes returns every node, thread roots first, parents before children.
func (s *Sampled) Nodes() []Node { return s.nodes }

// Timed reports whether the profile measured time (hprof cpu=times): then
// Node.Calls and Node.Wall hold the values and Samples is 0.
func (s *Sampled) Timed() bool { return s.t.HasWall }

// Samples returns the samples whose stack is exactly node id.
func (s *Sampled) Samples(id NodeID) int64 { return s.counts[id] }

// Weight is node id's own value in the profile's unit: samples, or
// elapsed nanoseconds for a timed profile.
func (s *Sampled) Weight(id NodeID) int64 {
	if s.Timed() {
		return s.nodes[id].Wall
	}
	return s.counts[id]
}

// UnknownThread returns the index of the UnknownThreadName thread, if the
// profile has samples without a thread.
func (s *Sampled) UnknownThread() (stream.ThreadIndex, bool) { return s.unknown, s.unknown >= 0 }

// Cut reports whether the stack of node id may be missing outer frames:
// the profiler limits depth and the stack is as deep as the deepest one
// (samples.Profile.CutStack).
func (s *Sampled) Cut(id NodeID) bool {
	p := s.src
	return p.DepthLimited && p.MaxDepth > 0 && int(s.nodes[id].Depth) >= p.MaxDepth
}

// Stack appends the frames of node id to buf, outermost first.
func (s *Sampled) Stack(id NodeID, buf []stream.FrameID) []stream.FrameID {
	return appendStack(s.nodes, id, buf)
}
