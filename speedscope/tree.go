package speedscope

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/stacks"
)

// A call tree without a timeline (a sampled profile: hprof text, ART
// profile files) becomes speedscope's other kind of profile
// (docs/outputs.md §3.1):
//
//	{"type":"sampled","name":"main (thread 200001)","unit":"none",
//	 "startValue":0,"endValue":267,"samples":[[0,1,2],[0,1,3]],"weights":[14,9]}
//
// one per thread that has samples, each stack root first with its weight
// (stacks.Tree.Weight). The unit is "none" (a count) for a Counted tree;
// for a Timed one (JVM hprof cpu=times) the weights are nanoseconds and
// the file is named "(elapsed time)" (hprof measures cpu=times with the
// time of day). endValue is the sum of the weights.
//
// Frames are de-duplicated by name and file only: the line of a sampled
// frame is the line that was running, and keeping it would split a method
// into one frame per call site in the flame graph. Stacks are written in
// depth-first order with callees sorted by name, so the time-ordered view
// draws the same picture as the left-heavy one, merged and alphabetical,
// rather than the file's arbitrary order.

// WriteTree writes a call tree as a speedscope file of sampled profiles.
// A value (Options.Value) that the tree lacks, or that speedscope cannot
// show (Refuse), is an error.
func WriteTree(w io.Writer, s *stacks.Tree, opt Options) error {
	if err := Refuse(opt.Value); err != nil {
		return err
	}
	if _, _, err := s.Clocks(opt.Value); err != nil {
		return fmt.Errorf("speedscope: %w", err)
	}
	t := s.Trace()
	lineless := slices.Clone(t.Frames)
	for i := range lineless {
		lineless[i].Line, lineless[i].HasLine = 0, false
	}
	shared, frames := dedupFrames(lineless)
	profs := sampledProfiles(s, shared, frames)
	wr := &writer{w: w, buf: make([]byte, 0, flushAt+4096)}
	wr.str(`{"$schema":`)
	wr.quoted(Schema)
	if opt.Exporter != "" {
		wr.str(`,"exporter":`)
		wr.quoted(opt.Exporter)
	}
	wr.str(`,"name":`)
	wr.quoted(sampledName(s, opt))
	wr.str(`,"activeProfileIndex":`)
	wr.int(int64(activeSampled(profs)))
	writeFrameList(wr, frames)
	wr.str(`,"profiles":[`)
	for i := range profs {
		if i > 0 {
			wr.str(",")
		}
		profs[i].write(wr, s.Values().Kind == stacks.Timed)
	}
	wr.str("]}\n")
	wr.flush()
	if wr.err != nil {
		return fmt.Errorf("speedscope: %w", wr.err)
	}
	return nil
}

// sampledProfile is one thread's stacks and weights.
type sampledProfile struct {
	name    string
	stacks  [][]int32
	weights []int64
	total   int64
}

// sampledProfiles walks each thread's tree depth first, callees in name
// order, and collects the stacks that have a weight.
func sampledProfiles(s *stacks.Tree, shared []int32, frames []frameKey) []sampledProfile {
	nodes := s.Nodes()
	kids := make([][]stacks.NodeID, len(nodes))
	for i := range nodes {
		if p := nodes[i].Parent; p != stacks.NoNode {
			kids[p] = append(kids[p], stacks.NodeID(i))
		}
	}
	byName := func(a, b stacks.NodeID) int {
		fa, fb := frames[shared[nodes[a].Frame]], frames[shared[nodes[b].Frame]]
		return cmp.Or(cmp.Compare(fa.name, fb.name), cmp.Compare(fa.file, fb.file), cmp.Compare(a, b))
	}
	for i := range kids {
		slices.SortFunc(kids[i], byName)
	}
	var out []sampledProfile
	for i := range nodes {
		if !nodes[i].IsRoot() {
			continue
		}
		p := sampledProfile{name: SampledProfileName(s, int(nodes[i].Thread))}
		// Depth first, with the path in slices rather than on the
		// goroutine's stack, since the input sets the depth.
		var path []int32
		visit := func(id stacks.NodeID) {
			if v := s.Weight(id); v > 0 {
				p.stacks = append(p.stacks, slices.Clone(path))
				p.weights = append(p.weights, v)
				p.total += v
			}
		}
		type level struct {
			node stacks.NodeID
			next int
		}
		visit(stacks.NodeID(i))
		todo := []level{{stacks.NodeID(i), 0}}
		for len(todo) > 0 {
			top := &todo[len(todo)-1]
			if top.next == len(kids[top.node]) {
				todo = todo[:len(todo)-1]
				if len(todo) > 0 {
					path = path[:len(path)-1]
				}
				continue
			}
			c := kids[top.node][top.next]
			top.next++
			path = append(path, shared[nodes[c].Frame])
			visit(c)
			todo = append(todo, level{c, 0})
		}
		out = append(out, p)
	}
	// Threads whose stacks all weigh 0 (cpu=times rounds small times to 0)
	// are left out, but speedscope needs one profile at least.
	kept := slices.DeleteFunc(slices.Clone(out), func(p sampledProfile) bool { return len(p.stacks) == 0 })
	if len(kept) == 0 && len(out) > 0 {
		kept = out[:1]
	}
	return kept
}

// SampledProfileName names a thread's sampled profile: "main (thread
// 200001)" (or "(tid 4821)" when the tree's thread ids are not serials),
// or stacks.UnknownThreadName for stacks without a thread.
func SampledProfileName(s *stacks.Tree, thread int) string {
	th := &s.Trace().Threads[thread]
	if u, ok := s.UnknownThread(); ok && int(u) == thread {
		return th.Name
	}
	if !s.Values().Serials {
		return ProfileName(th)
	}
	return fmt.Sprintf("%s (thread %d)", th.Name, th.ID)
}

// sampledName is the file's name: "java.hprof.txt (samples)".
func sampledName(s *stacks.Tree, opt Options) string {
	if opt.Name != "" {
		return opt.Name
	}
	base := filepath.Base(s.Trace().Name)
	if n := s.Trace().Name; n == "-" || n == "" {
		base = "stdin"
	}
	if s.Values().Kind == stacks.Timed {
		return base + " (elapsed time)"
	}
	return base + " (samples)"
}

// activeSampled shows the thread named main first, else the heaviest.
func activeSampled(profs []sampledProfile) int {
	best := 0
	for i := range profs {
		if strings.HasPrefix(profs[i].name, "main (") {
			return i
		}
		if profs[i].total > profs[best].total {
			best = i
		}
	}
	return best
}

func (p *sampledProfile) write(w *writer, timed bool) {
	w.str(`{"type":"sampled","name":`)
	w.quoted(p.name)
	if timed {
		w.str(`,"unit":"nanoseconds"`)
	} else {
		w.str(`,"unit":"none"`)
	}
	w.str(`,"startValue":0,"endValue":`)
	w.int(p.total)
	w.str(`,"samples":[`)
	for i, st := range p.stacks {
		if i > 0 {
			w.str(",")
		}
		w.str("[")
		for j, f := range st {
			if j > 0 {
				w.str(",")
			}
			w.int(int64(f))
		}
		w.str("]")
		w.maybeFlush()
	}
	w.str(`],"weights":[`)
	for i, v := range p.weights {
		if i > 0 {
			w.str(",")
		}
		w.int(v)
	}
	w.str("]}")
	w.maybeFlush()
}
