package samples

import (
	"fmt"
	"math"
	"slices"
)

// Format names a sampled-profile layout.
type Format uint8

const (
	// Unknown is the zero Format: not a layout this package reads.
	Unknown Format = iota
	// DalvikHprof is the text Dalvik's SamplingProfiler writes through
	// libcore's AsciiHprofWriter (docs/formats.md §18.1).
	DalvikHprof
	// JVMHprof is classic JVM hprof text whose CPU section is not known yet:
	// Sniff returns it, because the section comes at the end of the file.
	// Read never does; it says JVMHprofSamples or JVMHprofTimes.
	JVMHprof
	// JVMHprofSamples is JVM hprof text with a CPU SAMPLES section
	// (-agentlib:hprof=cpu=samples; docs/formats.md §18.2).
	JVMHprofSamples
	// JVMHprofTimes is JVM hprof text with a CPU TIME (ms) section
	// (-agentlib:hprof=cpu=times): counts are calls, and each trace has a time.
	JVMHprofTimes
	// ARTProfileMethod is an Android 5.x ART profile file in method mode:
	// one "<method>/<count>/<size>" line per method (docs/formats.md §18.3).
	ARTProfileMethod
	// ARTProfileBoundedStack is an ART profile file in bounded-stack mode,
	// whose lines add "/[<dexPc>:<count>:<context>#…]" call chains.
	ARTProfileBoundedStack
	// PerfettoTrace is a Perfetto trace's CPU stack samples (traced_perf's
	// PerfSample, StreamingProfilePacket, StackSample; package pftrace;
	// docs/formats.md §20).
	PerfettoTrace
	// SimpleperfProto is simpleperf's "report-sample --protobuf" output
	// (package simpleperf; docs/formats.md §21).
	SimpleperfProto
)

var formatNames = [...]string{
	Unknown:                "unknown",
	DalvikHprof:            "Dalvik SamplingProfiler text (ASCII hprof)",
	JVMHprof:               "JVM hprof text",
	JVMHprofSamples:        "JVM hprof text, cpu=samples",
	JVMHprofTimes:          "JVM hprof text, cpu=times",
	ARTProfileMethod:       "ART profile (Android 5.x), method mode",
	ARTProfileBoundedStack: "ART profile (Android 5.x), bounded-stack mode",
	PerfettoTrace:          "Perfetto trace, CPU stack samples",
	SimpleperfProto:        "simpleperf protobuf (report-sample)",
}

// Timed reports whether profiles of the format time each sample and hold
// several processes (Perfetto traces, simpleperf profiles): the readers
// of package pftrace and simpleperf, which take a samples.Select.
func (f Format) Timed() bool { return f == PerfettoTrace || f == SimpleperfProto }

// String names the format for people, for example
// "JVM hprof text, cpu=samples".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// Frame is one method of a stack. Frames are de-duplicated: two frames of a
// Profile differ in at least one field.
type Frame struct {
	Name   string // <class>.<method>, e.g. java.lang.Long.parseLong
	Class  string // dotted class name; empty when the file has none
	Method string // the method name alone
	// Signature is the JVM descriptor, "(ILjava/lang/String;)V", when the
	// file gives parameter and return types (ART profiles); else empty.
	Signature string
	File      string // source file name as printed ("Long.java"); empty when unknown
	Line      int    // line number, meaningful when HasLine
	HasLine   bool
	Native    bool // hprof "Native method", StackTraceElement "(Native Method)"

	// Obfuscated and ObfuscatedSignature are the file's own <class>.<method>
	// and descriptor when a mapping (--mapping) renamed the frame; both are
	// "" otherwise.
	Obfuscated          string
	ObfuscatedSignature string
	Synthesized         bool // the mapping marks the class or method as made by the compiler

	// Kind, Library, BuildID and Symbol are set by the timed readers
	// (pftrace, simpleperf); the text formats leave them zero (JavaFrame).
	Kind    FrameKind
	Library string // the mapping the code is in: a library path, an .oat/.odex/.vdex, a JIT cache; "" when unknown
	BuildID string // the library's build id in hex; "" when unknown
	Symbol  string // a native frame's symbol as the file gives it, when Name is its demangled form; else ""
}

// Thread is a thread named by a THREAD START line, or only referred to by a
// TRACE (then Name and Group are empty).
type Thread struct {
	ID    int64 // the thread serial number of the file
	Name  string
	Group string
	// TID and PID are the operating system's thread and process ids, set by
	// the timed readers (where ID is the TID too); 0 when unknown.
	TID, PID int64
}

// Sample is a call stack and how often the profiler saw it.
type Sample struct {
	// Thread indexes Profile.Threads; -1 when the file does not say (JVM
	// hprof without thread=y, ART profiles).
	Thread int
	// Trace is the hprof TRACE serial number the sample comes from; 0 for
	// ART profiles.
	Trace int64
	// Stack holds indices into Profile.Frames, ROOT FIRST: Stack[len-1] is
	// the method that was running. It is empty for hprof "<empty>" traces
	// (the thread had no Java frame).
	Stack []int
	// Count is the number of samples; for JVMHprofTimes, the number of calls.
	Count int64
	// TimeNanos is the elapsed time of the stack itself (hprof measures
	// cpu=times with the time of day, not thread CPU time), for JVMHprofTimes
	// only. hprof prints it as a share of the total with two decimals, so
	// it is exact to 0.01 % of Profile.TotalTimeNanos.
	TimeNanos int64
	// WeightNanos is the CPU time the samples stand for, in ns, when the
	// file gives each sample its own (simpleperf's cpu-clock and task-clock
	// event counts, StackSample weights in ns); 0 otherwise, when the time
	// is Count × Profile.PeriodNanos.
	WeightNanos int64
}

// Unlisted is a count the file totals but gives no stack for.
type Unlisted struct {
	Reason string // for example "null method (ART)"
	Count  int64
}

// Profile is a sampled profile: stacks with counts and no timeline.
//
// Read guarantees that the samples' counts and the unlisted counts add up
// to at most math.MaxInt64, and so do the samples' times: any sum of them
// (a thread's, a method's, the total a percentage is of) fits an int64.
// It refuses a file whose counts or times add up to more.
type Profile struct {
	Format  Format
	Threads []Thread // THREAD START order, then threads only TRACEs name
	Frames  []Frame  // the frames samples use, in order of first use (stacks root first)
	Samples []Sample // in file order: CPU section rows, or ART method lines
	// Total is the sample total the file states: the sum of the CPU SAMPLES
	// "total =" values, or the first number of an ART profile. It is 0 for
	// JVMHprofTimes, whose total is a time (TotalTimeNanos).
	Total          int64
	TotalTimeNanos int64 // JVMHprofTimes: the sum of the sections' "total =" ms, in ns
	// Unlisted are samples counted in a total but in no Sample: hprof rows
	// under its cutoff=, ART's null and boot-image methods.
	Unlisted []Unlisted
	// MaxDepth is the number of frames of the deepest stack.
	MaxDepth int
	// DepthLimited says the profiler cut stacks at a maximum depth (hprof's
	// depth= option, 4 frames by default; ART's bounded stacks), so a
	// stack MaxDepth deep may be missing its outer frames: see CutStack.
	DepthLimited bool
	// Truncated says the file ends inside a section: the samples read so
	// far are kept.
	Truncated bool
	Created   string   // the date the file gives ("Sun Jan 13 05:57:25 2013"), as printed
	Notes     []string // what the reader inferred or skipped, one sentence each

	// The fields below are set by the readers of timed, multi-process
	// profiles (pftrace, simpleperf); the text formats leave them zero.

	// Processes are the processes with stack samples in the file, in order
	// of pid, each with its sample count; Process indexes the one whose
	// samples the profile holds (Select.Process).
	Processes []Process
	Process   int
	// PeriodNanos is the CPU time one sample stands for, in ns, when the
	// file states it (a sampling frequency or period of a CPU-clock
	// timebase; simpleperf's mean cpu-clock event count); 0 when unknown.
	// Period says where it comes from ("linux.perf SW_CPU_CLOCK, 100 Hz").
	PeriodNanos int64
	Period      string
	// StartNanos is the profile's time origin, on the file's clock (the
	// trace clock of a Perfetto trace, CLOCK_MONOTONIC for simpleperf): the
	// time of the file's first stack sample, of any process. EndNanos is
	// the time of its last. Select's window and Timeline count from
	// StartNanos.
	StartNanos, EndNanos int64
	// ThreadSamples is the number of samples of the kept threads of the
	// process at every time: what a window (Select.Windowed) kept some of.
	ThreadSamples int64
	// Timeline holds each kept sample's time when Select.Timeline asked.
	Timeline *Timeline
	// Repairs count the samples kept with UnknownFrame frames.
	Repairs []Repair
}

// CutStack reports whether sample i's stack may be missing outer frames:
// the profiler limits depth and the stack reaches the deepest depth seen.
func (p *Profile) CutStack(i int) bool {
	return p.DepthLimited && p.MaxDepth > 0 && len(p.Samples[i].Stack) >= p.MaxDepth
}

// SampleCount is the sum of the samples' counts (calls for JVMHprofTimes),
// at most math.MaxInt64.
func (p *Profile) SampleCount() int64 {
	var n int64
	for _, s := range p.Samples {
		if !addCount(&n, s.Count) {
			return 1<<63 - 1
		}
	}
	return n
}

// Check verifies the invariants Read guarantees, for tests and for
// consumers of hand-built profiles: indices in range, counts and times not
// negative and their sums within int64, every frame used once at least
// and no two equal, MaxDepth right.
func (p *Profile) Check() error {
	seen := make(map[Frame]int, len(p.Frames))
	for i, f := range p.Frames {
		if j, dup := seen[f]; dup {
			return fmt.Errorf("frames %d and %d are equal: %+v", j, i, f)
		}
		seen[f] = i
	}
	depth, used := 0, make([]bool, len(p.Frames))
	for i, s := range p.Samples {
		if s.Thread < -1 || s.Thread >= len(p.Threads) {
			return fmt.Errorf("sample %d: thread index %d out of range [-1, %d)", i, s.Thread, len(p.Threads))
		}
		if s.Count < 0 || s.TimeNanos < 0 {
			return fmt.Errorf("sample %d: negative count %d or time %d", i, s.Count, s.TimeNanos)
		}
		if k := slices.IndexFunc(s.Stack, func(f int) bool { return f < 0 || f >= len(p.Frames) }); k >= 0 {
			return fmt.Errorf("sample %d: frame index %d out of range [0, %d)", i, s.Stack[k], len(p.Frames))
		}
		for _, f := range s.Stack {
			used[f] = true
		}
		depth = max(depth, len(s.Stack))
	}
	if depth != p.MaxDepth {
		return fmt.Errorf("MaxDepth is %d, the deepest stack has %d frames", p.MaxDepth, depth)
	}
	if i := slices.Index(used, false); i >= 0 {
		return fmt.Errorf("frame %d (%s) is in no stack", i, p.Frames[i].Name)
	}
	if err := p.checkTimed(); err != nil {
		return err
	}
	var all, ns int64
	for _, u := range p.Unlisted {
		if u.Count < 0 {
			return fmt.Errorf("negative unlisted count %d (%s)", u.Count, u.Reason)
		}
		if !addCount(&all, u.Count) {
			return fmt.Errorf("the counts add up to more than %d", int64(math.MaxInt64))
		}
	}
	for _, s := range p.Samples {
		if !addCount(&all, s.Count) || !addCount(&ns, s.TimeNanos) {
			return fmt.Errorf("the counts or times add up to more than %d", int64(math.MaxInt64))
		}
	}
	return nil
}

// builder assembles a Profile, de-duplicating frames and threads. Frames
// are interned into a table of their own while reading, since hprof files
// hold traces no sample uses (allocation sites, thread starts); finish
// keeps the used ones.
type builder struct {
	p       Profile
	frames  map[Frame]int
	table   []Frame
	threads map[int64]int
}

func newBuilder(f Format) *builder {
	return &builder{p: Profile{Format: f}, frames: map[Frame]int{}, threads: map[int64]int{}}
}

// frame returns the index of f, adding it on first sight.
func (b *builder) frame(f Frame) int {
	if i, ok := b.frames[f]; ok {
		return i
	}
	b.frames[f] = len(b.table)
	b.table = append(b.table, f)
	return len(b.table) - 1
}

// addThread records a THREAD START; a second start of the same id keeps
// the first name, since serial numbers are never reused by either writer.
func (b *builder) addThread(t Thread) {
	if _, ok := b.threads[t.ID]; !ok {
		b.threads[t.ID] = len(b.p.Threads)
		b.p.Threads = append(b.p.Threads, t)
	}
}

// thread returns the index of thread id, adding a nameless thread for an id
// no THREAD START named.
func (b *builder) thread(id int64) int {
	b.addThread(Thread{ID: id})
	return b.threads[id]
}

func (b *builder) note(format string, args ...any) {
	b.p.Notes = append(b.p.Notes, fmt.Sprintf(format, args...))
}

// finish keeps the frames samples use, renumbered in order of first use,
// computes MaxDepth and returns the profile.
func (b *builder) finish() *Profile {
	renum := make([]int, len(b.table))
	for _, s := range b.p.Samples {
		for i, f := range s.Stack {
			if renum[f] == 0 {
				b.p.Frames = append(b.p.Frames, b.table[f])
				renum[f] = len(b.p.Frames) // +1, so that 0 means unused
			}
			s.Stack[i] = renum[f] - 1
		}
		b.p.MaxDepth = max(b.p.MaxDepth, len(s.Stack))
	}
	return &b.p
}

// addCount adds n to *sum, failing instead of overflowing.
func addCount(sum *int64, n int64) bool {
	if n > 0 && *sum > (1<<63-1)-n {
		return false
	}
	*sum += n
	return true
}
