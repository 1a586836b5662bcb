// Package profbuild is the half the readers of timed, multi-process
// sampled profiles (packages pftrace and simpleperf) share: it aggregates
// samples into a samples.Profile and names their frames.
//
// A reader hands each sample over as a thread (pid, tid), a call stack and
// a time. Stacks are nodes of a trie (a node is a frame under a parent
// node), so a stack costs one lookup per new frame and the samples are
// counted per distinct (thread, node) in a map: memory grows with the
// distinct stacks, not with the samples. Only a time window or a timeline
// (samples.Select) keeps 24 bytes per sample, since the window counts from
// the first sample of the whole file, which is known only at its end.
//
// Finish picks the process (the one asked for, or the one with the most
// samples), applies the thread filter and the window, and builds the
// profile: threads in order of pid and tid, samples in order of thread and
// first appearance of their stacks, frames in order of first use.
package profbuild

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/samples"
)

// NoParent is the parent of a root frame's node.
const NoParent int32 = -1

// Builder accumulates samples. The zero value is not usable: see New.
type Builder struct {
	format samples.Format
	sel    samples.Select

	frames    map[samples.Frame]int32
	frameList []samples.Frame

	nodes      map[uint64]int32 // parent+1 << 32 | frame → node
	nodeParent []int32
	nodeFrame  []int32

	threads    map[[2]int64]int32 // (pid, tid) → thread
	threadList [][2]int64

	counts  map[uint64]int64 // thread << 32 | node → samples
	weights map[uint64]int64 // thread << 32 | node → ns, when samples carry weights
	recs    recs             // every sample, when the window or timeline needs its time
	keep    bool             // recs is kept

	first, last int64
	timed       bool // first and last hold a sample's time

	threadSamples []int64 // samples per thread
	procNames     map[int64]named
	threadNames   map[int64]named // by tid

	repairs      map[int32]string // frame → what a sample with it repairs
	unlisted     []samples.Unlisted
	procUnlisted map[int64][]samples.Unlisted
	notes        []string

	// Period and PeriodNanos are copied to the profile.
	Period      string
	PeriodNanos int64
	// Truncated is copied to the profile.
	Truncated bool
}

// named is a name with the priority of its source: a later name replaces
// an earlier one of the same or a lower priority.
type named struct {
	name string
	prio int
}

// rec is one sample kept with its time.
type rec struct {
	key    uint64
	time   int64
	weight int64
}

// recs holds the kept samples in chunks of a fixed size, so that keeping
// them costs their size (24 bytes each) and no copies of a doubling slice.
type recs struct {
	chunks [][]rec
}

const recChunk = 1 << 14

func (rs *recs) add(key uint64, time, weight int64) {
	n := len(rs.chunks)
	if n == 0 || len(rs.chunks[n-1]) == recChunk {
		rs.chunks = append(rs.chunks, make([]rec, 0, recChunk))
		n++
	}
	rs.chunks[n-1] = append(rs.chunks[n-1], rec{key, time, weight})
}

func (rs *recs) each(f func(r *rec)) {
	for _, c := range rs.chunks {
		for i := range c {
			f(&c[i])
		}
	}
}

// New returns a builder for profiles of format f, keeping what sel says.
func New(f samples.Format, sel samples.Select) *Builder {
	return &Builder{
		format:      f,
		sel:         sel,
		frames:      map[samples.Frame]int32{},
		nodes:       map[uint64]int32{},
		threads:     map[[2]int64]int32{},
		counts:      map[uint64]int64{},
		procNames:   map[int64]named{},
		threadNames: map[int64]named{},
		repairs:     map[int32]string{},
		keep:        sel.Windowed || sel.Timeline,
	}
}

// Frame returns the index of frame f, adding it on first sight.
func (b *Builder) Frame(f samples.Frame) int32 {
	if i, ok := b.frames[f]; ok {
		return i
	}
	i := int32(len(b.frameList))
	b.frames[f] = i
	b.frameList = append(b.frameList, f)
	return i
}

// Node returns the node of frame under parent (NoParent for a root frame).
func (b *Builder) Node(parent, frame int32) int32 {
	k := uint64(uint32(parent+1))<<32 | uint64(uint32(frame))
	if n, ok := b.nodes[k]; ok {
		return n
	}
	n := int32(len(b.nodeParent))
	b.nodes[k] = n
	b.nodeParent = append(b.nodeParent, parent)
	b.nodeFrame = append(b.nodeFrame, frame)
	return n
}

// Stack returns the node of a stack of frame indices, root first.
func (b *Builder) Stack(frames []int32) int32 {
	n := NoParent
	for _, f := range frames {
		n = b.Node(n, f)
	}
	return n
}

// Thread returns the index of the thread (pid, tid).
func (b *Builder) Thread(pid, tid int64) int32 {
	k := [2]int64{pid, tid}
	if i, ok := b.threads[k]; ok {
		return i
	}
	i := int32(len(b.threadList))
	b.threads[k] = i
	b.threadList = append(b.threadList, k)
	b.threadSamples = append(b.threadSamples, 0)
	return i
}

// Add counts one sample of thread at node (a stack with no frame is
// NoParent), taken at time, standing for weight ns of CPU time (0 when the
// file gives none).
func (b *Builder) Add(thread, node int32, time, weight int64) {
	key := uint64(uint32(thread))<<32 | uint64(uint32(node))
	if !b.timed {
		b.first, b.last, b.timed = time, time, true
	} else {
		b.first, b.last = min(b.first, time), max(b.last, time)
	}
	b.threadSamples[thread]++
	if b.keep {
		b.recs.add(key, time, weight)
		return
	}
	b.counts[key]++
	if weight != 0 {
		b.addWeight(key, weight)
	}
}

func (b *Builder) addWeight(key uint64, w int64) {
	if b.weights == nil {
		b.weights = map[uint64]int64{}
	}
	b.weights[key] = satAdd(b.weights[key], w)
}

// NameProcess names process pid; a later name of the same or a higher
// priority replaces an earlier one.
func (b *Builder) NameProcess(pid int64, name string, prio int) {
	if old, ok := b.procNames[pid]; !ok || prio >= old.prio {
		b.procNames[pid] = named{name, prio}
	}
}

// NameThread names thread tid, with priorities as NameProcess.
func (b *Builder) NameThread(tid int64, name string, prio int) {
	if old, ok := b.threadNames[tid]; !ok || prio >= old.prio {
		b.threadNames[tid] = named{name, prio}
	}
}

// RepairFrame says that the samples whose stacks hold frame (an
// UnknownFrame) are repaired for what (such as "samples whose call stack
// was never interned"): Finish counts the kept ones in Profile.Repairs.
func (b *Builder) RepairFrame(frame int32, what string) { b.repairs[frame] = what }

// Unlisted adds a count of samples the file has without a stack, of no
// process in particular.
func (b *Builder) Unlisted(reason string, n int64) {
	b.unlisted = addUnlisted(b.unlisted, reason, n)
}

// UnlistedFor adds a count of samples of process pid the file has without
// a stack; the profile lists them when it holds that process.
func (b *Builder) UnlistedFor(pid int64, reason string, n int64) {
	if b.procUnlisted == nil {
		b.procUnlisted = map[int64][]samples.Unlisted{}
	}
	b.procUnlisted[pid] = addUnlisted(b.procUnlisted[pid], reason, n)
}

func addUnlisted(us []samples.Unlisted, reason string, n int64) []samples.Unlisted {
	for i := range us {
		if us[i].Reason == reason {
			us[i].Count = satAdd(us[i].Count, n)
			return us
		}
	}
	return append(us, samples.Unlisted{Reason: reason, Count: n})
}

// Note adds a sentence to the profile's notes.
func (b *Builder) Note(format string, args ...any) {
	b.notes = append(b.notes, fmt.Sprintf(format, args...))
}

// Samples is the number of samples added so far.
func (b *Builder) Samples() int64 {
	var n int64
	for _, c := range b.threadSamples {
		n += c
	}
	return n
}

// SetPIDs gives the threads added as (0, tid) the process pid(tid)
// returns, for files that say which process a thread is in only after its
// samples (simpleperf's Thread records come last).
func (b *Builder) SetPIDs(pid func(tid int64) (int64, bool)) {
	for i, k := range b.threadList {
		if k[0] != 0 {
			continue
		}
		if p, ok := pid(k[1]); ok && p != 0 {
			nk := [2]int64{p, k[1]}
			if _, dup := b.threads[nk]; dup {
				continue // the thread is known in its process already: keep both
			}
			delete(b.threads, k)
			b.threads[nk] = int32(i)
			b.threadList[i] = nk
		}
	}
}

// MapFrames replaces each frame by what name returns, for files that name
// frames only after their samples (simpleperf's File records come last).
// Frames that become equal are merged, and so are the stacks and samples
// that become equal.
func (b *Builder) MapFrames(name func(old samples.Frame) samples.Frame) {
	old := b.frameList
	b.frames, b.frameList = map[samples.Frame]int32{}, nil
	remap := make([]int32, len(old))
	for i, f := range old {
		remap[i] = b.Frame(name(f))
	}
	repairs := map[int32]string{}
	for f, w := range b.repairs {
		repairs[remap[f]] = w
	}
	b.repairs = repairs
	// Parents come before their children, so the new trie is built in
	// node order.
	parents, frames := b.nodeParent, b.nodeFrame
	b.nodes, b.nodeParent, b.nodeFrame = map[uint64]int32{}, nil, nil
	node := make([]int32, len(parents))
	for i := range parents {
		p := NoParent
		if parents[i] != NoParent {
			p = node[parents[i]]
		}
		node[i] = b.Node(p, remap[frames[i]])
	}
	rekey := func(k uint64) uint64 {
		n := int32(uint32(k))
		if n != NoParent {
			n = node[n]
		}
		return k&^0xffffffff | uint64(uint32(n))
	}
	counts, weights := b.counts, b.weights
	b.counts, b.weights = map[uint64]int64{}, nil
	for k, n := range counts {
		b.counts[rekey(k)] += n
	}
	for k, w := range weights {
		b.addWeight(rekey(k), w)
	}
	b.recs.each(func(r *rec) { r.key = rekey(r.key) })
}

// ProcessError is Finish's error when Select.Process names no process with
// samples.
type ProcessError struct {
	Asked     string
	Processes []samples.Process // those with samples, in order of pid
}

func (e *ProcessError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no stack samples of process %q; the file has samples of ", e.Asked)
	for i, p := range e.Processes {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 8 {
			fmt.Fprintf(&b, "and %d more", len(e.Processes)-i)
			break
		}
		fmt.Fprintf(&b, "%s (pid %d, %d samples)", p.ProcessName(), p.PID, p.Samples)
	}
	return b.String()
}

// Processes lists the processes with samples, in order of pid.
func (b *Builder) Processes() []samples.Process {
	per := map[int64]int64{}
	for t, n := range b.threadSamples {
		if n > 0 {
			per[b.threadList[t][0]] += n
		}
	}
	ps := make([]samples.Process, 0, len(per))
	for pid, n := range per {
		ps = append(ps, samples.Process{PID: pid, Name: b.procNames[pid].name, Samples: n})
	}
	slices.SortFunc(ps, func(a, b samples.Process) int { return cmp.Compare(a.PID, b.PID) })
	return ps
}

// choose returns the index in ps of the process sel asks for.
func (b *Builder) choose(ps []samples.Process) (int, error) {
	asked := b.sel.Process
	if asked == "" {
		best := 0
		for i, p := range ps {
			if p.Samples > ps[best].Samples {
				best = i
			}
		}
		return best, nil
	}
	if pid, err := strconv.ParseInt(asked, 10, 64); err == nil {
		for i, p := range ps {
			if p.PID == pid {
				return i, nil
			}
		}
		return 0, &ProcessError{asked, ps}
	}
	var match []int
	for i, p := range ps {
		if p.Name == asked || p.Name != "" && path.Base(p.Name) == asked {
			match = append(match, i)
		}
	}
	if len(match) == 0 {
		return 0, &ProcessError{asked, ps}
	}
	best := match[0]
	for _, i := range match[1:] {
		if ps[i].Samples > ps[best].Samples {
			best = i
		}
	}
	if len(match) > 1 {
		b.Note("%d processes are named %q: kept pid %d, the one with the most samples", len(match), asked, ps[best].PID)
	}
	return best, nil
}

// Finish builds the profile. With no sample at all it returns a profile
// with no Processes, for the reader to report; a Select.Process that
// matches nothing gives a *ProcessError.
func (b *Builder) Finish() (*samples.Profile, error) {
	p := &samples.Profile{
		Format: b.format, Notes: b.notes, Unlisted: b.unlisted,
		Period: b.Period, PeriodNanos: b.PeriodNanos, Truncated: b.Truncated,
	}
	if b.Samples() == 0 {
		return p, nil
	}
	p.StartNanos, p.EndNanos = b.first, b.last
	p.Processes = b.Processes()
	chosen, err := b.choose(p.Processes)
	if err != nil {
		return nil, err
	}
	p.Process = chosen
	pid := p.Processes[chosen].PID
	for _, u := range b.procUnlisted[pid] {
		p.Unlisted = addUnlisted(p.Unlisted, u.Reason, u.Count)
	}

	// The threads of the process, in order of tid, and which to keep.
	var ths []int32
	for i, k := range b.threadList {
		if k[0] == pid {
			ths = append(ths, int32(i))
		}
	}
	slices.SortFunc(ths, func(x, y int32) int { return cmp.Compare(b.threadList[x][1], b.threadList[y][1]) })
	out := make([]int32, len(b.threadList)) // thread → index in p.Threads + 1; 0 dropped
	for _, t := range ths {
		if b.threadSamples[t] == 0 {
			continue // a thread met without a sample (its samples' time unknown): nothing to keep
		}
		k := b.threadList[t]
		th := samples.Thread{ID: k[1], TID: k[1], PID: k[0], Name: b.threadNames[k[1]].name}
		if b.sel.Threads != nil && !b.sel.Threads(&th) {
			continue
		}
		p.Threads = append(p.Threads, th)
		out[t] = int32(len(p.Threads))
		p.ThreadSamples += b.threadSamples[t]
	}
	b.collect(p, out)
	b.countRepairs(p)
	return p, nil
}

// countRepairs counts the kept samples with repaired frames, once per
// sample and kind of repair.
func (b *Builder) countRepairs(p *samples.Profile) {
	if len(b.repairs) == 0 {
		return
	}
	what := map[int]string{} // profile frame → repair
	for f, w := range b.repairs {
		if i := slices.Index(p.Frames, b.frameList[f]); i >= 0 {
			what[i] = w
		}
	}
	n := map[string]int64{}
	var seen []string
	for _, s := range p.Samples {
		seen = seen[:0]
		for _, f := range s.Stack {
			if w, ok := what[f]; ok && !slices.Contains(seen, w) {
				seen = append(seen, w)
				n[w] += s.Count
			}
		}
	}
	for w, c := range n {
		p.Repairs = append(p.Repairs, samples.Repair{What: w, Count: c})
	}
	slices.SortFunc(p.Repairs, func(a, b samples.Repair) int { return cmp.Compare(a.What, b.What) })
}

// collect fills p's samples, frames and timeline from the counts (or the
// kept samples) of the threads out keeps.
func (b *Builder) collect(p *samples.Profile, out []int32) {
	type agg struct {
		key           uint64
		count, weight int64
	}
	var aggs []agg
	index := map[uint64]int{}
	var timeline []samples.TimedSample
	if b.keep {
		from, to := int64(math.MinInt64), int64(math.MaxInt64)
		if b.sel.Windowed {
			from, to = satAdd(b.first, b.sel.From), satAdd(b.first, b.sel.To)
		}
		b.recs.each(func(r *rec) {
			if out[r.key>>32] == 0 || r.time < from || r.time > to {
				return
			}
			i, ok := index[r.key]
			if !ok {
				i = len(aggs)
				index[r.key] = i
				aggs = append(aggs, agg{key: r.key})
			}
			aggs[i].count++
			aggs[i].weight = satAdd(aggs[i].weight, r.weight)
			if b.sel.Timeline {
				timeline = append(timeline, samples.TimedSample{Sample: i, Time: r.time - b.first})
			}
		})
	} else {
		for k, n := range b.counts {
			if out[k>>32] != 0 {
				aggs = append(aggs, agg{key: k, count: n, weight: b.weights[k]})
			}
		}
	}
	// Thread, then the stack's node (nodes are numbered in order of first
	// sight), so that the order depends on the file, not on map iteration.
	perm := make([]int, len(aggs))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(x, y int) int {
		a, c := aggs[x], aggs[y]
		if t := cmp.Compare(out[a.key>>32], out[c.key>>32]); t != 0 {
			return t
		}
		return cmp.Compare(uint32(a.key), uint32(c.key))
	})
	where := make([]int, len(aggs)) // agg → sample index
	renum := make([]int32, len(b.frameList))
	var stack []int32
	for si, ai := range perm {
		a := aggs[ai]
		where[ai] = si
		stack = stack[:0]
		for n := int32(uint32(a.key)); n != NoParent; n = b.nodeParent[n] {
			stack = append(stack, b.nodeFrame[n])
		}
		s := samples.Sample{Thread: int(out[a.key>>32]) - 1, Count: a.count, WeightNanos: a.weight, Stack: make([]int, len(stack))}
		for i := range stack {
			f := stack[len(stack)-1-i] // root first
			if renum[f] == 0 {
				p.Frames = append(p.Frames, b.frameList[f])
				renum[f] = int32(len(p.Frames))
			}
			s.Stack[i] = int(renum[f]) - 1
		}
		p.MaxDepth = max(p.MaxDepth, len(s.Stack))
		p.Samples = append(p.Samples, s)
	}
	if b.sel.Timeline {
		for i := range timeline {
			timeline[i].Sample = where[timeline[i].Sample]
			timeline[i].Thread = p.Samples[timeline[i].Sample].Thread
		}
		p.Timeline = samples.NewTimeline(timeline)
	}
}

// satAdd adds without overflowing: the sum saturates at the int64 limits.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}
