package samples_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
	"github.com/atrace2/atrace2/stacks"
)

// Frames of the fixtures, leaf first as hprof prints them.
var (
	appMain   = samplegen.Frame{Class: "com.example.App", Method: "main", File: "App.java", Line: 5}
	parse20   = samplegen.Frame{Class: "com.example.App", Method: "parse", File: "App.java", Line: 20}
	parse21   = samplegen.Frame{Class: "com.example.App", Method: "parse", File: "App.java", Line: 21}
	parse30   = samplegen.Frame{Class: "com.example.App", Method: "parse", File: "App.java", Line: 30}
	parseLong = samplegen.Frame{Class: "java.lang.Long", Method: "parseLong", File: "Long.java", Line: 10}
	run7      = samplegen.Frame{Class: "com.example.Worker", Method: "run", File: "Worker.java", Line: 7}
	run8      = samplegen.Frame{Class: "com.example.Worker", Method: "run", File: "Worker.java", Line: 8}
)

// fixture is two threads, a recursive stack, and the same method at two
// lines; TimeMs adds up to 100 so that cpu=times percentages are exact.
func fixture() *samplegen.Hprof {
	f := func(fs ...samplegen.Frame) []samplegen.Frame { return fs }
	return &samplegen.Hprof{
		Date: "Sun Jan 13 05:57:25 2013",
		Threads: []samplegen.Thread{
			{ID: 1, Obj: 100, Name: "main", Group: "main"},
			{ID: 2, Obj: 101, Name: "worker", Group: "main", End: true},
		},
		Traces: []samplegen.Trace{
			{ID: 300001, Thread: 1, Count: 5, TimeMs: 40, Frames: f(parseLong, parse20, appMain)},
			{ID: 300002, Thread: 1, Count: 3, TimeMs: 25, Frames: f(parse21, appMain)},
			{ID: 300003, Thread: 2, Count: 2, TimeMs: 20, Frames: f(run7)},
			{ID: 300004, Thread: 2, Count: 1, TimeMs: 5, Frames: f(parse20, run8)},
			{ID: 300005, Thread: 1, Count: 2, TimeMs: 10, Frames: f(parse30, parse20, appMain)},
		},
	}
}

func readTree(t *testing.T, text []byte) *stacks.Tree {
	t.Helper()
	p, err := samples.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Tree("x.hprof")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dumpSampled renders every node with a value as
// "thread:A:line;B:line samples calls cpu [cut]".
func dumpTree(s *stacks.Tree) string {
	t := s.Trace()
	var b strings.Builder
	for i, n := range s.Nodes() {
		id := stacks.NodeID(i)
		if n.IsRoot() || (s.Samples(id) == 0 && n.Calls == 0) {
			continue
		}
		var names []string
		for _, f := range s.Stack(id, nil) {
			fr := t.Frames[f]
			names = append(names, fmt.Sprintf("%s:%d", fr.Method, fr.Line))
		}
		fmt.Fprintf(&b, "%s:%s %d %d %d", t.Threads[n.Thread].Name, strings.Join(names, ";"), s.Samples(id), n.Calls, n.Wall)
		if s.Cut(id) {
			b.WriteString(" cut")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestTreeDalvik(t *testing.T) {
	s := readTree(t, fixture().Dalvik())
	// Node order follows the file's rows, sorted by count (5, 3, 2, 2, 1).
	want := `main:main:5;parse:20;parseLong:10 5 0 0 cut
main:main:5;parse:21 3 0 0
worker:run:7 2 0 0
main:main:5;parse:20;parse:30 2 0 0 cut
worker:run:8;parse:20 1 0 0
`
	if got := dumpTree(s); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if v := s.Values(); v.Kind != stacks.Counted || !v.RunningLines || !v.Serials || s.Weight(4) != 5 {
		t.Errorf("values %+v, weight of the first leaf %d", v, s.Weight(4))
	}
	src := s.Source()
	if src.Stacks != 5 || src.Count != 13 || src.CutStacks != 2 || src.MaxDepth != 3 || !src.DepthLimited ||
		len(src.Threads) != 2 || src.Threads[0].Count != 10 || src.Threads[1].Stacks != 2 {
		t.Errorf("source %+v", src)
	}
	tr := s.Trace()
	if len(tr.Threads) != 2 || tr.Threads[0].ID != 1 || tr.Threads[1].Name != "worker" || tr.Threads[0].MaxDepth != 3 || tr.Threads[1].MaxDepth != 2 {
		t.Errorf("threads %+v", tr.Threads)
	}
	if _, ok := s.UnknownThread(); ok {
		t.Error("every stack has a thread, yet there is an unknown thread")
	}
	if f := tr.Frames[2]; f.Name != "java.lang.Long.parseLong" || f.File != "java/lang/Long.java" || f.Line != 10 || !f.HasLine || f.Method != "parseLong" {
		t.Errorf("frame 2 = %+v", f)
	}
}

func TestTreeTimed(t *testing.T) {
	s := readTree(t, fixture().JVM(samplegen.JVMOptions{Times: true}))
	// Rows sorted by time: 40, 25, 20, 10, 5 ms.
	want := `main:main:5;parse:20;parseLong:10 0 5 40000000 cut
main:main:5;parse:21 0 3 25000000
worker:run:7 0 2 20000000
main:main:5;parse:20;parse:30 0 2 10000000 cut
worker:run:8;parse:20 0 1 5000000
`
	if got := dumpTree(s); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// cpu=times is elapsed time (hprof reads the time of day): wall, not CPU.
	if s.Values().Kind != stacks.Timed || !s.Trace().HasWall || s.Trace().HasCPU || s.Weight(4) != 40000000 {
		t.Errorf("kind %v, HasWall %v, HasCPU %v, weight %d", s.Values().Kind, s.Trace().HasWall, s.Trace().HasCPU, s.Weight(4))
	}
	if src := s.Source(); src.Count != 13 || src.TimeNanos != 100_000_000 {
		t.Errorf("source counts %d calls and %d ns", src.Count, src.TimeNanos)
	}
	for i, n := range s.Nodes() {
		if n.CPU != 0 {
			t.Errorf("node %d has CPU time %d", i, n.CPU)
		}
	}
}

// TestTreeNoThreadEmptyStack: JVM hprof without thread=y, and a
// trace with no frames, which gets the EmptyStackName frame.
func TestTreeNoThreadEmptyStack(t *testing.T) {
	h := &samplegen.Hprof{Date: "Sun Jan 13 05:57:25 2013", Traces: []samplegen.Trace{
		{ID: 300001, Count: 4, Frames: []samplegen.Frame{parse20, appMain}},
		{ID: 300002, Count: 3},
		{ID: 300003, Count: 1, Frames: []samplegen.Frame{appMain}},
	}}
	s := readTree(t, h.JVM(samplegen.JVMOptions{}))
	// main:5 is created first, as the prefix of the first stack.
	want := `(thread not recorded):main:5 1 0 0
(thread not recorded):main:5;parse:20 4 0 0 cut
(thread not recorded):(no Java frames):0 3 0 0
`
	if got := dumpTree(s); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if u, ok := s.UnknownThread(); !ok || u != 0 || len(s.Trace().Threads) != 1 || s.Trace().Threads[0].Name != stacks.UnknownThreadName {
		t.Errorf("UnknownThread = %d, %v; threads %+v", u, ok, s.Trace().Threads)
	}
	if th := s.Source().Threads; len(th) != 1 || th[0].Listed || th[0].Stacks != 3 || th[0].Count != 8 {
		t.Errorf("source threads %+v", th)
	}
	if f := s.Trace().Frames[2]; f.Name != samples.EmptyStackName || f.Listed {
		t.Errorf("the empty stack's frame is %+v", f)
	}
}

// TestTreeART: method mode has one frame per stack and no depth
// limit; the signature comes from the PrettyMethod text.
func TestTreeART(t *testing.T) {
	a := &samplegen.ART{Samples: 9, Null: 1, Methods: []samplegen.Method{
		{MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "parse", Params: []string{"Ljava/lang/String;"}, Return: "I"}, Count: 6, Size: 20},
		{MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "main", Params: []string{"[Ljava/lang/String;"}, Return: "V"}, Count: 3, Size: 40},
	}}
	s := readTree(t, a.Text())
	want := `(thread not recorded):parse:0 6 0 0
(thread not recorded):main:0 3 0 0
`
	if got := dumpTree(s); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if f := s.Trace().Frames[0]; f.Signature != "(Ljava/lang/String;)I" || f.Name != "com.example.App.parse" {
		t.Errorf("frame 0 = %+v", f)
	}
}

func TestTreeRejectsBadProfile(t *testing.T) {
	p := &samples.Profile{Samples: []samples.Sample{{Thread: 3, Stack: []int{0}, Count: 1}}}
	if _, err := p.Tree("bad"); err == nil || !strings.Contains(err.Error(), "thread index 3 out of range") {
		t.Errorf("err = %v", err)
	}
}
