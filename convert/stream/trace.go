// Package stream defines the balanced, thread-aware event stream that
// package convert produces and every exporter consumes: the events, the
// thread and frame tables, the repair counts, and the Exporter interface.
// It holds types only, so that exporters depend on it and not on convert,
// and convert can drive (and list) the exporters.
package stream

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/parser"
)

// ThreadIndex is a dense index into Trace.Threads.
type ThreadIndex int32

// FrameID is a dense index into Trace.Frames.
type FrameID int32

// Kind says whether an event begins or ends a frame.
type Kind uint8

const (
	Begin Kind = iota // a method was entered
	End               // a method was left
	// Orphan says that a method left with nothing on the thread's stack: it
	// was running before tracing began, so it enclosed everything earlier on
	// that thread. Only OnePassExporters get it; the others get the frame
	// opened at the thread's start instead.
	Orphan
)

var kindNames = [...]string{"begin", "end", "orphan"}

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
	Index    ThreadIndex
	ID       parser.ThreadID // the full id from the thread table, else the record id
	Name     string          // from the table, or "thread <id>"
	Known    bool            // listed in the trace's thread table
	Events   int64           // events in the balanced stream (begins + ends)
	MaxDepth int             // deepest stack, synthetic frames included
	Orphans  int             // orphan frames opened at the thread's start
	Open     int             // frames still open at the end
	LastCPU  int64           // ns: the thread's last thread-CPU time
	LastWall int64           // ns: the thread's last wall time
}

// Frame is a method that appears in the records.
type Frame struct {
	ID        FrameID
	Method    parser.MethodID
	Name      string // <class>.<method>, e.g. android.os.Looper.loop
	Class     string // dotted class name
	Short     string // method name alone
	Signature string // JVM descriptor, may be empty
	File      string // source path with its package: android/os/Looper.java
	Line      int    // first line, when HasLine
	HasLine   bool
	Known     bool // defined in the method table
}

// Trace is what exporters get before the first event: the tables, the clocks
// and the repair counts, all complete after a first pass (in one read they
// are complete at Finish; see OnePassExporter and RewindableExporter).
type Trace struct {
	Name     string // the input's name, as given
	Size     int64  // bytes of input (after decompression)
	Header   *parser.Header
	Threads  []Thread
	Frames   []Frame
	HasWall  bool
	HasCPU   bool
	WallEnd  int64 // ns: the trace end, the largest wall time of any record
	Stats    Stats
	Sampling Sampling
}

// Sampling is the guess whether the trace came from sampling mode, which
// synthesizes enters and exits by diffing stack samples.
type Sampling struct {
	Likely   bool
	Interval int64 // ns: typical step between distinct timestamps
}

// Exporter consumes the balanced event stream. Begin gets the complete
// tables before the first event (except in one read of the trace, see
// OnePassExporter and RewindableExporter); Event gets a pointer to a reused
// value that must not be kept; Finish flushes or builds the output.
//
// With more than one CPU, convert.Run calls Event (or Events) on a
// goroutine of its own, after Begin and before Finish, one call at a time.
// In one pass (OnePassExporter) the pass is then still appending to the
// Trace's Threads and Frames and updating WallEnd and Stats: such an
// exporter must read the Trace only in Begin and Finish.
type Exporter interface {
	Begin(t *Trace) error
	Event(ev *Event) error
	Finish() error
}

// BatchExporter is an Exporter that also takes events many at a time, in
// order: one call per batch instead of one per event, so its loop stays
// tight. The slice is reused after the call returns. Run calls Events, and
// never Event, on an exporter that has it.
type BatchExporter interface {
	Exporter
	Events(evs []Event) error
}

// OnePassExporter is an Exporter that can take the stream in a single
// read of the trace, which halves the work. The price: Begin gets a Trace
// whose Threads, Frames, WallEnd and Stats grow until Finish (an event's
// Thread and Frame index them only by Finish, and Depth leaves out orphan
// frames), and an exit with an empty stack arrives as an Orphan event when
// it is found, so the exporter must put what it has of that thread under
// the orphan frame. Aggregating exporters can do that; timelines cannot.
type OnePassExporter interface {
	Exporter
	OnePass()
}

// RewindableExporter is an Exporter that writes each event as it comes
// (a timeline) but can take back what it wrote. Such exporters get the
// stream in one read of the trace on the chance that it has no orphan exit,
// as recent ART traces have none: Begin gets a Trace whose tables grow as
// in one pass, but Events may read the frames and the Index, ID, Name and
// Known of the threads: an event's thread and frame are in them when it
// comes. The threads' counts, WallEnd, Stats and Sampling are complete
// only at Finish. (On the exporters' goroutine, the Trace is a copy whose
// tables are brought up to date before each batch, and complete for
// Finish.) If the pass meets an orphan exit, it stops sending events,
// calls Rewind, and sends the whole stream again from a second read,
// starting with Begin and the complete tables. The exporter never sees an
// Orphan event.
type RewindableExporter interface {
	Exporter
	// CanRewind reports whether Rewind can work, for example whether the
	// output is a file that can be truncated rather than a pipe.
	CanRewind() bool
	// Rewind takes back everything the exporter wrote and forgets its
	// state, ready for a new Begin.
	Rewind() error
}

// NewFrame names a method; an id missing from the table gets a name that
// still tells methods apart.
func NewFrame(id FrameID, mid parser.MethodID, h *parser.Header) Frame {
	m, ok := h.Method(mid)
	if !ok {
		name := fmt.Sprintf("<unknown method %#x>", uint64(mid))
		return Frame{ID: id, Method: mid, Name: name, Short: name}
	}
	f := Frame{
		ID: id, Method: mid, Known: true,
		Name:  m.Class + "." + m.Name,
		Class: m.Class, Short: m.Name, Signature: m.Signature,
		Line: m.Line, HasLine: m.HasLine,
		File: SourcePath(m.Class, m.Source),
	}
	return f
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
