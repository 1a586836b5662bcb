package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/stream"
)

// namedEvent is an event with its frame named, so that runs that number
// the frames differently compare.
type namedEvent struct {
	Kind   stream.Kind
	Flags  stream.Flags
	Thread string
	Frame  string
	Depth  int32
	Wall   int64
	CPU    int64
}

func nameEvents(tr *stream.Trace, evs []stream.Event, thread string) []namedEvent {
	var out []namedEvent
	for _, ev := range evs {
		th := tr.Threads[ev.Thread].Name
		if thread != "" && th != thread {
			continue
		}
		out = append(out, namedEvent{ev.Kind, ev.Flags, th, tr.Frames[ev.Frame].Name, ev.Depth, ev.Wall, ev.CPU})
	}
	return out
}

// TestThreadFilterEqualsThreadOfWhole: with --thread, every way of reading
// (each read mode, serial and pipelined, fast path and general path) sends
// exactly the events the unfocused read sends for the kept thread, with the
// same trace end, and keeps that thread only.
func TestThreadFilterEqualsThreadOfWhole(t *testing.T) {
	for seed := range uint64(12) {
		tr := repairableTrace(seed)
		if len(tr.Threads) < 2 {
			continue
		}
		path := filepath.Join(t.TempDir(), "case.trace")
		if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
			t.Fatal(err)
		}
		kept := tr.Threads[int(seed)%len(tr.Threads)]
		for _, pattern := range []string{"^" + regexp.QuoteMeta(kept.Name) + "$", strconv.Itoa(int(kept.ID))} {
			filter, err := focus.NewThreadFilter([]string{pattern})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range readModes {
				for _, serial := range []bool{true, false} {
					for _, general := range []bool{false, true} {
						name := fmt.Sprintf("seed=%d/%s/%s/serial=%v/general=%v", seed, pattern, m.name, serial, general)
						t.Run(name, func(t *testing.T) {
							opt := convert.Serial(convert.Options{}, serial)
							if general {
								opt = convert.GeneralOnly(opt)
							}
							whole, wholeEvents := m.read(t, path, opt)
							opt.Threads = filter
							focused, focusedEvents := m.read(t, path, opt)
							if len(focused.Threads) != 1 || focused.Threads[0].Name != kept.Name {
								t.Fatalf("threads %+v, want %s only", focused.Threads, kept.Name)
							}
							wantFocus := stream.FocusStats{ThreadPatterns: []string{pattern}, ThreadsKept: 1, ThreadsTotal: len(whole.Threads)}
							if !reflect.DeepEqual(focused.Focus, wantFocus) {
								t.Errorf("focus %+v, want %+v", focused.Focus, wantFocus)
							}
							if focused.WallEnd != whole.WallEnd {
								t.Errorf("trace end %d, want %d", focused.WallEnd, whole.WallEnd)
							}
							i := slices.IndexFunc(whole.Threads, func(th stream.Thread) bool { return th.Name == kept.Name })
							want := whole.Threads[i]
							want.Index = 0
							if focused.Threads[0] != want {
								t.Errorf("thread %+v, want %+v", focused.Threads[0], want)
							}
							got, exp := nameEvents(focused, focusedEvents, ""), nameEvents(whole, wholeEvents, kept.Name)
							if !slices.Equal(got, exp) {
								t.Errorf("events differ: %d focused, %d in the whole trace's thread", len(got), len(exp))
							}
							if m.name != "analyze" && len(got) == 0 {
								t.Error("no events")
							}
						})
					}
				}
			}
		}
	}
}

// threeThreads has a repair on each thread: an orphan exit on main, a
// frame open at the end on worker (tid 12), an unknown method on render
// (tid 13), which also has the last record.
const threeThreads = `version 3
clock dual
thread 11 main
thread 12 worker
thread 13 render
method 0x4 a.A run ()V A.java
method 0x8 a.B run ()V B.java
11 enter 0x4 1 10
12 enter 0x8 1 12
11 exit 0x4 3 30
11 exit 0x8 4 40
13 enter 0xf0 1 50
13 exit 0xf0 2 60
`

// TestThreadFilterCases: hand-computed; the dropped threads' repairs are
// not counted, and the kept thread's open frame ends at the trace end (60).
func TestThreadFilterCases(t *testing.T) {
	tr, err := tracegen.ParseText(threeThreads)
	if err != nil {
		t.Fatal(err)
	}
	data := tr.Regular()
	for _, c := range []struct {
		patterns []string
		stats    string
		kept     int
		events   []string
	}{
		{nil, "1 orphan exit, 1 frame open at the end, 1 unknown method id", 3, nil},
		{[]string{"main"}, "1 orphan exit", 1, []string{
			"main begin* a.B.run wall=0 cpu=0",
			"main . begin a.A.run wall=10 cpu=1",
			"main . end a.A.run wall=30 cpu=3",
			"main end a.B.run wall=40 cpu=4",
		}},
		{[]string{"12"}, "1 frame open at the end", 1, []string{
			"worker begin a.B.run wall=12 cpu=1",
			"worker end* a.B.run wall=60 cpu=1",
		}},
		{[]string{"^w", "rend"}, "1 frame open at the end, 1 unknown method id", 2, nil},
		{[]string{"1"}, "", 0, nil}, // a tid must be equal, not a part; no name has a 1
	} {
		t.Run(fmt.Sprint(c.patterns), func(t *testing.T) {
			var opt convert.Options
			if c.patterns != nil {
				if opt.Threads, err = focus.NewThreadFilter(c.patterns); err != nil {
					t.Fatal(err)
				}
			}
			for _, opt := range []convert.Options{opt, convert.TwoReads(opt)} {
				rec, tr, err := convertBytes(t, data, opt)
				if err != nil {
					t.Fatal(err)
				}
				if s := tr.Stats.Summary(); s != c.stats {
					t.Errorf("stats %q, want %q", s, c.stats)
				}
				if len(tr.Threads) != c.kept {
					t.Errorf("%d threads, want %d", len(tr.Threads), c.kept)
				}
				if tr.WallEnd != 60_000 {
					t.Errorf("trace end %d, want 60000", tr.WallEnd)
				}
				if c.patterns != nil && (tr.Focus.ThreadsKept != c.kept || tr.Focus.ThreadsTotal != 3) {
					t.Errorf("focus %+v, want %d of 3", tr.Focus, c.kept)
				}
				if c.events != nil && !slices.Equal(rec.lines, c.events) {
					t.Errorf("events:\n%s\nwant:\n%s", rec.lines, c.events)
				}
			}
		})
	}
}
