package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
)

func loadSampled(t *testing.T, name string, text []byte) *Profile {
	t.Helper()
	sp, err := samples.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sp.Tree(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProfile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// topRows renders rows as "method excl/incl calls/recursive mean".
func topRows(rows []TopRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s %d/%d %d/%d %d\n", r.Method, r.Excl[0], r.Incl[0], r.Calls, r.Recursive, r.MeanExcl[0])
	}
	return b.String()
}

func TestSampledTop(t *testing.T) {
	p := loadSampled(t, "app.hprof", samplegen.Fixture().Dalvik())
	r, err := p.Top(TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	want := `com.example.App.parse 6/11 0/0 0
java.lang.Long.parseLong 5/5 0/0 0
com.example.Worker.run 2/3 0/0 0
com.example.App.main 0/10 0/0 0
`
	if got := topRows(tb.Rows); got != want || tb.Total[0] != 13 || tb.Threads != 2 || !r.CallsUnknown ||
		fmt.Sprint(r.Clocks) != "[samples]" {
		t.Errorf("rows:\n%s\nwant:\n%s\ntotal %v threads %d calls unknown %v clocks %v", got, want, tb.Total, tb.Threads, r.CallsUnknown, r.Clocks)
	}
	if tb.Rows[0].InclPct[0] != 100*11.0/13 {
		t.Errorf("App.parse inclusive %% = %v, want 11/13", tb.Rows[0].InclPct[0])
	}
	wantNote := "2 stacks of 5 reach the profiler's depth limit (3 frames) and may miss outer frames: inclusive values of outer methods are lower bounds"
	if len(r.Notes) != 1 || r.Notes[0] != wantNote {
		t.Errorf("notes %q", r.Notes)
	}
	if _, err := p.Top(TopOptions{Sort: SortCalls}); !errors.Is(err, ErrNoCalls) {
		t.Errorf("sorting samples by calls: %v", err)
	}
	writeAll(t, "sampled-top", r)
}

func TestSampledTopPerThread(t *testing.T) {
	r, err := loadSampled(t, "app.hprof", samplegen.Fixture().Dalvik()).Top(TopOptions{PerThread: true})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, tb := range r.Tables {
		fmt.Fprintf(&got, "%s/%d %d\n%s", tb.Thread.Name, tb.Thread.TID, tb.Total[0], topRows(tb.Rows))
	}
	want := `main/1 10
com.example.App.parse 5/10 0/0 0
java.lang.Long.parseLong 5/5 0/0 0
com.example.App.main 0/10 0/0 0
worker/2 3
com.example.Worker.run 2/3 0/0 0
com.example.App.parse 1/1 0/0 0
`
	if got.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
}

// TestSampledTimed: cpu=times reads like a thread-CPU trace: calls are
// known, and only the stacks ending in a method count its calls.
func TestSampledTimed(t *testing.T) {
	p := loadSampled(t, "times.hprof", samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true}))
	r, err := p.Top(TopOptions{Sort: SortCalls})
	if err != nil {
		t.Fatal(err)
	}
	want := `com.example.App.parse 40000000/80000000 6/2 6666666
java.lang.Long.parseLong 40000000/40000000 5/0 8000000
com.example.Worker.run 20000000/25000000 2/0 10000000
com.example.App.main 0/75000000 0/0 0
`
	if got := topRows(r.Tables[0].Rows); got != want || r.CallsUnknown || fmt.Sprint(r.Clocks) != "[wall]" || r.Tables[0].Total[0] != 100e6 {
		t.Errorf("rows:\n%s\nwant:\n%s\nclocks %v total %v", got, want, r.Clocks, r.Tables[0].Total)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, TextOptions{}); err != nil || !strings.Contains(b.String(), "total wall 100 ms") || !strings.Contains(b.String(), "CALLS") {
		t.Errorf("text (%v):\n%s", err, b.String())
	}
}

// TestSampledCalls: parents and children split App.parse's 11 samples;
// the recursive edge App.parse → App.parse carries none, as it carries no
// time in a method trace.
func TestSampledCalls(t *testing.T) {
	p := loadSampled(t, "app.hprof", samplegen.Fixture().Dalvik())
	r := p.Calls(CallsOptions{Pattern: regexp.MustCompile(`App\.parse$`)})
	if r.Matched != 1 || !r.CallsUnknown {
		t.Fatalf("matched %d, calls unknown %v", r.Matched, r.CallsUnknown)
	}
	m := r.Methods[0]
	var got strings.Builder
	fmt.Fprintf(&got, "incl %d self %d\n", m.Incl[0], m.Self[0])
	for _, x := range m.Parents {
		fmt.Fprintf(&got, "parent %s %d\n", x.Method, x.Time[0])
	}
	for _, x := range m.Children {
		fmt.Fprintf(&got, "child %s %d\n", x.Method, x.Time[0])
	}
	want := `incl 11 self 6
parent com.example.App.main 10
parent com.example.Worker.run 1
parent com.example.App.parse 0
child java.lang.Long.parseLong 5
child com.example.App.parse 0
`
	if got.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
	writeAll(t, "sampled-calls", r)
}

// TestSampledDiff: parseLong gets 3 more samples; its callers' inclusive
// counts grow by as many.
func TestSampledDiff(t *testing.T) {
	old := loadSampled(t, "old.hprof", samplegen.Fixture().Dalvik())
	h := samplegen.Fixture()
	h.Traces[0].Count = 8
	cur := loadSampled(t, "new.hprof", h.Dalvik())
	r, err := Diff(old, cur, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, row := range r.Rows {
		fmt.Fprintf(&got, "%s excl %+.0f incl %+.0f\n", row.Method, row.Excl[0].Delta, row.Incl[0].Delta)
	}
	want := `java.lang.Long.parseLong excl +3 incl +3
com.example.App.main excl +0 incl +3
com.example.App.parse excl +0 incl +3
com.example.Worker.run excl +0 incl +0
`
	if got.String() != want || r.Total[0].Old != 13 || r.Total[0].New != 16 || !r.CallsUnknown {
		t.Errorf("got:\n%s\nwant:\n%s\ntotal %+v", got.String(), want, r.Total[0])
	}
	writeAll(t, "sampled-diff", r)
	if _, err := Diff(old, cur, DiffOptions{Sort: SortCalls}); !errors.Is(err, ErrNoCalls) {
		t.Errorf("diff by calls: %v", err)
	}
	if _, err := Diff(old, cur, DiffOptions{Threshold: Threshold{Nanos: 1000}}); !errors.Is(err, ErrThresholdUnit) {
		t.Errorf("a threshold in time: %v", err)
	}
	// 10% of 13 samples is 1.3: only changes of 2 samples or more stay.
	r, err = Diff(old, cur, DiffOptions{Threshold: Threshold{Percent: 10}})
	if err != nil || len(r.Rows) != 3 || r.Hidden != 1 {
		t.Errorf("10%% threshold: %d rows, %d hidden, %v", len(r.Rows), r.Hidden, err)
	}
	trace := load(t, "wall.trace", "version 3\nclock wall\nthread 1 main\nmethod 0x4 A a ()V A.java\n1 enter 0x4 0 0\n1 exit 0x4 0 5\n")
	_, err = Diff(old, trace, DiffOptions{})
	if err == nil || err.Error() != "old.hprof has sample counts and wall.trace the wall clock: no clock in common to compare" {
		t.Errorf("diff with a method trace: %v", err)
	}
}

// TestSampledNoThread: a profile that records no thread says so.
func TestSampledNoThread(t *testing.T) {
	h := samplegen.Fixture()
	for i := range h.Traces {
		h.Traces[i].Thread = 0
	}
	r, err := loadSampled(t, "nothread.hprof", h.JVM(samplegen.JVMOptions{})).Top(TopOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "nothread.hprof: threads not recorded; total samples 13; top 1 of 4 methods by exclusive samples\n"
	if !strings.HasPrefix(b.String(), want) || r.Tables[0].Threads != 0 {
		t.Errorf("got:\n%s\nwant it to start with:\n%s", b.String(), want)
	}
}

// writeAll compares the text, CSV and JSON forms with golden files.
func writeAll(t *testing.T, name string, r interface {
	WriteText(io.Writer, TextOptions) error
	WriteCSV(io.Writer) error
	WriteJSON(io.Writer) error
}) {
	t.Helper()
	var txt, csv, js bytes.Buffer
	if err := errors.Join(r.WriteText(&txt, TextOptions{Width: 100}), r.WriteCSV(&csv), r.WriteJSON(&js)); err != nil {
		t.Fatal(err)
	}
	golden(t, name+".txt", txt.Bytes())
	golden(t, name+".csv", csv.Bytes())
	golden(t, name+".json", js.Bytes())
}
