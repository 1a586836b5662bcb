package samplegen

import (
	"testing"
)

// The expected texts below were written by hand from the writers' code
// (Java's "% 5d" puts a space before a 6-digit trace id even after the
// literal space, hence two spaces in the Dalvik rows):
// AsciiHprofWriter.write and HprofData.ThreadEvent.toString (Dalvik),
// io_write_trace_header / io_write_trace_elem / io_write_cpu_samples_*
// (hprof_io.c), ProfileSampleResults::Write (ART).

func example() *Hprof {
	return &Hprof{
		Date: "Wed Jul 21 12:03:46 2010",
		Threads: []Thread{
			{ID: 200001, Obj: 26, Name: "main", Group: "main"},
			{ID: 200002, Obj: 255, Name: "worker", Group: "system", End: true},
		},
		Traces: []Trace{
			{ID: 300001, Thread: 200002, Count: 1, TimeMs: 250, Frames: []Frame{
				{Class: "java.lang.Object", Method: "wait", File: "Object.java", Line: -1, Native: true},
			}},
			{ID: 300002, Thread: 200001, Count: 3, TimeMs: 750, Phase: "live", Frames: []Frame{
				{Class: "a.B", Method: "c", File: "B.java", Line: 12},
				{Class: "a.B", Method: "main", File: "B.java", Line: -1},
				{Class: "a.B", Method: "<clinit>", Line: -1, Compiled: true},
			}},
			{ID: 300003, Count: 0},
		},
	}
}

func TestDalvik(t *testing.T) {
	h := example()
	h.Traces = h.Traces[:2]
	want := `THREAD START (obj=26, id = 200001, name="main", group="main")
THREAD START (obj=255, id = 200002, name="worker", group="system")
THREAD END (id = 200002)
TRACE 300002: (thread=200001)
	a.B.c(B.java:12)
	a.B.main(B.java)
	a.B.<clinit>(Unknown Source)
TRACE 300001: (thread=200002)
	java.lang.Object.wait(Native Method)
CPU SAMPLES BEGIN (total = 4) Wed Jul 21 12:03:46 2010
rank   self  accum   count trace method
   1 75.00% 75.00%       3  300002 a.B.c
   2 25.00% 100.00%       1  300001 java.lang.Object.wait
CPU SAMPLES END
`
	if got := string(h.Dalvik()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

const jvmHeader = "JAVA PROFILE 1.0.1, created Wed Jul 21 12:03:46 2010\n" + jvmPrelude + "\n--------\n\n" +
	"THREAD START (obj=1a, id = 200001, name=\"main\", group=\"main\")\n" +
	"THREAD START (obj=ff, id = 200002, name=\"worker\", group=\"system\")\n" +
	"THREAD END (id = 200002)\n"

func TestJVMSamples(t *testing.T) {
	h := example()
	h.Traces[1].Count = 5
	want := jvmHeader + `TRACE 300002: (thread=200001) (from live phase of JVM)
	a.B.c(B.java:12)
	a.B.main(B.java:Unknown line)
	a.B.<clinit>(<Unknown Source>:Compiled method)
TRACE 300003:
	<empty>
CPU SAMPLES BEGIN (total = 2) Wed Jul 21 12:03:46 2010
rank   self  accum   count trace method
   1 100.00% 100.00%       2 300002 a.B.c
CPU SAMPLES END
TRACE 300001: (thread=200002)
	java.lang.Object.wait(Object.java:Native method)
CPU SAMPLES BEGIN (total = 4) Wed Jul 21 12:03:46 2010
rank   self  accum   count trace method
   1 75.00% 75.00%       3 300002 a.B.c
CPU SAMPLES END
`
	// Dump 1 of 2 gets 5*1/2 = 2 of trace 300002 and 1*1/2 = 0 of 300001,
	// so 300001 is printed before dump 2 only (hprof prints the traces a
	// dump refers to, once); dump 2 gets 3 and 1, and the cutoff of 2
	// leaves 300001's 1 out of the rows but in the total.
	if got := string(h.JVM(JVMOptions{Dumps: 2, Cutoff: 2})); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestJVMTimes(t *testing.T) {
	h := example()
	h.Threads = nil
	h.Traces = h.Traces[1:2]
	h.Traces[0].Thread = 0
	h.Traces[0].Phase = ""
	want := "JAVA PROFILE 1.0.1, created Wed Jul 21 12:03:46 2010\n" + jvmPrelude + "\n--------\n\n" + `TRACE 300002:
	a.B.c(B.java:12)
	a.B.main(B.java:Unknown line)
	a.B.<clinit>(<Unknown Source>:Compiled method)
CPU TIME (ms) BEGIN (total = 750) Wed Jul 21 12:03:46 2010
rank   self  accum   count trace method
   1 100.00% 100.00%       3 300002 a.B.c
CPU TIME (ms) END
`
	if got := string(h.JVM(JVMOptions{Times: true})); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestART(t *testing.T) {
	run := MethodRef{Class: "com.foo.Main", Name: "run", Return: "V"}
	main := MethodRef{Class: "com.foo.Main", Name: "main", Params: []string{"[Ljava/lang/String;"}, Return: "V"}
	a := &ART{Samples: 7, Null: 1, Boot: 2, Methods: []Method{
		{MethodRef: MethodRef{Class: "com.foo.Bar", Name: "baz", Params: []string{"I", "[[J"}, Return: "Ljava/lang/String;"}, Count: 6, Size: 20,
			Chains: []Chain{{PC: 3, Count: 4, Callers: []Caller{{run, 17}, {main, 2}}}, {PC: 5, Count: 2}}},
		{MethodRef: run, Count: 1, Size: 9},
	}}
	if got, want := string(a.Text()), `7/1/2
java.lang.String com.foo.Bar.baz(int, long[][])/6/20
void com.foo.Main.run()/1/9
`; got != want {
		t.Errorf("method mode, got:\n%s\nwant:\n%s", got, want)
	}
	a.Bounded = true
	if got, want := string(a.Text()), `7/1/2
java.lang.String com.foo.Bar.baz(int, long[][])/6/20/[3:4:void com.foo.Main.run()@17@void com.foo.Main.main(java.lang.String[])@2#5:2:]
void com.foo.Main.run()/1/9/[]
`; got != want {
		t.Errorf("bounded-stack mode, got:\n%s\nwant:\n%s", got, want)
	}
	if got := main.Signature(); got != "([Ljava/lang/String;)V" {
		t.Errorf("Signature() = %q", got)
	}
}
