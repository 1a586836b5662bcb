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
// inside methods. The value is the one Options.Value picks: by default
// wall time when the trace has it, else thread CPU time (the same rule as
// the speedscope timeline); or a clock; or, on a trace with both clocks,
// the stack's off-CPU time: max(0, exclusive wall − exclusive thread
// CPU), clamped per stack.
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
// The tree's value schema (stacks.Values) says what VALUE is. A Counted
// tree (a sampled profile) gives each stack's sample count, as flame
// graphs of sampling profilers always count, and no rounding, or with
// stream.ValueCPU and a sampling period (Values.Period) the CPU time the
// samples stand for, in microseconds; a Timed one
// its time in microseconds (JVM hprof cpu=times: its elapsed time, the
// calls that file also counts being no weight). A tree whose thread ids
// are serial numbers (Values.Serials) names the thread frame
// "<name> (thread <serial>)", and stacks whose thread the input does not
// record (Tree.UnknownThread) have no thread frame. A sampled stack
// without Java frames (hprof "<empty>") is the one frame
// samples.EmptyStackName.
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
	// Value picks each stack's value (--clock): the exclusive time on a
	// clock, or the exclusive off-CPU time (stacks.Node.OffCPU); the
	// trace must have the clocks it needs. The default is the trace's
	// main clock: wall if present, else thread CPU.
	Value stream.Value
}

// ErrNoOffCPU is returned for stream.ValueOffCPU on a trace without both a
// wall and a thread-CPU clock.
var ErrNoOffCPU = errors.New("folded: off-CPU time needs a trace with both the wall and the thread-CPU clock")

// clock says which value of a node a line sums.
type clock uint8

const (
	wallClock      clock = iota // exclusive wall ns
	cpuClock                    // exclusive thread CPU ns
	offCPUClock                 // exclusive off-CPU ns
	samplesClock                // samples of a Counted tree
	estimatedClock              // the CPU time a Counted tree's samples stand for (stacks.Tree.EstimatedCPU)
)

// clockOf chooses the clock: the one Options.Value asks for, samples in a
// Counted tree, else the trace's main clock (wall if present, else thread
// CPU).
func clockOf(tree *stacks.Tree, opt Options) clock {
	t := tree.Trace()
	switch {
	case opt.Value == stream.ValueOffCPU:
		return offCPUClock
	case tree.Values().Kind == stacks.Counted && opt.Value == stream.ValueCPU:
		return estimatedClock
	case tree.Values().Kind == stacks.Counted:
		return samplesClock
	case opt.Value == stream.ValueCPU, opt.Value == stream.ValueAuto && !t.HasWall && t.HasCPU:
		return cpuClock
	}
	return wallClock
}

// nodeValue is node i's exclusive value on clock c.
func nodeValue(tree *stacks.Tree, i int, c clock) int64 {
	n := &tree.Nodes()[i]
	switch c {
	case cpuClock:
		return n.CPU
	case offCPUClock:
		return n.OffCPU()
	case samplesClock:
		return tree.Samples(stacks.NodeID(i))
	case estimatedClock:
		return tree.EstimatedCPU(tree.Samples(stacks.NodeID(i)))
	}
	return n.Wall
}

// valueOf is what a line shows of its sum on clock c: sample counts as
// they are, times in microseconds.
func valueOf(c clock) func(int64) int64 {
	if c == samplesClock {
		return func(v int64) int64 { return v }
	}
	return roundMicros
}

// threadFrames are the root frames of each thread's stacks: "main (tid
// 4821)", or "main (thread 200001)" when ids are serials; "" for the
// thread that stands for stacks without one (Tree.UnknownThread).
func threadFrames(tree *stacks.Tree) []string {
	t := tree.Trace()
	format := "%s (tid %d)"
	if tree.Values().Serials {
		format = "%s (thread %d)"
	}
	names := make([]string, len(t.Threads))
	for i := range t.Threads {
		names[i] = clean(fmt.Sprintf(format, t.Threads[i].Name, t.Threads[i].ID))
	}
	if u, ok := tree.UnknownThread(); ok {
		names[u] = ""
	}
	return names
}

// lines returns the folded stacks of a call tree and their exclusive
// nanoseconds on the trace's main clock (wall if present, else thread CPU),
// unsorted and before rounding: the reference path, which writeSorted
// writes (see the package doc).
func lines(tree *stacks.Tree, opt Options) map[string]int64 {
	t := tree.Trace()
	c := clockOf(tree, opt)
	names := make([]string, len(t.Frames))
	for i := range t.Frames {
		names[i] = clean(t.Frames[i].Name)
	}
	roots := threadFrames(tree)
	sums := make(map[string]int64)
	var buf []byte
	var ids []stream.FrameID
	for i, n := range tree.Nodes() {
		v := nodeValue(tree, i, c)
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
	if _, _, err := tree.Clocks(opt.Value); err != nil {
		if opt.Value == stream.ValueOffCPU {
			return ErrNoOffCPU
		}
		return fmt.Errorf("folded: %w", err)
	}
	value := valueOf(clockOf(tree, opt))
	if reference.Only {
		return writeSorted(w, lines(tree, opt), value)
	}
	return newLineTree(tree, opt).write(w, value)
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
