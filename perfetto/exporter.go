package perfetto

import (
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/stream"
)

// MaxDepth is trace_processor's nesting limit per track (kMaxDepth in
// slice_tracker.h): a SLICE_BEGIN at depth MaxDepth or deeper is dropped
// there. The exporter folds such frames into their ancestor at depth
// MaxDepth-1 instead of writing them.
const MaxDepth = 512

// NoPID is the pid written when the trace has no pid= key (Dalvik traces).
// It is above Linux's largest pid (2^22), so it never names a real process
// when the file is opened next to a system trace.
const NoPID = 1 << 22

// flushSize is how much output is buffered before a write.
const flushSize = 64 << 10

// The budget of bitset words shared by the threads' frameSets: a fixed
// amount and a word per method, enough for 64 threads' bitsets to cover
// every method whatever else the threads interned.
const (
	spareWords    = 4096
	sparePerFrame = 1
)

// Options configure an Exporter.
type Options struct {
	// ProcessName names the process track. "" uses the trace's file name
	// without its directory and its .trace / .gz extensions.
	ProcessName string
	// Value picks the clocks written (--clock). By default, and for
	// stream.ValueOffCPU, every clock the trace has: the timeline on wall
	// time, else thread CPU time, and with both clocks each thread's CPU
	// time as a counter and each slice's off-CPU time as an arg. One clock
	// alone puts the timeline on it. A clock the trace lacks is an error
	// (a *stream.ValueError) at Begin.
	Value stream.Value

	// reference writes every event with the general encoders, as the
	// atrace2_reference build tag does: tests compare the two.
	reference bool
}

// Exporter writes a Perfetto trace. It implements stream.Exporter.
type Exporter struct {
	w   io.Writer
	opt Options
	t   *stream.Trace // as Begin got it
	// tables are those of the batch being written (stream.Batch):
	// threads start and methods are learnt from them.
	tables *stream.Batch

	cpuTimeline bool   // no wall clock: timestamps are thread-CPU times
	counter     bool   // events carry the thread-time counter
	pid         int32  // the process's pid
	uuidBase    uint64 // process track uuid; threads follow it
	baseNs      int64  // BOOTTIME of the trace start

	threads []thread
	listed  []bool // by FrameID: the method is in the table, so it has a source location
	args    []bool // by FrameID: a mapping renamed or marked the frame, so its slices carry args (appendFrameArgs)
	out     []byte // output not yet written
	pkt     []byte // a descriptor packet being marshalled
	written int64  // bytes written to w
	events  int64  // events written
	folded  int64  // frames not written because they were too deep
	spare   int    // bitset words the threads' frameSets may still take beyond their own allowance
	warns   []string
	err     error
}

// thread is the state of one thread's packet sequence.
type thread struct {
	seq      uint32
	prefix   []byte   // the fields after every event's timestamp: sequence id and flags
	fields   uint64   // the prefix and the track event's tag, as a word (fast.go), when seq < 0x80
	ts       int64    // µs: the last timestamp written (clock 64 is incremental)
	cpu      int64    // µs: the last thread-time counter value written
	interned frameSet // the frames whose name and location are interned
	// withArgs holds the interned frames that carry args (Exporter.args),
	// kept out of interned so that the fast path, which writes no args,
	// leaves their begins to the general one.
	withArgs frameSet
	argNames bool // the names of the frames' args are interned
	open     []openSlice
	folded   int64 // frames folded under the open slice at depth MaxDepth-1
}

// openSlice is where a written slice began, for the annotations of its end.
// child sums, over the slice's closed children, their inclusive wall µs
// minus their inclusive thread-CPU µs (with both clocks only): the
// slice's exclusive off-CPU time at its end is its own inclusive
// difference minus child (offCPU).
type openSlice struct {
	ts, cpu, child int64
	began          stream.Flags // the begin's Cut or Synthetic flag, for a note at the end that must keep it
}

var _ stream.Exporter = (*Exporter)(nil)

// New returns an exporter writing to w. Nothing is written before Begin.
func New(w io.Writer, opts Options) *Exporter {
	return &Exporter{w: w, opt: opts}
}

// Begin forgets what an earlier Begin started, including output not yet
// written (a read that starts over once convert.Output.Restart has taken
// back what was), and writes the process track. Each thread's packet
// sequence and tracks start just before its first event, and each method
// is learnt at its first begin, from the batch's tables: in a single read
// of the trace Begin gets none, and two reads write the same bytes this
// way.
func (e *Exporter) Begin(t *stream.Trace) error {
	*e = Exporter{w: e.w, opt: e.opt, out: e.out[:0], pkt: e.pkt[:0]}
	e.t = t
	wall, cpu, err := e.opt.Value.Clocks(t)
	if err != nil {
		return err
	}
	e.cpuTimeline = !wall && cpu
	e.counter = wall && cpu
	e.setStart()
	e.pid = NoPID
	if pid := t.Process.PID; pid > 0 && pid <= 1<<31-1 {
		e.pid = int32(pid)
	}
	e.uuidBase = 0xA7<<56 | uint64(e.pid)<<24
	e.threads = make([]thread, 0, len(t.Threads))
	e.listed = make([]bool, 0, len(t.Frames))
	e.args = make([]bool, 0, len(t.Frames))
	e.spare = spareWords
	if err := e.writeProcess(); err != nil {
		return err
	}
	return e.maybeFlush()
}

// track starts the sequence of ev's thread and learns ev's method, the
// first time each comes. A thread without events (one a focus left
// nothing of) gets no sequence and no track, as it gets no sample in
// pprof; its state stays the zero thread, whose seq 0 no started one has.
func (e *Exporter) track(ev *stream.Event) error {
	for len(e.threads) <= int(ev.Thread) {
		e.threads = append(e.threads, thread{})
	}
	if e.threads[ev.Thread].seq == 0 {
		if err := e.startThread(int(ev.Thread)); err != nil {
			return err
		}
	}
	for f := len(e.listed); f <= int(ev.Frame); f++ {
		// Small arrays read on every begin, rather than the large Frame.
		fr := &e.tables.Frames[f]
		e.listed = append(e.listed, fr.Listed)
		e.args = append(e.args, renamed(fr) || fr.Synthesized)
		e.spare += sparePerFrame
	}
	return nil
}

// startThread sets up the state of thread i at its first event, and
// writes the start of its sequence.
func (e *Exporter) startThread(i int) error {
	e.threads[i] = thread{seq: 2 + uint32(i)}
	th := &e.threads[i]
	th.prefix = appendField(nil, tagSequenceID, uint64(th.seq))
	th.prefix = append(th.prefix, tagSequenceFlags, seqNeeds)
	if len(th.prefix) == 4 { // a one-byte sequence id
		th.fields = uint64(binary.LittleEndian.Uint32(th.prefix)) | tagTrackEvent<<32
	}
	return e.writeThreadStart(i)
}

// setStart chooses the BOOTTIME of the trace start: the header start time,
// unless it is too large for int64 nanoseconds plus the trace's span.
func (e *Exporter) setStart() {
	start := e.t.Process.StartMicros
	if start >= 1<<53 {
		e.warnf("header start time %d µs is out of range: the timeline starts at 0", start)
		start = 0
	}
	e.baseNs = int64(start) * 1000
}

// Events writes a batch of slice begins and ends:
// runs of common events in the fast encoding, the others one by one.
func (e *Exporter) Events(b *stream.Batch) error {
	e.tables = b
	evs := b.Events
	for i := 0; i < len(evs); i++ {
		if !reference.Only && !e.opt.reference {
			if i += e.fastRun(evs[i:]); i == len(evs) {
				break
			}
		}
		if err := e.general(&evs[i]); err != nil {
			return err
		}
	}
	return e.maybeFlush()
}

// general writes one event with the general encoders.
func (e *Exporter) general(ev *stream.Event) error {
	if e.err != nil {
		return e.err
	}
	if err := e.track(ev); err != nil {
		return err
	}
	th := &e.threads[ev.Thread]
	if ev.Depth >= MaxDepth {
		if ev.Kind == stream.Begin {
			th.folded++
			e.folded++
		}
		return nil
	}
	ts, cpu := ev.Wall/1000, ev.CPU/1000
	if e.cpuTimeline {
		ts = cpu
	}
	if ev.Kind == stream.Begin {
		e.begin(th, ev, ts, cpu)
	} else {
		e.end(th, ev, ts, cpu)
	}
	e.events++
	return e.maybeFlush()
}

// Finish writes what is buffered and notes the folded frames.
func (e *Exporter) Finish(t *stream.Trace) error {
	e.tables = nil
	if e.folded > 0 {
		deepest := &t.Threads[0]
		for i := range t.Threads {
			if t.Threads[i].MaxDepth > deepest.MaxDepth {
				deepest = &t.Threads[i]
			}
		}
		e.warnf("%d frames nested deeper than %d levels were folded into their ancestor at depth %d (see its debug.folded_frames arg), because trace_processor drops deeper slices; the deepest stack has %d frames (thread %q)",
			e.folded, MaxDepth, MaxDepth-1, deepest.MaxDepth, deepest.Name)
	}
	e.flush()
	return e.err
}

// Warnings returns what the caller should tell the user: folded frames, an
// unusable start time. Valid after Finish.
func (e *Exporter) Warnings() []string { return e.warns }

func (e *Exporter) warnf(format string, args ...any) {
	e.warns = append(e.warns, fmt.Sprintf(format, args...))
}

// appendPacket adds one packet to the output as field 1 of Trace.
func (e *Exporter) appendPacket(pkt []byte) {
	e.out = appendVarint(e.out, tagTracePacket)
	e.out = appendVarint(e.out, uint64(len(pkt)))
	e.out = append(e.out, pkt...)
}

func (e *Exporter) maybeFlush() error {
	if len(e.out) >= flushSize {
		e.flush()
	}
	return e.err
}

func (e *Exporter) flush() {
	if e.err != nil || len(e.out) == 0 {
		return
	}
	n, err := e.w.Write(e.out)
	e.written += int64(n)
	if err != nil {
		e.err = fmt.Errorf("writing perfetto trace: %w", err)
	}
	e.out = e.out[:0]
}

// DefaultProcessName is the process name used when Options.ProcessName is
// empty: the trace's file name without directory and extensions.
func DefaultProcessName(traceName string) string {
	if traceName == "" || traceName == "-" {
		return "stdin"
	}
	name := filepath.Base(traceName)
	name = strings.TrimSuffix(name, ".gz")
	for _, ext := range []string{".trace", ".data", ".key"} {
		name = strings.TrimSuffix(name, ext)
	}
	if name == "" {
		return filepath.Base(traceName)
	}
	return name
}
