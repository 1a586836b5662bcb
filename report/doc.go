// Package report computes and prints the terminal reports that Traceview's
// profile panel and dmtracedump used to give: a flat per-method profile
// (top), each method's callers and callees (calls), and the difference
// between two traces (diff). It reads the call tree of package stacks and
// writes aligned text, CSV or JSON.
//
// # Definitions
//
// [TimeDefinitions], [TopDefinitions], [CallsDefinitions] and
// [DiffDefinitions] state what every column means, in the words the
// commands' --help prints: how inclusive time avoids double-counting recursion, and
// how parents and children split a method's inclusive time so that the rows
// add up to it exactly. In short, for a method M and the time of each
// stack (thread, call stack) of the tree:
//
//   - exclusive: stacks ending in M; inclusive: stacks containing M, each
//     counted once however often M recurses in it;
//   - parent P: stacks whose outermost M is called by P ("(top level)" when
//     that M is the thread's outermost frame);
//   - child C: stacks whose innermost M calls C; self: stacks ending in M.
//
// So the parents sum to M's inclusive time, and so do self and the
// children; a direct recursive edge M → M carries calls but no time.
//
// # Computation
//
// [NewProfile] annotates the tree in linear time. Subtree times come from
// one backward pass over the nodes (children follow their parents). A
// depth-first walk keeps, per method, the depth of its innermost
// occurrence on the current path: a node whose method is already on the
// path is a recursive call (it adds nothing to inclusive time or to the
// parent rows), and its subtree time is taken off the child share of the
// node just above that earlier occurrence, because for those stacks the
// innermost M is deeper. Per-method rows and caller → callee edges are then
// sums over nodes.
//
// # Clocks
//
// Reports show every clock the trace has (wall, thread CPU), or those
// that [Profile.Use] picks (--clock: a clock alone, or off-CPU time).
// Sorting, thresholds and diff's text table use the first clock: wall
// when the trace has it, else thread CPU. CSV and JSON carry every clock
// shown. [Profile.UseOffCPU] puts the derived clock [OffCPU] first,
// followed by wall (--clock offcpu, top --sort offcpu).
//
// # Sampled profiles
//
// [NewProfile] reads the tree of a sampled profile (hprof text, ART profile
// files) as any other: the tree's value schema (stacks.Values) says it
// counts samples. Its one "clock" is then [Samples], a count:
// the same computations apply, text prints counts instead of durations,
// CSV names the columns _count, and the JSON fields named _ns hold counts.
// Samples count no calls, so CallsUnknown is set: text leaves the calls
// columns out, CSV leaves them empty, sorting by calls is refused
// ([ErrNoCalls]) and so is a diff threshold in time ([ErrThresholdUnit]).
// JVM hprof cpu=times has calls and elapsed time per stack: it is read as
// a wall-clock profile with calls, and diffs against method traces.
package report
