package convert

import (
	"errors"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/parser"
)

// threadState is one thread's stack and clocks during a pass.
type threadState struct {
	idx     stream.ThreadIndex
	stack   []frameRef
	floor   int              // second pass: stack[:floor] are orphan frames not yet exited
	orphans []stream.FrameID // first pass: orphan exits in file order
	segMax  []int            // first pass: deepest real stack before each orphan exit
	cpu     unwrapper
	wall    unwrapper
	started bool

	// First-pass counts, kept here (not in Trace.Threads) so that the hot
	// loop touches one thread's state only; finish copies them out.
	segDepth          int   // deepest real stack since the last orphan exit
	events            int64 // events the second pass will send
	lastCPU, lastWall int64
	probed            int // events given to the sampling probe
}

type frameRef struct {
	frame stream.FrameID
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
func (p *pass) exit(ts *threadState, f stream.FrameID, a parser.Action, wall, cpu int64) {
	var fl stream.Flags
	if a == parser.Unwind {
		fl = stream.Unwound
	}
	if len(ts.stack) == ts.floor {
		p.orphan(ts, f, fl, wall, cpu)
		return
	}
	i := len(ts.stack) - 1
	for i >= ts.floor && ts.stack[i].frame != f {
		i--
	}
	if i < ts.floor {
		p.stats.DroppedExits++
		return
	}
	for j := len(ts.stack) - 1; j > i; j-- {
		p.stats.ImplicitExits++
		p.end(ts, j, stream.Implicit, wall, cpu)
	}
	p.end(ts, i, fl, wall, cpu)
}

// orphan handles an exit with no real frame on the stack. The first pass
// notes it; the second pass finds it already opened at the thread's start;
// a single pass tells one-pass exporters after the fact, and a hopeful one
// gives up sending.
func (p *pass) orphan(ts *threadState, f stream.FrameID, fl stream.Flags, wall, cpu int64) {
	if p.count {
		p.stats.OrphanExits++
		ts.orphans = append(ts.orphans, f)
		ts.segMax = append(ts.segMax, ts.segDepth)
		ts.segDepth = 0
		ts.events += 2
	}
	switch {
	case !p.emit:
	case p.onePass:
		p.send(stream.Orphan, fl|stream.Synthetic, ts, f, 0, wall, cpu)
	case p.hopeful:
		p.miss()
	default:
		if ts.floor == 0 || ts.stack[ts.floor-1].frame != f {
			panic("invariant violation: orphan exit differs between passes")
		}
		ts.floor--
		p.end(ts, ts.floor, fl, wall, cpu)
	}
}

// miss ends the hope of a single read (runHopeful): the orphan frame must
// be opened before everything its thread did so far, which the exporters
// have been sent. The pass stops sending and goes on counting; the events
// not yet handed over are dropped.
func (p *pass) miss() {
	p.emit, p.missed = false, true
	p.out = p.out[:0]
	p.total = 2 * p.t.Size
}

// end pops the frame at depth i, which must be the top of the stack.
func (p *pass) end(ts *threadState, i int, fl stream.Flags, wall, cpu int64) {
	f := ts.stack[i].frame
	ts.stack = ts.stack[:i]
	if p.emit {
		p.send(stream.End, fl, ts, f, i, wall, cpu)
	}
	if p.count {
		ts.events++
	}
}

// start opens the orphan frames of a thread before its first record, in
// the second of two passes: the last orphan outermost, all at time 0.
func (p *pass) start(ts *threadState) {
	ts.started = true
	if !p.emit || p.onePass {
		return
	}
	for i := len(ts.orphans) - 1; i >= 0; i-- {
		f := ts.orphans[i]
		ts.stack = append(ts.stack, frameRef{f})
		p.send(stream.Begin, stream.Synthetic, ts, f, len(ts.stack)-1, 0, 0)
	}
	ts.floor = len(ts.stack)
}

// finish ends the frames still open: at the trace end on the wall clock and
// at the thread's last time on the thread-CPU clock.
func (p *pass) finish(ts *threadState) {
	th := &p.t.Threads[ts.idx]
	if p.count {
		p.stats.OpenAtEnd += int64(len(ts.stack))
		th.Open = len(ts.stack)
		th.Events = ts.events + int64(len(ts.stack))
		th.Orphans = len(ts.orphans)
		th.LastCPU, th.LastWall = ts.lastCPU, ts.lastWall
		// While the j-th orphan's segment runs, the orphans from j on are
		// still open below the real frames.
		segs := append(ts.segMax, ts.segDepth)
		for j, m := range segs {
			th.MaxDepth = max(th.MaxDepth, m+len(ts.orphans)-j)
		}
	}
	if p.emit {
		for i := len(ts.stack) - 1; i >= 0; i-- {
			p.end(ts, i, stream.Synthetic, p.t.WallEnd, th.LastCPU)
		}
	}
}

// send queues an event; the queue goes to the exporters when it is full
// and at the end of the pass.
// The fields are stored one by one into the queue (see parser's
// decodeBuffered for why not a struct literal); the queue always has room,
// as it is handed over when full.
func (p *pass) send(k stream.Kind, fl stream.Flags, ts *threadState, f stream.FrameID, depth int, wall, cpu int64) {
	n := len(p.out)
	p.out = p.out[:n+1]
	ev := &p.out[n]
	ev.Kind, ev.Flags, ev.Thread, ev.Frame, ev.Depth = k, fl, ts.idx, f, int32(depth)
	ev.Wall, ev.CPU = wall, cpu
	if n+1 == cap(p.out) {
		p.flush()
	}
}

// flush hands the queued events to every exporter, or to the pipeline.
func (p *pass) flush() {
	if p.pipe != nil {
		var ok bool
		if p.out, ok = p.pipe.swap(p.out, p.t); !ok && p.err == nil {
			p.err = errExporter
		}
		return
	}
	if err := deliver(p.exps, p.out); err != nil && p.err == nil {
		p.err = err
	}
	p.out = p.out[:0]
}

// errExporter stops a pass whose exporters failed on the pipeline's
// goroutine; the pipeline then returns their error.
var errExporter = errors.New("an exporter failed")
