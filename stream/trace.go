// Package stream defines the balanced, thread-aware event stream that
// package convert produces and every exporter consumes: the events, in
// batches that carry the thread and frame tables they name; the Trace,
// with the process facts, the clocks, the repair counts and the
// deobfuscation and focus summaries; the Exporter interface; and Value,
// which of a trace's values (clocks) a view shows. It holds types only,
// and imports neither the parser nor the mapping reader, so that
// exporters depend on it alone, convert can drive (and list) them, and
// another producer can feed them.
package stream

import (
	"strings"
)

// ThreadID is a thread's id as the input gives it: for a method trace, the
// OS tid its thread table lists, else the id its records carry.
type ThreadID uint32

// MethodID is the input's own id of a method (a method trace's method id,
// action bits cleared), which the producer uses to find a frame again.
type MethodID uint64

// ThreadIndex is a dense index into Trace.Threads.
type ThreadIndex int32

// FrameID is a dense index into Trace.Frames.
type FrameID int32

// Kind says whether an event begins or ends a frame.
type Kind uint8

const (
	Begin Kind = iota // a method was entered
	End               // a method was left
	// Enclose is an instruction, sent only in one read of the trace, to
	// exporters declared able to take it (convert.Output.Enclose), which
	// keep what they get until Finish: frame Frame began at the
	// thread's start, at time 0 on both clocks, and ends at this event's
	// times; every frame the thread has begun so far is inside it, one
	// level deeper. Depth is 0, and the depths of the thread's earlier
	// events leave it out. The other exporters get the frame as a
	// Synthetic Begin at the thread's start and an End here instead.
	Enclose
)

var kindNames = [...]string{"begin", "end", "enclose"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Flags qualify an event.
type Flags uint8

const (
	// Synthetic marks a begin or end the converter made up: the begin of an
	// orphan frame at the trace start, or the end of a frame still open when
	// tracing stopped.
	Synthetic Flags = 1 << iota
	// Implicit marks an end forced by the exit of a frame deeper in the stack.
	Implicit
	// Unwound marks an end caused by an exception (record action 2).
	Unwound
	// Cut marks a begin or end that a window (--from/--to, package focus)
	// made at its boundary: the frame began before the window's start and
	// is begun at it, or was still running at the window's end and is
	// ended there. The begin of an orphan frame cut so is also Synthetic.
	Cut
)

// Event is one step of the balanced stream: a small value, no pointers.
type Event struct {
	Kind   Kind
	Flags  Flags
	Thread ThreadIndex
	Frame  FrameID
	Depth  int32 // depth of the frame begun or ended; 0 is the outermost
	Wall   int64 // ns since the trace start; 0 when the trace has no wall clock
	CPU    int64 // thread CPU ns since the thread's first event; 0 when absent
}

// Thread is a thread that has events.
type Thread struct {
	Index     ThreadIndex
	ID        ThreadID // the full id from the thread table, else the record id
	Name      string   // from the table, or "thread <id>"
	Listed    bool     // listed in the trace's thread table
	Events    int64    // events in the balanced stream (begins + ends)
	MaxDepth  int      // deepest stack, synthetic frames included
	Orphans   int      // orphan frames opened at the thread's start
	OpenAtEnd int      // frames still open at the end
	LastCPU   int64    // ns: the thread's last thread-CPU time
	LastWall  int64    // ns: the thread's last wall time
}

// Frame is a method that appears in the records.
type Frame struct {
	ID        FrameID
	MethodID  MethodID
	Name      string // <class>.<method>, e.g. android.os.Looper.loop
	Class     string // dotted class name
	Method    string // method name alone
	Signature string // JVM descriptor, may be empty
	File      string // source path with its package: android/os/Looper.java
	Line      int    // first line, when HasLine
	HasLine   bool
	Listed    bool // defined in the method table

	// Obfuscated and ObfuscatedSignature are the trace's own <class>.<method>
	// and descriptor when a mapping (--mapping) renamed the frame; both are
	// "" otherwise.
	Obfuscated          string
	ObfuscatedSignature string
	Synthesized         bool // the mapping marks the class or method as made by the compiler

	// Code says what machine code a frame of a sampled profile ran when
	// it is no Java method: a native or kernel function, with its
	// library and build id. Nil for Java methods, and for every frame of
	// a method trace.
	Code *Code
}

// Code is the machine code a native frame ran (Frame.Code).
type Code struct {
	Kind CodeKind
	// Library is the library, executable or mapping the code is in (a
	// path such as /system/lib64/libhwui.so, or /kernel); "" when the
	// file does not say.
	Library string
	BuildID string // the library's build id in hex; "" when unknown
	// Symbol is the function's symbol as the file gives it (mangled),
	// when Frame.Name is its demangled form; else "".
	Symbol string
}

// CodeKind says what code a frame that is no Java method ran.
type CodeKind uint8

const (
	CodeNative  CodeKind = iota // a function of a library or executable
	CodeKernel                  // a function of the kernel
	CodeOther                   // a frame the file names without saying what code it is
	CodeUnknown                 // a frame the file refers to but never defines (a repair)
)

// Trace is what the producer knows of the trace as a whole: the tables,
// the clocks and the repair counts. Exporters get it at Begin, as far as
// it is known then, and complete at Finish (see Exporter).
type Trace struct {
	Name     string // the input's name, as given
	Size     int64  // bytes of input (after decompression)
	Process  Process
	Threads  []Thread
	Frames   []Frame
	HasWall  bool
	HasCPU   bool
	WallEnd  int64 // ns: the trace end, the largest wall time of any record
	Stats    Stats
	Sampling Sampling
	// Warnings are what the reader worked around (a missing summary, a
	// cut gzip stream), one sentence each; complete once the input has
	// been read to its end.
	Warnings []string

	// Deobf says how a mapping (--mapping) named the frames; nil when none
	// did.
	Deobf *Deobf

	// Focus says what --thread, --from/--to and --root kept; zero without
	// a focus.
	Focus FocusStats
}

// Process is what the input says about the process it recorded.
type Process struct {
	PID int // the process id (ART's pid= key); 0 when the input does not say
	// StartMicros is when tracing began, in µs: on the Unix epoch when
	// Epoch is set (Dalvik wrote gettimeofday), otherwise on the device's
	// monotonic clock, which must never be shown as a date
	// (docs/formats.md §6.3). 0 when the input does not say.
	StartMicros uint64
	Epoch       bool
	// Elapsed is the trace's length in ns as the input states it (ART's
	// elapsed-time-usec or elapsed-time-nsec key), 0 when it states none.
	// It can differ from Trace.WallEnd, which ends at the last record.
	Elapsed int64
}

// Sampling is the guess whether the trace came from sampling mode, which
// synthesizes enters and exits by diffing stack samples.
type Sampling struct {
	Likely   bool
	Interval int64 // ns: typical step between distinct timestamps of Thread
	// Thread is the busiest thread, whose steps give Interval: idle threads
	// change stack rarely, so their steps are multiples of the interval.
	Thread ThreadIndex
}

// Exporter consumes the balanced event stream of one trace:
//
//   - Begin starts a read with the Trace as it is known before the first
//     event: complete when the producer has read the trace once already
//     (two reads), otherwise its name, process and clocks, with empty
//     tables (one read). Nothing changes that Trace while the events
//     come. Begin also forgets whatever an earlier Begin left, so that a
//     read can start over.
//   - Events takes each Batch in order. Its slices are reused after the
//     call returns.
//   - Finish gets the complete Trace, and flushes or builds the output.
//
// The calls come one at a time, though not necessarily on the producer's
// goroutine.
type Exporter interface {
	Begin(t *Trace) error
	Events(b *Batch) error
	Finish(t *Trace) error
}

// Batch is a run of events, in stream order, with the tables they name.
type Batch struct {
	Events []Event
	// Threads and Frames hold every thread and frame that this batch's
	// events, or an earlier batch's, name, at their index: the tables as
	// far as the stream has gone. A later batch's tables extend these, and
	// nothing changes them once the batch is handed over. Only Finish's
	// Trace has a thread's counts (Thread.Events to LastWall), and the
	// final name of a thread or method that the input defines only after
	// its first use (a streaming trace read once): until then, the
	// batches have the name the producer could give it.
	Threads []Thread
	Frames  []Frame
}

// SourcePath prefixes a bare source file name with its class's package
// path, so that pprof's -source_path finds android/app/Activity.java:
// (android.app.Activity, Activity.java) gives android/app/Activity.java.
func SourcePath(class, source string) string {
	if source == "" || strings.Contains(source, "/") {
		return source
	}
	i := strings.LastIndexByte(class, '.')
	if i < 0 {
		return source
	}
	return strings.ReplaceAll(class[:i], ".", "/") + "/" + source
}
