package parser_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// v2Case is one way of writing a trace in ART's V2 format, and what the
// reader must then report.
type v2Case struct {
	name    string
	opt     tracegen.V2Options
	variant parser.Variant
	layout  parser.V2Layout
}

func v2Cases() []v2Case {
	var cs []v2Case
	for _, l := range []struct {
		gen tracegen.V2Layout
		got parser.V2Layout
	}{{tracegen.V2b, parser.V2b}, {tracegen.V2c, parser.V2c}, {tracegen.V2d, parser.V2d}} {
		cs = append(cs,
			v2Case{l.got.String(), tracegen.V2Options{Layout: l.gen}, parser.V2Regular, l.got},
			v2Case{l.got.String() + "-streaming", tracegen.V2Options{Layout: l.gen, Streaming: true}, parser.V2Streaming, l.got},
		)
	}
	return append(cs, v2Case{"V2b-hybrid", tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true}, parser.V2Hybrid, parser.V2b})
}

// v2Tids are real OS tids, two of them equal modulo 65536: V2 matches
// them exactly.
var v2Tids = []uint32{4464, 70000, 1, 123456}

// randomV2Trace makes a trace whose records come in runs of one thread,
// with random (not monotonic) times: the deltas must wrap in 64 bits.
func randomV2Trace(rng *rand.Rand, clock string) *tracegen.Trace {
	tr := &tracegen.Trace{Clock: clock, VM: "art", Start: rng.Uint64N(1 << 40)}
	for i, tid := range v2Tids[:1+rng.IntN(len(v2Tids))] {
		tr.Threads = append(tr.Threads, tracegen.Thread{ID: tid, Name: fmt.Sprintf("thread-%d", i)})
	}
	nMethods := 1 + rng.IntN(20)
	for i := range nMethods {
		tr.Methods = append(tr.Methods, tracegen.Method{ID: uint32(i << 2), Class: fmt.Sprintf("com.example.C%d", i), Name: "m", Signature: "()V", Source: "C.java"})
	}
	for range rng.IntN(12) {
		tid := tr.Threads[rng.IntN(len(tr.Threads))].ID
		for range 1 + rng.IntN(30) {
			tr.Records = append(tr.Records, tracegen.Record{
				Thread: tid, Method: uint32(rng.IntN(nMethods+2) << 2), // some ids unknown
				Action: tracegen.Action(rng.IntN(3)), CPU: rng.Uint32(), Wall: rng.Uint32(),
			})
		}
	}
	return tr
}

// expectedV2 is what the reader must return for tr written as V2: whole
// tids, method pointers, and times ×scale (1000 in V2d files).
func expectedV2(tr *tracegen.Trace, clock parser.Clock, scale uint64) []parser.Record {
	var evs []parser.Record
	for _, r := range tr.Records {
		ev := parser.Record{Thread: parser.ThreadID(r.Thread), Method: parser.MethodID(tracegen.MethodPointer(r.Method)), Action: parser.Action(r.Action & 3)}
		if clock.HasCPU() {
			ev.CPU = uint64(r.CPU) * scale
		}
		if clock.HasWall() {
			ev.Wall = uint64(r.Wall) * scale
		}
		evs = append(evs, ev)
	}
	return evs
}

func v2Scale(l parser.V2Layout) uint64 {
	if l == parser.V2d {
		return 1000
	}
	return 1
}

// TestV2Property writes random traces in every V2 layout, container and
// clock, with and without the summary; each must decode to exactly the
// records written.
func TestV2Property(t *testing.T) {
	for _, c := range v2Cases() {
		for _, clock := range []string{"dual", "wall", "thread-cpu"} {
			for _, summary := range []bool{true, false} {
				if !summary && c.variant == parser.V2Hybrid {
					continue // the key text is the summary
				}
				t.Run(fmt.Sprintf("%s/%s/summary=%v", c.name, clock, summary), func(t *testing.T) {
					testV2Property(t, c, clock, summary)
				})
			}
		}
	}
}

func testV2Property(t *testing.T, c v2Case, clock string, summary bool) {
	rng := rand.New(rand.NewPCG(uint64(c.layout), uint64(len(clock))))
	wantClock, _ := parser.ParseClock(clock)
	unit := time.Microsecond
	if c.layout == parser.V2d {
		unit = time.Nanosecond
	}
	opt := parser.Options{}
	if !summary { // random times defeat the guesses, tested on their own
		opt = parser.Options{Clock: wantClock, TimeUnit: unit}
	}
	c.opt.NoSummary = !summary
	for i := range 30 {
		tr := randomV2Trace(rng, clock)
		h, got, err := readAll(t, tr.V2(c.opt), opt)
		if err != nil {
			t.Fatalf("trace %d: %v", i, err)
		}
		layout := c.layout
		if len(tr.Records) == 0 && layout == parser.V2b && c.variant != parser.V2Hybrid {
			layout = parser.V2c // no block to tell V2b by
		}
		if h.Variant != c.variant || h.Layout != layout || h.Clock != wantClock || h.TimeUnit != unit || h.TimeBits != 64 {
			t.Fatalf("header: variant %v layout %v clock %v unit %v bits %d", h.Variant, h.Layout, h.Clock, h.TimeUnit, h.TimeBits)
		}
		if h.StartTime != tr.Start || h.Records != int64(len(tr.Records)) || h.LostBytes != 0 || h.HasSummary != (summary && c.variant != parser.V2Hybrid) {
			t.Fatalf("header: start %d records %d lost %d summary %v", h.StartTime, h.Records, h.LostBytes, h.HasSummary)
		}
		if summary && len(h.Warnings) != 0 {
			t.Fatalf("warnings %q", h.Warnings)
		}
		if want := expectedV2(tr, wantClock, v2Scale(c.layout)); !slices.Equal(got, want) {
			t.Fatalf("trace %d: records differ\n got %v\nwant %v", i, got, want)
		}
	}
}

// TestV2Format checks what `atrace2 info` prints as the variant.
func TestV2Format(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	one := tracegen.Small(3, "wall", "art")
	for _, c := range []struct {
		data []byte
		want string
	}{
		{tr.V2(tracegen.V2Options{Layout: tracegen.V2c, Streaming: true}), "ART V2c (µs), dual clock, streaming"},
		{tr.V2(tracegen.V2Options{Layout: tracegen.V2d}), "ART V2d (ns), dual clock, non-streaming"},
		{one.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true}), "ART V2d (ns), single clock, streaming"},
		{tr.V2(tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true}), "ART V2b (µs), dual clock, non-streaming, after key text (Android 15 r1)"},
		{tr.Streaming(tracegen.StreamOptions{}), "streaming"},
	} {
		h, _, err := readAll(t, c.data, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Format(); got != c.want {
			t.Errorf("Format() = %q, want %q", got, c.want)
		}
	}
}

// TestV2Tables checks the method and thread packets: four-field method
// text, an empty source, tids matched whole, repeated and unused method
// packets, and a thread that gets no packet.
func TestV2Tables(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	tr.Threads = append(tr.Threads, tracegen.Thread{ID: 4464, Name: "other"}, tracegen.Thread{ID: 9, Name: "Shutdown thread"})
	tr.Records = append(tr.Records, tracegen.Record{Thread: 4464, Method: 0, Action: tracegen.Enter, CPU: 0, Wall: 30},
		tracegen.Record{Thread: 9, Method: 0, Action: tracegen.Enter, CPU: 0, Wall: 31})
	data := tr.V2(tracegen.V2Options{Streaming: true, RepeatMethods: true, ExtraMethods: 5, SkipThreadNames: map[uint32]bool{9: true}})
	h, got, err := readAll(t, data, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loop, ok := h.Method(parser.MethodID(tracegen.MethodPointer(0)))
	if !ok || *loop != (parser.Method{ID: 0x7f00_0000_0000, Class: "android.os.Looper", Name: "loop", Signature: "()V", Source: "Looper.java"}) {
		t.Errorf("method 0 = %+v", loop)
	}
	if m, ok := h.Method(parser.MethodID(tracegen.MethodPointer(4))); !ok || m.Class != "com.example.ˊ" || m.Name != "ˎ" || m.Signature != "(I)V" || m.Source != "" {
		t.Errorf("method 4 = %+v", m)
	}
	if len(h.Methods) != 2+5 {
		t.Errorf("%d methods, want 7 (2 used, 5 unused, repeats merged)", len(h.Methods))
	}
	for tid, name := range map[parser.ThreadID]string{1: "main", 70000: "Binder:4242_2", 4464: "other"} {
		if th, ok := h.Thread(tid); !ok || th.Name != name || th.ID != tid {
			t.Errorf("thread %d = %+v, %v; want %q", tid, th, ok, name)
		}
	}
	if th, ok := h.Thread(9); ok {
		t.Errorf("thread 9 has no packet but reads %+v", th)
	}
	if want := expectedV2(tr, parser.ClockDual, 1); !slices.Equal(got, want) || h.PID() != 4242 {
		t.Errorf("records\n got %v\nwant %v", got, want)
	}
}

// longRun is a trace with one thread's run of n records: one block.
func longRun(n int, clock string) *tracegen.Trace {
	tr := &tracegen.Trace{Clock: clock, VM: "art", Threads: []tracegen.Thread{{ID: 77777, Name: "worker"}}}
	for i := range 3 {
		tr.Methods = append(tr.Methods, tracegen.Method{ID: uint32(i << 2), Class: "a.B", Name: fmt.Sprint("m", i), Signature: "()V", Source: "B.java"})
	}
	for i := range n {
		m := uint32(i%3) << 2
		if i%2 == 0 {
			tr.Records = append(tr.Records, tracegen.Record{Thread: 77777, Method: m, Action: tracegen.Enter, CPU: uint32(i), Wall: uint32(2 * i)})
		} else {
			tr.Records = append(tr.Records, tracegen.Record{Thread: 77777, Method: uint32((i-1)%3) << 2, Action: tracegen.Exit, CPU: uint32(i), Wall: uint32(2 * i)})
		}
	}
	return tr
}

// TestV2LargeBlocks covers ART's truncated fields: a V2c block of 70 000
// records (count field 70000 mod 65536) and V2b blocks whose payload
// exceeds the 64 KiB its u2 size can say, followed by another block.
func TestV2LargeBlocks(t *testing.T) {
	tr := longRun(70_000, "dual")
	tail := tracegen.Record{Thread: 5, Method: 0, Action: tracegen.Enter, CPU: 0, Wall: 200_000}
	tr.Records = append(tr.Records, tail)
	for _, c := range []struct {
		name string
		opt  tracegen.V2Options
	}{
		{"V2c", tracegen.V2Options{Layout: tracegen.V2c}},
		{"V2d-streaming", tracegen.V2Options{Layout: tracegen.V2d, Streaming: true}},
		{"V2b", tracegen.V2Options{Layout: tracegen.V2b}},
		{"V2b-hybrid", tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true}},
	} {
		h, got, err := readAll(t, tr.V2(c.opt), parser.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		scale := v2Scale(h.Layout)
		if want := expectedV2(tr, parser.ClockDual, scale); !slices.Equal(got, want) || len(h.Warnings) != 0 || h.Records != 70_001 {
			t.Errorf("%s: %d records (%d read), warnings %q", c.name, h.Records, len(got), h.Warnings)
		}
	}
}

// TestV2SplitFlush writes flushes split into several blocks that carry the
// delta state and count cumulatively; they must read like unsplit blocks.
func TestV2SplitFlush(t *testing.T) {
	tr := longRun(100, "wall")
	tr.Records = append(tr.Records, randomV2Trace(rand.New(rand.NewPCG(5, 5)), "wall").Records...)
	for _, layout := range []tracegen.V2Layout{tracegen.V2c, tracegen.V2d} {
		plain := tr.V2(tracegen.V2Options{Layout: layout, Streaming: true})
		split := tr.V2(tracegen.V2Options{Layout: layout, Streaming: true, SplitRecords: 7})
		_, want, err := readAll(t, plain, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		h, got, err := readAll(t, split, parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || len(want) != len(tr.Records) {
			t.Fatalf("%v: split blocks read differently\n got %v\nwant %v", layout, got, want)
		}
		// Each run of n records of one thread is one flush: ceil(n/7) blocks,
		// all but the first continuing it (100 records: 14).
		cont := 0
		for i := 0; i < len(tr.Records); {
			n := 1
			for i+n < len(tr.Records) && tr.Records[i+n].Thread == tr.Records[i].Thread {
				n++
			}
			cont += (n+6)/7 - 1
			i += n
		}
		wantWarn := fmt.Sprintf("%d event blocks continue the delta state of the block before them (ART splits a flush larger than its 3 MiB staging buffer)", cont)
		if cont < 14 || len(h.Warnings) != 1 || h.Warnings[0] != wantWarn {
			t.Errorf("%v: warnings %q, want %q", layout, h.Warnings, wantWarn)
		}
	}
}

// TestV2Summary checks that the summary's length is taken from the bytes
// (ART truncates it to 16 bits), and that bytes after *end are reported.
func TestV2Summary(t *testing.T) {
	tr := tracegen.Small(3, "dual", "art")
	long := strings.Repeat("x", 70_000)
	tr.Options = append(tr.Options, tracegen.Option{Key: "note", Value: long})
	data := tr.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	h, got, err := readAll(t, append(data, "junk"...), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := h.Option("note"); v != long || h.Clock != parser.ClockDual || h.TimeUnit != time.Nanosecond || !h.HasSummary {
		t.Errorf("summary: note of %d bytes, clock %v, unit %v", len(v), h.Clock, h.TimeUnit)
	}
	if want := []string{"ignored 4 bytes after the V2 summary"}; strings.Join(h.Warnings, "|") != want[0] {
		t.Errorf("warnings %q, want %q", h.Warnings, want)
	}
	if !slices.Equal(got, expectedV2(tr, parser.ClockDual, 1000)) {
		t.Errorf("records %v", got)
	}
}

// BenchmarkV2ReadRecord opens (scans) and decodes a streaming V2d trace of
// about 7 million records; the per-record loop must not allocate.
func BenchmarkV2ReadRecord(b *testing.B) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 100 << 20, Seed: 1}).V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		r := f.NewReader()
		var ev parser.Record
		n := int64(0)
		for r.ReadRecord(&ev) == nil {
			n++
		}
		if n != f.Header.Records {
			b.Fatalf("read %d of %d records", n, f.Header.Records)
		}
		f.Close()
	}
}
