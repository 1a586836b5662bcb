package report

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// feed runs balanced events through a stacks.TreeBuilder and annotates the
// result. Frames are named "A", "B", … with an empty signature.
func feed(t *testing.T, frames []string, threads int, evs []stream.Event) *Profile {
	t.Helper()
	tr := &stream.Trace{Name: "fed", HasWall: true, HasCPU: true}
	for i, f := range frames {
		tr.Frames = append(tr.Frames, stream.Frame{ID: stream.FrameID(i), Name: f})
	}
	for i := range threads {
		tr.Threads = append(tr.Threads, stream.Thread{Index: stream.ThreadIndex(i), ID: stream.ThreadID(100 + i), Name: fmt.Sprint("t", i)})
	}
	a := stacks.New()
	if err := a.Begin(tr); err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := a.Events(&stream.Batch{Events: evs[i : i+1], Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Finish(tr); err != nil {
		t.Fatal(err)
	}
	p, err := NewProfile(a.Tree())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ev(k stream.Kind, th, f int, wall, cpu int64, fl stream.Flags) stream.Event {
	return stream.Event{Kind: k, Thread: stream.ThreadIndex(th), Frame: stream.FrameID(f), Wall: wall, CPU: cpu, Flags: fl}
}

// recursionEvents is a trace worked through by hand in the comments of
// TestTopByHand and TestCallsByHand.
//
// Thread 0 (cpu = 2 × wall):      Thread 1:
//
//	 0 A                            0 B (orphan, cpu 0) … 8
//	10   B                         12 C (cpu 0)
//	20     A                       14   A (cpu 1) … open, ends at 30 (cpu 9)
//	25       C … 35
//	… 40 A, 50 B
//	55   A (direct recursion) … 60
//	… 70 A
func recursionEvents() []stream.Event {
	const A, B, C = 0, 1, 2
	b, e := stream.Begin, stream.End
	t0 := func(k stream.Kind, f int, wall int64) stream.Event { return ev(k, 0, f, wall, 2*wall, 0) }
	return []stream.Event{
		t0(b, A, 0), t0(b, B, 10), t0(b, A, 20), t0(b, C, 25),
		ev(b, 1, B, 0, 0, stream.Synthetic),
		t0(e, C, 35), t0(e, A, 40), t0(e, B, 50),
		ev(e, 1, B, 8, 0, 0),
		ev(b, 1, C, 12, 0, 0), ev(b, 1, A, 14, 1, 0),
		t0(b, A, 55), t0(e, A, 60), t0(e, A, 70),
		ev(e, 1, A, 30, 9, stream.Synthetic), ev(e, 1, C, 30, 9, stream.Synthetic),
	}
}

// Exclusive times per stack (wall / cpu):
//
//	t0: A 25/50, A;B 20/40, A;B;A 10/20, A;B;A;C 10/20, A;A 5/10 = 70/140
//	t1: B(orphan) 8/0, C 2/1, C;A 16/8                           = 26/9
func TestTopByHand(t *testing.T) {
	p := feed(t, []string{"A", "B", "C"}, 2, recursionEvents())
	r, err := p.Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	if got, want := fmt.Sprint(tb.Total), "[96 149]"; got != want {
		t.Errorf("total = %s, want %s", got, want)
	}
	// A: excl 25+10+5+16, incl every t0 stack + C;A; calls 3+1, two of
	// them recursive (A;B;A and A;A). B: incl A;B and above. C: incl
	// A;B;A;C + C + C;A.
	want := []string{
		"A excl=[56 88] incl=[86 148] calls=4 rec=2 mean=[14 22]",
		"B excl=[28 40] incl=[48 80] calls=2 rec=0 mean=[14 20]",
		"C excl=[12 21] incl=[28 29] calls=2 rec=0 mean=[6 10]",
	}
	checkRows(t, tb.Rows, want)
	if got := fmt.Sprintf("%.4f %.4f", tb.Rows[0].ExclPct[0], tb.Rows[0].InclPct[1]); got != "58.3333 99.3289" {
		t.Errorf("A's percentages = %s, want 58.3333 99.3289 (56/96, 148/149)", got)
	}
}

func checkRows(t *testing.T, rows []TopRow, want []string) {
	t.Helper()
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s excl=%v incl=%v calls=%d rec=%d mean=%v", r.Method, r.Excl, r.Incl, r.Calls, r.Recursive, r.MeanExcl))
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("rows:\n%s\nwant:\n%s", g, w)
	}
}

func TestTopPerThreadByHand(t *testing.T) {
	p := feed(t, []string{"A", "B", "C"}, 2, recursionEvents())
	r, err := p.Top(TopOptions{PerThread: true, Sort: SortName})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 2 || r.Tables[0].Thread.TID != 100 || r.Tables[1].Thread.TID != 101 {
		t.Fatalf("tables %+v, want thread 100 (busiest) then 101", r.Tables)
	}
	checkRows(t, r.Tables[0].Rows, []string{
		"A excl=[40 80] incl=[70 140] calls=3 rec=2 mean=[13 26]",
		"B excl=[20 40] incl=[40 80] calls=1 rec=0 mean=[20 40]",
		"C excl=[10 20] incl=[10 20] calls=1 rec=0 mean=[10 20]",
	})
	checkRows(t, r.Tables[1].Rows, []string{
		"A excl=[16 8] incl=[16 8] calls=1 rec=0 mean=[16 8]",
		"B excl=[8 0] incl=[8 0] calls=1 rec=0 mean=[8 0]",
		"C excl=[2 1] incl=[18 9] calls=1 rec=0 mean=[2 1]",
	})
}

// TestTopPerThreadManyThreads: one table per thread costs what the thread
// has, not a row of every method: 400 threads each calling its own one of
// 400 methods once allocated 400 × 400 method stats before.
func TestTopPerThreadManyThreads(t *testing.T) {
	const n = 400
	frames := make([]string, n)
	var evs []stream.Event
	for i := range n {
		frames[i] = fmt.Sprint("m", i)
		evs = append(evs, ev(stream.Begin, i, i, 0, 0, 0), ev(stream.End, i, i, int64(i+1), 0, 0))
	}
	p := feed(t, frames, n, evs)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := p.Top(TopOptions{PerThread: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != n || r.Tables[0].Thread.TID != 100+n-1 || len(r.Tables[0].Rows) != 1 || r.Tables[0].Rows[0].Method != frames[n-1] {
		t.Fatalf("%d tables, the first %+v; want %d of one row each, the busiest thread first", len(r.Tables), r.Tables[0], n)
	}
	if bytes := after.TotalAlloc - before.TotalAlloc; bytes > 2<<20 {
		t.Errorf("top --per-thread of %d threads × %d methods allocated %d bytes, want under 2 MiB", n, n, bytes)
	}
}

// Parents of a method take the outermost occurrence, children the
// innermost; both add up to the inclusive time.
//
//	A (incl 86/148): parents: top level 70+16 (t0 A, t1 C;A is under C!)
//	  → top level 70/140 (1 call), C 16/8 (1), A 0 (1, A;A), B 0 (1, A;B;A)
//	  children: B 20/40 (A;B; A;B;A… go to the inner A), C 10/20 (A;B;A;C),
//	  A 0 (1 call); self 56/88
//	C (incl 28/29): parents: A 10/20 (1), top level 18/9 (1);
//	  children: A 16/8 (1); self 12/21
func TestCallsByHand(t *testing.T) {
	p := feed(t, []string{"A", "B", "C"}, 2, recursionEvents())
	r := p.Calls(CallsOptions{Pattern: regexp.MustCompile("^[AC]$")})
	var b strings.Builder
	for _, m := range r.Methods {
		fmt.Fprintf(&b, "%s incl=%v self=%v\n", m.Method, m.Incl, m.Self)
		for _, x := range m.Parents {
			fmt.Fprintf(&b, "  parent %s %v calls=%d\n", x.Method, x.Time, x.Calls)
		}
		for _, x := range m.Children {
			fmt.Fprintf(&b, "  child %s %v calls=%d\n", x.Method, x.Time, x.Calls)
		}
	}
	want := `A incl=[86 148] self=[56 88]
  parent (top level) [70 140] calls=1
  parent C [16 8] calls=1
  parent A [0 0] calls=1
  parent B [0 0] calls=1
  child B [20 40] calls=1
  child C [10 20] calls=1
  child A [0 0] calls=1
C incl=[28 29] self=[12 21]
  parent (top level) [18 9] calls=1
  parent A [10 20] calls=1
  child A [16 8] calls=1
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	checkSharesAddUp(t, r)
}

// checkSharesAddUp checks the invariant of doc.go on every method.
func checkSharesAddUp(t *testing.T, r *CallsReport) {
	t.Helper()
	for _, m := range r.Methods {
		for c := range r.Clocks {
			parents, children := int64(0), m.Self[c]
			for _, x := range m.Parents {
				parents += x.Time[c]
			}
			for _, x := range m.Children {
				children += x.Time[c]
			}
			if parents != m.Incl[c] || children != m.Incl[c] {
				t.Errorf("%s clock %d: parents %d, self+children %d, inclusive %d", m.Method, c, parents, children, m.Incl[c])
			}
		}
	}
}

func TestNoClock(t *testing.T) {
	a := stacks.New()
	tr := &stream.Trace{}
	a.Begin(tr)
	a.Finish(tr)
	if _, err := NewProfile(a.Tree()); err != ErrNoClock {
		t.Errorf("err = %v, want ErrNoClock", err)
	}
	if _, err := NewProfile(stacks.New().Tree()); err == nil {
		t.Error("no error for a tree builder that saw no trace")
	}
}

// TestUse: a value shows one clock of the profile, or off-CPU time first;
// the numbers are those of that clock in the profile of every clock
// (TestTopByHand: wall then thread CPU).
func TestUse(t *testing.T) {
	for _, c := range []struct {
		v      stream.Value
		clocks string
		total  string
		a      string
	}{
		{stream.ValueAuto, "[wall cpu]", "[96 149]", "A excl=[56 88] incl=[86 148] calls=4 rec=2 mean=[14 22]"},
		{stream.ValueWall, "[wall]", "[96]", "A excl=[56] incl=[86] calls=4 rec=2 mean=[14]"},
		{stream.ValueCPU, "[cpu]", "[149]", "A excl=[88] incl=[148] calls=4 rec=2 mean=[22]"},
	} {
		p := feed(t, []string{"A", "B", "C"}, 2, recursionEvents())
		if err := p.Use(c.v); err != nil {
			t.Fatalf("%v: %v", c.v, err)
		}
		r, err := p.Top(TopOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tb := r.Tables[0]
		if got := fmt.Sprint(p.Clocks); got != c.clocks || fmt.Sprint(tb.Total) != c.total {
			t.Errorf("%v: clocks %s total %v, want %s %s", c.v, got, tb.Total, c.clocks, c.total)
		}
		checkRows(t, tb.Rows[:1], []string{c.a})
	}
	p := feed(t, []string{"A", "B", "C"}, 2, recursionEvents())
	if err := p.Use(stream.ValueOffCPU); err != nil || fmt.Sprint(p.Clocks) != "[offcpu wall]" {
		t.Errorf("offcpu: clocks %v, err %v", p.Clocks, err)
	}
	if err := p.Use(stream.ValueCPU); err == nil {
		t.Error("cpu after offcpu: the profile shows no thread-CPU clock any more, want an error")
	}
}
