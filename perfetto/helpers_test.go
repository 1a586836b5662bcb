package perfetto_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

// openText turns the text form of a trace into an opened regular file.
func openText(t testing.TB, name, src string) *parser.File {
	t.Helper()
	tr, err := tracegen.ParseText(src)
	if err != nil {
		t.Fatal(err)
	}
	return openData(t, name, tr.Regular())
}

// exported is one conversion: the output bytes, the exporter, the decoded
// output and the slices expected from the event stream.
type exported struct {
	out   []byte
	exp   *perfetto.Exporter
	trace *stream.Trace
	got   *tpResult
	want  *recorder
}

// export converts f with the Perfetto exporter and, in the same run, a
// recorder that builds the expected slices from the event stream.
func export(t testing.TB, f *parser.File, opt perfetto.Options) *exported {
	t.Helper()
	return exportFocused(t, f, convert.Options{}, opt)
}

// exportFocused is export with the converter's options (a focus).
func exportFocused(t testing.TB, f *parser.File, copt convert.Options, opt perfetto.Options) *exported {
	t.Helper()
	var buf bytes.Buffer
	x := &exported{exp: perfetto.New(&buf, opt), want: &recorder{}}
	tr, err := convert.Run(f, copt, convert.Output{Exporter: x.exp}, convert.Output{Exporter: x.want})
	if err != nil {
		t.Fatal(err)
	}
	x.trace, x.out = tr, buf.Bytes()
	if x.got, err = decodeTP(x.out); err != nil {
		t.Fatal(err)
	}
	for _, p := range x.got.Problems {
		t.Error("decoding:", p)
	}
	return x
}

// recorder is a stream.Exporter that builds, straight from the event
// stream, the slices trace_processor should show: every Begin/End pair one
// slice on its thread's track, begin and end on the trace's timeline, the
// thread duration from the CPU clock, the args the converter's flags call
// for, and frames deeper than trace_processor's limit folded into their
// ancestor at the last depth it keeps.
type recorder struct {
	t          *stream.Trace
	base       int64 // ns of the trace start
	cpuOnly    bool  // the timeline is thread CPU time
	dual       bool  // slices carry thread times
	slices     [][]tpSlice
	stacks     [][]int
	folded     []int64
	deepFolded int64
	seen       int // 1 + the largest thread index with events
	// off sums, per open slice (parallel to stacks), the wall µs minus the
	// thread-CPU µs of the stretches between two events of the thread when
	// it was on top: its exclusive off-CPU time at its end.
	off  [][]int64
	last [][2]int64 // per thread: µs wall and CPU of its previous event
}

func (r *recorder) Begin(t *stream.Trace) error {
	r.t = t
	r.base = int64(t.Process.StartMicros) * 1000
	r.cpuOnly = !t.HasWall && t.HasCPU
	r.dual = t.HasWall && t.HasCPU
	r.slices = make([][]tpSlice, len(t.Threads))
	r.stacks = make([][]int, len(t.Threads))
	r.folded = make([]int64, len(t.Threads))
	r.off = make([][]int64, len(t.Threads))
	r.last = make([][2]int64, len(t.Threads))
	return nil
}

func (r *recorder) event(ev *stream.Event) error {
	i := ev.Thread
	r.seen = max(r.seen, int(i)+1)
	if ev.Depth >= tpMaxDepth {
		if ev.Kind == stream.Begin {
			r.folded[i]++
			r.deepFolded++
		}
		return nil
	}
	ts := r.base + ev.Wall
	if r.cpuOnly {
		ts = r.base + ev.CPU
	}
	us, cpu := ev.Wall/1000, ev.CPU/1000 // the output's µs
	if off := r.off[i]; len(off) > 0 {
		off[len(off)-1] += (us - r.last[i][0]) - (cpu - r.last[i][1])
	}
	r.last[i] = [2]int64{us, cpu}
	if ev.Kind == stream.Begin {
		r.stacks[i] = append(r.stacks[i], len(r.slices[i]))
		r.off[i] = append(r.off[i], 0)
		r.slices[i] = append(r.slices[i], r.newSlice(ev, ts))
		return nil
	}
	st := r.stacks[i]
	if len(st) == 0 {
		return fmt.Errorf("end without begin on thread %d", i)
	}
	sl := &r.slices[i][st[len(st)-1]]
	r.stacks[i] = st[:len(st)-1]
	off := r.off[i][len(st)-1]
	r.off[i] = r.off[i][:len(st)-1]
	r.endSlice(sl, ev, ts)
	if r.dual && off > 0 {
		sl.Args["debug.offcpu_us"] = strconv.FormatInt(off, 10)
	}
	return nil
}

func (r *recorder) newSlice(ev *stream.Event, ts int64) tpSlice {
	fr := &r.t.Frames[ev.Frame]
	sl := tpSlice{Name: fr.Name, TS: ts, Dur: -1, Depth: int(ev.Depth), Args: map[string]string{}}
	if r.dual {
		sl.ThreadTS, sl.HasThreadTS = ev.CPU, true
	}
	if fr.Listed {
		if fr.File != "" {
			sl.Args["source.file_name"] = fr.File
		}
		sl.Args["source.function_name"] = fr.Method + fr.Signature
		if fr.HasLine && fr.Line > 0 {
			sl.Args["source.line_number"] = strconv.Itoa(fr.Line)
		}
	}
	switch {
	case ev.Flags&stream.Cut != 0:
		sl.Args["debug.synthetic"] = perfetto.CutBegin
	case ev.Flags&stream.Synthetic != 0:
		sl.Args["debug.synthetic"] = perfetto.SyntheticBegin
	}
	return sl
}

func (r *recorder) endSlice(sl *tpSlice, ev *stream.Event, ts int64) {
	sl.Dur = ts - sl.TS
	if r.dual && ev.CPU != sl.ThreadTS {
		sl.ThreadDur, sl.HasThreadDur = ev.CPU-sl.ThreadTS, true
	}
	end := ""
	switch {
	case ev.Flags&stream.Cut != 0:
		end = perfetto.CutEnd
	case ev.Flags&stream.Synthetic != 0:
		end = perfetto.SyntheticEnd
	case ev.Flags&stream.Implicit != 0:
		end = perfetto.SyntheticImplied
	}
	// A window's cut at either end keeps both notes (the end's value
	// would replace the begin's).
	begin := sl.Args["debug.synthetic"]
	switch {
	case end == "":
	case begin != "" && (strings.HasPrefix(begin, "cut:") || strings.HasPrefix(end, "cut:")):
		sl.Args["debug.synthetic"] = perfetto.BothNotes(begin, end)
	default:
		sl.Args["debug.synthetic"] = end
	}
	if ev.Flags&stream.Unwound != 0 {
		sl.Args["debug.exception"] = "true"
	}
	if f := r.folded[ev.Thread]; ev.Depth == tpMaxDepth-1 && f > 0 {
		sl.Args["debug.folded_frames"] = strconv.FormatInt(f, 10)
		r.folded[ev.Thread] = 0
	}
	if r.dual && ev.CPU == sl.ThreadTS && sl.Dur > 0 {
		sl.Args["debug.cpu_us"] = "0"
	}
}

func (r *recorder) Finish(*stream.Trace) error { return nil }

// threadTracks returns the decoded thread tracks in the order they were
// described, with their slices in the order they began.
func (res *tpResult) threadTracks() ([]*tpTrack, [][]tpSlice) {
	var tracks []*tpTrack
	idx := map[uint64]int{}
	for _, u := range res.Order {
		if tr := res.Tracks[u]; tr.Desc.Thread != nil {
			idx[u] = len(tracks)
			tracks = append(tracks, tr)
		}
	}
	slices := make([][]tpSlice, len(tracks))
	for _, s := range res.Slices {
		i, ok := idx[s.Track]
		if !ok {
			continue
		}
		s.Track = 0
		slices[i] = append(slices[i], s)
	}
	return tracks, slices
}

// checkSlices requires the decoded output to hold exactly the recorder's
// slices, one thread track per stream thread with its pid, tid and name.
// (Under a window, the threads after the last one with events in it have
// none: their tracks, which start at their first event, never start.)
func checkSlices(t *testing.T, x *exported) {
	t.Helper()
	tracks, got := x.got.threadTracks()
	threads := x.trace.Threads
	if x.trace.Focus.Window {
		threads = threads[:x.want.seen]
	}
	if len(tracks) != len(threads) {
		t.Fatalf("%d thread tracks, want %d", len(tracks), len(threads))
	}
	for i, th := range threads {
		td := tracks[i].Desc.Thread
		if td.GetTid() != int64(th.ID) || td.GetThreadName() != th.Name {
			t.Errorf("thread track %d is tid %d %q, want %d %q", i, td.GetTid(), td.GetThreadName(), th.ID, th.Name)
		}
		want := x.want.slices[i]
		if len(got[i]) != len(want) {
			t.Errorf("thread %q: %d slices, want %d", th.Name, len(got[i]), len(want))
			continue
		}
		for j := range want {
			if !reflect.DeepEqual(got[i][j], want[j]) {
				t.Errorf("thread %q slice %d:\n got %+v\nwant %+v", th.Name, j, got[i][j], want[j])
				break
			}
		}
	}
}

func (x *recorder) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
