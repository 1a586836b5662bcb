package startup

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stream"
)

// The phases, in order.
const (
	Bind = iota
	ApplicationCreate
	ActivityCreate
	ActivityStart
	ActivityResume
	FirstFrame
	FullyDrawn
	numPhases
)

// marker is a phase's name and the framework method that marks it.
type marker struct{ name, class, method string }

var markers = [numPhases]marker{
	Bind:              {"bind", "android.app.ActivityThread", "handleBindApplication"},
	ApplicationCreate: {"application-create", "android.app.Instrumentation", "callApplicationOnCreate"},
	ActivityCreate:    {"activity-create", "android.app.Activity", "performCreate"},
	ActivityStart:     {"activity-start", "android.app.Activity", "performStart"},
	ActivityResume:    {"activity-resume", "android.app.Activity", "performResume"},
	FirstFrame:        {"first-frame", "android.view.Choreographer", "doFrame"},
	FullyDrawn:        {"fully-drawn", "android.app.Activity", "reportFullyDrawn"},
}

// Names returns the phase names in order.
func Names() []string {
	names := make([]string, numPhases)
	for i, m := range markers {
		names[i] = m.name
	}
	return names
}

// Reasons a phase was not recorded.
const (
	ReasonBefore  = "began before tracing started"
	ReasonOpen    = "did not end before tracing stopped"
	ReasonMissing = "not in the trace"
	ReasonNoStart = "no phase recorded before it"
)

// TopN is how many methods a phase lists.
const TopN = 5

// Method is a method's exclusive time inside a phase, in ns.
type Method struct {
	Name   string `json:"method"` // <class>.<method>, overloads merged
	Wall   int64  `json:"wall_ns"`
	CPU    int64  `json:"cpu_ns"`
	OffCPU int64  `json:"offcpu_ns"`
}

// Phase is one phase of the start. Times are ns; Begin and End are on
// the wall clock, since the trace start.
type Phase struct {
	Name     string `json:"phase"`
	Method   string `json:"method"` // the framework method that marks it
	Recorded bool   `json:"recorded"`
	Reason   string `json:"reason,omitempty"` // why it was not recorded
	// Begin and End: for a phase not recorded, whichever of them the
	// trace has (the end of one that began before tracing started, the
	// begin of one still running at the end), else 0.
	Begin  int64    `json:"begin_ns"`
	End    int64    `json:"end_ns"`
	Wall   int64    `json:"wall_ns"`
	CPU    int64    `json:"cpu_ns"`
	OffCPU int64    `json:"offcpu_ns"`
	Top    []Method `json:"top"`
	// From is, for fully-drawn, the phase whose begin is its begin.
	From string `json:"from,omitempty"`
}

// Value is the phase's time on a clock: "wall", "cpu" or "offcpu".
func (p *Phase) Value(clock string) (int64, bool) {
	switch clock {
	case "wall":
		return p.Wall, true
	case "cpu":
		return p.CPU, true
	case "offcpu":
		return p.OffCPU, true
	}
	return 0, false
}

// Report is the phases of one trace.
type Report struct {
	Trace    string `json:"trace"`
	Thread   string `json:"thread,omitempty"` // the main thread's name; "" when there is none
	ThreadID int64  `json:"tid,omitempty"`
	HasWall  bool   `json:"has_wall"`
	HasCPU   bool   `json:"has_cpu"`
	// Missing names the fields the trace's clocks cannot give (they are
	// 0): begin, end, wall and offcpu without the wall clock, cpu and
	// offcpu without the thread-CPU clock.
	Missing []string `json:"missing,omitempty"`
	// Activities counts the calls of Activity.performCreate on the main
	// thread; the launch phases are of the first.
	Activities int     `json:"activities"`
	Phases     []Phase `json:"phases"`
	// Notes are caveats printed under the header: a trace recorded in
	// sampling mode, whose phases are as precise as its sampling step.
	Notes []string `json:"notes,omitempty"`
}

// Phase returns the phase of that name, nil when there is none.
func (r *Report) Phase(name string) *Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// Exporter is a stream.Exporter that finds the phases. It needs orphan
// frames opened at their thread's start, and writes nothing before
// Finish: convert.Deferred(e). Report gives the result after Finish.
type Exporter struct {
	opt       Options
	t         *stream.Trace // as Begin got it; Finish's at Finish
	batch     *stream.Batch // the batch being taken: its tables name the frames and threads
	wall, cpu bool          // the clocks the report shows (Options.Value)
	pid       int64
	kinds     []int8 // per frame: its phase + 1, 0 for none, -1 not looked at yet
	// cands holds a detector per thread that may be the main thread
	// (thread index + 1; 0 not a candidate, -1 not looked at yet).
	cand    []int32
	threads []*detector
	rep     *Report
}

// Options change the report.
type Options struct {
	// Value picks the clocks the report shows (--clock): by default every
	// clock the trace has. With one clock, the phases are found and
	// measured on it alone, as in a trace that has only that one (the
	// Report's Missing names the others' fields); with stream.ValueOffCPU
	// on a trace with both clocks, each phase's top methods are those
	// with the most off-CPU time. A clock the trace lacks is an error (a
	// *stream.ValueError) at Begin.
	Value stream.Value
}

// New returns an exporter.
func New(opt Options) *Exporter { return &Exporter{opt: opt} }

// Begin implements stream.Exporter.
func (e *Exporter) Begin(t *stream.Trace) error {
	*e = Exporter{opt: e.opt, t: t}
	e.pid = int64(t.Process.PID)
	var err error
	if e.wall, e.cpu, err = e.opt.Value.Clocks(t); err != nil {
		return err
	}
	return nil
}

// kind returns the phase frame f marks, or -1.
func (e *Exporter) kind(f stream.FrameID) int {
	for int(f) >= len(e.kinds) {
		e.kinds = append(e.kinds, -1)
	}
	if k := e.kinds[f]; k >= 0 {
		return int(k) - 1
	}
	e.kinds[f] = 0
	if int(f) < len(e.batch.Frames) {
		fr := &e.batch.Frames[f]
		for i, m := range markers {
			if fr.Method == m.method && fr.Class == m.class {
				e.kinds[f] = int8(i + 1)
			}
		}
	}
	return int(e.kinds[f]) - 1
}

// detector returns the detector of a thread, nil when the thread cannot
// be the main thread.
func (e *Exporter) detector(ti stream.ThreadIndex) *detector {
	for int(ti) >= len(e.cand) {
		e.cand = append(e.cand, -1)
	}
	if c := e.cand[ti]; c >= 0 {
		if c == 0 {
			return nil
		}
		return e.threads[c-1]
	}
	e.cand[ti] = 0
	if int(ti) >= len(e.batch.Threads) {
		return nil
	}
	th := &e.batch.Threads[ti]
	if (e.pid > 0 && int64(th.ID) == e.pid) || th.Name == "main" {
		d := &detector{e: e, thread: ti, id: int64(th.ID), name: th.Name}
		e.threads = append(e.threads, d)
		e.cand[ti] = int32(len(e.threads))
		return d
	}
	return nil
}

// Events implements stream.Exporter.
func (e *Exporter) Events(b *stream.Batch) error {
	e.batch = b
	for i := range b.Events {
		ev := &b.Events[i]
		d := e.detector(ev.Thread)
		if d == nil {
			continue
		}
		if err := d.event(ev); err != nil {
			return err
		}
	}
	return nil
}

// Finish implements stream.Exporter: it picks the main thread and builds
// the report.
func (e *Exporter) Finish(t *stream.Trace) error {
	e.t, e.batch = t, nil
	r := &Report{Trace: t.Name, HasWall: e.wall, HasCPU: e.cpu}
	if !e.wall {
		r.Missing = append(r.Missing, "begin", "end", "wall")
	}
	if !e.cpu {
		r.Missing = append(r.Missing, "cpu")
	}
	if !e.wall || !e.cpu {
		r.Missing = append(r.Missing, "offcpu")
	}
	if t.Sampling.Likely {
		r.Notes = append(r.Notes, fmt.Sprintf("looks like a sampling-mode trace (about %s between samples): phases begin and end at sampled calls, so their times are approximate to that step, and a phase whose method no sample caught is missing",
			units.Duration(t.Sampling.Interval)))
	}
	var main *detector
	for _, d := range e.threads {
		if e.pid > 0 && d.id == e.pid {
			main = d
			break
		}
	}
	if main == nil {
		for _, d := range e.threads {
			if d.name == "main" {
				main = d
				break
			}
		}
	}
	if main != nil {
		r.Thread, r.ThreadID, r.Activities = main.name, main.id, main.activities
	}
	for k := range numPhases {
		p := Phase{Name: markers[k].name, Method: markers[k].class + "." + markers[k].method, Reason: ReasonMissing, Top: []Method{}}
		if main != nil {
			main.phases[k].fill(&p, e, r)
		}
		r.Phases = append(r.Phases, p)
	}
	e.rep = r
	return nil
}

// Report returns the report of the last Finish.
func (e *Exporter) Report() *Report { return e.rep }

type phaseState uint8

const (
	unseen phaseState = iota
	open
	done
)

// phase is what a detector knows of one phase.
type phase struct {
	state   phaseState
	orphan  bool // began at the trace start (Synthetic begin)
	cutEnd  bool // ended at the trace end (Synthetic end)
	noStart bool // fully-drawn with no phase recorded before it
	from    int  // fully-drawn: the phase it begins with
	begin   [2]int64
	end     [2]int64
	acc     *acc
}

// fill writes what the phase measured into p.
func (ph *phase) fill(p *Phase, e *Exporter, r *Report) {
	switch {
	case ph.state == unseen:
		return
	case ph.orphan:
		p.Reason, p.End = ReasonBefore, ph.end[0]
		return
	case ph.state == open || ph.cutEnd:
		p.Reason, p.Begin = ReasonOpen, ph.begin[0]
		return
	case ph.noStart:
		p.Reason = ReasonNoStart
		return
	}
	p.Recorded, p.Reason = true, ""
	p.Begin, p.End = ph.begin[0], ph.end[0]
	p.Wall, p.CPU = ph.end[0]-ph.begin[0], ph.end[1]-ph.begin[1]
	if !r.HasWall {
		p.Begin, p.End, p.Wall = 0, 0, 0
	}
	if !r.HasCPU {
		p.CPU = 0
	}
	p.OffCPU, p.Top = ph.acc.result(e.t, r.HasWall, r.HasCPU, e.opt.Value == stream.ValueOffCPU)
	if p.Name == markers[FullyDrawn].name {
		p.From = markers[ph.from].name
	}
}

// detector follows one thread's stack and measures the phases on it.
type detector struct {
	e          *Exporter
	thread     stream.ThreadIndex
	id         int64
	name       string
	started    bool
	first      [2]int64         // the thread's first wall and CPU times
	ended      bool             // an end has come on the thread
	last       [2]int64         // the thread's last wall and CPU times
	stack      []int8           // per open frame: the phase it began + 1, or 0
	frames     []stream.FrameID // the open frames
	accs       []*acc           // the open phases' accumulators
	activities int
	phases     [numPhases]phase
	launch     int   // the next launch phase that may begin
	launchEnd  int64 // wall time the last launch phase ended
	resumed    bool  // activity-resume ended
	span       *acc  // fully-drawn's accumulator, from the first recorded phase
	spanBegin  [2]int64
	spanFrom   int // the phase it begins with
}

func (d *detector) event(ev *stream.Event) error {
	now := [2]int64{ev.Wall, ev.CPU}
	if !d.e.wall {
		now[0] = 0 // the report shows no wall time: the phases are found on the other clock
	}
	if !d.e.cpu {
		now[1] = 0
	}
	if !d.started {
		d.started, d.first, d.last = true, now, now
	}
	dw, dc := now[0]-d.last[0], now[1]-d.last[1]
	for _, a := range d.accs {
		a.add(dw, dc)
	}
	d.last = now
	switch ev.Kind {
	case stream.Begin:
		k := d.e.kind(ev.Frame)
		taken := -1
		if k >= 0 {
			taken = d.begin(k, ev, now)
		}
		for _, a := range d.accs {
			a.push(ev.Frame)
		}
		d.stack = append(d.stack, int8(taken+1))
		d.frames = append(d.frames, ev.Frame)
	case stream.End:
		d.ended = true
		if len(d.stack) == 0 {
			return fmt.Errorf("startup: invariant violation: an end on thread %d with an empty stack", d.id)
		}
		for _, a := range d.accs {
			a.pop()
		}
		taken := int(d.stack[len(d.stack)-1]) - 1
		d.stack = d.stack[:len(d.stack)-1]
		d.frames = d.frames[:len(d.frames)-1]
		if taken >= 0 {
			d.end(taken, ev, now)
		}
	default:
		return fmt.Errorf("startup: invariant violation: a %v event in a timeline", ev.Kind)
	}
	return nil
}

// begin decides whether a call of the method of phase k begins the phase,
// and returns k when it does, else -1.
func (d *detector) begin(k int, ev *stream.Event, now [2]int64) int {
	if k == ActivityCreate && !d.inside(ActivityCreate) {
		d.activities++
	}
	ph := &d.phases[k]
	if ph.state != unseen {
		return -1
	}
	switch {
	case k == FullyDrawn:
		ph.noStart = d.span == nil
	case k >= ActivityCreate:
		if k < d.launch || d.launchOpen() || now[0] < d.launchEnd || (k == FirstFrame && !d.resumed) {
			return -1
		}
		d.launch = k + 1
	}
	ph.state, ph.begin = open, now
	ph.orphan = ev.Flags&stream.Synthetic != 0 || (d.e.wall && !d.ended && now == d.first)
	if k == FullyDrawn {
		return k
	}
	if !ph.orphan && d.span == nil {
		d.span, d.spanBegin, d.spanFrom = newAcc(d.frames), now, k
		d.accs = append(d.accs, d.span)
	}
	ph.acc = newAcc(nil)
	d.accs = append(d.accs, ph.acc)
	return k
}

// inside reports whether a frame of phase k's method is open.
func (d *detector) inside(k int) bool {
	for _, f := range d.frames {
		if d.e.kind(f) == k {
			return true
		}
	}
	return false
}

// launchOpen reports whether a launch phase is running.
func (d *detector) launchOpen() bool {
	for k := ActivityCreate; k <= FirstFrame; k++ {
		if d.phases[k].state == open {
			return true
		}
	}
	return false
}

// end ends phase k.
func (d *detector) end(k int, ev *stream.Event, now [2]int64) {
	ph := &d.phases[k]
	ph.state, ph.end = done, now
	ph.cutEnd = ev.Flags&stream.Synthetic != 0
	if k >= ActivityCreate && k <= FirstFrame {
		d.launchEnd = now[0]
		if k == ActivityResume {
			d.resumed = true
		}
	}
	d.drop(ph.acc)
	if k == FullyDrawn && !ph.noStart && !ph.orphan {
		ph.begin, ph.acc, ph.from = d.spanBegin, d.span, d.spanFrom
		d.drop(d.span)
		d.span = nil
	}
}

// drop closes an accumulator.
func (d *detector) drop(a *acc) {
	if i := slices.Index(d.accs, a); i >= 0 {
		d.accs = slices.Delete(d.accs, i, i+1)
	}
}

// acc is a phase's call tree: its distinct stacks and their exclusive
// times, as package stacks keeps them for a whole thread.
type acc struct {
	nodes []node // nodes[0] is the root, no frame
	index map[edgeKey]int32
	path  []int32 // the current stack; path[0] is the root
}

type node struct {
	frame     stream.FrameID
	wall, cpu int64
}

type edgeKey struct {
	parent int32
	frame  stream.FrameID
}

// newAcc returns an accumulator whose current stack is frames.
func newAcc(frames []stream.FrameID) *acc {
	a := &acc{nodes: []node{{frame: -1}}, index: make(map[edgeKey]int32), path: []int32{0}}
	for _, f := range frames {
		a.push(f)
	}
	return a
}

func (a *acc) add(wall, cpu int64) {
	n := &a.nodes[a.path[len(a.path)-1]]
	n.wall += wall
	n.cpu += cpu
}

func (a *acc) push(f stream.FrameID) {
	k := edgeKey{a.path[len(a.path)-1], f}
	id, ok := a.index[k]
	if !ok {
		id = int32(len(a.nodes))
		a.nodes = append(a.nodes, node{frame: f})
		a.index[k] = id
	}
	a.path = append(a.path, id)
}

func (a *acc) pop() {
	if len(a.path) > 1 {
		a.path = a.path[:len(a.path)-1]
	}
}

// result is the phase's off-CPU time and its top methods, by their time
// on the first clock, or by their off-CPU time when byOffCPU.
func (a *acc) result(t *stream.Trace, hasWall, hasCPU, byOffCPU bool) (offCPU int64, top []Method) {
	by := make(map[string]*Method)
	for _, n := range a.nodes[1:] {
		name := fmt.Sprintf("<frame %d>", n.frame)
		if int(n.frame) < len(t.Frames) {
			name = t.Frames[n.frame].Name
		}
		m := by[name]
		if m == nil {
			m = &Method{Name: name}
			by[name] = m
		}
		m.Wall += n.wall
		m.CPU += n.cpu
		if hasWall && hasCPU {
			off := max(0, n.wall-n.cpu)
			m.OffCPU += off
			offCPU += off
		}
	}
	ms := make([]Method, 0, len(by))
	for _, m := range by {
		if m.Wall == 0 && m.CPU == 0 {
			continue // no time of its own: not an expensive method
		}
		if !hasWall {
			m.Wall = 0
		}
		if !hasCPU {
			m.CPU = 0
		}
		ms = append(ms, *m)
	}
	first := func(m *Method) int64 { return m.Wall }
	switch {
	case byOffCPU:
		first = func(m *Method) int64 { return m.OffCPU }
	case !hasWall:
		first = func(m *Method) int64 { return m.CPU }
	}
	slices.SortFunc(ms, func(x, y Method) int {
		if c := cmp.Compare(first(&y), first(&x)); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	return offCPU, ms[:min(TopN, len(ms))]
}
