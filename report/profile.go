package report

import (
	"errors"
	"fmt"
	"slices"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Basis is what a profile's values measure: one of the trace's clocks, or
// the sample counts of a sampled profile.
type Basis uint8

const (
	Wall    Basis = iota // wall-clock time
	CPU                  // thread CPU time
	Samples              // sample counts of a sampled profile: not a time
	// OffCPU is the off-CPU time derived from a dual-clock trace: per
	// stack, max(0, exclusive wall − exclusive thread CPU)
	// (stacks.Node.OffCPU), summed like the measured clocks.
	OffCPU
)

// String returns the name used in CSV headers and JSON: wall, cpu,
// samples or offcpu.
func (b Basis) String() string {
	switch b {
	case Wall:
		return "wall"
	case CPU:
		return "cpu"
	case OffCPU:
		return "offcpu"
	}
	return "samples"
}

// slot is where a basis's values are in times. OffCPU shares the slot of
// Samples: a method trace has no sample counts and a sampled profile no
// off-CPU time, and three values per node in each of the profile's
// per-node arrays keep top's peak memory where it was.
func (b Basis) slot() int {
	if b == OffCPU {
		return int(Samples)
	}
	return int(b)
}

// times holds one value per basis, indexed by Basis.slot.
type times [3]int64

// at returns the value of basis b.
func (t *times) at(b Basis) int64 { return t[b.slot()] }

func (t *times) add(u times) {
	for i := range t {
		t[i] += u[i]
	}
}

func (t *times) sub(u times) {
	for i := range t {
		t[i] -= u[i]
	}
}

// Method is a distinct method of a trace.
type Method struct {
	Name       string // <class>.<method>
	Signature  string // JVM descriptor, may be empty
	Overloaded bool   // another method of the trace has the same Name
}

type methodKey struct{ name, sig string }

// Profile is the per-method view of one aggregated trace: the tree's nodes
// annotated with what the reports need, computed in a few linear passes.
type Profile struct {
	Name    string          // the trace's name in report headers; callers may change it
	Clocks  []Basis         // the clocks the trace has, wall first (or Samples)
	Methods []Method        // every method that has a frame in the trace
	Threads []stream.Thread // the trace's threads, indexed by stream.ThreadIndex

	// CallsUnknown says the profile counts samples, not calls (a sampled
	// profile other than hprof cpu=times): its calls are all 0.
	CallsUnknown bool
	// Notes are caveats the reports print under their header, such as
	// stacks cut by a sampling profiler's depth limit.
	Notes []string
	// Focus says what --thread, --from/--to and --root kept
	// (stream.FocusStats.Summary); "" without a focus.
	Focus string
	// Sampling is the guess whether the trace was recorded in sampling
	// mode (stream.Trace.Sampling); then Notes say so too.
	Sampling stream.Sampling
	// unknownThread is the index of stacks.UnknownThreadName in Threads,
	// -1 when every stack has its thread.
	unknownThread int

	nodes  []stacks.Node
	method []int32 // per node: index into Methods, -1 for thread roots
	first  []bool  // per node: its method is not also lower in its stack
	self   []times // per node: exclusive time (zero for thread roots)
	sub    []times // per node: time of its subtree, the node included
	share  []times // per node: its parent's method's child share, see doc.go
}

// ErrNoClock is returned for a trace that carries no times at all.
var ErrNoClock = errors.New("the trace has neither a wall nor a thread-CPU clock")

// ErrNoOffCPU refuses the off-CPU clock of a profile that lacks the wall or
// the thread-CPU clock it is derived from.
var ErrNoOffCPU = errors.New("off-CPU time needs a trace with both the wall and the thread-CPU clock")

// NewProfile annotates a finished call tree. Its clocks follow the tree's
// value schema (stacks.Values): a Timed tree has the clocks its trace has
// (JVM hprof cpu=times, which counts calls and elapsed time per stack,
// so reads exactly like a wall-clock method trace); a Counted one (a
// sampled profile) has the one "clock" Samples, and its calls are unknown
// (CallsUnknown). Inclusive values, recursion and the parent and child
// shares are computed alike, from counts instead of times.
func NewProfile(tree *stacks.Tree) (*Profile, error) {
	if tree == nil || tree.Trace() == nil {
		return nil, errors.New("report: the call tree has no trace")
	}
	t := tree.Trace()
	p := &Profile{Name: t.Name, Threads: t.Threads, nodes: tree.Nodes(), unknownThread: -1, Focus: t.Focus.Summary()}
	if u, ok := tree.UnknownThread(); ok {
		p.unknownThread = int(u)
	}
	counted := tree.Values().Kind == stacks.Counted
	period := tree.Values().Period
	switch {
	case counted:
		p.Clocks, p.CallsUnknown = []Basis{Samples}, true
		if period > 0 {
			// The CPU time the samples stand for (stacks.Tree.Clocks).
			p.Clocks = append(p.Clocks, CPU)
			p.Notes = append(p.Notes, estimateNote(tree))
		}
	default:
		if t.HasWall {
			p.Clocks = append(p.Clocks, Wall)
		}
		if t.HasCPU {
			p.Clocks = append(p.Clocks, CPU)
		}
	}
	if len(p.Clocks) == 0 {
		return nil, ErrNoClock
	}
	p.Sampling = t.Sampling
	if n := SamplingNote(t.Sampling); n != "" {
		p.Notes = append(p.Notes, n)
	}
	frameMethod := p.indexMethods(t.Frames)
	self := make([]times, len(p.nodes))
	dual := t.HasWall && t.HasCPU
	for i := range p.nodes {
		nd := &p.nodes[i]
		switch {
		case nd.IsRoot():
		case counted:
			n := tree.Samples(stacks.NodeID(i))
			self[i][Samples.slot()] = n
			self[i][CPU.slot()] = tree.EstimatedCPU(n)
		default:
			self[i] = times{Wall: nd.Wall, CPU: nd.CPU}
			if dual {
				self[i][OffCPU.slot()] = nd.OffCPU()
			}
		}
	}
	p.annotate(frameMethod, self)
	if src := tree.Source(); src != nil && src.CutStacks > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s of %d reach the profiler's depth limit (%d frames) and may miss outer frames: inclusive values of outer methods are lower bounds",
			plural(int64(src.CutStacks), "stack"), src.Stacks, src.MaxDepth))
	}
	return p, nil
}

// estimateNote says how a sampled profile's CPU times are estimated.
func estimateNote(tree *stacks.Tree) string {
	period := tree.Values().Period
	from := ""
	if src := tree.Source(); src != nil && src.Period != "" {
		from = " (" + src.Period + ")"
	}
	return fmt.Sprintf("sampled: a sample stands for %s of CPU time%s; cpu is estimated, samples × %s",
		units.Duration(period), from, units.Duration(period))
}

// Use makes the profile show the value v picks (--clock): a clock alone,
// the off-CPU time (UseOffCPU), or with stream.ValueAuto every clock the
// trace has. It is an error (a *stream.ValueError, or ErrNoOffCPU) when
// the profile lacks a clock v needs, and for a sampled profile, whose
// values are counts, any value but stream.ValueAuto.
func (p *Profile) Use(v stream.Value) error {
	var b Basis
	switch v {
	case stream.ValueAuto:
		return nil
	case stream.ValueOffCPU:
		return p.UseOffCPU()
	case stream.ValueWall:
		b = Wall
	case stream.ValueCPU:
		b = CPU
	default:
		return &stream.ValueError{Value: v}
	}
	if !slices.Contains(p.Clocks, b) {
		return &stream.ValueError{Value: v, HasWall: slices.Contains(p.Clocks, Wall), HasCPU: slices.Contains(p.Clocks, CPU)}
	}
	p.Clocks = []Basis{b}
	return nil
}

// knownThreads is the number of threads that are real threads, not the
// stand-in for stacks without one.
func (p *Profile) knownThreads() int {
	if p.unknownThread >= 0 {
		return len(p.Threads) - 1
	}
	return len(p.Threads)
}

// UseOffCPU makes the off-CPU time the profile's first clock, which sorting,
// thresholds and diff's text table use, followed by the wall clock it is a
// part of (its thread-CPU part is what --clock cpu shows). It returns
// ErrNoOffCPU unless the profile has both the wall and the thread-CPU
// clock.
func (p *Profile) UseOffCPU() error {
	if len(p.Clocks) > 0 && p.Clocks[0] == OffCPU {
		return nil
	}
	if !slices.Contains(p.Clocks, Wall) || !slices.Contains(p.Clocks, CPU) {
		return ErrNoOffCPU
	}
	p.Clocks = []Basis{OffCPU, Wall}
	return nil
}

// indexMethods merges frames into methods and returns each frame's method.
func (p *Profile) indexMethods(frames []stream.Frame) []int32 {
	idx := make(map[methodKey]int32, len(frames))
	names := make(map[string]int, len(frames))
	out := make([]int32, len(frames))
	for i, f := range frames {
		k := methodKey{f.Name, f.Signature}
		m, ok := idx[k]
		if !ok {
			m = int32(len(p.Methods))
			idx[k] = m
			p.Methods = append(p.Methods, Method{Name: f.Name, Signature: f.Signature})
			names[f.Name]++
		}
		out[i] = m
	}
	for i := range p.Methods {
		p.Methods[i].Overloaded = names[p.Methods[i].Name] > 1
	}
	return out
}

// annotate fills the per-node arrays from each node's exclusive values
// (self; zero for thread roots). Subtree times come from one backward pass
// (children have larger ids than their parents); the recursion flags and
// child shares need the current path, so they come from a depth-first
// walk.
func (p *Profile) annotate(frameMethod []int32, self []times) {
	n := len(p.nodes)
	p.method = make([]int32, n)
	p.self = self
	p.sub = make([]times, n)
	for i := range p.nodes {
		nd := &p.nodes[i]
		p.method[i] = -1
		if !nd.IsRoot() {
			p.method[i] = frameMethod[nd.Frame]
		}
	}
	copy(p.sub, p.self)
	for i := n - 1; i >= 0; i-- {
		if par := p.nodes[i].Parent; par != stacks.NoNode {
			p.sub[par].add(p.sub[i])
		}
	}
	p.share = make([]times, n)
	copy(p.share, p.sub)
	p.first = make([]bool, n)
	p.walk()
}

// walk visits every thread's tree depth first, keeping for each method the
// depth of its innermost occurrence on the current path. A node whose
// method already occurs on the path is a recursive call; its subtree's time
// is taken from the child share of the node just above that previous
// occurrence, since for those stacks the innermost occurrence is deeper.
func (p *Profile) walk() {
	kidStart, kids := p.children()
	innermost := make([]int32, len(p.Methods))
	for i := range innermost {
		innermost[i] = -1
	}
	saved := make([]int32, len(p.nodes))
	var path []stacks.NodeID
	type visit struct {
		node stacks.NodeID
		next int32
	}
	var todo []visit
	for r := range p.nodes {
		if !p.nodes[r].IsRoot() {
			continue
		}
		path = append(path[:0], stacks.NodeID(r))
		todo = append(todo[:0], visit{stacks.NodeID(r), kidStart[r]})
		for len(todo) > 0 {
			top := &todo[len(todo)-1]
			if top.next == kidStart[top.node+1] {
				if m := p.method[top.node]; m >= 0 {
					innermost[m] = saved[top.node]
				}
				path = path[:len(path)-1]
				todo = todo[:len(todo)-1]
				continue
			}
			c := kids[top.next]
			top.next++
			m := p.method[c]
			prev := innermost[m]
			saved[c] = prev
			innermost[m] = int32(len(path))
			path = append(path, c)
			if prev < 0 {
				p.first[c] = true
			} else {
				p.share[path[prev+1]].sub(p.sub[c]) // c itself when its caller is m
			}
			todo = append(todo, visit{c, kidStart[c]})
		}
	}
}

// children returns the tree's child lists in compressed form: the children
// of node i are kids[start[i]:start[i+1]].
func (p *Profile) children() (start []int32, kids []stacks.NodeID) {
	return group[stacks.NodeID](len(p.nodes), len(p.nodes), func(i int) int {
		return int(p.nodes[i].Parent) // NoNode (-1) for a root: left out
	})
}

// group sorts the indexes 0..n-1 by key (a counting sort, stable) into
// members, those of key k being members[start[k]:start[k+1]]; an index
// whose key is negative is left out. keys is the number of keys.
func group[ID ~int32](n, keys int, key func(i int) int) (start []int32, members []ID) {
	start = make([]int32, keys+1)
	for i := range n {
		if k := key(i); k >= 0 {
			start[k+1]++
		}
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	members = make([]ID, start[keys])
	fill := slices.Clone(start)
	for i := range n {
		if k := key(i); k >= 0 {
			members[fill[k]] = ID(i)
			fill[k]++
		}
	}
	return start, members
}

// stat is one method's numbers over a set of threads.
type stat struct {
	excl, incl    times
	calls, recurs int64
	present       bool // the method has a stack in the set
}

// stats sums the per-method numbers over the nodes of every thread, and
// returns the total time too (eachThreadStats gives them per thread).
func (p *Profile) stats() (st []stat, total times) {
	st = make([]stat, len(p.Methods))
	for i := range p.nodes {
		m := p.method[i]
		if m < 0 {
			continue
		}
		st[m].present = true
		p.add(&st[m], &total, i)
	}
	return st, total
}

// add counts node i in its method's numbers s and in total.
func (p *Profile) add(s *stat, total *times, i int) {
	s.excl.add(p.self[i])
	total.add(p.self[i])
	s.calls += p.nodes[i].Calls
	if p.first[i] {
		s.incl.add(p.sub[i])
	} else {
		s.recurs += p.nodes[i].Calls
	}
}

// eachThreadStats calls f with the per-method numbers of each thread in
// turn, as stats gives them for all, and the methods present there in
// increasing order. It makes one pass over the nodes and one table of
// methods, cleared after each thread, so that its cost grows with nodes,
// methods and threads, not threads × methods (docs/performance.md §5).
// st is valid only during the call.
func (p *Profile) eachThreadStats(f func(thread int, st []stat, present []int32, total times)) {
	start, order := group[int32](len(p.nodes), len(p.Threads), func(i int) int {
		if p.method[i] < 0 {
			return -1
		}
		return int(p.nodes[i].Thread)
	})
	st := make([]stat, len(p.Methods))
	var present []int32
	for th := range p.Threads {
		present = present[:0]
		var total times
		for _, i := range order[start[th]:start[th+1]] {
			m := p.method[i]
			if !st[m].present {
				st[m].present = true
				present = append(present, m)
			}
			p.add(&st[m], &total, int(i))
		}
		slices.Sort(present)
		f(th, st, present, total)
		for _, m := range present {
			st[m] = stat{}
		}
	}
}

// topLevel stands for "no caller" in edge keys.
const topLevel = -1

// edge is the link between a caller method and a callee method, summed over
// every thread.
type edge struct {
	calls    int64 // calls of the callee made from the caller
	asParent times // the caller's share of the callee's inclusive time
	asChild  times // the callee's share of the caller's inclusive time
}

type edgeKey struct{ caller, callee int32 }

// edges sums every caller → callee link of the trace (see doc.go).
func (p *Profile) edges() map[edgeKey]*edge {
	es := make(map[edgeKey]*edge)
	for i := range p.nodes {
		m := p.method[i]
		if m < 0 {
			continue
		}
		caller := p.method[p.nodes[i].Parent] // -1 (topLevel) for a root
		k := edgeKey{caller, m}
		e := es[k]
		if e == nil {
			e = &edge{}
			es[k] = e
		}
		e.calls += p.nodes[i].Calls
		if p.first[i] {
			e.asParent.add(p.sub[i])
		}
		if caller != topLevel {
			e.asChild.add(p.share[i])
		}
	}
	return es
}

// pick returns the values of t on the given clocks, in order.
func pick(t times, clocks []Basis) []int64 {
	out := make([]int64, len(clocks))
	for i, c := range clocks {
		out[i] = t.at(c)
	}
	return out
}

// pct returns 100*part/whole per clock; 0 where whole is 0.
func pct(part, whole times, clocks []Basis) []float64 {
	out := make([]float64, len(clocks))
	for i, c := range clocks {
		if w := whole.at(c); w != 0 {
			out[i] = 100 * float64(part.at(c)) / float64(w)
		}
	}
	return out
}

// clockNames returns the names of clocks for reports.
func clockNames(clocks []Basis) []string {
	out := make([]string, len(clocks))
	for i, c := range clocks {
		out[i] = c.String()
	}
	return out
}

// SamplingNote is the caveat of a trace recorded in sampling mode, as info
// and the pprof comment word it; "" for an instrumented trace.
func SamplingNote(s stream.Sampling) string {
	if !s.Likely {
		return ""
	}
	return fmt.Sprintf("looks like a sampling-mode trace (about %s between samples): calls count sampled entries and times are approximate",
		units.Duration(s.Interval))
}
