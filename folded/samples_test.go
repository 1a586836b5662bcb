package folded

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
)

func foldSampled(t *testing.T, text []byte, opt Options) string {
	t.Helper()
	p, err := samples.Read(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Tree("x")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestSampled: counts per stack, root first; the call sites of a method
// (App.parse at lines 20 and 21) fold into one frame.
func TestSampled(t *testing.T) {
	got := foldSampled(t, samplegen.Fixture().Dalvik(), Options{})
	want := `main (thread 1);com.example.App.main;com.example.App.parse 3
main (thread 1);com.example.App.main;com.example.App.parse;com.example.App.parse 2
main (thread 1);com.example.App.main;com.example.App.parse;java.lang.Long.parseLong 5
worker (thread 2);com.example.Worker.run 2
worker (thread 2);com.example.Worker.run;com.example.App.parse 1
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	checkGolden(t, "sampled-dalvik.folded", got)
}

// TestSampledTimes: cpu=times weighs stacks by CPU µs, and without the
// thread frame equal stacks of all threads would add up.
func TestSampledTimes(t *testing.T) {
	got := foldSampled(t, samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true}), Options{NoThread: true})
	want := `com.example.App.main;com.example.App.parse 25000
com.example.App.main;com.example.App.parse;com.example.App.parse 10000
com.example.App.main;com.example.App.parse;java.lang.Long.parseLong 40000
com.example.Worker.run 20000
com.example.Worker.run;com.example.App.parse 5000
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestSampledNoThread: stacks without a thread get no thread frame, and
// an empty stack is the one frame stacks.EmptyStackName; with --no-thread
// equal stacks of two threads add up.
func TestSampledNoThread(t *testing.T) {
	main := samplegen.Frame{Class: "A", Method: "main", File: "A.java", Line: 1}
	h := &samplegen.Hprof{Date: "d", Threads: []samplegen.Thread{{ID: 1, Name: "t1"}, {ID: 2, Name: "t2"}}, Traces: []samplegen.Trace{
		{ID: 1, Count: 4, Frames: []samplegen.Frame{main}},
		{ID: 2, Count: 3},
		{ID: 3, Thread: 1, Count: 2, Frames: []samplegen.Frame{main}},
		{ID: 4, Thread: 2, Count: 1, Frames: []samplegen.Frame{main}},
	}}
	text := h.JVM(samplegen.JVMOptions{})
	want := "(no Java frames) 3\nA.main 4\nt1 (thread 1);A.main 2\nt2 (thread 2);A.main 1\n"
	if got := foldSampled(t, text, Options{}); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	want = "(no Java frames) 3\nA.main 7\n"
	if got := foldSampled(t, text, Options{NoThread: true}); got != want {
		t.Errorf("--no-thread: got:\n%s\nwant:\n%s", got, want)
	}
}
