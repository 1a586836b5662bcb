package stacks

// Values is a tree's value schema: what its nodes hold, and how the views
// read its frames and threads. The views choose their sample types,
// columns and labels from it, never from the input's format: a reader of
// a new format says what its stacks are worth here, and every view
// follows.
type Values struct {
	// Kind says what a node holds.
	Kind Kind
	// Period is the CPU time one sample stands for, in ns, when the input
	// states it (a sampling frequency or period of a CPU clock: Perfetto's
	// traced_perf, simpleperf's cpu-clock); 0 when it does not. Counted
	// only. It makes pprof's period (cpu/nanoseconds), and the estimated
	// CPU time, samples × Period, that Tree.Clocks lets a view show.
	Period int64
	// RunningLines says that stream.Frame.Line is the line the frame was
	// running (a sampled frame: one frame per method and line), not the
	// method's first line.
	RunningLines bool
	// Serials says that stream.Thread.ID is a thread serial number the
	// input gives its threads, not an operating system's thread id.
	Serials bool
}

// Kind is what the nodes of a tree hold.
type Kind uint8

const (
	// Timed: Node.Calls counts the calls of the node's exact stack, and
	// Node.Wall and Node.CPU are its exclusive time on the clocks the
	// trace has (stream.Trace.HasWall, HasCPU): a method trace; also JVM
	// hprof cpu=times, which counts calls and elapsed (wall) time per
	// stack.
	Timed Kind = iota
	// Counted: Tree.Samples is the number of samples of the node's exact
	// stack; Node.Calls, Wall and CPU are 0 (a sampled profile).
	Counted
)

// String names the kind: "timed" or "counted".
func (k Kind) String() string {
	if k == Counted {
		return "counted"
	}
	return "timed"
}

// Source is what an input of stacks with counts (a sampled profile) states
// about itself beyond its stacks: facts of the file that the views which
// say where a tree came from report (pprof's comments, info, the reports'
// notes). A tree built from events has none: those facts are in its
// stream.Trace.
type Source struct {
	Format  string // the file's format, for people: "JVM hprof text, cpu=samples"
	Created string // the date the file gives, as printed; "" when none
	// Stacks is the number of stacks the file lists, after any focus (two
	// of them may be one node: the same stack on one thread, listed
	// twice); Count and TimeNanos are their counts (samples, or calls in a
	// Timed tree) and times summed.
	Stacks           int
	Count, TimeNanos int64
	// StatedCount and StatedTimeNanos are the totals the file states.
	StatedCount, StatedTimeNanos int64
	Frames                       int // distinct frames of the stacks
	MaxDepth                     int // frames of the deepest stack
	// DepthLimited says the profiler cut stacks at a depth limit, so that
	// a stack MaxDepth deep may miss outer frames (Tree.Cut). CutStacks
	// counts the stacks that are so deep, and CutWhy says for people which
	// limit cut them ("stacks are cut at depth=4 (…)").
	DepthLimited bool
	CutStacks    int
	CutWhy       string
	// Truncated says the file ends inside its stacks: what was read is kept.
	Truncated bool
	Unlisted  []Unlisted // counts the file totals in no stack
	Notes     []string   // what the reader inferred or skipped, one sentence each
	// Threads are the threads the file lists, in its order, with or
	// without stacks, then (Listed false) the stacks it gives no thread.
	Threads []SourceThread

	// The fields below are of files that time their samples and hold
	// several processes (Perfetto traces, simpleperf profiles); the
	// others leave them zero.

	// Timeline says the file times each sample: the input has a timeline
	// (of samples), and a window (--from/--to) applies to it.
	Timeline bool
	// Processes are the processes with stack samples in the file, in
	// order of pid, each with all its samples; the tree holds those of
	// Processes[Process].
	Processes []SourceProcess
	Process   int
	// Period says where Values.Period comes from, for people:
	// "linux.perf SW_CPU_CLOCK, 100 Hz".
	Period string
	// SpanNanos is the time from the file's first stack sample (of any
	// process) to its last.
	SpanNanos int64
	// Repairs count the samples kept with frames the file refers to but
	// never defines (stream.CodeUnknown frames).
	Repairs []Repair
}

// SourceProcess is a process of a multi-process file, with the stack
// samples the file holds for it.
type SourceProcess struct {
	PID     int64
	Name    string // "" when the file does not name it
	Samples int64
}

// Repair counts samples kept by naming what the file left undefined.
type Repair struct {
	What  string // "call stacks never interned"
	Count int64
}

// Unlisted is a count the file totals but gives no stack for.
type Unlisted struct {
	Reason string // for example "null method (ART)"
	Count  int64
}

// SourceThread is a thread of a Source with the sums of its stacks.
type SourceThread struct {
	ID          int64 // the file's id for it (0 for the stacks without a thread)
	Name, Group string
	Listed      bool // false for the stacks without a thread
	Stacks      int
	Count       int64
	TimeNanos   int64
}
