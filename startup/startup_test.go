package startup_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/startup"
	"github.com/atrace2/atrace2/stream"
)

// phases reads a trace into its report, in one read unless it has an
// orphan exit (convert.Deferred) and in two (an output that cannot start
// over), which must agree.
func phases(t *testing.T, data []byte) *startup.Report {
	t.Helper()
	return phasesOf(t, data, startup.Options{})
}

// phasesOf is phases with the exporter's options.
func phasesOf(t *testing.T, data []byte, opt startup.Options) *startup.Report {
	t.Helper()
	var reps []*startup.Report
	for _, rewind := range []bool{true, false} {
		f, err := parser.NewFile("cold.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := startup.New(opt)
		out := convert.Output{Exporter: e}
		if rewind {
			out = convert.Deferred(e)
		}
		if _, err := convert.Run(f, convert.Options{}, out); err != nil {
			t.Fatal(err)
		}
		reps = append(reps, e.Report())
	}
	if !reflect.DeepEqual(reps[0], reps[1]) {
		t.Fatalf("one read and two differ:\n%+v\n%+v", reps[0], reps[1])
	}
	return reps[0]
}

// want turns the generator's phases (µs) into the report's (ns).
func want(cs *tracegen.ColdStartTrace) []startup.Phase {
	var ps []startup.Phase
	for i, g := range cs.Phases {
		p := startup.Phase{Name: g.Name, Recorded: g.Recorded, Top: []startup.Method{},
			Begin: 1000 * int64(g.Begin), End: 1000 * int64(g.End),
			Wall: 1000 * int64(g.Wall), CPU: 1000 * int64(g.CPU), OffCPU: 1000 * int64(g.OffCPU)}
		p.Method = methods[i]
		for _, m := range g.Top {
			p.Top = append(p.Top, startup.Method{Name: m.Name, Wall: 1000 * int64(m.Wall), CPU: 1000 * int64(m.CPU), OffCPU: 1000 * int64(m.OffCPU)})
		}
		if g.Name == "fully-drawn" && g.Recorded {
			for _, q := range cs.Phases { // the first recorded phase
				if q.Recorded {
					p.From = q.Name
					break
				}
			}
		}
		switch {
		case g.Recorded:
		case g.End != 0:
			p.Reason = startup.ReasonBefore
		default:
			p.Reason = startup.ReasonMissing
		}
		ps = append(ps, p)
	}
	return ps
}

var methods = []string{
	"android.app.ActivityThread.handleBindApplication",
	"android.app.Instrumentation.callApplicationOnCreate",
	"android.app.Activity.performCreate",
	"android.app.Activity.performStart",
	"android.app.Activity.performResume",
	"android.view.Choreographer.doFrame",
	"android.app.Activity.reportFullyDrawn",
}

func TestNames(t *testing.T) {
	got := startup.Names()
	exp := []string{"bind", "application-create", "activity-create", "activity-start", "activity-resume", "first-frame", "fully-drawn"}
	if !slices.Equal(got, exp) {
		t.Fatalf("Names() = %q, want %q", got, exp)
	}
}

// TestColdStartByHand checks the generator's plan against values worked
// out by hand from its self times (µs), so that the comparisons below
// compare with the plan and not with a second copy of a mistake.
func TestColdStartByHand(t *testing.T) {
	type row struct{ begin, end, wall, cpu, off uint32 }
	byHand := map[string]row{
		"bind":               {500, 22100, 21600, 12550, 9050},
		"application-create": {3600, 22000, 18400, 10400, 8000},
		"activity-create":    {30200, 49700, 19500, 13000, 6500},
		"activity-start":     {49700, 50500, 800, 700, 100},
		"activity-resume":    {50750, 52250, 1500, 1200, 300},
		"first-frame":        {60000, 71100, 11100, 7800, 3300},
		// From bind's begin to reportFullyDrawn's end; 29,900 µs of it
		// idle in Looper.loop between the messages.
		"fully-drawn": {500, 90350, 89850, 39900, 49950},
	}
	for _, p := range tracegen.ColdStart(tracegen.ColdStartOptions{}).Phases {
		got := row{p.Begin, p.End, p.Wall, p.CPU, p.OffCPU}
		if !p.Recorded || got != byHand[p.Name] {
			t.Errorf("%s: plan gives %+v (recorded %v), by hand %+v", p.Name, got, p.Recorded, byHand[p.Name])
		}
	}
	cs := tracegen.ColdStart(tracegen.ColdStartOptions{})
	top := cs.Phases[startup.FullyDrawn].Top
	names := []string{"android.os.Looper.loop", "android.view.LayoutInflater.inflate", "com.example.shop.di.Graph.init",
		"android.view.ThreadedRenderer.draw", "com.example.shop.Prefs.load"}
	for i, m := range top {
		if m.Name != names[i] {
			t.Errorf("fully-drawn top %d: %s, by hand %s", i, m.Name, names[i])
		}
	}
	if top[3].Wall != 8000 || top[3].CPU != 4800 { // both frames' draws
		t.Errorf("fully-drawn draw: %+v, by hand 8000/4800", top[3])
	}
}

func TestColdStart(t *testing.T) {
	for _, opt := range []tracegen.ColdStartOptions{
		{},
		{LateStart: true},
		{LateStart: true, StackAtStart: true},
		{Stretch: "first-frame", Factor: 3},
		{Stretch: "bind", Factor: 2},
		{Stretch: "activity-create", Factor: 4, LateStart: true},
	} {
		t.Run(fmt.Sprintf("%+v", opt), func(t *testing.T) {
			cs := tracegen.ColdStart(opt)
			r := phases(t, cs.Trace.Regular())
			if r.Thread != "main" || r.ThreadID != 1000 || r.Activities != 1 || len(r.Missing) != 0 {
				t.Errorf("report: thread %q %d, %d activities, missing %q", r.Thread, r.ThreadID, r.Activities, r.Missing)
			}
			exp := want(cs)
			for i := range exp {
				if !reflect.DeepEqual(r.Phases[i], exp[i]) {
					t.Errorf("phase %s:\n got %+v\nwant %+v", exp[i].Name, r.Phases[i], exp[i])
				}
			}
		})
	}
}

// TestLateStartReasons checks what a late start says, by hand.
func TestLateStartReasons(t *testing.T) {
	for _, art := range []bool{false, true} {
		r := phases(t, tracegen.ColdStart(tracegen.ColdStartOptions{LateStart: true, StackAtStart: art}).Trace.Regular())
		bind := r.Phase("bind")
		if bind.Recorded || bind.Reason != startup.ReasonBefore || bind.End != 22_100_000 {
			t.Errorf("art %v: bind %+v, want not recorded, began before tracing started, end 22.1 ms", art, bind)
		}
		app, drawn := r.Phase("application-create"), r.Phase("fully-drawn")
		if app.Recorded == art {
			t.Errorf("art %v: application-create recorded %v", art, app.Recorded)
		}
		begin := int64(3_600_000) // application-create's begin
		if art {
			begin = 30_200_000 // activity-create's
		}
		if !drawn.Recorded || drawn.Begin != begin || drawn.End != 90_350_000 {
			t.Errorf("art %v: fully-drawn %+v, want %d to 90350000", art, drawn, begin)
		}
	}
}

// TestOneClock reads the cold start written with one clock: the other's
// fields are 0 and named missing, the rest as with both.
func TestOneClock(t *testing.T) {
	for _, clock := range []string{"wall", "thread-cpu"} {
		cs := tracegen.ColdStart(tracegen.ColdStartOptions{})
		cs.Trace.Clock = clock
		r := phases(t, cs.Trace.Regular())
		exp := want(cs)
		missing := []string{"cpu", "offcpu"}
		if clock == "thread-cpu" {
			missing = []string{"begin", "end", "wall", "offcpu"}
		}
		if !slices.Equal(r.Missing, missing) {
			t.Errorf("%s: missing %q, want %q", clock, r.Missing, missing)
		}
		for i := range exp {
			g, w := r.Phases[i], exp[i]
			w.OffCPU = 0
			if clock == "wall" {
				w.CPU = 0
			} else {
				w.Begin, w.End, w.Wall = 0, 0, 0
			}
			if g.Recorded != w.Recorded || g.Begin != w.Begin || g.End != w.End || g.Wall != w.Wall || g.CPU != w.CPU || g.OffCPU != 0 {
				t.Errorf("%s: %s: got %+v, want %+v", clock, w.Name, g, w)
			}
		}
		// first-frame's methods on the thread-CPU clock, by hand: draw
		// 3000, measure 2800, layout 1900, doFrame 100 µs.
		if clock == "thread-cpu" {
			var got []string
			for _, m := range r.Phase("first-frame").Top {
				got = append(got, fmt.Sprintf("%s=%d", m.Name, m.CPU/1000))
			}
			exp := []string{"android.view.ThreadedRenderer.draw=3000", "android.view.View.measure=2800", "android.view.View.layout=1900", "android.view.Choreographer.doFrame=100"}
			if !slices.Equal(got, exp) {
				t.Errorf("thread-cpu first-frame top %q, want %q", got, exp)
			}
		}
	}
}

// TestValue: a dual-clock trace shown on one clock (--clock) gives the
// report of the same trace recorded on that clock alone; shown for its
// off-CPU time, its report with each phase's top methods by off-CPU time.
func TestValue(t *testing.T) {
	dual := tracegen.ColdStart(tracegen.ColdStartOptions{}).Trace.Regular()
	for _, c := range []struct {
		clock string
		value stream.Value
	}{{"wall", stream.ValueWall}, {"thread-cpu", stream.ValueCPU}} {
		cs := tracegen.ColdStart(tracegen.ColdStartOptions{})
		cs.Trace.Clock = c.clock
		if got, want := phasesOf(t, dual, startup.Options{Value: c.value}), phases(t, cs.Trace.Regular()); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got\n%+v\nwant (a %s trace)\n%+v", c.value, got, c.clock, want)
		}
	}
	all, off := phases(t, dual), phasesOf(t, dual, startup.Options{Value: stream.ValueOffCPU})
	for i, p := range off.Phases {
		q := all.Phases[i]
		if p.Wall != q.Wall || p.CPU != q.CPU || p.OffCPU != q.OffCPU || len(p.Top) != len(q.Top) {
			t.Errorf("%s: offcpu %+v, default %+v", p.Name, p, q)
		}
		if !slices.IsSortedFunc(p.Top, func(a, b startup.Method) int { return cmp.Compare(b.OffCPU, a.OffCPU) }) {
			t.Errorf("%s: top methods %+v not by off-CPU time", p.Name, p.Top)
		}
	}
	if _, err := convert.Run(openCold(t, tracegen.ColdStart(tracegen.ColdStartOptions{})), convert.Options{},
		convert.Deferred(startup.New(startup.Options{Value: stream.ValueOffCPU}))); err != nil {
		t.Fatalf("offcpu of a dual-clock trace: %v", err)
	}
	wallOnly := tracegen.ColdStart(tracegen.ColdStartOptions{})
	wallOnly.Trace.Clock = "wall"
	_, err := convert.Run(openCold(t, wallOnly), convert.Options{}, convert.Deferred(startup.New(startup.Options{Value: stream.ValueOffCPU})))
	var ve *stream.ValueError
	if !errors.As(err, &ve) {
		t.Errorf("offcpu of a wall-only trace: %v, want a stream.ValueError", err)
	}
}

// openCold opens a cold-start trace.
func openCold(t *testing.T, cs *tracegen.ColdStartTrace) *parser.File {
	t.Helper()
	data := cs.Trace.Regular()
	f, err := parser.NewFile("cold.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestMainThread: the main thread is the one whose tid is the pid, else
// the one named main; without either there are no phases.
func TestMainThread(t *testing.T) {
	cs := tracegen.ColdStart(tracegen.ColdStartOptions{})
	cs.Trace.Threads[0].Name = "com.example.shop" // tid 1000 = pid
	cs.Trace.Threads[1].Name = "main"             // the disk thread
	r := phases(t, cs.Trace.Regular())
	if r.ThreadID != 1000 || !r.Phase("first-frame").Recorded {
		t.Errorf("pid thread: got tid %d, first-frame %+v", r.ThreadID, r.Phase("first-frame"))
	}
	cs.Trace.Options = nil
	r = phases(t, cs.Trace.Regular())
	if r.ThreadID != 1010 || r.Phase("first-frame").Recorded || r.Phase("bind").Reason != startup.ReasonMissing {
		t.Errorf("named main: got tid %d, phases %+v", r.ThreadID, r.Phases)
	}
	cs.Trace.Threads[1].Name = "arch_disk_io_0"
	r = phases(t, cs.Trace.Regular())
	if r.Thread != "" || r.Phase("bind").Recorded {
		t.Errorf("no main thread: got %q %+v", r.Thread, r.Phases)
	}
}
