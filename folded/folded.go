// Package folded writes Brendan Gregg's folded ("collapsed") stacks: one
// line per distinct call stack,
//
//	main (tid 4821);android.os.Looper.loop;android.os.Handler.dispatchMessage 1234
//
// frames separated by semicolons, outermost first, then a space and the
// stack's exclusive time in whole microseconds. It is the input of
// flamegraph.pl, inferno-flamegraph and speedscope, and what AFlame
// produced for Android traces.
//
// The numbers come from package stacks: time between two events of a
// thread belongs to the stack open between them, so no time is counted
// twice, recursion included, and the lines of a thread add up to its time
// inside methods. The clock is wall time when the trace has it, else
// thread CPU time (the same rule as the speedscope timeline).
//
// Format details, chosen for the consumers above:
//
//   - The first frame is the thread, "<name> (tid <id>)", unless
//     Options.NoThread drops it, which merges equal stacks of all threads.
//   - Frames are "<class>.<method>"; overloads, and frames the converter
//     began for methods running before tracing started, merge with the
//     ordinary calls of the same name on the same stack.
//   - A ";" inside a name would split a frame, and a line break would split
//     a line, so they become ":" and a space.
//   - Each stack's time is summed in nanoseconds and rounded to the nearest
//     microsecond once; a stack that rounds to 0 is left out, since it
//     adds nothing to a flame graph.
//   - Lines are sorted, so the output is deterministic.
//
// Memory grows with the number of distinct stacks, not with the number of
// records.
//
// [WriteSampled] writes sampled profiles (hprof text, ART profile files)
// the same way, with sample counts as values (samples.go).
package folded

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/stacks"
)

// Options change the lines written.
type Options struct {
	// NoThread leaves out the thread frame at the root of every stack.
	NoThread bool
}

// Exporter is a stream.Exporter that aggregates the stream and writes the
// folded stacks at Finish.
type Exporter struct {
	w   io.Writer
	opt Options
	agg *stacks.Aggregator
}

var _ stream.Exporter = (*Exporter)(nil)

// New returns an exporter that writes to w.
func New(w io.Writer, opt Options) *Exporter {
	return &Exporter{w: w, opt: opt, agg: stacks.New()}
}

// Begin starts the call tree.
func (e *Exporter) Begin(t *stream.Trace) error { return e.agg.Begin(t) }

// Events adds a batch of events to the call tree.
func (e *Exporter) Events(evs []stream.Event) error { return e.agg.Events(evs) }

// Finish writes the lines.
func (e *Exporter) Finish() error {
	if err := e.agg.Finish(); err != nil {
		return err
	}
	return Write(e.w, e.agg, e.opt)
}

// ThreadFrame is the root frame of a thread's stacks: "main (tid 4821)".
func ThreadFrame(th *stream.Thread) string {
	return clean(fmt.Sprintf("%s (tid %d)", th.Name, th.ID))
}

// Lines returns the folded stacks of a call tree and their exclusive
// nanoseconds on the trace's main clock (wall if present, else thread CPU),
// unsorted and before rounding.
func Lines(a *stacks.Aggregator, opt Options) map[string]int64 {
	t := a.Trace()
	cpu := !t.HasWall && t.HasCPU
	names := make([]string, len(t.Frames))
	for i := range t.Frames {
		names[i] = clean(t.Frames[i].Name)
	}
	roots := make([]string, len(t.Threads))
	for i := range t.Threads {
		roots[i] = ThreadFrame(&t.Threads[i])
	}
	sums := make(map[string]int64)
	var buf []byte
	var ids []stream.FrameID
	for i, n := range a.Nodes() {
		v := n.Wall
		if cpu {
			v = n.CPU
		}
		if n.IsRoot() || v == 0 {
			continue
		}
		ids = a.Stack(stacks.NodeID(i), ids[:0])
		buf = buf[:0]
		if !opt.NoThread {
			buf = append(buf, roots[n.Thread]...)
		}
		buf = appendFrames(buf, ids, names)
		sums[string(buf)] += v
	}
	return sums
}

// appendFrames appends the frames' names to a line, ';' before each one
// that does not start the line.
func appendFrames(buf []byte, ids []stream.FrameID, names []string) []byte {
	for _, f := range ids {
		if len(buf) > 0 {
			buf = append(buf, ';')
		}
		buf = append(buf, names[f]...)
	}
	return buf
}

// Write writes the folded stacks of a call tree, sorted.
func Write(w io.Writer, a *stacks.Aggregator, opt Options) error {
	if a.Trace() == nil {
		return fmt.Errorf("folded: the call tree has no trace")
	}
	return newLineTree(a, opt).write(w, Micros)
}

// writeSorted writes "line value" rows sorted by line, dropping rows whose
// value rounds to 0, in 64 KiB writes.
func writeSorted(w io.Writer, sums map[string]int64, value func(int64) int64) error {
	keys := make([]string, 0, len(sums))
	for k, v := range sums {
		if value(v) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var buf []byte
	for _, k := range keys {
		buf = append(buf, k...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, value(sums[k]), 10)
		buf = append(buf, '\n')
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("folded: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("folded: %w", err)
	}
	return nil
}

// Micros rounds nanoseconds to the nearest microsecond.
func Micros(ns int64) int64 { return (ns + 500) / 1000 }

// clean replaces the characters that would break the line format.
func clean(s string) string {
	if !strings.ContainsAny(s, ";\n\r") {
		return s
	}
	return strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(s)
}
