package focus

import "github.com/atrace2/atrace2/stream"

// Counter is a stage that counts what passes through it and sends it on
// unchanged: at the head of the focus chain it counts the whole stream,
// at the tail what the focus kept (stream.FocusStats).
type Counter struct {
	next stream.Exporter
	// Frames counts the begins: one per frame, which is one call (a cut
	// begin too).
	Frames int64
	// Wall is the exclusive wall time, summed over threads, in ns: the
	// time between consecutive events of a thread while a frame is open
	// on it, which is also the summed wall time of its outermost frames.
	Wall    int64
	threads []counterThread // by ThreadIndex
}

type counterThread struct {
	open int64 // frames open
	last int64 // wall time of the thread's last event
}

// NewCounter returns a counter that sends to next.
func NewCounter(next stream.Exporter) *Counter { return &Counter{next: next} }

var _ stream.Exporter = (*Counter)(nil)

// Begin forgets the counts of an earlier read.
func (c *Counter) Begin(t *stream.Trace) error {
	c.Frames, c.Wall = 0, 0
	c.threads = make([]counterThread, len(t.Threads))
	return c.next.Begin(t)
}

// Events counts the events and sends them on.
func (c *Counter) Events(b *stream.Batch) error {
	if err := c.count(b.Events); err != nil {
		return err
	}
	return c.next.Events(b)
}

// count counts the events; a function of its own, so that the batch takes
// no register in the loop.
func (c *Counter) count(evs []stream.Event) error {
	for i := range evs {
		ev := &evs[i]
		if int(ev.Thread) >= len(c.threads) {
			c.threads = append(c.threads, make([]counterThread, int(ev.Thread)+1-len(c.threads))...)
		}
		th := &c.threads[ev.Thread]
		if th.open > 0 {
			c.Wall += ev.Wall - th.last
		}
		th.last = ev.Wall
		switch ev.Kind {
		case stream.Begin:
			th.open++
			c.Frames++
		case stream.End:
			th.open--
		default:
			return ErrEnclose
		}
	}
	return nil
}

// Finish passes through.
func (c *Counter) Finish(t *stream.Trace) error { return c.next.Finish(t) }
