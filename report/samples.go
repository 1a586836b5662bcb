package report

import (
	"errors"
	"fmt"

	"github.com/atrace2/atrace2/stacks"
)

// NewSampledProfile annotates the tree of a sampled profile (hprof text,
// ART profile files). Its one "clock" is Samples, and its calls are
// unknown (CallsUnknown), except for JVM hprof cpu=times, which counts
// calls and elapsed time per stack and so reads exactly like a wall-clock
// method trace: clock Wall, with calls (hprof measures cpu=times with the
// time of day, not thread CPU time). Inclusive values, recursion and the
// parent and child shares are computed as for a method trace, from counts
// instead of times.
func NewSampledProfile(s *stacks.Sampled) (*Profile, error) {
	if s == nil || s.Trace() == nil {
		return nil, errors.New("report: no sampled profile")
	}
	t := s.Trace()
	p := &Profile{Name: t.Name, Threads: t.Threads, nodes: s.Nodes(), unknownThread: -1, Focus: t.Focus.Summary()}
	if u, ok := s.UnknownThread(); ok {
		p.unknownThread = int(u)
	}
	p.Clocks = []Basis{Samples}
	p.CallsUnknown = !s.Timed()
	if s.Timed() {
		p.Clocks = []Basis{Wall}
	}
	frameMethod := p.indexMethods(t.Frames)
	self := make([]times, len(p.nodes))
	for i := range p.nodes {
		if p.nodes[i].IsRoot() {
			continue
		}
		self[i][Wall] = p.nodes[i].Wall
		self[i][Samples] = s.Samples(stacks.NodeID(i))
	}
	p.annotate(frameMethod, self)
	if n := cutStacks(s); n > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s of %d reach the profiler's depth limit (%d frames) and may miss outer frames: inclusive values of outer methods are lower bounds",
			plural(int64(n), "stack"), len(s.Source().Samples), s.Source().MaxDepth))
	}
	return p, nil
}

// cutStacks counts the profile's stacks that may miss outer frames.
func cutStacks(s *stacks.Sampled) int {
	n := 0
	for i := range s.Source().Samples {
		if s.Source().CutStack(i) {
			n++
		}
	}
	return n
}

// knownThreads is the number of threads that are real threads, not the
// stand-in for stacks without one.
func (p *Profile) knownThreads() int {
	if p.unknownThread >= 0 {
		return len(p.Threads) - 1
	}
	return len(p.Threads)
}
