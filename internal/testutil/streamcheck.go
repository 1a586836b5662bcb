package testutil

import (
	"fmt"

	"github.com/atrace2/atrace2/stream"
)

// StreamCheck is an exporter that checks what the stream contract
// promises (package stream): per thread, frames end in the reverse order
// they began, at the depth they began, and wall and CPU times never go
// back; events name threads and frames of their batch's tables; nothing
// is open at Finish, and Finish's counts are the events seen. Err is the
// first breach.
type StreamCheck struct {
	Err    error
	open   map[stream.ThreadIndex][]stream.FrameID
	wall   map[stream.ThreadIndex]int64
	cpu    map[stream.ThreadIndex]int64
	events map[stream.ThreadIndex]int64
}

func (c *StreamCheck) fail(format string, args ...any) {
	if c.Err == nil {
		c.Err = fmt.Errorf(format, args...)
	}
}

func (c *StreamCheck) Begin(*stream.Trace) error {
	c.open = map[stream.ThreadIndex][]stream.FrameID{}
	c.wall = map[stream.ThreadIndex]int64{}
	c.cpu = map[stream.ThreadIndex]int64{}
	c.events = map[stream.ThreadIndex]int64{}
	return nil
}

func (c *StreamCheck) Events(b *stream.Batch) error {
	for i, ev := range b.Events {
		th := ev.Thread
		if int(th) >= len(b.Threads) || int(ev.Frame) >= len(b.Frames) || ev.Frame < 0 {
			c.fail("event %d: thread %d, frame %d of tables of %d and %d", i, th, ev.Frame, len(b.Threads), len(b.Frames))
			continue
		}
		if ev.Wall < c.wall[th] || ev.CPU < c.cpu[th] {
			c.fail("thread %d: times go back to wall %d, cpu %d after %d, %d", th, ev.Wall, ev.CPU, c.wall[th], c.cpu[th])
		}
		c.wall[th], c.cpu[th] = ev.Wall, ev.CPU
		c.events[th]++
		st := c.open[th]
		switch ev.Kind {
		case stream.Begin:
			if int(ev.Depth) != len(st) {
				c.fail("thread %d: frame %d begins at depth %d with %d open", th, ev.Frame, ev.Depth, len(st))
			}
			c.open[th] = append(st, ev.Frame)
		case stream.End:
			if len(st) == 0 || st[len(st)-1] != ev.Frame || int(ev.Depth) != len(st)-1 {
				c.fail("thread %d: frame %d ends at depth %d, open %v", th, ev.Frame, ev.Depth, st)
				continue
			}
			c.open[th] = st[:len(st)-1]
		}
	}
	return nil
}

func (c *StreamCheck) Finish(t *stream.Trace) error {
	for th, st := range c.open {
		if len(st) > 0 {
			c.fail("thread %d: %d frames open at the end", th, len(st))
		}
	}
	for _, th := range t.Threads {
		if th.Events != c.events[th.Index] {
			c.fail("thread %d: %d events, Finish says %d", th.Index, c.events[th.Index], th.Events)
		}
	}
	return nil
}
