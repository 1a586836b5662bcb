package convert_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// TestFastPathEqualsGeneral: the policy's fast loop (fastRecords) must give
// exactly what its general path gives record by record, on traces that
// leave the fast loop at every place it can, or switch threads inside it:
// threads that take turns of many records or change at nearly every
// record (odd seeds), threads whose sampling probe still runs among
// others' records, a thread that first comes in mid-trace, unwinds and
// action 3, unknown methods and Dalvik's pointer ids, exits of a frame
// deeper in the stack or of none (orphans), times that go back or wrap,
// stacks that outgrow their array or deepScan, and batches of events that
// fill up; with the depth limit low (seeds 3 mod 4) and a thread filter
// (seeds 2 mod 3). It checks each way convert reads a trace: the first
// pass alone, two passes, one pass, and the speculative read, serial and
// pipelined.
func TestFastPathEqualsGeneral(t *testing.T) {
	for seed := range uint64(24) {
		tr := repairableTrace(seed)
		path := filepath.Join(t.TempDir(), "case.trace")
		if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
			t.Fatal(err)
		}
		base := convert.Options{}
		if seed%4 == 3 {
			base.MaxDepth = 5 + int(seed%7)
		}
		if seed%3 == 2 && len(tr.Threads) > 1 {
			// Every other thread, the late one among them when it is odd.
			var keep []string
			for i := 0; i < len(tr.Threads); i += 2 {
				keep = append(keep, "^"+tr.Threads[len(tr.Threads)-1-i].Name+"$")
			}
			filter, err := focus.NewThreadFilter(keep)
			if err != nil {
				t.Fatal(err)
			}
			base.Threads = filter
		}
		for _, m := range readModes {
			for _, serial := range []bool{true, false} {
				name := fmt.Sprintf("seed=%d/v%d-%s/%s/serial=%v", seed, tr.Version, tr.Clock, m.name, serial)
				t.Run(name, func(t *testing.T) {
					opt := convert.Serial(base, serial)
					fast, fastEvents := m.read(t, path, opt)
					general, generalEvents := m.read(t, path, convert.GeneralOnly(opt))
					if !reflect.DeepEqual(fast, general) {
						t.Errorf("traces differ:\nfast    %+v %+v %d\ngeneral %+v %+v %d",
							fast.Stats, fast.Sampling, fast.WallEnd, general.Stats, general.Sampling, general.WallEnd)
					}
					if !slices.Equal(fastEvents, generalEvents) {
						t.Errorf("events differ: %d fast, %d general", len(fastEvents), len(generalEvents))
						for i := range min(len(fastEvents), len(generalEvents)) {
							if fastEvents[i] != generalEvents[i] {
								t.Fatalf("first at %d: fast %+v, general %+v", i, fastEvents[i], generalEvents[i])
							}
						}
					}
					if m.name != "analyze" && len(fastEvents) < 1000 {
						t.Errorf("%d events: too few to test the loop", len(fastEvents))
					}
				})
			}
		}
	}
}

// readModes are the ways convert reads a trace. The events are kept as
// they came, which two runs give alike when they meet the frames in the
// same order.
var readModes = []struct {
	name string
	read func(t *testing.T, path string, opt convert.Options) (*stream.Trace, []stream.Event)
}{
	{"analyze", func(t *testing.T, path string, opt convert.Options) (*stream.Trace, []stream.Event) {
		f := openTrace(t, path)
		tr, err := convert.Analyze(f, opt)
		if err != nil {
			t.Fatal(err)
		}
		return tr, nil
	}},
	{"two-passes", func(t *testing.T, path string, opt convert.Options) (*stream.Trace, []stream.Event) {
		opt = convert.TwoReads(opt)
		c := &collector{}
		return runTrace(t, path, opt, c), c.evs
	}},
	{"one-pass", func(t *testing.T, path string, opt convert.Options) (*stream.Trace, []stream.Event) {
		c := &onePassCollector{}
		return runTrace(t, path, opt, c), c.evs
	}},
	{"speculative", func(t *testing.T, path string, opt convert.Options) (*stream.Trace, []stream.Event) {
		c := &rewindableCollector{}
		return runTrace(t, path, opt, c), c.evs
	}},
}

// onePassCollector is a collector that takes the stream in one pass.
type onePassCollector struct{ collector }

func (*onePassCollector) oneRead() {}

// rewindableCollector is a collector that a speculative read can rewind.
type rewindableCollector struct{ collector }

func (*rewindableCollector) canRewind() bool { return true }
func (c *rewindableCollector) rewind() error { c.evs = nil; return nil }

func openTrace(t *testing.T, path string) *parser.File {
	t.Helper()
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func runTrace(t *testing.T, path string, opt convert.Options, exp stream.Exporter) *stream.Trace {
	t.Helper()
	tr, err := convert.Run(openTrace(t, path), opt, output(exp))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// repairableTrace is a realistic trace (tracegen.Large) damaged in every way
// the policy repairs, in a layout and with method ids chosen by the seed.
func repairableTrace(seed uint64) *tracegen.Trace {
	rng := rand.New(rand.NewPCG(seed, 0xFA57))
	threads := 1 + rng.IntN(6)
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 96 << 10, Threads: threads, Methods: 40 + rng.IntN(200),
		MaxDepth: 8 + rng.IntN(60), Seed: seed, Interleaved: seed%2 == 1})
	if seed%6 == 1 {
		// Steps of 100 µs and more look sampled to the sampling probe, whose
		// result then depends on every event it is given.
		for i := range tr.Records {
			tr.Records[i].Wall *= 100
			tr.Records[i].CPU *= 100
		}
	}
	lateThread(tr, rng)
	if seed%4 == 1 {
		deepBurst(tr, rng)
	}
	tr.Version = []int{1, 2, 3, 3}[seed%4]
	tr.Clock = []string{"dual", "wall", "thread-cpu"}[seed%3]
	if tr.Version < 3 {
		tr.Clock = []string{"wall", "thread-cpu"}[seed%2] // v1 and v2 have one clock
	}
	if tr.Version == 1 {
		for i := range tr.Threads {
			tr.Threads[i].ID %= 256 // v1 writes thread ids in one byte
		}
		for i := range tr.Records {
			tr.Records[i].Thread %= 256
		}
	}
	if seed%5 == 1 {
		// Dalvik: method ids are pointers, beyond the dense table, and many
		// share a slot of the frame cache.
		for i := range tr.Methods {
			tr.Methods[i].ID = 0x7000_0000 + tr.Methods[i].ID<<8
		}
		for i := range tr.Records {
			tr.Records[i].Method = 0x7000_0000 + tr.Records[i].Method<<8
		}
	}
	// Times near the top of the 32-bit counters wrap during the trace.
	wrap := uint32(0)
	if seed%3 == 2 {
		wrap = 0xFFFF_FFFF - 3_000
	}
	out := tr.Records[:0:0]
	for _, r := range tr.Records {
		r.Wall += wrap
		r.CPU += wrap
		switch k := rng.IntN(1000); {
		case k < 10: // dropped: unbalances the stack (orphans, deeper exits)
			continue
		case k < 20:
			r.Action = tracegen.Unwind
		case k < 23:
			r.Action = tracegen.BadAction
		case k < 30:
			r.Method = 0xFF_FFF0 // not in the method table
		case k < 40:
			r.Thread = tr.Threads[rng.IntN(len(tr.Threads))].ID
		case k < 50:
			r.Wall -= uint32(rng.IntN(50))
			r.CPU -= uint32(rng.IntN(50))
		case k < 52: // a burst of enters outgrows the stack's array
			for range 200 + rng.IntN(200) {
				out = append(out, tracegen.Record{Thread: r.Thread, Method: tr.Methods[rng.IntN(len(tr.Methods))].ID,
					Action: tracegen.Enter, CPU: r.CPU, Wall: r.Wall})
			}
		}
		out = append(out, r)
	}
	// The trace ends on a thread whose times are behind another's, so that
	// the trace end is not its last time.
	last := out[len(out)-1]
	for i := len(out) - 1; i >= 0; i-- {
		if r := out[i]; r.Thread != last.Thread && r.Wall < last.Wall {
			for _, a := range []tracegen.Action{tracegen.Enter, tracegen.Exit, tracegen.Enter, tracegen.Exit} {
				out = append(out, tracegen.Record{Thread: r.Thread, Method: tr.Methods[0].ID, Action: a, CPU: r.CPU, Wall: r.Wall})
			}
			break
		}
	}
	tr.Records = out
	return tr
}

// lateThread adds a thread that first comes in mid-trace: its records,
// a walk of enters and exits, take turns with the others' from there on, so
// that its first records (and the sampling probe's) come between the
// records of threads the fast loop takes.
func lateThread(tr *tracegen.Trace, rng *rand.Rand) {
	id := tr.Threads[len(tr.Threads)-1].ID + 1
	if tr.Version == 1 {
		id %= 256
	}
	tr.Threads = append(tr.Threads, tracegen.Thread{ID: id, Name: fmt.Sprintf("late-%d", id)})
	var stack []uint32
	out := slices.Clone(tr.Records[:len(tr.Records)/3])
	for _, r := range tr.Records[len(tr.Records)/3:] {
		out = append(out, r)
		if rng.IntN(3) != 0 {
			continue
		}
		late := tracegen.Record{Thread: id, CPU: r.CPU, Wall: r.Wall}
		if len(stack) == 0 || len(stack) < 12 && rng.IntN(2) == 0 {
			stack = append(stack, tr.Methods[rng.IntN(len(tr.Methods))].ID)
			late.Method, late.Action = stack[len(stack)-1], tracegen.Enter
		} else {
			late.Method, late.Action = stack[len(stack)-1], tracegen.Exit
			stack = stack[:len(stack)-1]
		}
		out = append(out, late)
	}
	tr.Records = out
}

// deepBurst makes one thread's stack grow past deepScan (1024) and back,
// each of its records followed by one of another thread, so that the fast
// loop meets the deep thread at every other record.
func deepBurst(tr *tracegen.Trace, rng *rand.Rand) {
	mid := len(tr.Records) / 2
	at := tr.Records[mid]
	other := at.Thread
	for _, th := range tr.Threads {
		if th.ID != at.Thread {
			other = th.ID
		}
	}
	deep := tracegen.Thread{ID: tr.Threads[len(tr.Threads)-1].ID + 1}
	if tr.Version == 1 {
		deep.ID %= 256
	}
	deep.Name = fmt.Sprintf("deep-%d", deep.ID)
	tr.Threads = append(tr.Threads, deep)
	burst := slices.Clone(tr.Records[:mid])
	n := 1100 + rng.IntN(100)
	methods := make([]uint32, n)
	for i := range methods {
		methods[i] = tr.Methods[rng.IntN(len(tr.Methods))].ID
	}
	m0 := tr.Methods[0].ID
	for i := range 2 * n {
		r := tracegen.Record{Thread: deep.ID, Method: methods[min(i, 2*n-1-i)], CPU: at.CPU, Wall: at.Wall}
		if i >= n {
			r.Action = tracegen.Exit
			if i%97 == 0 {
				r.Method = methods[max(0, 2*n-1-i-rng.IntN(3))] // the top, or a frame deeper in the stack
			}
		}
		burst = append(burst, r, tracegen.Record{Thread: other, Method: m0, Action: tracegen.Action(i % 2), CPU: at.CPU, Wall: at.Wall})
	}
	tr.Records = append(burst, tr.Records[mid:]...)
}

// FuzzFastPath: on any sequence of records, of a few threads and methods
// (known or not, with pointer ids or not), with any action and times that
// go back or wrap, the fast loop gives what the general path gives, with or
// without a thread filter and a low depth limit.
func FuzzFastPath(f *testing.F) {
	f.Add([]byte{0, 1, 0, 5, 0, 1, 1, 5}, uint8(0))
	f.Add([]byte{1, 2, 0, 1, 1, 3, 0, 1, 1, 3, 1, 0, 1, 2, 1, 200, 0, 1, 2, 9}, uint8(3))
	// Thread switches at every record, among them the thread whose probe
	// runs (2) and threads that come in mid-trace (4, 5).
	f.Add([]byte{0, 1, 0, 5, 1, 2, 0, 5, 2, 1, 0, 3, 0, 3, 0, 1, 4, 1, 0, 2, 1, 2, 1, 5, 0, 3, 1, 1,
		5, 0, 0, 1, 0, 1, 1, 1, 4, 1, 1, 2, 3, 4, 0, 1, 1, 5, 0, 1, 3, 4, 1, 1, 2, 1, 1, 2}, uint8(0))
	f.Add([]byte{0, 1, 0, 5, 1, 2, 0, 5, 0, 2, 0, 5, 1, 3, 0, 1, 0, 3, 0, 1, 1, 4, 0, 1, 0, 4, 0, 2,
		1, 4, 1, 1, 0, 4, 1, 1, 2, 2, 0, 1, 1, 3, 1, 1, 0, 3, 1, 1, 4, 0, 0, 1, 0, 2, 1, 1}, uint8(16|32))
	f.Add([]byte{2, 1, 0, 180, 0, 1, 0, 150, 2, 1, 1, 120, 1, 2, 0, 190, 2, 2, 0, 160, 0, 1, 1, 170,
		2, 2, 1, 140, 1, 2, 1, 155, 2, 1, 0, 150, 2, 1, 1, 150, 0, 3, 0, 150, 2, 3, 0, 130}, uint8(64))
	f.Fuzz(func(t *testing.T, data []byte, layout uint8) {
		tr := fuzzTrace(data, layout)
		path := filepath.Join(t.TempDir(), "case.trace")
		if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
			t.Fatal(err)
		}
		opt := convert.Serial(convert.Options{}, layout&8 == 0)
		if layout&16 != 0 {
			filter, err := focus.NewThreadFilter([]string{"^t[02]$", "103"})
			if err != nil {
				t.Fatal(err)
			}
			opt.Threads = filter
		}
		if layout&32 != 0 {
			opt.MaxDepth = 3
		}
		for _, m := range readModes {
			fast, fastEvents := m.read(t, path, opt)
			general, generalEvents := m.read(t, path, convert.GeneralOnly(opt))
			if !reflect.DeepEqual(fast, general) || !slices.Equal(fastEvents, generalEvents) {
				t.Fatalf("%s: fast and general paths differ:\n%v\n%v", m.name, fastEvents, generalEvents)
			}
		}
	})
}

// fuzzThreads is the number of threads of fuzzTrace: 100 to 105, of which
// 103 and 105 are not in the thread table.
const fuzzThreads = 6

// fuzzTrace makes a trace of data, four bytes a record: thread, method,
// action, and a time step (back when above 200), after a warm-up of
// balanced records, the threads taking turns record by record: threads
// 100, 101 and 103 past the sampling probe, 102 still in it (its first
// 100 records), 104 and 105 none (they come in with data). layout picks
// Dalvik's pointer ids (bit 0), times that wrap (bit 1), a single clock
// (bit 2), one goroutine (bit 3, in FuzzFastPath), a thread filter (bit
// 4), a depth limit of 3 (bit 5), and warm-up steps of 150 µs (bit 6),
// which look sampled to the sampling probe, so that its result depends on
// every event it is given.
func fuzzTrace(data []byte, layout uint8) *tracegen.Trace {
	tr := &tracegen.Trace{Version: 3, Clock: "dual", VM: "art"}
	if layout&4 != 0 {
		tr.Clock = "wall"
	}
	id := func(m uint32) uint32 {
		if layout&1 != 0 {
			return 0x7000_0000 + m<<10 // one frame cache slot for all
		}
		return m << 2
	}
	for m := range uint32(6) { // methods 6 and 7 are unknown
		tr.Methods = append(tr.Methods, tracegen.Method{ID: id(m), Class: "a.B", Name: fmt.Sprintf("m%d", m), Signature: "()V", Source: "B.java"})
	}
	for th := range uint32(fuzzThreads) {
		if th != 3 && th != 5 {
			tr.Threads = append(tr.Threads, tracegen.Thread{ID: 100 + th, Name: fmt.Sprintf("t%d", th)})
		}
	}
	var now [fuzzThreads]uint32
	if layout&2 != 0 {
		for th := range now {
			now[th] = 0xFFFF_FF00
		}
	}
	// The fast loop leaves each thread's first records to the sampling
	// probe: warm threads up first, all but 102 past it.
	warm := uint32(1)
	if layout&64 != 0 {
		warm = 150
	}
	for i := range 2 * 260 {
		for _, th := range []uint32{0, 1, 2, 3} {
			if th == 2 && i >= 100 {
				continue
			}
			now[th] += warm
			tr.Records = append(tr.Records, tracegen.Record{Thread: 100 + th, Method: id(0),
				Action: tracegen.Action(i % 2), CPU: now[th] / 2, Wall: now[th]})
		}
	}
	for ; len(data) >= 4; data = data[4:] {
		th := uint32(data[0] % fuzzThreads)
		step := uint32(data[3])
		if step > 200 {
			step = -(step - 200)
		}
		now[th] += step
		tr.Records = append(tr.Records, tracegen.Record{Thread: 100 + th, Method: id(uint32(data[1] % 8)),
			Action: tracegen.Action(data[2] % 4), CPU: now[th] / 2, Wall: now[th]})
	}
	return tr
}
