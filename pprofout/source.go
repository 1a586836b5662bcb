package pprofout

import (
	"fmt"
	"math"

	"github.com/atrace2/atrace2/internal/units"

	"github.com/atrace2/atrace2/stacks"
)

// Sampled profiles (hprof text, ART profile files: trees with a
// stacks.Source) are pprof's own kind of data, so the mapping is direct:
// one pprof sample per distinct (thread, stack) with the count the file
// gives.
//
//   - Counted trees (Dalvik SamplingProfiler, JVM hprof cpu=samples, ART
//     profiles) get the one sample type samples/count and the period type
//     samples/count, period 1 (the file does not state the sampling
//     interval).
//   - JVM hprof cpu=times is a Timed tree of calls and elapsed time per
//     stack (hprof measures it with the time of day, not thread CPU time),
//     what a wall-clock method trace gives: calls/count and
//     wall/nanoseconds with wall the default, and the period type of every
//     atrace2 method-trace profile, so that pprof -diff_base compares the
//     two (docs/outputs.md §1.5).
//   - A frame's line is the line that was running (Values.RunningLines),
//     so it is the Location's line and the Function has no start line; the
//     call sites of one method are one Function, which pprof's default
//     granularity merges.
//   - Labels: thread (string) and thread_serial (number, the file's thread
//     serial, not an OS tid; Values.Serials) when the file says which
//     thread a stack ran on; truncated=depth-limit on stacks that reach
//     the profiler's depth limit (Tree.Cut); synthesized=true, as on
//     method-trace profiles, on stacks whose leaf a mapping marks as made
//     by the compiler.
//   - A frame a mapping renamed keeps the file's own name (and descriptor,
//     for ART profiles) as its Function's SystemName, as on method-trace
//     profiles (systemName).

// TypeSamples is the sample type of a Counted tree's profile.
const TypeSamples = "samples"

// Labels of sampled profiles.
const (
	LabelThreadSerial = "thread_serial" // number: the file's thread serial
	LabelTruncated    = "truncated"     // string: TruncatedDepth
)

// TruncatedDepth is the value of LabelTruncated: the stack is as deep as
// the profiler's depth limit, so its outer frames may be missing.
const TruncatedDepth = "depth-limit"

// mergeable refuses a tree whose values cannot add up with the trees
// added before: counted samples and timed calls differ in kind, and so do
// a method trace's times and a sampled profile's. A sampled profile's
// counts and times must also fit a pprof value once added up: each
// profile's do (samples.Profile), the merged profile's must too.
func (b *Builder) mergeable(tree *stacks.Tree) error {
	if len(b.traces) > 0 {
		first := b.traces[0].tree
		if first.Values().Kind != tree.Values().Kind || (first.Source() == nil) != (tree.Source() == nil) {
			return fmt.Errorf("pprof: %s (%s) and %s (%s) cannot be merged: one counts samples, the other calls and CPU time",
				traceName(first.Trace()), describe(first), traceName(tree.Trace()), describe(tree))
		}
	}
	src := tree.Source()
	if src == nil {
		return nil
	}
	if !addInt64(&b.counts, src.Count) || !addInt64(&b.nanos, src.TimeNanos) {
		return fmt.Errorf("pprof: %s: the counts or times of the profiles add up to more than %d, which a pprof value cannot hold",
			traceName(tree.Trace()), int64(math.MaxInt64))
	}
	return nil
}

// describe names what a tree was made from: a sampled profile's format.
func describe(t *stacks.Tree) string {
	if s := t.Source(); s != nil {
		return s.Format
	}
	return "method trace"
}

// sourceComments says where a sampled profile came from and what its
// stacks lack.
func (b *Builder) sourceComments(tree *stacks.Tree, src *stacks.Source, name string) []string {
	out := []string{fmt.Sprintf("converted by atrace2 %s from %s (%s)", b.version, name, src.Format)}
	if src.Created != "" {
		out = append(out, fmt.Sprintf("%s: created %s", name, src.Created))
	}
	if src.DepthLimited && src.MaxDepth > 0 && src.CutStacks > 0 {
		out = append(out, fmt.Sprintf("%s: %s: %d of the file's %s may miss outer frames; their samples carry the label %s=%s", name,
			src.CutWhy, src.CutStacks, units.Plural(int64(src.Stacks), "stack", "stacks"), LabelTruncated, TruncatedDepth))
	}
	if u, ok := tree.UnknownThread(); ok {
		which := "some stacks ran on: those samples have"
		if len(tree.Trace().Threads) == 1 && u == 0 {
			which = "its stacks ran on: the samples have"
		}
		out = append(out, fmt.Sprintf("%s: the file does not say which thread %s no thread label", name, which))
	}
	if src.Process >= 0 && src.Process < len(src.Processes) {
		pr := &src.Processes[src.Process]
		of := ""
		if n := len(src.Processes); n > 1 {
			of = fmt.Sprintf(", one of the %d processes with stack samples", n)
		}
		out = append(out, fmt.Sprintf("%s: process %s (pid %d)%s: the samples carry the labels %s and %s",
			name, processName(pr), pr.PID, of, LabelProcess, LabelPID))
	}
	if p := tree.Values().Period; p > 0 {
		from := ""
		if src.Period != "" {
			from = " (" + src.Period + ")"
		}
		out = append(out, fmt.Sprintf("%s: a sample stands for %s of CPU time%s: the profile's period", name, units.Duration(p), from))
	}
	for _, r := range src.Repairs {
		out = append(out, fmt.Sprintf("%s: repaired: %s %s (the frames named [unknown …])", name, units.Count(r.Count), r.What))
	}
	for _, u := range src.Unlisted {
		out = append(out, fmt.Sprintf("%s: %s in no stack: %s", name, units.Plural(u.Count, "sample", "samples"), u.Reason))
	}
	for _, n := range src.Notes {
		out = append(out, name+": note: "+n)
	}
	return out
}

// processName is a process as comments name it: its name, or "<pid>".
func processName(pr *stacks.SourceProcess) string {
	if pr.Name == "" {
		return fmt.Sprintf("<%d>", pr.PID)
	}
	return pr.Name
}

// addInt64 adds n, not negative, to *sum, failing instead of overflowing.
func addInt64(sum *int64, n int64) bool {
	if *sum > math.MaxInt64-n {
		return false
	}
	*sum += n
	return true
}
