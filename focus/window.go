package focus

import (
	"errors"
	"math"

	"github.com/atrace2/atrace2/stream"
)

// Window is the closed window [From, To] of --from/--to, in ns since the
// trace start on the wall clock, the time axis of every output. From is 0
// when --from is left out, To is NoEnd when --to is. From ≤ To.
type Window struct {
	From, To int64
}

// NoEnd is Window.To of a window that runs to the trace end.
const NoEnd = math.MaxInt64

// ErrEnclose is the error of a stage given a one-read stream.Enclose
// instruction: a focused stream must come from two reads.
var ErrEnclose = errors.New("focus: a one-read enclose instruction reached a focus stage (a focused conversion reads the trace twice)")

// NewWindow returns the stage that keeps what lies in the window w and
// sends it to next. Per thread, in order:
//
//  1. Before the thread's first event at or after From, it sends nothing,
//     and keeps a shadow stack of the frames begun and not yet ended.
//  2. At that event it first begins the shadow frames again, outermost
//     first, at their own depths, at wall time From, flagged stream.Cut (an
//     orphan frame's begin keeps its stream.Synthetic flag too).
//  3. The events from From to To pass unchanged.
//  4. At the first event after To it ends the frames still open, innermost
//     first, at wall time To, flagged stream.Cut, and drops the rest of the
//     thread.
//
// The rules this gives every output:
//
//   - A frame is kept when its wall interval [begin, end] meets the window
//     (end ≥ From and begin ≤ To); one kept frame is one call. A frame
//     that ends exactly at From or begins exactly at To is kept, with no
//     time.
//   - Exclusive wall time: each stretch between two consecutive events of
//     the thread counts its length clipped to the window.
//   - Exclusive thread-CPU time: a stretch counts its CPU time only when
//     both of its events lie in the window, else 0: CPU time cannot be cut
//     inside a stretch without guessing. So a cut begin carries the CPU
//     time of the thread's next event, and a cut end that of the last one
//     sent: the stretches they bound count none. A stretch that spans the
//     whole window counts To−From on the wall clock and 0 on the CPU clock.
//   - An orphan frame's synthetic begin (time 0) and an open frame's
//     synthetic end (the trace end, the thread's last CPU time) are events
//     like the others.
//   - A thread with no frame in the window sends nothing.
//
// The shared instant of two adjacent windows [a, b] and [b, c] lies in
// both, as the windows are closed. Their wall times add up exactly to
// those of [a, c]: a stretch's clipped lengths in the two add up to its
// clipped length in [a, c], and a frame that only touches b gets no time
// in the window it touches. Its calls do not add up: a frame that meets b
// is kept, and counted as a call, in both. Nor does CPU time: a stretch
// that crosses b counts its CPU time in [a, c] and in neither half.
//
// Depths are those of the whole stream: the shadow frames are exactly the
// frames below the first event sent, and a stage never drops a frame
// under a frame it keeps.
func NewWindow(next stream.Exporter, w Window) stream.Exporter {
	return &window{next: next, w: w}
}

type window struct {
	next    stream.Exporter
	w       Window
	threads []windowThread // by ThreadIndex
	out     stream.Batch   // the batch sent, its events reused
}

// phase is where a thread's events are against the window.
type phase uint8

const (
	before phase = iota // no event at or after From yet
	inside              // events from From to To pass
	after               // an event after To came: the rest is dropped
)

type windowThread struct {
	phase   phase
	stack   []openFrame // frames begun and not ended: a shadow stack before From
	lastCPU int64       // the CPU time of the last event sent
}

// openFrame is a frame on a thread's stack.
type openFrame struct {
	frame stream.FrameID
	depth int32
	flags stream.Flags // the begin's Synthetic flag
}

var _ stream.Exporter = (*window)(nil)

// Begin forgets the threads of an earlier read.
func (s *window) Begin(t *stream.Trace) error {
	s.threads = make([]windowThread, len(t.Threads))
	s.out.Events = s.out.Events[:0]
	return s.next.Begin(t)
}

// Events sends what lies in the window.
func (s *window) Events(b *stream.Batch) error {
	out, err := s.cut(b.Events, s.out.Events[:0])
	if err != nil {
		return err
	}
	s.out = stream.Batch{Events: out, Threads: b.Threads, Frames: b.Frames}
	if len(out) == 0 {
		return nil
	}
	return s.next.Events(&s.out)
}

// cut appends to out what of evs lies in the window; a function of its
// own, so that the batch takes no register in the loop.
func (s *window) cut(evs, out []stream.Event) ([]stream.Event, error) {
	for i := range evs {
		ev := &evs[i]
		if ev.Kind > stream.End {
			return out, ErrEnclose
		}
		th := s.thread(ev.Thread)
		switch th.phase {
		case after:
			continue
		case before:
			if ev.Wall < s.w.From {
				th.track(ev)
				continue
			}
			out = th.cutBegins(out, ev, s.w.From)
			th.phase = inside
		}
		if ev.Wall > s.w.To {
			out = th.cutEnds(out, ev.Thread, s.w.To)
			th.phase, th.stack = after, nil
			continue
		}
		th.track(ev)
		th.lastCPU = ev.CPU
		out = append(out, *ev)
	}
	return out, nil
}

// Finish passes through: a thread's stream ends balanced, so its frames
// still open have ended in the window.
func (s *window) Finish(t *stream.Trace) error { return s.next.Finish(t) }

// thread finds a thread's state, growing the table for a thread Begin did
// not list.
func (s *window) thread(i stream.ThreadIndex) *windowThread {
	if int(i) >= len(s.threads) {
		s.threads = append(s.threads, make([]windowThread, int(i)+1-len(s.threads))...)
	}
	return &s.threads[i]
}

// track moves the thread's stack over a begin or an end.
func (th *windowThread) track(ev *stream.Event) {
	if ev.Kind == stream.Begin {
		th.stack = append(th.stack, openFrame{ev.Frame, ev.Depth, ev.Flags & stream.Synthetic})
		return
	}
	if n := len(th.stack); n > 0 {
		th.stack = th.stack[:n-1]
	}
}

// cutBegins begins the frames open before From again, at From, with the CPU
// time of ev, the thread's next event.
func (th *windowThread) cutBegins(out []stream.Event, ev *stream.Event, from int64) []stream.Event {
	for _, f := range th.stack {
		out = append(out, stream.Event{Kind: stream.Begin, Flags: stream.Cut | f.flags,
			Thread: ev.Thread, Frame: f.frame, Depth: f.depth, Wall: from, CPU: ev.CPU})
	}
	th.lastCPU = ev.CPU
	return out
}

// cutEnds ends the open frames at To, with the CPU time of the last event
// sent.
func (th *windowThread) cutEnds(out []stream.Event, t stream.ThreadIndex, to int64) []stream.Event {
	for i := len(th.stack) - 1; i >= 0; i-- {
		f := th.stack[i]
		out = append(out, stream.Event{Kind: stream.End, Flags: stream.Cut,
			Thread: t, Frame: f.frame, Depth: f.depth, Wall: to, CPU: th.lastCPU})
	}
	return out
}
