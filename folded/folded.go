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
// thread CPU time (the same rule as the speedscope timeline), or, with
// Options.OffCPU on a trace with both clocks, the stack's off-CPU time:
// max(0, exclusive wall − exclusive thread CPU), clamped per stack.
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
//
// Fast path: [Write] folds the call tree into a tree of names (lineTree,
// tree.go) and writes it depth first, which yields the lines sorted
// without holding them. Reference path: lines builds every line as a
// string in a map and writeSorted sorts them; Write takes it when the
// build tag atrace2_reference is set. TestTreeOrder ties the two, byte for
// byte.
package folded

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Options change the lines written.
type Options struct {
	// NoThread leaves out the thread frame at the root of every stack.
	NoThread bool
	// OffCPU makes each stack's value its exclusive off-CPU time
	// (stacks.Node.OffCPU) instead of the main clock's; the trace must
	// have both clocks.
	OffCPU bool
}

// ErrNoOffCPU is returned for Options.OffCPU on a trace without both a wall
// and a thread-CPU clock.
var ErrNoOffCPU = errors.New("folded: off-CPU time needs a trace with both the wall and the thread-CPU clock")

// clock says which value of a node a line sums.
type clock uint8

const (
	wallClock   clock = iota // exclusive wall ns
	cpuClock                 // exclusive thread CPU ns
	offCPUClock              // exclusive off-CPU ns
)

// clockOf chooses the clock: off-CPU when asked, else the trace's main
// clock (wall if present, else thread CPU).
func clockOf(t *stream.Trace, opt Options) clock {
	switch {
	case opt.OffCPU:
		return offCPUClock
	case !t.HasWall && t.HasCPU:
		return cpuClock
	}
	return wallClock
}

// nodeValue is node n's exclusive time on clock c.
func nodeValue(n *stacks.Node, c clock) int64 {
	switch c {
	case cpuClock:
		return n.CPU
	case offCPUClock:
		return n.OffCPU()
	}
	return n.Wall
}

// threadFrame is the root frame of a thread's stacks: "main (tid 4821)".
func threadFrame(th *stream.Thread) string {
	return clean(fmt.Sprintf("%s (tid %d)", th.Name, th.ID))
}

// lines returns the folded stacks of a call tree and their exclusive
// nanoseconds on the trace's main clock (wall if present, else thread CPU),
// unsorted and before rounding: the reference path, which writeSorted
// writes (see the package doc).
func lines(tree *stacks.Tree, opt Options) map[string]int64 {
	t := tree.Trace()
	c := clockOf(t, opt)
	names := make([]string, len(t.Frames))
	for i := range t.Frames {
		names[i] = clean(t.Frames[i].Name)
	}
	roots := make([]string, len(t.Threads))
	for i := range t.Threads {
		roots[i] = threadFrame(&t.Threads[i])
	}
	sums := make(map[string]int64)
	var buf []byte
	var ids []stream.FrameID
	for i, n := range tree.Nodes() {
		v := nodeValue(&n, c)
		if n.IsRoot() || v == 0 {
			continue
		}
		ids = tree.Stack(stacks.NodeID(i), ids[:0])
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

// Write writes the folded stacks of a finished call tree, sorted.
func Write(w io.Writer, tree *stacks.Tree, opt Options) error {
	if tree == nil || tree.Trace() == nil {
		return fmt.Errorf("folded: the call tree has no trace")
	}
	if t := tree.Trace(); opt.OffCPU && !(t.HasWall && t.HasCPU) {
		return ErrNoOffCPU
	}
	if reference.Only {
		return writeSorted(w, lines(tree, opt), roundMicros)
	}
	return newLineTree(tree, opt).write(w, roundMicros)
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

// roundMicros rounds nanoseconds to the nearest microsecond.
func roundMicros(ns int64) int64 { return (ns + 500) / 1000 }

// clean replaces the characters that would break the line format.
func clean(s string) string {
	if !strings.ContainsAny(s, ";\n\r") {
		return s
	}
	return strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(s)
}
