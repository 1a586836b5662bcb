package perfetto_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
	pb "github.com/atrace2/atrace2/proto"
)

// TestPolicyCases decodes the output of every generated trace the way
// trace_processor does and requires exactly the slices of the event stream.
func TestPolicyCases(t *testing.T) {
	for _, c := range policyCases {
		t.Run(c.name, func(t *testing.T) {
			x := export(t, openText(t, c.name+".trace", c.src), perfetto.Options{})
			checkSlices(t, x)
		})
	}
}

// TestCorpus does the same for every real trace in ../shared/corpus that
// converts.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	names, _ := filepath.Glob(filepath.Join(dir, "*.trace*"))
	if len(names) == 0 {
		t.Skipf("no corpus traces in %s", dir)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, err := parser.Open(name, parser.Options{})
			if err != nil {
				t.Skipf("does not open: %v", err)
			}
			defer f.Close()
			x := export(t, f, perfetto.Options{})
			checkSlices(t, x)
			if n := int64(len(x.got.Slices)) * 2; n != x.exp.EventCount() {
				t.Errorf("%d slices for %d events", n/2, x.exp.EventCount())
			}
		})
	}
}

// want is a slice computed by hand: times in µs from the trace start.
type want struct {
	name             string
	depth            int
	ts, dur, cpu     int64 // cpu < 0: no thread duration
	synthetic, other string
}

// TestPolicyByHand checks policyDual's slices against values worked out by
// hand from its records (see the comment on policyDual).
func TestPolicyByHand(t *testing.T) {
	x := export(t, openText(t, "policy.trace", policyDual), perfetto.Options{})
	tracks, got := x.got.threadTracks()
	const (
		begin   = perfetto.SyntheticBegin
		end     = perfetto.SyntheticEnd
		implied = perfetto.SyntheticImplied
	)
	wants := map[string][]want{
		"main": {
			{"com.example.App.load", 0, 0, 100, 10, begin, ""},
			{"com.example.App.onCreate", 0, 110, 300, 11, end, ""},
			{"com.example.Net.fetch", 1, 120, 30, 8, "", "debug.exception=true"},
			{"java.lang.Thread.sleep", 1, 160, 240, -1, "", "debug.cpu_us=0"},
			{"com.example.App.load", 1, 410, 0, -1, end, ""},
		},
		"worker": {
			{"com.example.App.onCreate", 0, 0, 330, 8, begin, ""},
			{"com.example.Util.helper", 1, 200, 100, 5, "", ""},
			{"com.example.Net.fetch", 2, 200, 100, 5, "", ""},
			{"java.lang.Thread.sleep", 3, 210, 90, 4, implied, ""},
			{"com.example.App.load", 1, 305, 15, 1, "", ""},
			{"<unknown method 0x40>", 2, 310, 0, -1, "", ""},
		},
		"thread 9": {{"com.example.Net.fetch", 0, 340, 10, 3, "", ""}},
	}
	base := int64(81734201455) * 1000
	for i, tr := range tracks {
		name := tr.Desc.Thread.GetThreadName()
		w := wants[name]
		if len(got[i]) != len(w) {
			t.Fatalf("%s: %d slices, want %d", name, len(got[i]), len(w))
		}
		for j, s := range got[i] {
			checkByHand(t, name, s, w[j], base)
		}
		delete(wants, name)
	}
	if len(wants) != 0 {
		t.Errorf("threads missing: %v", wants)
	}
	if pid := tracks[0].Desc.Thread.GetPid(); pid != 4321 {
		t.Errorf("pid %d, want 4321", pid)
	}
}

// TestWindowByHand checks the slices of policyDual in the window
// [150, 320] µs against values worked out by hand: frames crossing a
// boundary begin or end at it, marked cut, on the trace's own time axis;
// cut stretches count no thread time; thread 9 (340–350) has nothing in
// the window.
func TestWindowByHand(t *testing.T) {
	w := &focus.Window{From: 150_000, To: 320_000}
	x := exportFocused(t, openText(t, "policy.trace", policyDual), convert.Options{Window: w}, perfetto.Options{})
	checkSlices(t, x)
	tracks, got := x.got.threadTracks()
	const (
		cutBegin = perfetto.CutBegin
		cutEnd   = perfetto.CutEnd
		implied  = perfetto.SyntheticImplied
	)
	// onCreate runs across the whole window on both threads: its end
	// carries both cuts, as trace_processor keeps the end's value.
	both := perfetto.BothNotes(cutBegin, cutEnd)
	wants := map[string][]want{
		"main": {
			{"com.example.App.onCreate", 0, 150, 170, -1, both, "debug.cpu_us=0"},
			{"com.example.Net.fetch", 1, 150, 0, -1, cutBegin, "debug.exception=true"},
			{"java.lang.Thread.sleep", 1, 160, 160, -1, cutEnd, "debug.cpu_us=0"},
		},
		"worker": {
			{"com.example.App.onCreate", 0, 150, 170, 7, both, ""},
			{"com.example.Util.helper", 1, 200, 100, 5, "", ""},
			{"com.example.Net.fetch", 2, 200, 100, 5, "", ""},
			{"java.lang.Thread.sleep", 3, 210, 90, 4, implied, ""},
			{"com.example.App.load", 1, 305, 15, 1, "", ""},
			{"<unknown method 0x40>", 2, 310, 0, -1, "", ""},
		},
	}
	base := int64(81734201455) * 1000
	for i, tr := range tracks {
		name := tr.Desc.Thread.GetThreadName()
		w := wants[name]
		if len(got[i]) != len(w) {
			t.Fatalf("%s: %d slices, want %d", name, len(got[i]), len(w))
		}
		for j, s := range got[i] {
			checkByHand(t, name, s, w[j], base)
		}
		delete(wants, name)
	}
	if len(wants) != 0 {
		t.Errorf("threads missing: %v", wants)
	}
}

func checkByHand(t *testing.T, thread string, s tpSlice, w want, base int64) {
	t.Helper()
	if s.Name != w.name || s.Depth != w.depth || s.TS != base+w.ts*1000 || s.Dur != w.dur*1000 {
		t.Errorf("%s: got %s depth %d at %d µs for %d µs, want %s depth %d at %d for %d",
			thread, s.Name, s.Depth, (s.TS-base)/1000, s.Dur/1000, w.name, w.depth, w.ts, w.dur)
	}
	if w.cpu < 0 && s.HasThreadDur || w.cpu >= 0 && (!s.HasThreadDur || s.ThreadDur != w.cpu*1000) {
		t.Errorf("%s %s: thread duration %v %d ns, want %d µs", thread, w.name, s.HasThreadDur, s.ThreadDur, w.cpu)
	}
	if s.Args["debug.synthetic"] != w.synthetic {
		t.Errorf("%s %s: debug.synthetic %q, want %q", thread, w.name, s.Args["debug.synthetic"], w.synthetic)
	}
	if w.other != "" {
		k, v, _ := strings.Cut(w.other, "=")
		if s.Args[k] != v {
			t.Errorf("%s %s: %s = %q, want %q", thread, w.name, k, s.Args[k], v)
		}
	}
	if strings.HasPrefix(w.name, "<unknown") != (s.Args["source.function_name"] == "") {
		t.Errorf("%s %s: source args %v", thread, w.name, s.Args)
	}
}

// TestPacketsMatchGeneratedTypes compares every packet of a small trace,
// hand-encoded on the hot path, with the packet built from the generated
// types.
func TestPacketsMatchGeneratedTypes(t *testing.T) {
	const src = `
version 3
clock dual
vm art
start 1000
option pid=77
thread 77 main
method 0x0 a.B c ()V B.java
method 0x4 a.B d (I)V B.java
77 exit 0x0 5 7
77 enter 0x4 6 8
77 unwind 0x4 6 9
`
	x := export(t, openText(t, "tiny.trace", src), perfetto.Options{ProcessName: "com.example"})
	got := splitPackets(t, x.out)
	if len(got) != 8 {
		t.Fatalf("%d packets, want 8", len(got))
	}
	p := got[0].GetTrackDescriptor().GetUuid()
	want := tinyPackets(p, p+1, p+2)
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("packet %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

// tinyPackets is the expected output for TestPacketsMatchGeneratedTypes:
// the process track; the thread's first packet, thread track and
// thread-time counter; then the orphan frame c (begun by the converter at
// the trace start, ended at 7 µs, 5 µs of CPU) and d, entered at 8 µs and
// left by an exception at 9 µs without CPU time.
func tinyPackets(proc, thread, counter uint64) []*pb.TracePacket {
	seq := proto.Uint32(2)
	annNames := []string{"synthetic", "exception", "folded_frames", "cpu_us"}
	annValues := []string{perfetto.SyntheticBegin, perfetto.SyntheticEnd, perfetto.SyntheticImplied}
	static := &pb.InternedData{}
	for i, n := range annNames {
		static.DebugAnnotationNames = append(static.DebugAnnotationNames,
			&pb.DebugAnnotationName{Iid: proto.Uint64(uint64(i + 1)), Name: proto.String(n)})
	}
	// A dual-clock trace: the off-CPU arg's name too, after the two of a
	// mapping's args (iids 5 and 6).
	static.DebugAnnotationNames = append(static.DebugAnnotationNames,
		&pb.DebugAnnotationName{Iid: proto.Uint64(7), Name: proto.String("offcpu_us")})
	for i, v := range annValues {
		static.DebugAnnotationStringValues = append(static.DebugAnnotationStringValues,
			&pb.InternedString{Iid: proto.Uint64(uint64(i + 1)), Str: []byte(v)})
	}
	track := func(td *pb.TrackDescriptor, s *uint32) *pb.TracePacket {
		return &pb.TracePacket{TrustedPacketSequenceId: s, Data: &pb.TracePacket_TrackDescriptor{TrackDescriptor: td}}
	}
	event := func(ts uint64, te *pb.TrackEvent, in *pb.InternedData) *pb.TracePacket {
		return &pb.TracePacket{Timestamp: proto.Uint64(ts), TrustedPacketSequenceId: seq,
			SequenceFlags: proto.Uint32(2), Data: &pb.TracePacket_TrackEvent{TrackEvent: te}, InternedData: in}
	}
	intern := func(iid uint64, name, fn string) *pb.InternedData {
		return &pb.InternedData{
			EventNames:      []*pb.EventName{{Iid: proto.Uint64(iid), Name: proto.String(name)}},
			SourceLocations: []*pb.SourceLocation{{Iid: proto.Uint64(iid), FileName: proto.String("a/B.java"), FunctionName: proto.String(fn)}},
		}
	}
	ann := func(name uint64, v any) *pb.DebugAnnotation {
		a := &pb.DebugAnnotation{NameField: &pb.DebugAnnotation_NameIid{NameIid: name}}
		switch v := v.(type) {
		case bool:
			a.Value = &pb.DebugAnnotation_BoolValue{BoolValue: v}
		case int64:
			a.Value = &pb.DebugAnnotation_IntValue{IntValue: v}
		case uint64:
			a.Value = &pb.DebugAnnotation_StringValueIid{StringValueIid: v}
		}
		return a
	}
	begin, end := pb.TrackEvent_TYPE_SLICE_BEGIN.Enum(), pb.TrackEvent_TYPE_SLICE_END.Enum()
	return []*pb.TracePacket{
		track(&pb.TrackDescriptor{Uuid: proto.Uint64(proc),
			Process: &pb.ProcessDescriptor{Pid: proto.Int32(77), ProcessName: proto.String("com.example")}}, proto.Uint32(1)),
		{
			TrustedPacketSequenceId: seq, SequenceFlags: proto.Uint32(1), FirstPacketOnSequence: proto.Bool(true),
			TracePacketDefaults: &pb.TracePacketDefaults{TimestampClockId: proto.Uint32(64),
				TrackEventDefaults: &pb.TrackEventDefaults{TrackUuid: proto.Uint64(thread), ExtraCounterTrackUuids: []uint64{counter}}},
			Data: &pb.TracePacket_ClockSnapshot{ClockSnapshot: &pb.ClockSnapshot{Clocks: []*pb.ClockSnapshot_Clock{
				{ClockId: proto.Uint32(6), Timestamp: proto.Uint64(1000_000)},
				{ClockId: proto.Uint32(64), Timestamp: proto.Uint64(1000), IsIncremental: proto.Bool(true), UnitMultiplierNs: proto.Uint64(1000)},
			}}},
			InternedData: static,
		},
		track(&pb.TrackDescriptor{Uuid: proto.Uint64(thread),
			Thread: &pb.ThreadDescriptor{Pid: proto.Int32(77), Tid: proto.Int64(77), ThreadName: proto.String("main")}}, seq),
		track(&pb.TrackDescriptor{Uuid: proto.Uint64(counter), ParentUuid: proto.Uint64(thread),
			Counter: &pb.CounterDescriptor{Type: pb.CounterDescriptor_COUNTER_THREAD_TIME_NS.Enum(),
				UnitMultiplier: proto.Int64(1000), IsIncremental: proto.Bool(true)}}, seq),
		event(0, &pb.TrackEvent{Type: begin, NameField: &pb.TrackEvent_NameIid{NameIid: 1}, ExtraCounterValues: []int64{0},
			SourceLocationField: &pb.TrackEvent_SourceLocationIid{SourceLocationIid: 1},
			DebugAnnotations:    []*pb.DebugAnnotation{ann(1, uint64(1))}}, intern(1, "a.B.c", "c()V")),
		// c: 7 µs of wall time, 5 of CPU: 2 µs off the CPU.
		event(7, &pb.TrackEvent{Type: end, ExtraCounterValues: []int64{5},
			DebugAnnotations: []*pb.DebugAnnotation{ann(7, int64(2))}}, nil),
		event(1, &pb.TrackEvent{Type: begin, NameField: &pb.TrackEvent_NameIid{NameIid: 2}, ExtraCounterValues: []int64{1},
			SourceLocationField: &pb.TrackEvent_SourceLocationIid{SourceLocationIid: 2}}, intern(2, "a.B.d", "d(I)V")),
		event(1, &pb.TrackEvent{Type: end, ExtraCounterValues: []int64{0},
			DebugAnnotations: []*pb.DebugAnnotation{ann(2, true), ann(4, int64(0)), ann(7, int64(1))}}, nil),
	}
}

// splitPackets decodes every packet with the generated types.
func splitPackets(t *testing.T, data []byte) []*pb.TracePacket {
	t.Helper()
	var out []*pb.TracePacket
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			t.Fatalf("not a Trace.packet field at %d bytes from the end", len(data))
		}
		body, m := protowire.ConsumeBytes(data[n:])
		if m < 0 {
			t.Fatal("bad packet length")
		}
		p := &pb.TracePacket{}
		if err := proto.Unmarshal(body, p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
		data = data[n+m:]
	}
	return out
}

// TestClocksAndTracks checks the clock domains and the track layout for
// each kind of clock: REALTIME only for Dalvik's epoch start, a thread-time
// counter only with two clocks, and a description on tracks laid out on
// thread-CPU time.
func TestClocksAndTracks(t *testing.T) {
	cases := []struct {
		name, src      string
		realtime       bool
		counter, cpuTL bool
		process        string
	}{
		{"policy-dual", policyDual, false, true, false, "policy-dual"},
		{"wall-only", wallOnly, false, false, false, "wall-only"},
		{"cpu-only-dalvik", cpuOnlyDalvik, true, false, true, "cpu-only-dalvik"},
		{"dual-dalvik", dualDalvik, true, true, false, "dual-dalvik"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := export(t, openText(t, "/some/dir/"+c.name+".trace", c.src), perfetto.Options{})
			start := int64(x.trace.Process.StartMicros) * 1000
			for seq, rt := range x.got.Realtime {
				if !c.realtime || rt != start {
					t.Errorf("sequence %d declares REALTIME %d (start %d, want REALTIME: %v)", seq, rt, start, c.realtime)
				}
			}
			if c.realtime && len(x.got.Realtime) != len(x.trace.Threads) {
				t.Errorf("%d sequences declare REALTIME, want %d", len(x.got.Realtime), len(x.trace.Threads))
			}
			counters, described := 0, 0
			for _, tr := range x.got.Tracks {
				if tr.Desc.Counter != nil {
					counters++
				}
				if tr.Desc.GetDescription() != "" {
					described++
				}
				if p := tr.Desc.Process; p != nil && p.GetProcessName() != c.process {
					t.Errorf("process name %q, want %q", p.GetProcessName(), c.process)
				}
			}
			if want := len(x.trace.Threads); c.counter && counters != want || !c.counter && counters != 0 {
				t.Errorf("%d counter tracks for %d threads, want them: %v", counters, want, c.counter)
			}
			if want := len(x.trace.Threads) + 1; c.cpuTL && described != want || !c.cpuTL && described != 0 {
				t.Errorf("%d tracks with a description, want one per thread and process: %v", described, c.cpuTL)
			}
		})
	}
}

// TestDeepRecursionFolded checks that frames beyond trace_processor's
// depth limit are folded into the frame at depth 511, which says how many,
// and that the exporter warns.
func TestDeepRecursionFolded(t *testing.T) {
	x := export(t, openText(t, "deep.trace", deepRecursion()), perfetto.Options{})
	checkSlices(t, x)
	tracks, got := x.got.threadTracks()
	var folded []string
	maxDepth := 0
	for i := range tracks {
		for _, s := range got[i] {
			maxDepth = max(maxDepth, s.Depth)
			if v, ok := s.Args["debug.folded_frames"]; ok {
				folded = append(folded, v)
				if s.Depth != perfetto.MaxDepth-1 {
					t.Errorf("folded_frames on a slice at depth %d", s.Depth)
				}
			}
		}
	}
	if strings.Join(folded, ",") != "11" || maxDepth != perfetto.MaxDepth-1 {
		t.Errorf("folded_frames %v, deepest slice %d; want [11] and %d", folded, maxDepth, perfetto.MaxDepth-1)
	}
	w := x.exp.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "11 frames nested deeper than 512 levels") ||
		!strings.Contains(w[0], `the deepest stack has 520 frames (thread "main")`) {
		t.Errorf("warnings %q", w)
	}
}

// TestBytesPerEvent checks the size target on a realistic generated trace.
func TestBytesPerEvent(t *testing.T) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 2 << 20, Threads: 4, Methods: 300, Seed: 3}).Regular()
	var w countWriter
	e := perfetto.New(&w, perfetto.Options{})
	run(t, data, convert.Timeline(e, nil))
	per := float64(w.n) / float64(e.EventCount())
	t.Logf("%d events, %d bytes, %.2f bytes/event", e.EventCount(), w.n, per)
	// The trace has both clocks, and its slices mostly wait for a while:
	// most ends carry the off-CPU arg, about 6 bytes, which 21 allows for.
	if per > 21 || w.n != e.Written() {
		t.Errorf("%.2f bytes per event (written %d, counted %d), want at most 21", per, e.Written(), w.n)
	}
}

// failWriter accepts n bytes, then fails.
type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// TestWriteError checks that a failing writer stops the conversion with an
// error that says what failed.
func TestWriteError(t *testing.T) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 1 << 20, Seed: 2}).Regular()
	f, err := parser.NewFile("x.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = convert.Run(f, convert.Options{}, convert.Timeline(perfetto.New(&failWriter{n: 100 << 10}, perfetto.Options{}), nil))
	if err == nil || !strings.Contains(err.Error(), "writing perfetto trace: disk full") {
		t.Fatalf("error %v, want a write error", err)
	}
}

func TestDefaultProcessName(t *testing.T) {
	for in, want := range map[string]string{
		"app.trace": "app", "/a/b/com.example.app.trace.gz": "com.example.app", "-": "stdin",
		"dmtrace.key": "dmtrace", "x/.trace": ".trace", "noext": "noext",
	} {
		if got := perfetto.DefaultProcessName(in); got != want {
			t.Errorf("DefaultProcessName(%q) = %q, want %q", in, got, want)
		}
	}
}
