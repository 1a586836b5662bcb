package samples

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file holds what the readers of timed, multi-process sampled profiles
// (Perfetto stack samples, package pftrace; simpleperf's protobuf, package
// simpleperf) add to the model: processes, native frames, a sampling
// period, and the samples' times. The text formats leave all of it zero.

// FrameKind says what code a frame is.
type FrameKind uint8

const (
	// JavaFrame is a Java (or Kotlin…) method: Class and Method are set. It
	// is the zero value, what every frame of the text formats is.
	JavaFrame FrameKind = iota
	// NativeFrame is machine code of a library or executable: Library is
	// its path, BuildID its build id when known, Name its demangled symbol
	// (Symbol the symbol as the file gives it), or "<library>+0x<pc>" when
	// the file has no symbol for it.
	NativeFrame
	// KernelFrame is kernel code (Library "/kernel" in traced_perf's
	// traces, "[kernel.kallsyms]" in simpleperf's).
	KernelFrame
	// OtherFrame is a frame the file names without saying what code it is
	// (a StackSample's inline frames, frames outside any mapping).
	OtherFrame
	// UnknownFrame stands for a frame or a whole call stack the file refers
	// to but never defines (an interned id with no definition): a repair,
	// counted in Profile.Repairs.
	UnknownFrame
)

var frameKindNames = [...]string{"java", "native", "kernel", "other", "unknown"}

// String names the kind: "java", "native", "kernel", "other", "unknown".
func (k FrameKind) String() string {
	if int(k) < len(frameKindNames) {
		return frameKindNames[k]
	}
	return "FrameKind(" + strconv.Itoa(int(k)) + ")"
}

// Process is a process of a multi-process profile, with the number of
// stack samples the file holds for it (all of them, whatever the reader
// kept).
type Process struct {
	PID     int64
	Name    string // "" when the file does not name it
	Samples int64
}

// ProcessName is a process's name as outputs show it: its own, or
// "process <pid>".
func (p *Process) ProcessName() string {
	if p.Name == "" {
		return fmt.Sprintf("process %d", p.PID)
	}
	return p.Name
}

// Repair counts samples a reader kept by naming what the file left
// undefined (UnknownFrame frames).
type Repair struct {
	What  string // for example "call stacks never interned"
	Count int64
}

// ParseJavaName makes a Java frame of a method name as runtimes unwind
// them: "com.example.Foo$Bar.lambda$run$0" (class, then method after the
// last dot), or ART's PrettyMethod text with return and parameter types,
// "void com.example.Foo.run(int)", whose descriptor becomes Signature.
func ParseJavaName(name string) Frame {
	if strings.IndexByte(name, '(') > 0 {
		return prettyFrame(name)
	}
	return splitName(name)
}

// NoEnd is Select.To for a window that runs to the end of the profile.
const NoEnd = math.MaxInt64

// Select says which samples a reader of a timed, multi-process profile
// keeps. The zero value keeps the samples of the process with the most
// samples, every thread, at every time, without their times.
type Select struct {
	// Process picks the process by name or pid ("1234"); "" picks the one
	// with the most stack samples. A name matches a process's name, or its
	// last path element ("surfaceflinger" for /system/bin/surfaceflinger).
	Process string
	// Threads, when not nil, keeps the samples of the threads it accepts.
	Threads func(th *Thread) bool
	// Windowed keeps only the samples taken in [From, To], in ns since
	// the profile's start (Profile.StartNanos); To is NoEnd for no end.
	Windowed bool
	From, To int64
	// Timeline keeps every sample's time: Profile.Timeline.
	Timeline bool
}

// Timeline holds the kept samples of a timed profile one by one, with
// their times. Operations that drop or reorder Profile.Samples (the load
// stage's --thread and --root, internal/driver) leave it stale: select
// threads through Select.Threads instead.
type Timeline struct {
	recs []timed // by thread, then time
}

type timed struct {
	thread int32
	sample int32
	time   int64
}

// TimedSample is one sample of a Timeline.
type TimedSample struct {
	Thread int   // index into Profile.Threads
	Sample int   // index into Profile.Samples: the stack (and thread) the sample counts for
	Time   int64 // ns since Profile.StartNanos
}

// NewTimeline returns a timeline of the samples given (in any order), for
// readers: it sorts them by thread, then time, keeping the order of equal
// times.
func NewTimeline(s []TimedSample) *Timeline {
	t := &Timeline{recs: make([]timed, len(s))}
	for i, x := range s {
		t.recs[i] = timed{int32(x.Thread), int32(x.Sample), x.Time}
	}
	slices.SortStableFunc(t.recs, func(a, b timed) int {
		if a.thread != b.thread {
			return int(a.thread) - int(b.thread)
		}
		switch {
		case a.time < b.time:
			return -1
		case a.time > b.time:
			return 1
		}
		return 0
	})
	return t
}

// Len is the number of samples.
func (t *Timeline) Len() int { return len(t.recs) }

// Iter returns an iterator over the samples, thread by thread in the order
// of Profile.Threads, each thread's in time order.
func (t *Timeline) Iter() *TimelineIter { return &TimelineIter{t: t} }

// TimelineIter pulls the samples of a Timeline one at a time.
type TimelineIter struct {
	t *Timeline
	i int
}

// Next returns the next sample, or false after the last.
func (it *TimelineIter) Next() (TimedSample, bool) {
	if it.i >= len(it.t.recs) {
		return TimedSample{}, false
	}
	r := it.t.recs[it.i]
	it.i++
	return TimedSample{Thread: int(r.thread), Sample: int(r.sample), Time: r.time}, true
}

// checkTimed verifies what Check adds for timed profiles: the chosen
// process in range, and timeline samples that name existing samples of
// their own thread, grouped by thread in time order, as many per sample
// as its count.
func (p *Profile) checkTimed() error {
	if len(p.Processes) > 0 && (p.Process < 0 || p.Process >= len(p.Processes)) {
		return fmt.Errorf("process index %d out of range [0, %d)", p.Process, len(p.Processes))
	}
	if p.Timeline == nil {
		return nil
	}
	counts := make([]int64, len(p.Samples))
	var prev timed
	for i, r := range p.Timeline.recs {
		if r.sample < 0 || int(r.sample) >= len(p.Samples) || p.Samples[r.sample].Thread != int(r.thread) {
			return fmt.Errorf("timeline sample %d: sample %d of thread %d does not exist", i, r.sample, r.thread)
		}
		if i > 0 && (r.thread < prev.thread || r.thread == prev.thread && r.time < prev.time) {
			return fmt.Errorf("timeline sample %d is out of order", i)
		}
		counts[r.sample]++
		prev = r
	}
	for i, s := range p.Samples {
		if counts[i] != s.Count {
			return fmt.Errorf("sample %d counts %d, the timeline has %d", i, s.Count, counts[i])
		}
	}
	return nil
}
