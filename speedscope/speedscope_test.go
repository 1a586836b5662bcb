package speedscope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// checkGolden compares the indented JSON with testdata/golden/speedscope/name.
func checkGolden(t *testing.T, name string, data []byte) {
	t.Helper()
	var ind bytes.Buffer
	if err := json.Indent(&ind, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "golden", "speedscope", name), ind.Bytes())
}

func TestPolicyWall(t *testing.T) {
	data, rec := export(t, policyTrace(t), 0, Options{})
	checkGolden(t, "policy.wall.json", data)
	f := decode(t, data)
	var tr trie
	times := replay(t, f, &tr)
	compareExclusive(t, &tr, times, streamExclusive(rec, false, &tr))
	got := tr.strings(times)

	// By hand from policy-trace.txt (µs): threads appear in record order
	// 7, 101, 100, 9, and main (tid 100 = pid) is shown first.
	if *f.ActiveProfileIndex != 2 || f.Profiles[2].Name != "main (tid 100)" || f.Profiles[3].Name != "thread 9 (tid 9)" {
		t.Errorf("active %d, profiles %q, %q", *f.ActiveProfileIndex, f.Profiles[2].Name, f.Profiles[3].Name)
	}
	if f.Name != "policy.trace (wall clock)" || f.Exporter != "atrace2@test" || f.Profiles[0].Unit != "microseconds" {
		t.Errorf("name %q exporter %q unit %q", f.Name, f.Exporter, f.Profiles[0].Unit)
	}
	const run, work, leaf = "com.example.App.run@com/example/App.kt", "com.example.App.work@com/example/App.kt", "com.example.App.leaf@com/example/App.kt"
	const loop, exec = "android.os.Looper.loop@android/os/Looper.java", "android.os.Binder.execTransact@android/os/Binder.java"
	hand := map[string]int64{
		"main (tid 100)|" + run:                                                      17, // 30-35, 50-52, 55-57, 62-70
		"main (tid 100)|" + run + ";" + work:                                         6,  // work(I) 35-40, 47-48
		"main (tid 100)|" + run + ";" + work + ";" + work:                            5,  // work(J), same frame: 40-42, 44-47
		"main (tid 100)|" + run + ";" + work + ";" + leaf:                            2,  // ended implicitly at 50
		"main (tid 100)|com.example.App$Inner.<init>@com/example/App.kt":             0,
		"main (tid 100)|" + run + ";com.example.App$Inner.<init>@com/example/App.kt": 3, // 58 clamped to 59
		"main (tid 100)|" + run + ";<unknown method 0x24>@":                          2,
		"Binder:100_1 (tid 7)|" + loop + ";" + exec:                                  7,  // orphans: 0-5, 8-10
		"Binder:100_1 (tid 7)|" + loop:                                               2,  // 10-12
		"Binder:100_1 (tid 7)|" + exec:                                               55, // 20 to the trace end, 75
	}
	for k, us := range hand {
		if got[k] != us*1000 {
			t.Errorf("%s: %d ns, want %d µs", k, got[k], us)
		}
	}
	for _, p := range f.Profiles {
		if p.EndValue != 75 {
			t.Errorf("%s: endValue %v, want the trace end 75", p.Name, p.EndValue)
		}
	}
}

func TestPolicyCPU(t *testing.T) {
	data, rec := export(t, policyTrace(t), parser.ClockThreadCPU, Options{})
	checkGolden(t, "policy.cpu.json", data)
	f := decode(t, data)
	var tr trie
	compareExclusive(t, &tr, replay(t, f, &tr), streamExclusive(rec, true, &tr))
	if f.Name != "policy.trace (thread CPU clock)" {
		t.Errorf("name %q", f.Name)
	}
	// The worker's CPU clock wrapped once: 200 + 2^32 µs.
	if f.Profiles[1].EndValue != 200+1<<32 {
		t.Errorf("worker endValue %v", f.Profiles[1].EndValue)
	}
}

// TestWindow replays the output of a window (--from/--to) over the sample
// trace and compares it with the stream: frames crossing a boundary begin
// or end at it, and the time axis is the trace's own (the window does not
// shift it).
func TestWindow(t *testing.T) {
	const from, to = 50_000_000, 200_000_000
	w := &focus.Window{From: from, To: to}
	data, rec := exportFocused(t, sampleTrace(t), 0, convert.Options{Window: w}, Options{})
	f := decode(t, data)
	var tr trie
	compareExclusive(t, &tr, replay(t, f, &tr), streamExclusive(rec, false, &tr))
	var cut, events int
	for _, p := range f.Profiles {
		if p.EndValue != float64(rec.t.WallEnd)/1000 {
			t.Errorf("%s: endValue %v, want the trace end %d µs", p.Name, p.EndValue, rec.t.WallEnd/1000)
		}
		for _, e := range p.Events {
			events++
			if e.At < from/1000 || e.At > to/1000 {
				t.Errorf("%s: event at %v µs, outside the window", p.Name, e.At)
			}
			if e.At == from/1000 || e.At == to/1000 {
				cut++
			}
		}
	}
	if events == 0 || cut == 0 {
		t.Errorf("%d events, %d at the boundaries", events, cut)
	}
}

// TestSampleAndCorpus replays every output and compares it with the stream
// on each clock the trace has.
func TestSampleAndCorpus(t *testing.T) {
	paths := []string{sampleTrace(t)}
	t.Run("corpus", func(t *testing.T) { paths = append(paths, corpusTraces(t)...) })
	for _, path := range paths {
		for _, clock := range clocksFor(path) {
			f, err := parser.Open(path, parser.Options{Clock: clock})
			if err != nil {
				t.Logf("%s: not convertible, skipped: %v", filepath.Base(path), err)
				continue
			}
			f.Close()
			t.Run(filepath.Base(path)+"/"+clock.String(), func(t *testing.T) {
				data, rec := export(t, path, clock, Options{})
				var tr trie
				compareExclusive(t, &tr, replay(t, decode(t, data), &tr), streamExclusive(rec, clock == parser.ClockThreadCPU || CPUTimeline(rec.t), &tr))
			})
		}
	}
}

// TestSpill forces 4 KiB blocks through the spool file: the output must be
// byte for byte the one built in memory.
func TestSpill(t *testing.T) {
	path := tracegenTrace(t, genTrace(20_000, 3))
	mem, _ := export(t, path, 0, Options{})
	var buf bytes.Buffer
	e := New(&buf, Options{Exporter: "atrace2@test", Memory: 1, TempDir: t.TempDir()})
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := runExporter(f, e); err != nil {
		t.Fatal(err)
	}
	spilled := 0
	for _, tb := range e.threads {
		spilled += len(tb.blocks)
	}
	if spilled < 10 {
		t.Errorf("only %d blocks spilled", spilled)
	}
	if !bytes.Equal(buf.Bytes(), mem) {
		t.Error("the spilled output differs from the in-memory one")
	}
	if left, _ := os.ReadDir(e.opt.TempDir); len(left) != 0 {
		t.Errorf("spool files left behind: %v", left)
	}
}

// TestBufferGrowsWithUse: a thread's buffer starts small and grows with its
// events, so that many threads with a few events each cost a few kilobytes
// each, not a block each (a fuzzed trace of 46 such threads allocated
// 95 MB), and a busy thread still fills a whole block before it spills.
func TestBufferGrowsWithUse(t *testing.T) {
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprint("t", i)
	}
	tr := handTrace(1_000_000, names...)
	var buf bytes.Buffer
	e := New(&buf, Options{})
	if err := e.Begin(tr); err != nil {
		t.Fatal(err)
	}
	// Busy thread 0 writes about 8 × minBlock bytes; the others two events.
	busy := 8 * minBlock
	for i := range busy {
		k := stream.Begin
		if i%2 == 1 {
			k = stream.End
		}
		if err := e.Events(&stream.Batch{Events: []stream.Event{ev(k, 0, 0, i%2, int64(i))}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	for th := 1; th < len(names); th++ {
		if err := e.Events(&stream.Batch{Events: []stream.Event{ev(stream.Begin, th, 1, 0, 1), ev(stream.End, th, 1, 0, 2)}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	for th := 1; th < len(names); th++ {
		if c := cap(e.threads[th].buf); c > minBlock+slack {
			t.Fatalf("thread %d with two events holds a %d-byte buffer, want at most %d", th, c, minBlock+slack)
		}
	}
	if b := e.threads[0]; len(b.blocks) != 0 || len(b.buf) < busy || cap(b.buf) > e.block+slack {
		t.Fatalf("busy thread: %d bytes in a %d-byte buffer and %d spilled blocks; want %d+ bytes in at most a block (%d), none spilled",
			len(b.buf), cap(b.buf), len(b.blocks), busy, e.block)
	}
	if err := e.Finish(tr); err != nil {
		t.Fatal(err)
	}
	if f := decode(t, buf.Bytes()); len(f.Profiles) != len(names) {
		t.Fatalf("%d profiles, want %d", len(f.Profiles), len(names))
	}
}

// feed drives an exporter with a hand-made stream.
func feed(t *testing.T, tr *stream.Trace, evs []stream.Event) *file {
	t.Helper()
	var buf bytes.Buffer
	e := New(&buf, Options{})
	if err := e.Begin(tr); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := e.Events(&stream.Batch{Events: []stream.Event{evs[i]}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Finish(tr); err != nil {
		t.Fatal(err)
	}
	return decode(t, buf.Bytes())
}

func handTrace(wallEnd int64, threads ...string) *stream.Trace {
	tr := &stream.Trace{Name: "-", HasWall: true, WallEnd: wallEnd,
		Frames: []stream.Frame{{Name: "A"}, {Name: "B"}, {Name: "A"}}}
	for i, n := range threads {
		tr.Threads = append(tr.Threads, stream.Thread{Index: stream.ThreadIndex(i), ID: stream.ThreadID(10 + i), Name: n})
	}
	return tr
}

func ev(k stream.Kind, th, f, depth int, wall int64) stream.Event {
	return stream.Event{Kind: k, Thread: stream.ThreadIndex(th), Frame: stream.FrameID(f), Depth: int32(depth), Wall: wall}
}

// TestNanoseconds: a time that is not a whole µs switches the unit.
func TestNanoseconds(t *testing.T) {
	b, e := stream.Begin, stream.End
	f := feed(t, handTrace(5_000_500, "x", "y"), []stream.Event{
		ev(b, 0, 0, 0, 1000), ev(b, 1, 1, 0, 1500), ev(e, 0, 0, 0, 3000), ev(e, 1, 1, 0, 5_000_500),
	})
	p := f.Profiles[1]
	if p.Unit != "nanoseconds" || p.EndValue != 5_000_500 || p.Events[1].At != 5_000_500 {
		t.Errorf("unit %q end %v events %+v", p.Unit, p.EndValue, p.Events)
	}
	// Frames 0 and 2 are both "A": one shared frame. Thread 1 is busiest.
	if len(f.Shared.Frames) != 2 || *f.ActiveProfileIndex != 1 || f.Name != "stdin (wall clock)" {
		t.Errorf("frames %+v, active %d, name %q", f.Shared.Frames, *f.ActiveProfileIndex, f.Name)
	}
}

func TestMicrosecondsAndDedup(t *testing.T) {
	b, e := stream.Begin, stream.End
	f := feed(t, handTrace(9000, "x", "main"), []stream.Event{
		ev(b, 0, 0, 0, 0), ev(b, 0, 2, 1, 2000), ev(e, 0, 2, 1, 3000), ev(e, 0, 0, 0, 9000),
	})
	p := f.Profiles[0]
	want := `[{O 0 0} {O 2 0} {C 3 0} {C 9 0}]`
	if got := sprintEvents(p); p.Unit != "microseconds" || got != want || p.EndValue != 9 {
		t.Errorf("unit %q end %v events %s, want %s", p.Unit, p.EndValue, got, want)
	}
	if *f.ActiveProfileIndex != 1 { // named main, though idle
		t.Errorf("active %d", *f.ActiveProfileIndex)
	}
	if len(f.Profiles[1].Events) != 0 || f.Profiles[1].EndValue != 9 {
		t.Errorf("idle thread: %+v", f.Profiles[1])
	}
}

func sprintEvents(p profile) string { return fmt.Sprint(p.Events) }

func TestAppendQuoted(t *testing.T) {
	for _, s := range []string{"", "plain", `q"u\o`, "<init>&", "tab\tnl\ncr\r\x01\x1f", "ünï€😀", "bad\xff\xfeutf8", "\u2028"} {
		got := appendQuoted(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q → %s: %v", s, got, err)
			continue
		}
		want := string([]rune(s)) // invalid bytes become U+FFFD, as encoding/json does
		if back != want {
			t.Errorf("%q → %s → %q", s, got, back)
		}
	}
	if got := string(appendQuoted(nil, "<init>")); got != `"<init>"` {
		t.Errorf("got %s: < and > must stay readable", got)
	}
}

func TestDecimal(t *testing.T) {
	var c decimal
	if got := string(c.digits()); got != "0" {
		t.Errorf("zero value: %q", got)
	}
	v := uint64(0)
	steps := []uint64{0, 1, 8, 1, 90, 900, 9000, 1, 0, 99_999, 1 << 20, 3, 1<<20 - 1}
	for v := uint64(1); v < 1e18; v *= 10 {
		steps = append(steps, 9*v, v/10+1) // carries through every length
	}
	for range 30 {
		steps = append(steps, 3, 7, 9) // last digits, some crossing a ten
	}
	for _, step := range append(steps, 1<<63+5, 0, 1<<62, 1) {
		v += step
		if !c.step(v) { // as the writer does
			c.advance(v)
		}
		if got, want := string(c.digits()), strconv.FormatUint(v, 10); got != want {
			t.Fatalf("after +%d: %q, want %q", step, got, want)
		}
	}
	c.advance(12345)
	c.advance(7) // smaller: formatted afresh, with no digit left before it
	if !c.step(13) {
		c.advance(13)
	}
	if got := string(c.digits()); got != "13" {
		t.Errorf("12345, 7, 13: %q", got)
	}
	var z decimal
	if z.step(1) || z.step(0) {
		t.Error("step took the zero value, whose last byte is no digit")
	}
}

// clocksFor is the clocks to check a trace on: its own and the thread CPU
// clock, or only its own for the corpus under -short.
func clocksFor(path string) []parser.Clock {
	if testing.Short() && strings.Contains(path, "corpus") {
		return []parser.Clock{0}
	}
	return []parser.Clock{0, parser.ClockThreadCPU}
}
