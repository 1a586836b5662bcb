package speedscope

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/atrace2/atrace2/internal/varint"
	"github.com/atrace2/atrace2/stream"
)

// Schema is the exact $schema speedscope uses to recognise its own format
// when the file name does not end in .speedscope.json (docs/outputs.md §3.3).
const Schema = "https://www.speedscope.app/file-format-schema.json"

// DefaultMemory is the default total size of the per-thread event buffers.
const DefaultMemory = 16 << 20

// Block sizes bound what one thread holds before spilling: small enough
// that thousands of threads fit the budget, large enough that a spilled
// block is one efficient write.
const (
	minBlock = 4 << 10
	maxBlock = 1 << 20
)

// Options change the file the exporter writes.
type Options struct {
	// Exporter is written as the file's "exporter" field, for example
	// "atrace2@v1.0.0"; "" leaves the field out.
	Exporter string
	// Name is the file's "name", which speedscope shows in the page title.
	// "" means the trace's base name followed by the clock, as in
	// "app.trace (wall clock)".
	Name string
	// TempDir is where the spool file goes; "" means the system's default.
	TempDir string
	// Memory is the total size in bytes of the per-thread event buffers
	// before they spill to the spool file; 0 means DefaultMemory.
	Memory int
	// Value picks the timeline's clock (--clock): by default wall time
	// when the trace has it, else thread CPU time. A timeline is on one
	// clock: off-CPU time, which is per stack, is refused (a
	// *stream.ValueError), as is a clock the trace lacks.
	Value stream.Value
}

// Exporter is a stream.Exporter that writes a speedscope file at Finish.
// It takes the stream in one read (convert.Aggregate): it needs the
// complete tables only when it writes. Call Close when the conversion fails
// before Finish, to remove the spool.
type Exporter struct {
	w        io.Writer
	opt      Options
	t        *stream.Trace
	cpu      bool // the timeline is thread CPU time
	threads  []threadBuf
	block    int // bytes a thread buffers before spilling
	sized    int // the block size the buffers were last cut to
	sp       spool
	subMicro int64 // OR of every step's ns past whole µs: nonzero means write ns
}

var _ stream.Exporter = (*Exporter)(nil)

// threadBuf is one thread's encoded events: spilled blocks, then buf.
type threadBuf struct {
	buf     []byte
	blocks  []block
	orphans []stream.FrameID // one pass: orphan exits in the order found
	last    int64            // time of the thread's previous event, ns
	busy    int64            // time with a frame open, ns
}

// slack is the room past a block for the event that fills it.
const slack = 2 * varint.MaxLen

// New returns an exporter that writes to w.
func New(w io.Writer, opt Options) *Exporter {
	if opt.Memory <= 0 {
		opt.Memory = DefaultMemory
	}
	return &Exporter{w: w, opt: opt, sp: spool{dir: opt.TempDir}}
}

// CPUTimeline reports whether a trace's events are placed on thread CPU
// time rather than wall time by default: only when the trace has no wall
// clock.
func CPUTimeline(t *stream.Trace) bool { return !t.HasWall && t.HasCPU }

// Refuse is the *stream.ValueError of a value that speedscope cannot show
// whatever the trace, nil for the others: the off-CPU time, which is per
// stack, while its timeline is on one clock.
func Refuse(v stream.Value) error {
	if v == stream.ValueOffCPU {
		return &stream.ValueError{Value: v, View: "speedscope", Why: "its timeline is on one clock (folded, top or pprof show off-CPU time)"}
	}
	return nil
}

// cpuTimeline reports whether the events of t are placed on thread CPU
// time for value v, or why they cannot be shown for it.
func cpuTimeline(t *stream.Trace, v stream.Value) (bool, error) {
	if err := Refuse(v); err != nil {
		return false, err
	}
	wall, cpu, err := v.Clocks(t)
	if err != nil {
		return false, err
	}
	return cpu && !wall, nil
}

// ProfileName is the name of a thread's profile: "main (tid 4821)".
func ProfileName(th *stream.Thread) string {
	return fmt.Sprintf("%s (tid %d)", th.Name, th.ID)
}

// Begin forgets any earlier events (a read that starts over, see
// convert.Output) and sizes the buffers of the threads known so far: all
// of them in two reads, none in one. The frames are de-duplicated at
// Finish, when the table is complete in both cases.
func (e *Exporter) Begin(t *stream.Trace) error {
	if e.t != nil {
		if err := e.Close(); err != nil {
			return err
		}
		*e = *New(e.w, e.opt)
	}
	e.t = t
	cpu, err := cpuTimeline(t, e.opt.Value)
	if err != nil {
		return err
	}
	e.cpu = cpu
	e.sized = blockSize(e.opt.Memory, len(t.Threads))
	return e.grow(len(t.Threads))
}

// blockSize shares the memory budget between n threads.
func blockSize(memory, n int) int {
	return min(max(memory/max(n, 1), minBlock), maxBlock)
}

// Events takes a batch of events; the names wait for Finish.
func (e *Exporter) Events(b *stream.Batch) error {
	evs := b.Events
	for len(evs) > 0 {
		n := 1 // events come in runs of one thread
		for n < len(evs) && evs[n].Thread == evs[0].Thread {
			n++
		}
		if err := e.run(evs[:n]); err != nil {
			return err
		}
		evs = evs[n:]
	}
	return nil
}

// run appends events of one thread to its buffer, each as two uvarints: a
// code, the stream FrameID shifted left by two with the kind in bit 1
// (Begin 0; End and Enclose, which close a frame, 1) and the unit of the
// step in bit 0 (0: µs, 1: ns), then the time since the thread's previous
// event in that unit. A step of whole µs, as all are in a trace recorded
// in µs, is written in µs: one byte up to 127 µs, where ns took two or
// three, so the spool is a quarter smaller. The thread's state is kept in
// locals for the run.
func (e *Exporter) run(evs []stream.Event) error {
	th := int(evs[0].Thread)
	if th >= len(e.threads) {
		if err := e.grow(th + 1); err != nil {
			return err
		}
	}
	tb := &e.threads[th]
	if tb.buf == nil {
		tb.buf = make([]byte, 0, min(e.block, minBlock)+slack)
	}
	buf, last, busy, subMicro := tb.buf, tb.last, tb.busy, e.subMicro
	limit := e.limit(buf)
	for i := range evs {
		ev := &evs[i]
		at := ev.Wall
		if e.cpu {
			at = ev.CPU
		}
		at = max(at, last) // the stream never goes back; stay safe if it did
		open, closes := ev.Depth, uint64(0)
		if ev.Kind != stream.Begin {
			open, closes = open+1, 1
		}
		if open > 0 {
			busy += at - last
		}
		if ev.Kind == stream.Enclose {
			// Two passes open the orphan at the thread's start (write does
			// the same), so everything until its exit was inside a frame.
			busy = at
			tb.orphans = append(tb.orphans, ev.Frame)
		}
		// A thread's times start at 0, so they are all whole µs when
		// every step is.
		step := uint64(at - last)
		us := step / 1000
		code, v := uint64(ev.Frame)<<2|closes<<1, us
		if sub := step - us*1000; sub != 0 {
			code, v = code|1, step
			subMicro |= int64(sub)
		}
		// A buffer holds less than its capacity less the slack: it grows
		// or is spilled once it holds that much (limit). So the slack
		// has room for the event, even after more threads have made the
		// block smaller.
		room := buf[len(buf) : len(buf)+slack]
		k := varint.PutUvarint(room, 0, code)
		k = varint.PutUvarint(room, k, v)
		buf = buf[:len(buf)+k]
		last = at
		if len(buf) >= limit {
			tb.buf, tb.last, tb.busy, e.subMicro = buf, last, busy, subMicro
			if err := e.full(tb); err != nil {
				return err
			}
			buf = tb.buf
			limit = e.limit(buf)
		}
	}
	tb.buf, tb.last, tb.busy, e.subMicro = buf, last, busy, subMicro
	return nil
}

// limit is the length at which a thread's buffer grows or is spilled: the
// block, or less while the buffer is smaller than a block.
func (e *Exporter) limit(buf []byte) int { return min(cap(buf)-slack, e.block) }

// full grows a thread's buffer that is smaller than a block to a block, or
// spills it once it holds a block. A thread's buffer starts at minBlock, so
// that a trace of many threads with a few events each holds a few
// kilobytes per thread, not a block each; a thread that fills that gets
// its whole block at once: growing by doubling left a block's worth of
// garbage per thread, which raised the peak RSS of ordinary conversions
// (docs/performance.md §5; atrace2-bench's speedscope rows guard it).
func (e *Exporter) full(tb *threadBuf) error {
	if len(tb.buf) >= e.block {
		return e.spill(tb)
	}
	tb.buf = append(make([]byte, 0, e.block+slack), tb.buf...)
	return nil
}

// grow makes room for threads up to n-1. In one pass threads appear as the
// trace is read, so each one shrinks the share of the others; once the
// share has fallen by a quarter, the buffers are cut down to it, which
// keeps their total near the budget.
func (e *Exporter) grow(n int) error {
	if n > len(e.threads) {
		e.threads = append(e.threads, make([]threadBuf, n-len(e.threads))...)
	}
	e.block = blockSize(e.opt.Memory, n)
	if e.block*4 >= e.sized*3 {
		return nil
	}
	e.sized = e.block
	for i := range e.threads {
		if err := e.shrink(&e.threads[i]); err != nil {
			return err
		}
	}
	return nil
}

// shrink cuts a thread's buffer down to the current block size, spilling
// it first if it holds a block's worth already.
func (e *Exporter) shrink(tb *threadBuf) error {
	if cap(tb.buf) <= e.block+slack {
		return nil
	}
	if len(tb.buf) >= e.block {
		if err := e.spill(tb); err != nil {
			return err
		}
	}
	if len(tb.buf) == 0 {
		tb.buf = nil // allocated again at the thread's next event
		return nil
	}
	tb.buf = append(make([]byte, 0, e.block+slack), tb.buf...)
	return nil
}

// spill moves a thread's buffer to the spool file.
func (e *Exporter) spill(tb *threadBuf) error {
	b, err := e.sp.write(tb.buf)
	if err != nil {
		return err
	}
	tb.blocks = append(tb.blocks, b)
	tb.buf = tb.buf[:0]
	return nil
}

// Finish writes the whole file, with t's complete tables, and removes the
// spool.
func (e *Exporter) Finish(t *stream.Trace) error {
	e.t = t
	err := e.write()
	if cerr := e.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close removes the spool file; it is safe to call more than once.
func (e *Exporter) Close() error { return e.sp.close() }

// name is the file's group name.
func (e *Exporter) name() string {
	if e.opt.Name != "" {
		return e.opt.Name
	}
	base := filepath.Base(e.t.Name)
	if e.t.Name == "-" || e.t.Name == "" {
		base = "stdin"
	}
	if e.cpu {
		return base + " (thread CPU clock)"
	}
	return base + " (wall clock)"
}

// end is a thread's endValue in ns: the trace end on the timeline's clock.
func (e *Exporter) end(th *stream.Thread) int64 {
	if e.cpu {
		return th.LastCPU
	}
	return e.t.WallEnd
}

// active picks the profile to show first: the main thread, else the
// busiest (ties go to the earlier thread).
func (e *Exporter) active() int {
	pid := e.t.Process.PID
	named := -1
	for i := range e.t.Threads {
		th := &e.t.Threads[i]
		if pid > 0 && int64(th.ID) == int64(pid) {
			return i
		}
		if named < 0 && th.Name == "main" {
			named = i
		}
	}
	if named >= 0 {
		return named
	}
	busiest := 0
	for i := range e.threads {
		if e.threads[i].busy > e.threads[busiest].busy {
			busiest = i
		}
	}
	return busiest
}
