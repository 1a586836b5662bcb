package focus

import "github.com/atrace2/atrace2/convert/stream"

// Tally counts what a stretch of the balanced stream holds, as the focus
// report gives it: the calls (begins) and the wall time spent inside any
// frame, summed over threads (the outermost frames' wall intervals: the
// call tree's wall total, which pprof and folded add up).
type Tally struct {
	Calls int64
	Wall  int64 // ns

	open []int64 // per thread: the wall time its outermost open frame began
}

// Add counts a batch of events.
func (t *Tally) Add(evs []stream.Event) {
	for i := range evs {
		ev := &evs[i]
		if ev.Depth != 0 {
			if ev.Kind == stream.Begin {
				t.Calls++
			}
			continue
		}
		for int(ev.Thread) >= len(t.open) {
			t.open = append(t.open, 0)
		}
		switch ev.Kind {
		case stream.Begin:
			t.Calls++
			t.open[ev.Thread] = ev.Wall
		case stream.End:
			t.Wall += ev.Wall - t.open[ev.Thread]
		}
	}
}

func (t *Tally) reset() {
	t.Calls, t.Wall, t.open = 0, 0, t.open[:0]
}
