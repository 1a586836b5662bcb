// Package stream defines the balanced, thread-aware event stream that
// package convert produces and every exporter consumes: the events, the
// thread and frame tables, the repair counts, and the Exporter interface.
// It holds types only, so that exporters depend on it and not on convert,
// and convert can drive (and list) the exporters.
package stream

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/mapping"
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
	// Enclose is an instruction, sent only in one read of the trace (to
	// exporters declared convert.Output.OneRead): frame Frame began at the
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
	ID        parser.ThreadID // the full id from the thread table, else the record id
	Name      string          // from the table, or "thread <id>"
	Listed    bool            // listed in the trace's thread table
	Events    int64           // events in the balanced stream (begins + ends)
	MaxDepth  int             // deepest stack, synthetic frames included
	Orphans   int             // orphan frames opened at the thread's start
	OpenAtEnd int             // frames still open at the end
	LastCPU   int64           // ns: the thread's last thread-CPU time
	LastWall  int64           // ns: the thread's last wall time
}

// Frame is a method that appears in the records.
type Frame struct {
	ID        FrameID
	MethodID  parser.MethodID
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
}

// Trace is what exporters get before the first event: the tables, the clocks
// and the repair counts, all complete after a first pass (in one read they
// are complete at Finish; see Exporter).
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

	// Mapping is the map that named the frames (convert.Options.Mapping),
	// nil when none did; Deobf counts how it resolved the methods of the
	// listed frames, one per distinct method used (zero without a map).
	Mapping *mapping.Map
	Deobf   mapping.Counts

	// Focus says what --thread, --from/--to and --root kept; zero without
	// a focus.
	Focus FocusStats
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

// Exporter consumes the balanced event stream. Begin gets the tables
// before the first event, complete unless the exporter was declared able to
// take the stream in one read (convert.Output says how; then they grow
// until Finish). Begin also forgets whatever an earlier Begin left, so
// that a read can start over. Events gets a batch of events in order, in a
// slice that is reused after the call returns. Finish flushes or builds
// the output.
//
// With more than one CPU, convert.Run calls Events on a goroutine of its
// own, after Begin and before Finish, one call at a time. In one read the
// pass is then still appending to the Trace's Threads and Frames and
// updating WallEnd and Stats, so an exporter that aggregates must read the
// Trace only in Begin and Finish; a timeline in a speculative read may
// read the frames and the Index, ID, Name and Listed of the threads in
// Events (convert keeps a copy up to date for it).
type Exporter interface {
	Begin(t *Trace) error
	Events(evs []Event) error
	Finish() error
}

// NewFrame names a method; an id missing from the table gets a name that
// still tells methods apart.
func NewFrame(id FrameID, mid parser.MethodID, h *parser.Header) Frame {
	m, ok := h.Method(mid)
	if !ok {
		name := fmt.Sprintf("<unknown method %#x>", uint64(mid))
		return Frame{ID: id, MethodID: mid, Name: name, Method: name}
	}
	f := Frame{
		ID: id, MethodID: mid, Listed: true,
		Name:  m.Class + "." + m.Name,
		Class: m.Class, Method: m.Name, Signature: m.Signature,
		Line: m.Line, HasLine: m.HasLine,
		File: SourcePath(m.Class, m.Source),
	}
	return f
}

// NewMappedFrame is NewFrame with the method named as m resolves it
// (docs/formats.md §19); m nil gives NewFrame's frame. It reports how m
// resolved the method, and ok false, with NewFrame's frame, when there is
// no map or the method is not in the table.
func NewMappedFrame(id FrameID, mid parser.MethodID, h *parser.Header, m *mapping.Map) (f Frame, s mapping.Status, ok bool) {
	f = NewFrame(id, mid, h)
	if m == nil || !f.Listed {
		return f, 0, false
	}
	pm, _ := h.Method(mid)
	res := m.Resolve(MappingMethod(pm))
	f.Rename(res)
	return f, res.Status, true
}

// MappingMethod is a method of the table as package mapping takes it.
func MappingMethod(m *parser.Method) mapping.Method {
	return mapping.Method{Class: m.Class, Name: m.Name, Signature: m.Signature, Source: m.Source}
}

// MappingMethods lists the header's methods as package mapping takes them.
func MappingMethods(h *parser.Header) []mapping.Method {
	ms := make([]mapping.Method, len(h.Methods))
	for i := range h.Methods {
		ms[i] = MappingMethod(&h.Methods[i])
	}
	return ms
}

// Rename names the frame of a method as a mapping resolved it: the
// original name, class, method and signature, and the source path of the
// owner class (SourcePath), keeping the trace's own name and descriptor in
// Obfuscated and ObfuscatedSignature. An Untouched method keeps the frame
// as it is.
func (f *Frame) Rename(res mapping.Result) {
	if res.Status == mapping.Untouched {
		return
	}
	f.Obfuscated, f.ObfuscatedSignature = f.Name, f.Signature
	f.Name, f.Class, f.Method, f.Signature = res.Name, res.Class, res.Method, res.Signature
	f.File = SourcePath(res.Class, res.Source)
	f.Synthesized = res.Synthesized
}

// DeobfSummary is one line on how the mapping named the methods, or ""
// when no mapping did: "deobfuscated with mapping.txt (map id 7fe8b95):
// 812 methods mapped, 3 by name only, 1 ambiguous, 40 class only, 2,911
// untouched".
func (t *Trace) DeobfSummary() string {
	if t.Mapping == nil {
		return ""
	}
	return DeobfSummary(t.Mapping, &t.Deobf)
}

// DeobfSummary is Trace.DeobfSummary for any map and counts.
func DeobfSummary(m *mapping.Map, c *mapping.Counts) string {
	id := ""
	if m.ID != "" {
		id = " (map id " + m.ID + ")"
	}
	n := func(s mapping.Status) string { return units.Count(int64(c[s])) }
	methods := "methods"
	if c[mapping.Mapped] == 1 {
		methods = "method"
	}
	return fmt.Sprintf("deobfuscated with %s%s: %s %s mapped, %s by name only, %s ambiguous, %s class only, %s untouched",
		m.Name, id, n(mapping.Mapped), methods, n(mapping.NameOnly), n(mapping.Ambiguous), n(mapping.ClassOnly), n(mapping.Untouched))
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
