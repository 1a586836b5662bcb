package convert

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"

	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// Options change how the stream is made.
type Options struct {
	// Strict turns every repair and reader warning into an error.
	Strict bool
	// Progress, when set, is called now and then with the bytes read so far
	// and the bytes the whole run will read (each pass reads the input once).
	Progress func(done, total int64)
	// MaxDepth is the depth limit: frames nested more than MaxDepth deep
	// (orphan frames opened at the thread's start not counted) are folded
	// into the frame at the limit. Their enters and exits are dropped and
	// counted (stream.Stats.DeepFrames), so their time is that frame's self
	// time. A thread's orphan exits after its first MaxDepth are dropped
	// and counted (stream.Stats.DeepOrphans). 0 means DefaultMaxDepth; a
	// value above CorruptDepth is taken as CorruptDepth.
	MaxDepth int
	// Mapping, when set, names each frame as the app's source does
	// (docs/formats.md §19), once, when the frame is made, before any
	// exporter sees it, and counts how it resolved the methods
	// (stream.Trace.Deobf). Read it for the header's whole
	// method table: a streaming file opened without its scan
	// (parser.Options.SkipStreamingScan) defines methods only as the
	// records come. With Strict, a method resolved by name only or
	// ambiguously is an error.
	Mapping *mapping.Map
	// Threads, when set, keeps only the threads it matches (--thread): the
	// records of the others are dropped before the stack policy, so those
	// threads get no stream.ThreadIndex, send no event, and their repairs
	// are not counted; only their wall times still count toward the trace
	// end (stream.Trace.WallEnd). Each thread is matched once, by its id
	// and name when the pass first meets it: read a streaming file with its
	// scan (parser.Options.SkipStreamingScan false), so that the thread
	// table is complete by then. stream.Trace.Focus says how many threads
	// were kept.
	Threads *focus.ThreadFilter
	// Window, when set, keeps only what lies in the closed window
	// [From, To] of the wall clock (--from/--to; focus.NewWindow says
	// how). A trace without a wall clock is then an error
	// (ErrNoWallClock).
	Window *focus.Window
	// Root, when set, keeps only the time spent inside frames whose name
	// it matches, each subtree from its outermost match (--root;
	// focus.Root). With a Window, the window applies first.
	Root *regexp.Regexp

	// The reference paths, which tests set through export_test.go and the
	// atrace2_reference build tag sets everywhere (reference.Only):
	//
	// generalOnly sends every record through pass.record, the policy's
	// general path, and none through fastRecords.
	generalOnly bool
	// twoReads reads the trace twice whatever the outputs can take.
	twoReads bool
	// serial runs the exporters on the caller's goroutine. By default,
	// with more than one CPU, they run on a goroutine of their own, fed in
	// batches, while the caller's decodes and applies the policy
	// (pipeline.go), so the work spreads over two cores; unless every
	// output is Inline.
	serial bool
	// pipelined runs the exporters on a goroutine of their own whatever
	// the outputs, with more than one CPU, for tests that compare the
	// pipeline with one goroutine for every kind of output.
	pipelined bool
}

// Output is an exporter and what it needs of the stream; Run reads the
// trace as few times as every output's needs allow. The zero declaration
// is an exporter that writes as the events come and cannot take that
// back: it gets orphan frames opened at their thread's start, which takes
// two reads of a trace.
type Output struct {
	Exporter stream.Exporter
	// Enclose declares that the exporter takes an orphan exit as a
	// stream.Enclose instruction, when the exit comes: it keeps what it
	// gets until Finish, and can put what the thread did so far under the
	// orphan frame. Without it, an orphan frame is begun at its thread's
	// start, before the thread's first event, which only a read that
	// found the orphan exits beforehand can do.
	Enclose bool
	// Complete declares that the exporter needs the complete Trace at
	// Begin, not the batches' tables (dump prints a legend of the whole
	// trace before the first event): the trace is read twice.
	Complete bool
	// AtFinish declares that the exporter writes nothing before Finish,
	// so that a read can start it over with Begin alone.
	AtFinish bool
	// Restart, for an exporter that writes as the events come, takes back
	// what it wrote, for example by truncating the output file, so that a
	// read can start it over; nil when its output cannot be taken back (a
	// pipe). When every output has Restart, is AtFinish or takes Enclose,
	// Run reads the trace once unless it meets an orphan exit that an
	// output cannot take as Enclose; then it restarts every output and
	// reads again.
	Restart func() error
	// Inline declares an exporter whose work per event is lighter than
	// handing the event to another core: the call tree's few ns an event
	// cost less than the cache lines a 32-byte event crosses between
	// cores (docs/performance.md §3.6). When every output is Inline, Run
	// runs them on the caller's goroutine even with more than one CPU.
	Inline bool
}

// Inlined returns o declared Inline.
func (o Output) Inlined() Output {
	o.Inline = true
	return o
}

// Aggregate declares an exporter that keeps everything until Finish: it
// takes orphan exits as stream.Enclose instructions and writes at Finish
// (see Output.Enclose, Output.AtFinish).
func Aggregate(e stream.Exporter) Output { return Output{Exporter: e, Enclose: true, AtFinish: true} }

// Deferred declares an exporter that needs orphan frames opened at their
// thread's start and writes only at Finish (startup's phases).
func Deferred(e stream.Exporter) Output { return Output{Exporter: e, AtFinish: true} }

// Timeline declares an exporter that writes as the events come, and whose
// output restart takes back (nil when it cannot; see Output.Restart).
func Timeline(e stream.Exporter, restart func() error) Output {
	return Output{Exporter: e, Restart: restart}
}

// DefaultMaxDepth is the depth limit when Options.MaxDepth is 0:
// async-profiler's default stack depth, deeper than the stacks of real
// apps, and low enough that a runaway recursion's stacks, which views
// such as folded stacks write whole (about limit²/2 frames), stay small.
const DefaultMaxDepth = 2048

// CorruptDepth is a nesting depth no real stack reaches: a trace whose
// stack gets this deep, or with this many orphan exits on one thread, is
// refused as corrupt, rather than tracked at a few bytes per level.
const CorruptDepth = 1_000_000

// ErrStrict is wrapped by the error Strict produces.
var ErrStrict = errors.New("strict mode")

// Analyze runs the first pass only: the tables, clocks, per-thread counts
// and repair counts of the trace, without events. With a focus (Window,
// Root) it also reads the trace a second time, to count what the focus
// keeps (stream.Trace.Focus).
func Analyze(f *parser.File, opt Options) (*stream.Trace, error) {
	if opt.focused() {
		return runFocused(f, opt, nil)
	}
	p, err := firstPass(f, opt, 1)
	if err != nil {
		return nil, err
	}
	return p.t, nil
}

func firstPass(f *parser.File, opt Options, passes int64) (*pass, error) {
	p := newPass(f, opt, analyze, nil)
	p.progress, p.total = opt.Progress, passes*f.Size()
	if err := p.run(f); err != nil {
		return nil, err
	}
	p.refresh()
	if opt.Strict {
		if err := strictCheck(p.t); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Run drives every output's exporter with the balanced stream. It reads
// the trace once when every output takes Enclose; once unless the trace
// has orphan exits when every one can start over (Output.Restart); and
// otherwise, or when an output needs the Complete trace at Begin, twice: a
// first pass finds orphan exits, the tables and the trace end, and the
// second sends the events. With a focus (Options.Window, Options.Root) it
// always reads twice, and the events go through the focus stages.
func Run(f *parser.File, opt Options, outs ...Output) (*stream.Trace, error) {
	exps := make([]stream.Exporter, len(outs))
	enclose, restart, inline, complete := len(outs) > 0, len(outs) > 0, len(outs) > 0, false
	for i, o := range outs {
		exps[i] = o.Exporter
		enclose = enclose && o.Enclose
		restart = restart && (o.AtFinish || o.Restart != nil)
		inline = inline && o.Inline
		complete = complete || o.Complete
	}
	if inline && !opt.pipelined {
		opt.serial = true
	}
	switch {
	case opt.focused():
		return runFocused(f, opt, exps)
	case opt.twoReads || referenceOnly || complete:
	case enclose:
		return runOnce(f, opt, exps)
	case restart:
		return runSpeculative(f, opt, outs, exps)
	}
	p, err := firstPass(f, opt, 2)
	if err != nil {
		return nil, err
	}
	p.startSecond(exps)
	return p.t, p.drive(f, exps, false)
}

// runSpeculative reads the trace once for exporters that can start over
// (Output.Restart, Output.AtFinish), on the chance that it has no orphan
// exit: recent ART traces have none. The pass counts as a first pass does
// while it sends; at an orphan exit it stops sending (abandonSpeculation)
// and goes on counting to the end, and a second read sends the stream
// again. A trace with orphans costs the events sent before the first of
// them, which is usually near the start: the frames running when tracing
// began end first.
func runSpeculative(f *parser.File, opt Options, outs []Output, exps []stream.Exporter) (*stream.Trace, error) {
	p := newPass(f, opt, speculative, exps)
	p.progress, p.total = opt.Progress, f.Size()
	if err := p.drive(f, exps, opt.Strict); err != nil || p.mode != abandoned {
		return p.t, err
	}
	for _, o := range outs {
		if o.Restart != nil {
			if err := o.Restart(); err != nil {
				return nil, err
			}
		}
	}
	p.startSecond(exps)
	return p.t, p.drive(f, exps, false)
}

// runOnce reads the trace once for exporters that aggregate: they get the
// tables with the batches, the complete Trace at Finish, and orphan exits
// as stream.Enclose instructions when they are found, not as frames opened
// at the thread's start. Reading once halves the work.
func runOnce(f *parser.File, opt Options, exps []stream.Exporter) (*stream.Trace, error) {
	p := newPass(f, opt, oneRead, exps)
	p.progress, p.total = opt.Progress, f.Size()
	return p.t, p.drive(f, exps, opt.Strict)
}

// drive runs the sending pass between the exporters' Begin and Finish.
// strict checks the repairs before Finish, when this pass also counts them.
func (p *pass) drive(f *parser.File, exps []stream.Exporter, strict bool) error {
	begin := p.t
	if p.mode.counts() {
		// The pass makes the Trace as it goes: the exporters get what is
		// known before the first record, which nothing changes.
		known := *p.t
		begin = &known
	}
	for _, e := range exps {
		if err := e.Begin(begin); err != nil {
			return err
		}
	}
	if p.parallel {
		p.pipe = newPipeline(exps)
		p.out = make([]stream.Event, 0, pipeBatch)
	}
	err := p.run(f)
	if p.pipe != nil {
		// An exporter's error wins over a later reader error, as it does on
		// one goroutine: the events it failed on came first.
		if perr := p.pipe.close(); perr != nil {
			err = perr
		}
		p.pipe = nil
	}
	p.refresh()
	if err != nil {
		return err
	}
	if strict {
		if err := strictCheck(p.t); err != nil {
			return err
		}
	}
	if p.mode == abandoned {
		return nil // the exporters start over (runSpeculative)
	}
	if p.progress != nil {
		// The reading is over, even when the last record ended before the
		// end of the file: a progress line then shows what Finish writes.
		p.progress(p.total, p.total)
	}
	for _, e := range exps {
		if err := e.Finish(p.t); err != nil {
			return err
		}
	}
	return nil
}

func strictCheck(t *stream.Trace) error {
	if s := t.Stats.Summary(); s != "" {
		return fmt.Errorf("%w: the trace needed repairs: %s", ErrStrict, s)
	}
	if len(t.Warnings) > 0 {
		return fmt.Errorf("%w: %s", ErrStrict, t.Warnings[0])
	}
	if d := t.Deobf; d != nil && d.NameOnly+d.Ambiguous > 0 {
		n, a := d.NameOnly, d.Ambiguous
		return fmt.Errorf("%w: the mapping resolved %d methods by name only (no descriptor matched) and %d ambiguously", ErrStrict, n, a)
	}
	return nil
}

// mode is what a pass does:
//
//	mode         counts  sends  at an orphan exit                    then
//	analyze      yes     no     notes it                             -
//	secondOfTwo  no      yes    ends the frame opened at the start   -
//	oneRead      yes     yes    notes it, sends a stream.Enclose     -
//	speculative  yes     yes    notes it, abandonSpeculation         abandoned
//	abandoned    yes     no     notes it                             a second read
//
// Counting builds the Trace (threads, frames, per-thread counts, WallEnd,
// Sampling) and the repair counts. secondOfTwo finds them made by the
// analyze pass before it, opens each thread's orphan frames before its
// first record (pass.start), and counts its repairs in secondPassStats.
type mode uint8

// The modes that send come last, so that sends is one comparison.
const (
	analyze     mode = iota // Analyze, and the first of two reads
	abandoned               // speculative after an orphan exit
	secondOfTwo             // the second of two reads, after analyze
	oneRead                 // the only read, for exporters that aggregate
	speculative             // the only read unless an orphan exit comes
)

// counts reports whether the pass builds the Trace and counts repairs.
func (m mode) counts() bool { return m != secondOfTwo }

// sends reports whether the pass sends events to the exporters.
func (m mode) sends() bool { return m >= secondOfTwo }

// pass is one walk over the records, in one mode.
type pass struct {
	t        *stream.Trace
	h        *parser.Header
	mode     mode
	parallel bool // run the exporters on a goroutine of their own
	exps     []stream.Exporter
	stats    *stream.Stats
	// secondPassStats is where secondOfTwo counts: the first pass's counts
	// stand.
	secondPassStats stream.Stats
	// sink takes the events fastRecords writes in a pass that sends none
	// (analyze and abandoned), so that the loop has no branch on whether
	// it sends: writing them costs such a pass less than the branch and
	// the register would cost every sending pass. It is small enough for
	// the L1 cache. BenchmarkAnalyze and BenchmarkConvert guard it.
	sink [512]stream.Event
	// table holds the thread states by record id below threadTableLimit,
	// growing to the largest id met; threads holds the others (V2's 32-bit
	// tids), nil until one comes. Every record looks up its thread, so a
	// map lookup per record took a quarter of the CPU on traces that
	// switch thread at every record (BenchmarkAnalyze/interleaved).
	table     []*threadState
	threads   map[parser.ThreadID]*threadState
	nthreads  int            // states in table and threads, those the filter drops included
	order     []*threadState // by ThreadIndex
	frames    map[parser.MethodID]stream.FrameID
	unit      int64               // ns per tick of the record times
	maxTicks  uint64              // the largest time that converts to ns without overflow
	wrap32    bool                // the record times are 32-bit counters that wrap
	general   bool                // Options.generalOnly
	keep      *focus.ThreadFilter // Options.Threads
	maxDepth  int                 // Options.MaxDepth, resolved: frames at stack index floor+maxDepth or deeper are not sent
	fastDepth int                 // min(maxDepth, deepScan): fastRecords takes no record that reaches it

	frameCache [frameCacheSize]frameSlot
	dense      []stream.FrameID // by method id >> 2: FrameID+1, 0 when unseen
	out        []stream.Event   // events not yet given to the exporters
	batch      stream.Batch     // the batch being given to the exporters, on the caller's goroutine
	pipe       *pipeline        // the exporters' goroutine, when they run on one
	err        error
	probe      samplingProbe

	// mapping is Options.Mapping; deobf counts how it resolved the
	// methods of the frames, and mapped holds, per frame, how it resolved
	// its method (mapping.Status+1), 0 when it did not (an unknown
	// method); nil without a mapping. refresh corrects the counts with it,
	// and gives them to the Trace.
	mapping *mapping.Map
	deobf   mapping.Counts
	mapped  []uint8

	lateFrames  []stream.FrameID  // frames made before their method's definition (define.go)
	lateThreads []parser.ThreadID // threads met before their definition

	progress    func(done, total int64)
	done, total int64 // bytes read by earlier passes; bytes all passes read
}

func newPass(f *parser.File, opt Options, m mode, exps []stream.Exporter) *pass {
	h := f.Header
	p := &pass{
		h:        h,
		mapping:  opt.Mapping,
		frames:   make(map[parser.MethodID]stream.FrameID),
		unit:     max(int64(h.TimeUnit), 1),
		wrap32:   h.TimeBits == 32,
		parallel: !opt.serial && !referenceOnly && runtime.GOMAXPROCS(0) > 1,
		general:  opt.generalOnly || referenceOnly,
		exps:     exps,
		maxDepth: opt.MaxDepth,
		keep:     opt.Threads,
	}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	p.maxDepth = min(p.maxDepth, CorruptDepth)
	p.fastDepth = min(p.maxDepth, deepScan)
	p.maxTicks = uint64(math.MaxInt64 / p.unit)
	p.t = &stream.Trace{Name: f.Name, Size: f.Size(), Process: process(h), HasWall: h.Clock.HasWall(), HasCPU: h.Clock.HasCPU()}
	if p.keep != nil {
		p.t.Focus.ThreadPatterns = p.keep.Patterns()
	}
	p.stats = &p.t.Stats
	p.mode = m
	if p.mode.sends() {
		p.out = make([]stream.Event, 0, batchSize)
	}
	return p
}

// batchSize is the number of records decoded at once.
const batchSize = 1024

// noFrame stands for the top of an empty stack: frame ids are never negative.
const noFrame = ^stream.FrameID(0)

const (
	frameCacheSize = 4096
	denseLimit     = 1 << 20 // ids below 4Mi (index<<2) use the dense table
)

// frameSlot caches one method id's frame; frame is FrameID+1, 0 when empty.
type frameSlot struct {
	id    parser.MethodID
	frame stream.FrameID
}

// startSecond rewinds the thread states for the emitting pass.
func (p *pass) startSecond(exps []stream.Exporter) {
	p.mode = secondOfTwo
	p.exps, p.stats = exps, &p.secondPassStats
	p.out = make([]stream.Event, 0, batchSize)
	p.done += p.t.Size
	for _, th := range p.order {
		th.stack, th.floor, th.started, th.fast, th.deep = th.stack[:0], 0, false, false, nil
		th.cpu, th.wall = unwrapper{}, unwrapper{}
	}
}

func (p *pass) run(f *parser.File) error {
	r := f.NewReader()
	err := p.read(r)
	if p.mode.counts() {
		p.t.WallEnd = p.wallEnd()
	}
	if err != nil {
		return err
	}
	if p.mode.counts() {
		// A growing input (parser.NewGrowingFile) has its size once read.
		p.t.Size = f.Size()
	}
	for _, th := range p.order {
		p.finish(th)
	}
	if p.mode.sends() {
		p.flush()
	}
	if p.mode.counts() {
		p.stats.LostBytes = r.LostBytes()
		p.stats.Overflow = f.Header.DataFileOverflow()
		p.t.Warnings = slices.Clone(f.Header.Warnings)
		p.t.Sampling = p.probe.result()
		if p.keep != nil {
			p.t.Focus.ThreadsKept, p.t.Focus.ThreadsTotal = len(p.t.Threads), p.nthreads
		}
	}
	return p.err
}

// wallEnd is the trace end: the largest wall time of any record, that is
// the last of some thread's, as a thread's clock never goes back. The
// threads the filter drops count (skipped). Taking it once at the end of
// the pass spares the policy a comparison per record or run.
func (p *pass) wallEnd() int64 {
	var end uint64
	for _, th := range p.table {
		if th != nil {
			end = max(end, th.wall.last)
		}
	}
	for _, th := range p.threads {
		end = max(end, th.wall.last)
	}
	return nanos(end, p.unit, p.maxTicks)
}

// threadTableLimit bounds the record ids that pass.table holds: every id
// of a v1–v3 record (16 bits). The table grows to the largest id met, at
// most 512 KiB; ART numbers its threads from 1, so it is usually a few
// hundred bytes.
const threadTableLimit = 1 << 16

// lookup finds the state of a thread met before by its record id, or nil.
func (p *pass) lookup(rid parser.ThreadID) *threadState {
	if rid < parser.ThreadID(len(p.table)) {
		return p.table[rid]
	}
	if rid < threadTableLimit {
		return nil
	}
	return p.threads[rid]
}

// thread finds a thread's state by its record id, creating it on first sight
// (only the first pass can meet a new thread: in a second, it is nil, and
// the trace changed). A thread the filter (Options.Threads) drops gets a
// state marked skip, outside the Trace's threads.
func (p *pass) thread(rid parser.ThreadID) *threadState {
	if th := p.lookup(rid); th != nil {
		return th
	}
	return p.newThread(rid)
}

// newThread makes the state of a thread met for the first time.
func (p *pass) newThread(rid parser.ThreadID) *threadState {
	if p.mode == secondOfTwo {
		p.changed()
		return nil
	}
	t := p.t
	info := stream.Thread{Index: stream.ThreadIndex(len(t.Threads)), ID: stream.ThreadID(rid)}
	if lt, ok := p.h.Thread(rid); ok {
		info.ID, info.Name, info.Listed = stream.ThreadID(lt.ID), lt.Name, true
	} else {
		info.Name = fmt.Sprintf("thread %d", rid)
	}
	if p.keep != nil {
		keep, byPID := p.keep.KeepInProcess(int64(info.ID), int64(p.t.Process.PID), info.Name)
		if !keep {
			if p.mode.counts() {
				p.t.Focus.Dropped = append(p.t.Focus.Dropped, stream.Thread{ID: info.ID, Name: info.Name, Listed: info.Listed})
			}
			th := &threadState{skip: true}
			p.addThread(rid, th)
			return th
		}
		if byPID {
			p.t.Focus.MainByPID = info.Name
		}
	}
	if !info.Listed {
		p.stats.UnknownThreads++
	}
	t.Threads = append(t.Threads, info)
	th := &threadState{idx: info.Index}
	p.addThread(rid, th)
	p.order = append(p.order, th)
	return th
}

// addThread files a new thread state under its record id.
func (p *pass) addThread(rid parser.ThreadID, th *threadState) {
	p.nthreads++
	if rid >= threadTableLimit {
		if p.threads == nil {
			p.threads = make(map[parser.ThreadID]*threadState)
		}
		p.threads[rid] = th
		return
	}
	if int(rid) >= len(p.table) {
		p.table = append(p.table, make([]*threadState, int(rid)+1-len(p.table))...)
	}
	p.table[rid] = th
}

// frame finds the frame of a method id, creating it on first sight.
func (p *pass) frame(mid parser.MethodID) stream.FrameID {
	// ART's ids are index<<2: a dense table, small enough for the L1 cache.
	if i := mid >> 2; i < denseLimit {
		if i < parser.MethodID(len(p.dense)) && p.dense[i] != 0 {
			return p.dense[i] - 1
		}
		id := p.newFrame(mid)
		if i >= parser.MethodID(len(p.dense)) {
			p.dense = append(p.dense, make([]stream.FrameID, int(i)+1-len(p.dense))...)
		}
		p.dense[i] = id + 1
		return id
	}
	// Pointers (Dalvik, early ART): a direct-mapped cache in front of a map.
	slot := &p.frameCache[(mid>>2)%frameCacheSize]
	if slot.id == mid && slot.frame != 0 {
		return slot.frame - 1
	}
	id, ok := p.frames[mid]
	if !ok {
		id = p.newFrame(mid)
		p.frames[mid] = id
	}
	*slot = frameSlot{mid, id + 1}
	return id
}

// newFrame adds the frame of a method id seen for the first time (only the
// first pass can meet one: in a second, it is noFrame, and the trace
// changed).
func (p *pass) newFrame(mid parser.MethodID) stream.FrameID {
	if p.mode == secondOfTwo {
		p.changed()
		return noFrame
	}
	id := stream.FrameID(len(p.t.Frames))
	var fr stream.Frame
	if p.mapping == nil {
		fr = tableFrame(id, mid, p.h)
	} else {
		fr = p.newMappedFrame(id, mid)
	}
	if !fr.Listed {
		p.stats.UnknownMethods++
	}
	p.t.Frames = append(p.t.Frames, fr)
	return id
}

// newMappedFrame makes a frame named by the mapping, and counts how the
// mapping resolved its method.
func (p *pass) newMappedFrame(id stream.FrameID, mid parser.MethodID) stream.Frame {
	fr, s, ok := newMappedFrame(id, mid, p.h, p.mapping)
	var m uint8
	if ok {
		p.deobf.Add(s)
		m = uint8(s) + 1
	}
	p.mapped = append(p.mapped, m)
	return fr
}
