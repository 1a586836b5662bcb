package samples

import (
	"container/heap"
	"slices"

	"github.com/atrace2/atrace2/stream"
)

// A profile whose samples have times (Profile.Timeline: Perfetto traces,
// simpleperf profiles) is also a timeline, which Play gives to the
// exporters of the event stream (package stream) that the method traces
// feed: Perfetto's slices, speedscope's evented profiles, dump's lines.
// Each thread's samples become the changes of its stack at the sample
// times (docs/sampled-profiles.md):
//
//   - a sample at time t with stack S ends, at t, the frames of the stack
//     before it that S does not share (innermost first) and begins those
//     of S that it lacks (outermost first), so that a run of samples of
//     one stack is one slice per frame;
//   - a sample stands for Cover ns from its time (the sampling period, when
//     the file states one): when the thread's next sample comes later, or
//     never, the stack ends at t + Cover, and the thread is idle until its
//     next sample;
//   - when the profile has a period, the thread-CPU clock of the stream is
//     that covered time, summed per thread: each sample is a period of CPU
//     time, as the tree counts it (stacks.Tree.EstimatedCPU).
//
// The threads' events are merged in time order. Memory is the timeline's
// (which the reader kept for it) and a batch; the tree of the profile,
// which every other view reads, keeps none of it.

// playBatch is the most events Play hands over in one batch.
const playBatch = 4096

// Cover is how long, in ns, Play takes each sample of the profile to last:
// the sampling period when the file states one, else the median of the
// intervals between two samples of a thread (1 ms when no thread has two).
func (p *Profile) Cover() int64 {
	if p.PeriodNanos > 0 {
		return p.PeriodNanos
	}
	if p.Timeline == nil {
		return 1_000_000
	}
	var gaps []int64
	recs := p.Timeline.recs
	for i := 1; i < len(recs); i++ {
		if recs[i].thread == recs[i-1].thread && recs[i].time > recs[i-1].time {
			gaps = append(gaps, recs[i].time-recs[i-1].time)
		}
	}
	if len(gaps) == 0 {
		return 1_000_000
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// Play drives exporters with the timeline of p (see above): each gets
// Begin with the complete trace, the batches, and Finish, one call at a
// time, in the order given. frames is the tree's frame table
// (Profile.Tree's trace: its frames are p.Frames at the same indices, and
// then the empty stack's frame, if any); base gives the trace's name and
// its deobfuscation and focus summaries. Threads are those with samples,
// in the order Tree gives them, so that a thread index of the stream is
// the tree's. A profile without a timeline is an invariant violation.
func (p *Profile) Play(base *stream.Trace, outs ...stream.Exporter) error {
	tl := p.Timeline
	if tl == nil {
		panic("invariant violation: samples.Profile.Play without a timeline")
	}
	t := &stream.Trace{Name: base.Name, Size: base.Size, Frames: base.Frames, HasWall: true, HasCPU: p.PeriodNanos > 0,
		Deobf: base.Deobf, Focus: base.Focus}
	if len(p.Processes) > 0 {
		t.Process.PID = int(p.Processes[p.Process].PID)
	}
	t.Process.Elapsed = p.EndNanos - p.StartNanos
	empty := stream.FrameID(-1)
	if len(base.Frames) > len(p.Frames) {
		empty = stream.FrameID(len(p.Frames))
	}
	pl := &player{p: p, cover: p.Cover(), cpu: t.HasCPU, empty: empty}
	pl.threads(t)
	// A dry run fills in the threads' counts, so that Begin has the
	// complete trace (as a second read of a method trace does).
	pl.run(t, nil)
	for _, o := range outs {
		if err := o.Begin(t); err != nil {
			return err
		}
	}
	if err := pl.run(t, outs); err != nil {
		return err
	}
	for _, o := range outs {
		if err := o.Finish(t); err != nil {
			return err
		}
	}
	return nil
}

// player turns a timeline into events.
type player struct {
	p     *Profile
	cover int64
	cpu   bool
	empty stream.FrameID
	index []stream.ThreadIndex // by profile thread: the stream's thread, -1 for none
	// spans are the timeline's records of each stream thread.
	spans [][2]int
}

// threads lists the threads with samples in t, as Profile.Tree does,
// and where each one's samples are in the timeline.
func (pl *player) threads(t *stream.Trace) {
	p := pl.p
	used := make([]bool, len(p.Threads))
	for _, s := range p.Samples {
		if s.Thread >= 0 {
			used[s.Thread] = true
		}
	}
	pl.index = make([]stream.ThreadIndex, len(p.Threads))
	for i := range pl.index {
		pl.index[i] = -1
		if used[i] {
			th := &p.Threads[i]
			pl.index[i] = stream.ThreadIndex(len(t.Threads))
			t.Threads = append(t.Threads, stream.Thread{Index: pl.index[i], ID: threadID(th.ID), Name: th.ThreadName(), Listed: th.Name != ""})
		}
	}
	pl.spans = make([][2]int, len(t.Threads))
	recs := p.Timeline.recs
	for i := 0; i < len(recs); {
		j := i
		for j < len(recs) && recs[j].thread == recs[i].thread {
			j++
		}
		if th := recs[i].thread; th >= 0 && int(th) < len(pl.index) && pl.index[th] >= 0 {
			pl.spans[pl.index[th]] = [2]int{i, j}
		}
		i = j
	}
}

// cursor is one thread's place in its samples.
type cursor struct {
	th         stream.ThreadIndex
	next, stop int              // its next record, and the end of its records
	open       []stream.FrameID // the frames begun and not ended, outermost first
	sample     int32            // the sample whose stack is open, -1 for none
	now        int64            // the time of the latest sample
	end        int64            // when the open stack ends unless a sample comes first
	base       int64            // the thread's CPU time at now
	at         int64            // the time of the cursor's next step
}

// cursors orders the threads' cursors by the time of their next step,
// then by thread.
type cursors []*cursor

func (h cursors) Len() int { return len(h) }
func (h cursors) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].th < h[j].th
}
func (h cursors) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// run makes the events of every thread in time order and gives them to
// outs in batches; with no outs it only counts them into t's threads.
func (pl *player) run(t *stream.Trace, outs []stream.Exporter) error {
	dry := outs == nil
	var h cursors
	for i, sp := range pl.spans {
		if sp[1] > sp[0] {
			c := &cursor{th: stream.ThreadIndex(i), next: sp[0], stop: sp[1], sample: -1}
			c.at = pl.p.Timeline.recs[c.next].time
			h = append(h, c)
		}
	}
	heap.Init(&h)
	b := &stream.Batch{Threads: t.Threads, Frames: t.Frames}
	if !dry {
		b.Events = make([]stream.Event, 0, playBatch+256)
	}
	flush := func() error {
		if len(b.Events) == 0 {
			return nil
		}
		for _, o := range outs {
			if err := o.Events(b); err != nil {
				return err
			}
		}
		b.Events = b.Events[:0]
		return nil
	}
	emit := func(c *cursor, k stream.Kind, f stream.FrameID, depth int, wall, cpu int64) {
		if dry {
			th := &t.Threads[c.th]
			th.Events++
			th.MaxDepth = max(th.MaxDepth, depth+1)
			th.LastWall, th.LastCPU = wall, cpu
			t.WallEnd = max(t.WallEnd, wall)
			return
		}
		if !pl.cpu {
			cpu = 0
		}
		b.Events = append(b.Events, stream.Event{Kind: k, Thread: c.th, Frame: f, Depth: int32(depth), Wall: wall, CPU: cpu})
	}
	closeTo := func(c *cursor, keep int, wall, cpu int64) {
		for d := len(c.open) - 1; d >= keep; d-- {
			emit(c, stream.End, c.open[d], d, wall, cpu)
		}
		c.open = c.open[:keep]
	}
	recs := pl.p.Timeline.recs
	for len(h) > 0 {
		c := h[0]
		if c.next == c.stop || c.sample >= 0 && c.end < recs[c.next].time {
			// The open stack ends at its cover's end: the thread's samples
			// are over, or it has none for a while.
			closeTo(c, 0, c.end, c.base+c.end-c.now)
			c.base += c.end - c.now
			c.now, c.sample = c.end, -1
		} else {
			r := recs[c.next]
			c.next++
			wall := r.time
			cpu := c.base
			if c.sample >= 0 {
				cpu += min(wall, c.end) - c.now
			}
			if r.sample != c.sample {
				stack := pl.p.Samples[r.sample].Stack
				keep := 0
				for keep < len(c.open) && keep < len(stack) && c.open[keep] == stream.FrameID(stack[keep]) {
					keep++
				}
				if len(stack) == 0 && len(c.open) == 1 && c.open[0] == pl.empty {
					keep = 1
				}
				closeTo(c, keep, wall, cpu)
				for d := keep; d < len(stack); d++ {
					c.open = append(c.open, stream.FrameID(stack[d]))
					emit(c, stream.Begin, stream.FrameID(stack[d]), d, wall, cpu)
				}
				if len(stack) == 0 && len(c.open) == 0 && pl.empty >= 0 {
					c.open = append(c.open, pl.empty)
					emit(c, stream.Begin, pl.empty, 0, wall, cpu)
				}
				c.sample = r.sample
			}
			c.now, c.base, c.end = wall, cpu, satAdd(wall, pl.cover)
		}
		switch {
		case c.next < c.stop && c.end >= recs[c.next].time:
			c.at = recs[c.next].time
		case c.sample >= 0:
			c.at = c.end
		case c.next < c.stop:
			c.at = recs[c.next].time
		default:
			heap.Pop(&h)
			continue
		}
		heap.Fix(&h, 0)
		if len(b.Events) >= playBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// satAdd adds two times, saturating at the largest int64.
func satAdd(a, b int64) int64 {
	if b > 0 && a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// Remap renumbers the timeline's samples after an operation that merged
// or dropped samples of Profile.Samples (the load stage's --root): to[i]
// is the new index of sample i, -1 when it was dropped. Samples merge only
// within a thread, so the timeline stays in thread and time order.
func (t *Timeline) Remap(to []int) {
	out := t.recs[:0]
	for _, r := range t.recs {
		if n := to[r.sample]; n >= 0 {
			r.sample = int32(n)
			out = append(out, r)
		}
	}
	t.recs = out
}
