package stacks

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// recorder is a stream.Exporter that keeps the stream it is given, batch
// by batch, to replay it into tree builders: the tests compare the trees
// the fast and the reference paths build of it, and BenchmarkTree times
// the tree stage alone.
type recorder struct {
	trace   stream.Trace // as Begin saw it: in one read the tables grow later
	evs     []stream.Event
	batches []int // the length of each batch
}

func (r *recorder) Begin(t *stream.Trace) error {
	r.trace = *t
	r.trace.Threads = slices.Clone(t.Threads)
	r.evs, r.batches = r.evs[:0], r.batches[:0]
	return nil
}

func (r *recorder) Events(batch *stream.Batch) error {
	evs := batch.Events
	r.evs = append(r.evs, evs...)
	r.batches = append(r.batches, len(evs))
	return nil
}

func (r *recorder) Finish(*stream.Trace) error { return nil }

// record converts a trace and keeps its event stream, taken in one read
// (with stream.Enclose for orphan exits) or in two (orphan frames begun
// at their thread's start).
func record(tb testing.TB, data []byte, opt convert.Options, oneRead bool) *recorder {
	tb.Helper()
	f, err := parser.NewFile("trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r := &recorder{evs: make([]stream.Event, 0, len(data)/14+1024)} // a dual-clock record takes 14 bytes
	if _, err := convert.Run(f, opt, convert.Output{Exporter: r, Enclose: oneRead}); err != nil {
		tb.Fatal(err)
	}
	return r
}

// replay builds the tree of the recorded stream in a, in the recorded
// batches, or in batches of the sizes split returns when split is not nil.
func (r *recorder) replay(a *TreeBuilder, split func() int) error {
	t := r.trace
	if err := a.Begin(&t); err != nil {
		return err
	}
	evs := r.evs
	for i := 0; len(evs) > 0; i++ {
		n := len(evs)
		if split != nil {
			n = min(n, split())
		} else if i < len(r.batches) {
			n = r.batches[i]
		}
		if err := a.Events(&stream.Batch{Events: evs[:n], Threads: t.Threads, Frames: t.Frames}); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return a.Finish(&t)
}

// sameTree reports where two finished builders' trees differ, "" when
// they are equal node for node.
func sameTree(fast, ref *TreeBuilder) string {
	f, r := fast.Nodes(), ref.Nodes()
	if reflect.DeepEqual(f, r) {
		return ""
	}
	for i := range min(len(f), len(r)) {
		if f[i] != r[i] {
			return fmt.Sprintf("%d and %d nodes, first difference at node %d: fast %+v, reference %+v", len(f), len(r), i, f[i], r[i])
		}
	}
	return fmt.Sprintf("%d nodes fast, %d reference", len(f), len(r))
}

// damaged is a realistic trace (tracegen.Large) of the given shape, with
// orphan exits, records dropped (frames left open, exits of deeper frames),
// unwinds, times that go back, and bursts of enters that nest deep.
func damaged(seed uint64, interleaved bool, threads, maxDepth int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x7EE))
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 256 << 10, Threads: threads, Methods: 20 + rng.IntN(300),
		MaxDepth: maxDepth, Seed: seed, Interleaved: interleaved})
	out := tr.Records[:0:0]
	depth := map[uint32]int{} // roughly: the policy may repair what this counts
	seen := map[uint32]bool{}
	for _, r := range tr.Records {
		first := !seen[r.Thread]
		seen[r.Thread] = true
		switch k := rng.IntN(1000); {
		case first && r.Action == tracegen.Enter && k < 700:
			continue // the outermost frame's exit will be an orphan exit
		case k < 8:
			continue
		case k < 14:
			r.Action = tracegen.Unwind
		case k < 20:
			r.Wall -= uint32(rng.IntN(50))
			r.CPU -= uint32(rng.IntN(50))
		case k < 21:
			for range 100 + rng.IntN(400) {
				out = append(out, tracegen.Record{Thread: r.Thread, Method: tr.Methods[rng.IntN(len(tr.Methods))].ID,
					Action: tracegen.Enter, CPU: r.CPU, Wall: r.Wall})
				depth[r.Thread]++
			}
		}
		out = append(out, r)
		if r.Action == tracegen.Enter {
			depth[r.Thread]++
		} else if depth[r.Thread] > 0 {
			depth[r.Thread]--
		}
		if depth[r.Thread] == 0 && rng.IntN(20) == 0 { // an orphan exit
			r.Method = tr.Methods[rng.IntN(len(tr.Methods))].ID
			r.Action = tracegen.Exit
			out = append(out, r)
		}
	}
	tr.Records = out
	return tr.Regular()
}

// TestFastEqualsReference: the tree Events builds on its fast path is,
// node for node, the one the reference path (event, every event through
// slow) builds of the same stream, on both shapes of trace (threads in
// chunks of records and changing on nearly every record), in one read
// (stream.Enclose instructions) and in two, with deep stacks, a depth
// limit, many threads, and the stream cut into batches of any size
// (Events looks a thread up once per run, within a batch).
func TestFastEqualsReference(t *testing.T) {
	if reference.Only {
		t.Skip("the build tag atrace2_reference turns the fast path off")
	}
	type trace struct {
		name string
		data []byte
		opt  convert.Options
	}
	var traces []trace
	for seed := range uint64(8) {
		for _, interleaved := range []bool{false, true} {
			threads, depth := []int{1, 3, 40, 300}[seed%4], []int{8, 60, 400}[seed%3]
			name := fmt.Sprintf("seed=%d/interleaved=%v/threads=%d/depth=%d", seed, interleaved, threads, depth)
			var opt convert.Options
			if seed%5 == 3 {
				opt.MaxDepth = 30 // frames deeper are folded into the one at the limit
			}
			traces = append(traces, trace{name, damaged(seed, interleaved, threads, depth), opt})
		}
	}
	for _, name := range []string{"nested", "orphans"} {
		tr := tracegen.Nested(300)
		if name == "orphans" {
			tr = tracegen.Orphans(200)
		}
		traces = append(traces, trace{name: name, data: tr.Regular()})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range traces {
		for _, oneRead := range []bool{true, false} {
			r := record(t, tc.data, tc.opt, oneRead)
			encloses := 0
			for _, ev := range r.evs {
				if ev.Kind == stream.Enclose {
					encloses++
				}
			}
			if oneRead && encloses == 0 && tc.name != "nested" {
				t.Errorf("%s: no stream.Enclose in one read", tc.name)
			}
			ref := newSmall(true)
			if err := r.replay(ref, nil); err != nil {
				t.Fatal(err)
			}
			for _, split := range []func() int{nil, func() int { return 1 }, func() int { return 1 + rng.IntN(40) }} {
				fast := newSmall(false)
				if err := r.replay(fast, split); err != nil {
					t.Fatal(err)
				}
				if d := sameTree(fast, ref); d != "" {
					t.Errorf("%s, one read %v: %s", tc.name, oneRead, d)
				}
			}
		}
	}
}

// FuzzTree: on any balanced stream of a few threads and frames (frame -1
// included), with orphan frames begun at a thread's start, stream.Enclose
// instructions at a thread's root and frames ended at the trace end, the
// fast path builds the reference path's tree.
func FuzzTree(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x81, 0x82, 5, 0x40, 9, 0xC0, 1, 1})
	f.Add([]byte{0x10, 0x11, 0x12, 0x13, 0x91, 0x92, 0x93, 0x11, 0x91, 0x20, 0x21, 0xA0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if reference.Only {
			t.Skip("the build tag atrace2_reference turns the fast path off")
		}
		evs := fuzzStream(data)
		tr := &stream.Trace{HasWall: true, HasCPU: true}
		for i := range 6 {
			tr.Frames = append(tr.Frames, stream.Frame{ID: stream.FrameID(i)})
		}
		for i := range 4 {
			tr.Threads = append(tr.Threads, stream.Thread{Index: stream.ThreadIndex(i)})
		}
		r := &recorder{trace: *tr, evs: evs, batches: []int{len(evs)}}
		ref := newSmall(true)
		fast := newSmall(false)
		if err := r.replay(ref, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.replay(fast, nil); err != nil {
			t.Fatal(err)
		}
		if d := sameTree(fast, ref); d != "" {
			t.Fatalf("%v: %s", evs, d)
		}
	})
}

// fuzzStream makes a balanced stream of data, a byte an event: bits 4–5
// pick one of 4 threads, the top two bits the kind (0, 1: begin; 2: end,
// a begin at the root; 3: an orphan exit, an Enclose at the root and an
// end elsewhere), the low 4 bits the frame (above 5 the frame -1) and the
// time step. A begin on a thread that has done nothing but begin orphan
// frames is an orphan frame's (Synthetic) when bit 3 is set; the frames
// still open at the end end there (Synthetic).
func fuzzStream(data []byte) []stream.Event {
	var depth [4]int
	var started [4]bool // the thread did something other than begin an orphan frame
	var now [4]int64
	var evs []stream.Event
	for _, b := range data {
		th := int(b>>4) & 3
		f := stream.FrameID(b & 15)
		if f > 5 {
			f = -1
		}
		now[th] += int64(b&7) + 1
		e := stream.Event{Thread: stream.ThreadIndex(th), Frame: f, Wall: now[th], CPU: now[th] / 2}
		switch kind := b >> 6; {
		case kind == 3 && depth[th] == 0:
			e.Kind, e.Flags = stream.Enclose, stream.Synthetic
		case kind >= 2 && depth[th] > 0:
			e.Kind = stream.End
			depth[th]--
		default:
			e.Kind = stream.Begin
			if !started[th] && b&8 != 0 {
				e.Flags = stream.Synthetic
			}
			depth[th]++
		}
		started[th] = started[th] || e.Flags != stream.Synthetic || e.Kind != stream.Begin
		evs = append(evs, e)
	}
	for th := range depth {
		for ; depth[th] > 0; depth[th]-- {
			evs = append(evs, stream.Event{Kind: stream.End, Flags: stream.Synthetic, Thread: stream.ThreadIndex(th), Wall: now[th], CPU: now[th]})
		}
	}
	return evs
}
