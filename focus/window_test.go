package focus

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// recorder is the exporter at the end of a chain under test.
type recorder struct {
	evs      []stream.Event
	begun    int
	finished int
}

func (r *recorder) Begin(*stream.Trace) error { r.begun++; r.evs = nil; return nil }
func (r *recorder) Events(batch *stream.Batch) error {
	evs := batch.Events
	r.evs = append(r.evs, evs...)
	return nil
}
func (r *recorder) Finish(*stream.Trace) error { r.finished++; return nil }

const (
	syn = stream.Synthetic
	cut = stream.Cut
)

func b(th stream.ThreadIndex, f stream.FrameID, depth int32, wall, cpu int64, fl ...stream.Flags) stream.Event {
	return ev(stream.Begin, th, f, depth, wall, cpu, fl)
}

func e(th stream.ThreadIndex, f stream.FrameID, depth int32, wall, cpu int64, fl ...stream.Flags) stream.Event {
	return ev(stream.End, th, f, depth, wall, cpu, fl)
}

func ev(k stream.Kind, th stream.ThreadIndex, f stream.FrameID, depth int32, wall, cpu int64, fl []stream.Flags) stream.Event {
	var flags stream.Flags
	for _, x := range fl {
		flags |= x
	}
	return stream.Event{Kind: k, Flags: flags, Thread: th, Frame: f, Depth: depth, Wall: wall, CPU: cpu}
}

// runWindow sends evs through a window, in batches of the given size.
func runWindow(t *testing.T, w Window, evs []stream.Event, batch int) []stream.Event {
	t.Helper()
	rec := &recorder{}
	s := NewWindow(rec, w)
	if err := s.Begin(&stream.Trace{Threads: make([]stream.Thread, 1)}); err != nil {
		t.Fatal(err)
	}
	for len(evs) > 0 {
		n := min(batch, len(evs))
		// The stage must not keep the batch: the caller reuses it.
		in := slices.Clone(evs[:n])
		if err := s.Events(&stream.Batch{Events: in}); err != nil {
			t.Fatal(err)
		}
		clear(in)
		evs = evs[n:]
	}
	if err := s.Finish(&stream.Trace{}); err != nil {
		t.Fatal(err)
	}
	if rec.begun != 1 || rec.finished != 1 {
		t.Fatalf("Begin %d times, Finish %d times", rec.begun, rec.finished)
	}
	return rec.evs
}

// TestWindowEvents checks the exact events of the stage, computed by hand,
// for the window [10, 20].
func TestWindowEvents(t *testing.T) {
	w := Window{From: 10, To: 20}
	tests := []struct {
		name    string
		in, out []stream.Event
	}{
		{"straddling from: begun at from with the CPU time of the next event",
			[]stream.Event{b(0, 1, 0, 5, 1), b(0, 2, 1, 12, 3), e(0, 2, 1, 14, 4), e(0, 1, 0, 15, 6)},
			[]stream.Event{b(0, 1, 0, 10, 3, cut), b(0, 2, 1, 12, 3), e(0, 2, 1, 14, 4), e(0, 1, 0, 15, 6)}},
		{"straddling to: ended at to with the CPU time of the last event sent",
			[]stream.Event{b(0, 1, 0, 15, 1), b(0, 2, 1, 18, 2), e(0, 2, 1, 25, 5), e(0, 1, 0, 30, 7)},
			[]stream.Event{b(0, 1, 0, 15, 1), b(0, 2, 1, 18, 2), e(0, 2, 1, 20, 2, cut), e(0, 1, 0, 20, 2, cut)}},
		{"spanning the window: wall to-from, CPU 0",
			[]stream.Event{b(0, 1, 0, 5, 1), b(0, 2, 1, 6, 2), e(0, 2, 1, 30, 9), e(0, 1, 0, 31, 9)},
			[]stream.Event{b(0, 1, 0, 10, 9, cut), b(0, 2, 1, 10, 9, cut), e(0, 2, 1, 20, 9, cut), e(0, 1, 0, 20, 9, cut)}},
		{"an orphan frame cut at from keeps Synthetic; an open frame is cut at to",
			[]stream.Event{b(0, 1, 0, 0, 0, syn), b(0, 2, 1, 3, 1), e(0, 2, 1, 4, 2), e(0, 1, 0, 15, 4), b(0, 3, 0, 16, 5), e(0, 3, 0, 50, 8, syn)},
			[]stream.Event{b(0, 1, 0, 10, 4, syn|cut), e(0, 1, 0, 15, 4), b(0, 3, 0, 16, 5), e(0, 3, 0, 20, 5, cut)}},
		{"an orphan frame that spans the window, opened at the thread's start and open at the end",
			[]stream.Event{b(0, 1, 0, 0, 0, syn), e(0, 1, 0, 40, 7, syn)},
			[]stream.Event{b(0, 1, 0, 10, 7, syn|cut), e(0, 1, 0, 20, 7, cut)}},
		{"nothing in the window: before, after",
			[]stream.Event{b(0, 1, 0, 1, 1), e(0, 1, 0, 9, 2), b(1, 1, 0, 21, 1), e(1, 1, 0, 29, 2)},
			nil},
		{"frames touching the boundaries are kept with no time",
			[]stream.Event{b(0, 1, 0, 5, 1), e(0, 1, 0, 10, 2), b(0, 2, 0, 20, 3), e(0, 2, 0, 25, 4)},
			[]stream.Event{b(0, 1, 0, 10, 2, cut), e(0, 1, 0, 10, 2), b(0, 2, 0, 20, 3), e(0, 2, 0, 20, 3, cut)}},
		{"threads are cut each on its own, interleaved",
			[]stream.Event{b(0, 1, 0, 5, 1), b(1, 2, 0, 8, 1), e(0, 1, 0, 12, 2), b(0, 3, 0, 19, 3), e(1, 2, 0, 22, 4), e(0, 3, 0, 25, 5)},
			[]stream.Event{b(0, 1, 0, 10, 2, cut), e(0, 1, 0, 12, 2), b(0, 3, 0, 19, 3), b(1, 2, 0, 10, 4, cut), e(1, 2, 0, 20, 4, cut), e(0, 3, 0, 20, 3, cut)}},
		{"events exactly at from and to pass",
			[]stream.Event{b(0, 1, 0, 10, 1), e(0, 1, 0, 20, 2)},
			[]stream.Event{b(0, 1, 0, 10, 1), e(0, 1, 0, 20, 2)}},
	}
	for _, tt := range tests {
		for _, batch := range []int{1, 2, 100} {
			got := runWindow(t, w, tt.in, batch)
			if !slices.Equal(got, tt.out) {
				t.Errorf("%s (batches of %d):\n got %v\nwant %v", tt.name, batch, got, tt.out)
			}
		}
	}
}

// TestWindowAll checks that a window over the whole trace changes nothing.
func TestWindowAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		in := randomStream(rng, 3, 40)
		got := runWindow(t, Window{From: 0, To: NoEnd}, in, 7)
		if !slices.Equal(got, in) {
			t.Fatalf("window [0, end] changed the stream:\n got %v\nwant %v", got, in)
		}
	}
}

func TestWindowRefusesEnclose(t *testing.T) {
	s := NewWindow(&recorder{}, Window{From: 1, To: 2})
	if err := s.Begin(&stream.Trace{}); err != nil {
		t.Fatal(err)
	}
	err := s.Events(&stream.Batch{Events: []stream.Event{{Kind: stream.Enclose, Flags: syn, Wall: 3}}})
	if !errors.Is(err, ErrEnclose) {
		t.Fatalf("got %v, want ErrEnclose", err)
	}
}

// randomStream makes a balanced stream of a few threads, interleaved, as
// the stack policy sends it: orphan frames begun at 0 and frames open at
// the end ended at the trace end, both Synthetic; times on a coarse grid,
// so that events share instants with each other and with the windows.
func randomStream(rng *rand.Rand, threads, events int) []stream.Event {
	type thread struct {
		stack     []stream.FrameID
		wall, cpu int64
	}
	ths := make([]thread, threads)
	var out []stream.Event
	for i := range ths {
		// Orphan frames, begun at the thread's start.
		for range rng.IntN(3) {
			f := stream.FrameID(rng.IntN(5))
			out = append(out, stream.Event{Kind: stream.Begin, Flags: syn, Thread: stream.ThreadIndex(i), Frame: f, Depth: int32(len(ths[i].stack))})
			ths[i].stack = append(ths[i].stack, f)
		}
	}
	var end int64
	for range events {
		i := rng.IntN(threads)
		th := &ths[i]
		th.wall += int64(rng.IntN(4))
		if rng.IntN(2) == 0 {
			th.cpu += int64(rng.IntN(3))
		}
		end = max(end, th.wall)
		ev := stream.Event{Thread: stream.ThreadIndex(i), Wall: th.wall, CPU: th.cpu}
		if len(th.stack) > 0 && rng.IntN(2) == 0 {
			ev.Kind, ev.Frame = stream.End, th.stack[len(th.stack)-1]
			th.stack = th.stack[:len(th.stack)-1]
		} else {
			ev.Kind, ev.Frame = stream.Begin, stream.FrameID(rng.IntN(5))
			th.stack = append(th.stack, ev.Frame)
		}
		ev.Depth = int32(len(th.stack))
		if ev.Kind == stream.Begin {
			ev.Depth--
		}
		out = append(out, ev)
	}
	end += int64(rng.IntN(3))
	for i := range ths {
		th := &ths[i]
		for d := len(th.stack) - 1; d >= 0; d-- {
			out = append(out, stream.Event{Kind: stream.End, Flags: syn, Thread: stream.ThreadIndex(i), Frame: th.stack[d], Depth: int32(d), Wall: end, CPU: th.cpu})
		}
	}
	return out
}

// frame is one frame of a stream: its begin and end events.
type frame struct{ begin, end stream.Event }

// framesOf pairs the begins and ends of a balanced stream, checking that
// it is balanced and that each event's depth is its frame's place on the
// stack.
func framesOf(t *testing.T, evs []stream.Event) []frame {
	t.Helper()
	stacks := map[stream.ThreadIndex][]int{}
	var fs []frame
	last := map[stream.ThreadIndex]stream.Event{}
	for _, ev := range evs {
		if l, ok := last[ev.Thread]; ok && (ev.Wall < l.Wall || ev.CPU < l.CPU) {
			t.Fatalf("time goes back on thread %d: %v after %v", ev.Thread, ev, l)
		}
		last[ev.Thread] = ev
		st := stacks[ev.Thread]
		switch ev.Kind {
		case stream.Begin:
			if int(ev.Depth) != len(st) {
				t.Fatalf("begin %v at depth %d, the stack has %d frames", ev, ev.Depth, len(st))
			}
			stacks[ev.Thread] = append(st, len(fs))
			fs = append(fs, frame{begin: ev})
		case stream.End:
			if len(st) == 0 {
				t.Fatalf("end %v with an empty stack", ev)
			}
			f := &fs[st[len(st)-1]]
			if f.begin.Frame != ev.Frame || int(ev.Depth) != len(st)-1 {
				t.Fatalf("end %v does not end %v", ev, f.begin)
			}
			f.end = ev
			stacks[ev.Thread] = st[:len(st)-1]
		}
	}
	for th, st := range stacks {
		if len(st) > 0 {
			t.Fatalf("thread %d ends with %d frames open", th, len(st))
		}
	}
	return fs
}

// exclusive sums, as the call tree does, each stretch between consecutive
// events of a thread while a frame is open: its wall and CPU time.
func exclusive(evs []stream.Event) (wall, cpu int64) {
	type state struct {
		open      int
		wall, cpu int64
	}
	ths := map[stream.ThreadIndex]*state{}
	for _, ev := range evs {
		th := ths[ev.Thread]
		if th == nil {
			th = &state{}
			ths[ev.Thread] = th
		}
		if th.open > 0 {
			wall += ev.Wall - th.wall
			cpu += ev.CPU - th.cpu
		}
		th.wall, th.cpu = ev.Wall, ev.CPU
		if ev.Kind == stream.Begin {
			th.open++
		} else {
			th.open--
		}
	}
	return wall, cpu
}

// expected computes the window's rules on the whole stream, stretch by
// stretch and frame by frame: frames kept, exclusive wall clipped to the
// window, exclusive CPU of the stretches with both events inside.
func expected(t *testing.T, evs []stream.Event, w Window) (frames int, wall, cpu int64) {
	for _, f := range framesOf(t, evs) {
		if f.end.Wall >= w.From && f.begin.Wall <= w.To {
			frames++
		}
	}
	in := func(x int64) bool { return x >= w.From && x <= w.To }
	prev := map[stream.ThreadIndex]stream.Event{}
	open := map[stream.ThreadIndex]int{}
	for _, ev := range evs {
		if p, ok := prev[ev.Thread]; ok && open[ev.Thread] > 0 {
			lo, hi := max(p.Wall, w.From), min(ev.Wall, w.To)
			wall += max(hi-lo, 0)
			if in(p.Wall) && in(ev.Wall) {
				cpu += ev.CPU - p.CPU
			}
		}
		prev[ev.Thread] = ev
		if ev.Kind == stream.Begin {
			open[ev.Thread]++
		} else {
			open[ev.Thread]--
		}
	}
	return frames, wall, cpu
}

// TestWindowRules checks the stage against the rules computed directly on
// random streams and windows, and that windows split in two add up.
func TestWindowRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		in := randomStream(rng, 1+rng.IntN(3), rng.IntN(60))
		a := int64(rng.IntN(40))
		c := a + int64(rng.IntN(40))
		m := a + int64(rng.IntN(int(c-a)+1))
		wall := [3]int64{}
		for i, w := range []Window{{a, c}, {a, m}, {m, c}} {
			out := runWindow(t, w, in, 1+rng.IntN(8))
			fs := framesOf(t, out)
			for _, f := range fs {
				if f.begin.Wall < w.From || f.end.Wall > w.To {
					t.Fatalf("window %v: frame %v–%v outside it", w, f.begin, f.end)
				}
				if f.begin.Flags&cut != 0 && f.begin.Wall != w.From || f.end.Flags&cut != 0 && f.end.Wall != w.To {
					t.Fatalf("window %v: frame %v–%v cut elsewhere than at the boundary", w, f.begin, f.end)
				}
			}
			gotWall, gotCPU := exclusive(out)
			frames, wantWall, wantCPU := expected(t, in, w)
			if len(fs) != frames || gotWall != wantWall || gotCPU != wantCPU {
				t.Fatalf("window %v: %d frames, wall %d, cpu %d; want %d, %d, %d\n in %v\nout %v",
					w, len(fs), gotWall, gotCPU, frames, wantWall, wantCPU, in, out)
			}
			wall[i] = gotWall
		}
		if wall[1]+wall[2] != wall[0] {
			t.Fatalf("[%d,%d] wall %d + [%d,%d] wall %d != [%d,%d] wall %d\n in %v", a, m, wall[1], m, c, wall[2], a, c, wall[0], in)
		}
	}
}

// TestCounter checks the counts of a stream and that it passes unchanged.
func TestCounter(t *testing.T) {
	in := []stream.Event{b(0, 1, 0, 0, 0, syn), b(1, 2, 0, 3, 0), b(0, 3, 1, 4, 1), e(0, 3, 1, 6, 2),
		e(1, 2, 0, 10, 5), e(0, 1, 0, 7, 2), b(0, 4, 0, 9, 3), e(0, 4, 0, 12, 4)}
	rec := &recorder{}
	c := NewCounter(rec)
	for range 2 { // a second read starts over
		if err := c.Begin(&stream.Trace{}); err != nil {
			t.Fatal(err)
		}
		for i := range in {
			if err := c.Events(&stream.Batch{Events: in[i : i+1]}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Thread 0: 0–7 and 9–12; thread 1: 3–10.
	if c.Frames != 4 || c.Wall != 7+3+7 {
		t.Errorf("Frames %d, Wall %d; want 4, 17", c.Frames, c.Wall)
	}
	if !slices.Equal(rec.evs, in) {
		t.Errorf("the counter changed the stream")
	}
}
