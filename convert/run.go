package convert

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/parser"
)

// Options change how the stream is made.
type Options struct {
	// Strict turns every repair and reader warning into an error.
	Strict bool
	// TwoPasses makes exporters that could take the stream in one pass get
	// it as the others do (tests compare the two).
	TwoPasses bool
	// Serial decodes, applies the policy and runs the exporters on the
	// caller's goroutine. By default, with more than one CPU, records are
	// decoded on a goroutine of their own and the exporters run on another,
	// each fed in batches, so the work spreads over the cores.
	Serial bool
	// Progress, when set, is called now and then with the bytes read so far
	// and the bytes the whole run will read (each pass reads the input once).
	Progress func(done, total int64)

	// generalOnly sends every record through pass.record, the policy's
	// general path, and none through fastRecords: tests compare the two.
	generalOnly bool
}

// ErrStrict is wrapped by the error Strict produces.
var ErrStrict = errors.New("strict mode")

// Analyze runs the first pass only: the tables, clocks, per-thread counts
// and repair counts of the trace, without events.
func Analyze(f *parser.File, opt Options) (*stream.Trace, error) {
	p, err := firstPass(f, opt, 1)
	if err != nil {
		return nil, err
	}
	return p.t, nil
}

func firstPass(f *parser.File, opt Options, passes int64) (*pass, error) {
	p := newPass(f, opt)
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

// Run drives every exporter with the balanced stream. When every exporter
// is a stream.OnePassExporter it reads the trace once; when every one is a
// stream.RewindableExporter, once unless the trace has orphan exits;
// otherwise twice: a first pass finds orphan exits, the tables and the
// trace end, and the second sends the events.
func Run(f *parser.File, opt Options, exps ...stream.Exporter) (*stream.Trace, error) {
	switch {
	case opt.TwoPasses:
	case onePassAll(exps):
		return runOnce(f, opt, exps)
	case rewindableAll(exps):
		return runHopeful(f, opt, exps)
	}
	p, err := firstPass(f, opt, 2)
	if err != nil {
		return nil, err
	}
	p.startSecond(exps)
	return p.t, p.drive(f, exps, false)
}

// onePassAll reports whether every exporter takes the stream in one pass.
func onePassAll(exps []stream.Exporter) bool {
	for _, e := range exps {
		if _, ok := e.(stream.OnePassExporter); !ok {
			return false
		}
	}
	return len(exps) > 0
}

// rewindableAll reports whether every exporter can take back what it
// wrote.
func rewindableAll(exps []stream.Exporter) bool {
	for _, e := range exps {
		if r, ok := e.(stream.RewindableExporter); !ok || !r.CanRewind() {
			return false
		}
	}
	return len(exps) > 0
}

// runHopeful reads the trace once for timelines that can take back what
// they wrote (stream.RewindableExporter), in the hope that it has no orphan
// exit: recent ART traces have none. The pass counts as a first pass does
// while it sends; at an orphan exit it stops sending (miss) and goes on
// counting to the end, and a second read sends the stream again. A trace
// with orphans costs the events sent before the first of them, which is
// usually near the start: the frames running when tracing began end first.
// In each of the six corpus traces with orphan exits (Dalvik, and ART of
// 2018), the first comes before a batch of events has gone out.
func runHopeful(f *parser.File, opt Options, exps []stream.Exporter) (*stream.Trace, error) {
	p := newPass(f, opt)
	p.emit, p.hopeful, p.exps = true, true, exps
	p.out = make([]stream.Event, 0, batchSize)
	p.progress, p.total = opt.Progress, f.Size()
	if err := p.drive(f, exps, opt.Strict); err != nil || !p.missed {
		return p.t, err
	}
	for _, e := range exps {
		if err := e.(stream.RewindableExporter).Rewind(); err != nil {
			return nil, err
		}
	}
	p.hopeful, p.missed = false, false
	p.startSecond(exps)
	return p.t, p.drive(f, exps, false)
}

// runOnce reads the trace once for exporters that aggregate: they get the
// Trace at Begin with tables that grow until Finish, and orphan exits as
// stream.Orphan events when they are found, not as frames opened at the
// thread's start. Reading once halves the work.
func runOnce(f *parser.File, opt Options, exps []stream.Exporter) (*stream.Trace, error) {
	p := newPass(f, opt)
	p.emit, p.onePass, p.exps = true, true, exps
	p.out = make([]stream.Event, 0, batchSize)
	p.progress, p.total = opt.Progress, f.Size()
	return p.t, p.drive(f, exps, opt.Strict)
}

// drive runs the emitting pass between the exporters' Begin and Finish.
// strict checks the repairs before Finish, when this pass also counts them.
func (p *pass) drive(f *parser.File, exps []stream.Exporter, strict bool) error {
	t := p.t
	if p.hopeful && p.parallel {
		// The exporters read the tables while the pass appends to them, on
		// another goroutine: they get a copy that the pipeline brings up
		// to date before each batch, and that is complete for Finish.
		tables := *p.t
		t = &tables
	}
	for _, e := range exps {
		if err := e.Begin(t); err != nil {
			return err
		}
	}
	if p.parallel {
		var tables *stream.Trace
		if t != p.t {
			tables = t
		}
		p.pipe = newPipeline(exps, tables)
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
	if t != p.t {
		*t = *p.t
	}
	if err != nil {
		return err
	}
	if strict {
		if err := strictCheck(p.t); err != nil {
			return err
		}
	}
	if p.missed {
		return nil // the exporters start over (runHopeful)
	}
	for _, e := range exps {
		if err := e.Finish(); err != nil {
			return err
		}
	}
	return nil
}

func strictCheck(t *stream.Trace) error {
	if s := t.Stats.Summary(); s != "" {
		return fmt.Errorf("%w: the trace needed repairs: %s", ErrStrict, s)
	}
	if len(t.Header.Warnings) > 0 {
		return fmt.Errorf("%w: %s", ErrStrict, t.Header.Warnings[0])
	}
	return nil
}

// pass is one walk over the records: the first of two (count), the second
// (emit), or the only one (count, emit and onePass or hopeful). The first
// pass (emit false) builds the Trace and counts; the second (emit true)
// sends events, reusing the thread states, frames and orphan lists of the
// first.
type pass struct {
	t        *stream.Trace
	parallel bool // decode and export on goroutines of their own
	count    bool // first pass or one pass: build the Trace and count repairs
	emit     bool // second pass or one pass: send events
	onePass  bool // one pass: orphan exits are sent as stream.Orphan events
	hopeful  bool // one pass unless an orphan exit comes (runHopeful)
	missed   bool // hopeful, and an orphan exit came: a second pass must send
	exps     []stream.Exporter
	stats    *stream.Stats
	scratch  stream.Stats // the second pass counts here: the first pass's counts stand
	// sink takes the events fastRecords writes in a pass that sends none
	// (the first of two, and info's only one). Writing them costs such a
	// pass about 13 %, and spares every pass that sends events a branch
	// and a register in the loop, which cost them 3–10 %. 512 events fit
	// the L1 cache.
	sink     [512]stream.Event
	threads  map[parser.ThreadID]*threadState
	order    []*threadState // by ThreadIndex
	frames   map[parser.MethodID]stream.FrameID
	unit     int64  // ns per tick of the record times
	maxTicks uint64 // the largest time that converts to ns without overflow
	wrap32   bool   // the record times are 32-bit counters that wrap
	general  bool   // Options.generalOnly

	lastRID    parser.ThreadID // the thread of the previous record
	lastTS     *threadState
	frameCache [frameCacheSize]frameSlot
	dense      []stream.FrameID // by method id >> 2: FrameID+1, 0 when unseen
	out        []stream.Event   // events not yet given to the exporters
	pipe       *pipeline        // the exporters' goroutine, when they run on one
	err        error
	samp       samplingProbe

	lateFrames  []stream.FrameID  // frames made before their method's definition (define.go)
	lateThreads []parser.ThreadID // threads met before their definition

	progress    func(done, total int64)
	done, total int64 // bytes read by earlier passes; bytes all passes read
}

func newPass(f *parser.File, opt Options) *pass {
	h := f.Header
	p := &pass{
		threads:  make(map[parser.ThreadID]*threadState),
		frames:   make(map[parser.MethodID]stream.FrameID),
		unit:     max(int64(h.TimeUnit), 1),
		wrap32:   h.TimeBits == 32,
		parallel: !opt.Serial && runtime.GOMAXPROCS(0) > 1,
		general:  opt.generalOnly,
	}
	p.maxTicks = uint64(math.MaxInt64 / p.unit)
	p.t = &stream.Trace{Name: f.Name, Size: f.Size(), Header: h, HasWall: h.Clock.HasWall(), HasCPU: h.Clock.HasCPU()}
	p.stats = &p.t.Stats
	p.count = true
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
	p.emit, p.count, p.exps, p.stats = true, false, exps, &p.scratch
	p.out = make([]stream.Event, 0, batchSize)
	p.done += p.t.Size
	for _, ts := range p.order {
		ts.stack, ts.floor, ts.started = ts.stack[:0], 0, false
		ts.cpu, ts.wall = unwrapper{}, unwrapper{}
	}
}

func (p *pass) run(f *parser.File) error {
	r := f.NewReader()
	read := p.readSerial
	if p.parallel {
		read = p.readParallel
	}
	if err := read(r); err != nil {
		return err
	}
	for _, ts := range p.order {
		p.finish(ts)
	}
	if p.emit {
		p.flush()
	}
	if p.count {
		p.stats.LostBytes = f.Header.LostBytes
		p.stats.Overflow = f.Header.DataFileOverflow()
		p.t.Sampling = p.samp.result()
	}
	return p.err
}

// thread finds a thread's state by its record id, creating it on first sight
// (only the first pass can meet a new thread).
func (p *pass) thread(rid parser.ThreadID) *threadState {
	if ts, ok := p.threads[rid]; ok {
		return ts
	}
	t := p.t
	th := stream.Thread{Index: stream.ThreadIndex(len(t.Threads)), ID: rid}
	if lt, ok := t.Header.Thread(rid); ok {
		th.ID, th.Name, th.Known = lt.ID, lt.Name, true
	} else {
		th.Name = fmt.Sprintf("thread %d", rid)
		p.stats.UnknownThreads++
	}
	t.Threads = append(t.Threads, th)
	ts := &threadState{idx: th.Index}
	p.threads[rid] = ts
	p.order = append(p.order, ts)
	return ts
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
// first pass can meet one).
func (p *pass) newFrame(mid parser.MethodID) stream.FrameID {
	id := stream.FrameID(len(p.t.Frames))
	fr := stream.NewFrame(id, mid, p.t.Header)
	if !fr.Known {
		p.stats.UnknownMethods++
	}
	p.t.Frames = append(p.t.Frames, fr)
	return id
}
