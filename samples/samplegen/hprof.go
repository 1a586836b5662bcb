// Package samplegen writes the sampled-profile text formats that package
// samples reads, from a plain description, so tests use generated fixtures:
//
//   - [Hprof.Dalvik]: Dalvik SamplingProfiler text, as libcore's
//     AsciiHprofWriter prints it;
//   - [Hprof.JVM]: classic JVM hprof text with a CPU SAMPLES or CPU TIME
//     section, as OpenJDK's hprof_io.c prints it, optionally with several
//     dumps and the sections a reader must skip;
//   - [ART.Text]: Android 5.x ART profile files in method and
//     bounded-stack mode, as runtime/profiler.cc prints them.
//
// [RandomHprof] and [RandomART] make random descriptions for round-trip
// tests. The package imports nothing from atrace2 on purpose: it is an
// independent implementation of the formats, used to check the reader.
package samplegen

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Frame is one stack frame as the profiler knew it.
type Frame struct {
	Class, Method string // dotted class name and method name
	File          string // source file; "" when unknown
	Line          int    // line number; negative when unknown
	Native        bool   // a native method
	Compiled      bool   // JVM: print "Compiled method" instead of "Unknown line" (Line < 0)
}

// Thread is a THREAD START line (and a THREAD END when End).
type Thread struct {
	ID, Obj     int64
	Name, Group string
	End         bool
}

// Trace is a TRACE record and its sample count.
type Trace struct {
	ID     int64
	Thread int64   // thread serial; 0 prints no "(thread=…)" (JVM only)
	Phase  string  // JVM: "(from <Phase> phase of JVM)" when not empty
	Frames []Frame // leaf first, as printed
	Count  int64   // samples, or calls for cpu=times
	TimeMs int64   // cpu=times: the trace's own CPU time in ms
}

// Hprof describes an hprof text file.
type Hprof struct {
	Threads []Thread
	Traces  []Trace
	Date    string // ctime-style date printed in headers, "Sun Jan 13 05:57:25 2013"
}

// Dalvik writes h the way AsciiHprofWriter.write does: the thread history,
// the traces sorted by count, then the CPU SAMPLES table in the same order.
func (h *Hprof) Dalvik() []byte {
	var b bytes.Buffer
	h.threadLines(&b, 10)
	traces := sortedByCount(h.Traces)
	var total int64
	for _, t := range traces {
		total += t.Count
		fmt.Fprintf(&b, "TRACE %d: (thread=%d)\n", t.ID, t.Thread)
		for _, f := range t.Frames {
			fmt.Fprintf(&b, "\t%s\n", stackTraceElement(f))
		}
	}
	fmt.Fprintf(&b, "CPU SAMPLES BEGIN (total = %d) %s\n", total, h.Date)
	b.WriteString("rank   self  accum   count trace method\n")
	var accum float64
	for i, t := range traces {
		self := float64(t.Count) / float64(total)
		accum += self
		f := t.Frames[0]
		fmt.Fprintf(&b, "% 4d% 6.2f%%% 6.2f%% % 7d % 5d %s.%s\n", i+1, self*100, accum*100, t.Count, t.ID, f.Class, f.Method)
	}
	b.WriteString("CPU SAMPLES END\n")
	return b.Bytes()
}

// threadLines prints THREAD START lines, each END right after its START;
// obj= is printed in the given base (10 for Dalvik, 16 for the JVM).
func (h *Hprof) threadLines(b *bytes.Buffer, base int) {
	for _, t := range h.Threads {
		fmt.Fprintf(b, "THREAD START (obj=%s, id = %d, name=\"%s\", group=\"%s\")\n", strconv.FormatInt(t.Obj, base), t.ID, t.Name, t.Group)
		if t.End {
			fmt.Fprintf(b, "THREAD END (id = %d)\n", t.ID)
		}
	}
}

// stackTraceElement is java.lang.StackTraceElement.toString.
func stackTraceElement(f Frame) string {
	switch {
	case f.Native:
		return f.Class + "." + f.Method + "(Native Method)"
	case f.File == "":
		return f.Class + "." + f.Method + "(Unknown Source)"
	case f.Line < 0:
		return fmt.Sprintf("%s.%s(%s)", f.Class, f.Method, f.File)
	}
	return fmt.Sprintf("%s.%s(%s:%d)", f.Class, f.Method, f.File, f.Line)
}

// sortedByCount orders traces by decreasing count, keeping the order of
// equal counts (Collections.sort is stable).
func sortedByCount(ts []Trace) []Trace {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b Trace) int { return cmp.Compare(b.Count, a.Count) })
	return out
}
