package convert

import (
	"errors"
	"fmt"
	"slices"

	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// threadState is one thread's stack and clocks during a pass.
type threadState struct {
	idx     stream.ThreadIndex
	stack   []stream.FrameID
	floor   int              // second pass: stack[:floor] are orphan frames not yet exited
	orphans []stream.FrameID // first pass: orphan exits in file order
	segMax  []int            // first pass: deepest real stack before each orphan exit
	cpu     unwrapper
	wall    unwrapper
	started bool
	// fast says that fastRecords may take the thread's records: it has
	// started, and in a pass that counts, given the sampling probe its
	// first probeEvents events (record sets it).
	fast bool
	// skip marks a thread the thread filter drops (Options.Threads): it
	// has no index, and its records never reach the policy (keptRecords).
	skip bool

	// First-pass counts, kept here (not in Trace.Threads) so that the hot
	// loop touches one thread's state only; finish copies them out.
	segDepth int // deepest real stack since the last orphan exit
	// deep counts the frames on the stack deeper than deepScan (from
	// floor), by frame, so that exit scans them only for a frame among
	// them.
	deep   map[stream.FrameID]int32
	events int64 // events the second pass will send
	probed int   // events given to the sampling probe
	// counts are the thread's counts for the Trace (Events to LastWall),
	// which finish works out at the end of a pass that counts, and
	// refresh gives to the Trace once the exporters have taken every
	// batch, whose thread tables share their memory.
	counts stream.Thread

	// deepOrphans counts the orphan exits dropped past the depth limit
	// (see orphan): in the first pass as they come, and down again in the
	// second, which drops as many.
	deepOrphans int
}

// unwrapper turns one thread's raw time counter into a monotonic one. With
// 32-bit counters (legacy files), a jump back of more than 2^31 is a wrap;
// any other step back is clamped.
type unwrapper struct {
	last  uint64
	epoch uint64
}

func (u *unwrapper) next(raw uint64, wrap32 bool, st *stream.Stats) uint64 {
	v := raw
	if wrap32 {
		v = u.epoch | raw&0xFFFF_FFFF
	}
	if v < u.last {
		if wrap32 && u.last-v > 1<<31 {
			u.epoch += 1 << 32
			v += 1 << 32
			st.Wraps++
		} else {
			v = u.last
			st.BackwardsTimes++
		}
	}
	u.last = v
	return v
}

// exit applies the policy to an exit or unwind record.
func (p *pass) exit(th *threadState, f stream.FrameID, a parser.Action, wall, cpu, off int64) {
	var fl stream.Flags
	if a == parser.Unwind {
		fl = stream.Unwound
	}
	if len(th.stack) == th.floor {
		p.orphan(th, f, fl, wall, cpu, off)
		return
	}
	i := len(th.stack) - 1
	if i-th.floor >= deepScan && th.deep[f] == 0 {
		i = th.floor + deepScan - 1 // f is not among the deepest frames
	}
	for i >= th.floor && th.stack[i] != f {
		i--
	}
	if i < th.floor {
		p.stats.DroppedExits++
		return
	}
	for j := len(th.stack) - 1; j > i; j-- {
		p.stats.ImplicitExits++
		p.end(th, j, stream.Implicit, wall, cpu)
	}
	p.end(th, i, fl, wall, cpu)
}

// orphan handles an exit with no real frame on the stack, as the pass's
// mode says (see mode): a counting pass notes it; the second of two reads
// finds it already opened at the thread's start; one read instructs the
// exporters with a stream.Enclose event; a speculative read gives up
// sending.
//
// A thread's first maxDepth orphan exits make frames. Each later one would
// nest everything before it one level deeper still, past the depth limit,
// so it is dropped and counted (stream.Stats.DeepOrphans), in every mode
// alike: the first maxDepth are the ones one read has sent when it meets
// the next.
func (p *pass) orphan(th *threadState, f stream.FrameID, fl stream.Flags, wall, cpu, off int64) {
	if p.mode.counts() {
		if len(th.orphans)+th.deepOrphans >= CorruptDepth-1 {
			p.tooDeep(off, "orphan exits on one thread")
			return
		}
		if len(th.orphans) >= p.maxDepth {
			th.deepOrphans++
			p.stats.DeepOrphans++
			return
		}
		p.stats.OrphanExits++
		th.orphans = append(th.orphans, f)
		th.segMax = append(th.segMax, th.segDepth)
		th.segDepth = 0
		th.events += 2
	}
	switch p.mode {
	case oneRead:
		p.send(stream.Enclose, fl|stream.Synthetic, th, f, 0, wall, cpu)
	case speculative:
		p.abandonSpeculation()
	case secondOfTwo:
		if th.floor == 0 && th.deepOrphans > 0 {
			th.deepOrphans-- // dropped by the first read too
			return
		}
		if th.floor == 0 || th.stack[th.floor-1] != f {
			p.changed()
			return
		}
		th.floor--
		p.end(th, th.floor, fl, wall, cpu)
	}
}

// abandonSpeculation ends the hope of a single read (runSpeculative): the
// orphan frame must be opened before everything its thread did so far,
// which the exporters have been sent. The pass stops sending and goes on
// counting; the events not yet handed over are dropped.
func (p *pass) abandonSpeculation() {
	p.mode = abandoned
	p.out = p.out[:0]
	p.total = 2 * p.t.Size
}

// end pops the frame at depth i, which must be the top of the stack. A
// frame below the depth limit ends unseen, as it began.
func (p *pass) end(th *threadState, i int, fl stream.Flags, wall, cpu int64) {
	f := th.stack[i]
	th.stack = th.stack[:i]
	if i-th.floor >= deepScan {
		th.deep[f]--
	}
	if i-th.floor >= p.maxDepth {
		return
	}
	if p.mode.sends() {
		p.send(stream.End, fl, th, f, i, wall, cpu)
	}
	if p.mode.counts() {
		th.events++
	}
}

// start opens the orphan frames of a thread before its first record, in
// the second of two passes: the last orphan outermost, all at time 0.
func (p *pass) start(th *threadState) {
	th.started = true
	if p.mode != secondOfTwo {
		return
	}
	for i := len(th.orphans) - 1; i >= 0; i-- {
		f := th.orphans[i]
		th.stack = append(th.stack, f)
		p.send(stream.Begin, stream.Synthetic, th, f, len(th.stack)-1, 0, 0)
	}
	th.floor = len(th.stack)
}

// finish ends the frames still open: at the trace end on the wall clock and
// at the thread's last time on the thread-CPU clock.
func (p *pass) finish(th *threadState) {
	info := &th.counts
	if p.mode.counts() {
		p.stats.OpenAtEnd += int64(len(th.stack))
		info.OpenAtEnd = len(th.stack)
		info.Events = th.events + int64(min(len(th.stack), p.maxDepth))
		info.Orphans = len(th.orphans)
		// The clocks never go back: their last times are the thread's
		// last times.
		info.LastCPU = nanos(th.cpu.last, p.unit, p.maxTicks)
		info.LastWall = nanos(th.wall.last, p.unit, p.maxTicks)
		// While the j-info orphan's segment runs, the orphans from j on are
		// still open below the real frames.
		segs := append(th.segMax, th.segDepth)
		for j, m := range segs {
			info.MaxDepth = max(info.MaxDepth, m+len(th.orphans)-j)
		}
	}
	if p.mode.sends() {
		for i := len(th.stack) - 1; i >= 0; i-- {
			p.end(th, i, stream.Synthetic, p.t.WallEnd, info.LastCPU)
		}
	}
}

// send queues an event; the queue goes to the exporters when it is full
// and at the end of the pass.
// The fields are stored one by one into the queue (see parser's
// decodeBuffered for why not a struct literal); the queue always has room,
// as it is handed over when full.
func (p *pass) send(k stream.Kind, fl stream.Flags, th *threadState, f stream.FrameID, depth int, wall, cpu int64) {
	n := len(p.out)
	p.out = p.out[:n+1]
	ev := &p.out[n]
	ev.Kind, ev.Flags, ev.Thread, ev.Frame, ev.Depth = k, fl, th.idx, f, int32(depth)
	ev.Wall, ev.CPU = wall, cpu
	if n+1 == cap(p.out) {
		p.flush()
	}
}

// flush hands the queued events to every exporter, or to the pipeline,
// with the tables as far as the pass has made them. The pass only
// appends to the tables while it sends (refresh changes them after), so
// a batch's slices of them stay as they were.
func (p *pass) flush() {
	b := stream.Batch{Events: p.out, Threads: slices.Clip(p.t.Threads), Frames: slices.Clip(p.t.Frames)}
	if p.pipe != nil {
		var ok bool
		if p.out, ok = p.pipe.swap(b); !ok && p.err == nil {
			p.err = errExporter
		}
		return
	}
	p.batch = b // a field, so that handing it over allocates nothing
	if err := deliver(p.exps, &p.batch); err != nil && p.err == nil {
		p.err = err
	}
	p.batch = stream.Batch{}
	p.out = p.out[:0]
}

// deepScan is the depth from which a thread's frames are counted in
// threadState.deep, and fastRecords leaves the records to record: an exit
// of a method not on the stack then scans deepScan frames, not the whole
// stack, which a trace of deep stacks and such exits would make quadratic.
// Real stacks are shallower (the corpus's deepest has 109 frames).
const deepScan = 1024

// ErrChanged is wrapped by the error of a second read that did not find
// what the first one found: the input changed between the reads.
var ErrChanged = errors.New("the trace changed while it was read")

// changed stops a second read that found the input different from the
// first: a thread, a method or an orphan exit the first read did not meet.
// The record is dropped and the pass ends after its batch.
func (p *pass) changed() {
	if p.err == nil {
		p.err = ErrChanged
	}
}

// tooDeep stops a pass whose stack reached CorruptDepth, which no real
// trace does: tracking it further would cost memory without end.
func (p *pass) tooDeep(off int64, what string) {
	if p.err == nil {
		p.err = &parser.FormatError{Off: off, Msg: fmt.Sprintf("%s reached %d, which no real stack reaches: the trace is corrupt", what, CorruptDepth)}
	}
}

// errExporter stops a pass whose exporters failed on the pipeline's
// goroutine; the pipeline then returns their error.
var errExporter = errors.New("an exporter failed")
