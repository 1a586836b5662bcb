package tracegen

import "slices"

// Builder lays out a trace from call trees, keeping a clock pair per thread
// so that tests and sample generators need not compute timestamps.
//
// Records are appended in the order the calls are made, so threads
// interleave exactly as the caller interleaves them. Each thread has its own
// wall clock and thread-CPU clock:
//
//   - wall is one global timeline (docs/formats.md §6.1), but the builder keeps a
//     copy per thread, monotonic within the thread; a thread's wall clock
//     starts at the latest wall time written so far, and [ThreadBuilder.Until]
//     or [ThreadBuilder.Idle] move it forward. Threads may therefore overlap
//     in time while their records come in per-thread chunks, as in real files
//     (docs/formats.md §12 item 4);
//   - thread-CPU reads 0 at the thread's first event and advances only with
//     the CPU time the caller gives (docs/formats.md §6.1).
//
// Times are uint32 µs and wrap like the file's fields (docs/formats.md §6.2).
type Builder struct {
	tr      Trace
	ids     map[methodKey]uint32
	next    uint32 // id of the next new method
	step    uint32
	threads map[uint32]*ThreadBuilder
	now     uint32 // latest wall time written
}

type methodKey struct{ class, name, sig string }

// Method id schemes (docs/formats.md §7): ART ≥ 6.0 numbers methods index<<2 from 0;
// Dalvik wrote Method* pointers. The Dalvik base and stride are invented
// but look like the pointers in perflib's basic.trace.
const (
	artIDStep    = 4
	dalvikIDBase = 0x6287d960
	dalvikIDStep = 0x38
)

// NewBuilder returns a builder that starts from base: its header fields
// (Version, Clock, VM, Options, Start, …) are kept, and any threads,
// methods and records it already holds come first.
func NewBuilder(base Trace) *Builder {
	b := &Builder{
		tr:      base,
		ids:     make(map[methodKey]uint32),
		threads: make(map[uint32]*ThreadBuilder),
		step:    artIDStep,
	}
	b.tr.Threads = slices.Clone(base.Threads)
	b.tr.Methods = slices.Clone(base.Methods)
	b.tr.Records = slices.Clone(base.Records)
	if base.VM == "dalvik" {
		b.next, b.step = dalvikIDBase, dalvikIDStep
	}
	for _, m := range base.Methods {
		b.ids[methodKey{m.Class, m.Name, m.Signature}] = m.ID
		b.next = max(b.next, m.ID+b.step)
	}
	for _, r := range base.Records {
		b.now = max(b.now, r.Wall)
	}
	return b
}

// Method returns the id of the method, adding it to the method table the
// first time a class, name and signature are seen. class is dotted
// (com.example.App); Dalvik style writes it with slashes.
func (b *Builder) Method(class, name, sig, source string) uint32 {
	return b.MethodLine(class, name, sig, source, 0)
}

// MethodLine is [Builder.Method] with a line number, which only Dalvik-style
// method lines carry (docs/formats.md §3.4).
func (b *Builder) MethodLine(class, name, sig, source string, line int) uint32 {
	k := methodKey{class, name, sig}
	if id, ok := b.ids[k]; ok {
		return id
	}
	id := b.next
	b.next += b.step
	b.ids[k] = id
	b.tr.Methods = append(b.tr.Methods, Method{
		ID: id, Class: class, Name: name, Signature: sig, Source: source, Line: line,
	})
	return id
}

// Thread lists the thread in *threads and returns its builder. Calling it
// again for the same id adds another *threads line (tid reuse, duplicate
// names) and returns the same builder.
func (b *Builder) Thread(id uint32, name string) *ThreadBuilder {
	b.tr.Threads = append(b.tr.Threads, Thread{ID: id, Name: name})
	return b.On(id)
}

// On returns the builder for thread id, creating it without a *threads
// line if needed: records of such a thread refer to an unknown thread, as
// ART's unannounced "Shutdown thread" does (docs/formats.md §8.4).
func (b *Builder) On(id uint32) *ThreadBuilder {
	if tb, ok := b.threads[id]; ok {
		return tb
	}
	tb := &ThreadBuilder{b: b, id: id, wall: b.now}
	b.threads[id] = tb
	return tb
}

// Trace returns a copy of the trace built so far.
func (b *Builder) Trace() *Trace {
	t := b.tr
	t.Threads = slices.Clone(b.tr.Threads)
	t.Methods = slices.Clone(b.tr.Methods)
	t.Records = slices.Clone(b.tr.Records)
	return &t
}

// ThreadBuilder appends the records of one thread and keeps its clocks and
// its stack of open frames.
type ThreadBuilder struct {
	b         *Builder
	id        uint32
	cpu, wall uint32
	started   bool // an event has been written
	stack     []uint32
}

// ID returns the thread id.
func (t *ThreadBuilder) ID() uint32 { return t.id }

// Call writes an enter of m, then the records of body (nil for a leaf), then
// an exit of m. The method's self time, selfWall µs of wall and selfCPU µs
// of thread-CPU, is split evenly before and after body.
func (t *ThreadBuilder) Call(m, selfWall, selfCPU uint32, body func()) {
	t.call(m, selfWall, selfCPU, body, Exit)
}

// CallUnwind is [ThreadBuilder.Call] for a method that ends by throwing: its
// last record is an unwind rather than an exit (docs/formats.md §12 item 5).
func (t *ThreadBuilder) CallUnwind(m, selfWall, selfCPU uint32, body func()) {
	t.call(m, selfWall, selfCPU, body, Unwind)
}

func (t *ThreadBuilder) call(m, selfWall, selfCPU uint32, body func(), end Action) {
	t.Enter(m)
	t.Advance(selfWall/2, selfCPU/2)
	if body != nil {
		body()
	}
	t.Advance(selfWall-selfWall/2, selfCPU-selfCPU/2)
	t.Emit(end, m)
}

// Enter writes an enter record of m and pushes m on the stack.
func (t *ThreadBuilder) Enter(m uint32) { t.Emit(Enter, m) }

// Exit writes an exit record of m. With an empty stack it is an orphan exit
// (docs/formats.md §12 item 1); with another method on top, a mismatched exit
// (item 12).
func (t *ThreadBuilder) Exit(m uint32) { t.Emit(Exit, m) }

// Unwind writes an unwind record of m: an exit caused by an exception.
func (t *ThreadBuilder) Unwind(m uint32) { t.Emit(Unwind, m) }

// Emit writes a record with any action, including [BadAction], at the
// thread's current clocks. An exit or unwind pops the stack when m is on
// top of it.
func (t *ThreadBuilder) Emit(a Action, m uint32) {
	t.started = true
	switch {
	case a == Enter:
		t.stack = append(t.stack, m)
	case (a == Exit || a == Unwind) && len(t.stack) > 0 && t.stack[len(t.stack)-1] == m:
		t.stack = t.stack[:len(t.stack)-1]
	}
	b := t.b
	b.tr.Records = append(b.tr.Records, Record{
		Thread: t.id, Method: m, Action: a, CPU: t.cpu, Wall: t.wall,
	})
	b.now = max(b.now, t.wall)
}

// Advance moves the thread's clocks forward by wall and cpu µs. Before the
// thread's first event only wall moves, since thread-CPU time counts from
// that event (docs/formats.md §6.1).
func (t *ThreadBuilder) Advance(wall, cpu uint32) {
	t.wall += wall
	if t.started {
		t.cpu += cpu
	}
}

// Idle moves the wall clock forward by wall µs without CPU time: the thread
// is blocked or sleeping.
func (t *ThreadBuilder) Idle(wall uint32) { t.wall += wall }

// Until moves the wall clock forward to wall µs without CPU time; it does
// nothing when the thread is already past that time.
func (t *ThreadBuilder) Until(wall uint32) { t.wall = max(t.wall, wall) }

// SetClocks sets both clocks, backwards if asked: tests use it to produce
// clocks that go backwards or wrap (docs/formats.md §6.2).
func (t *ThreadBuilder) SetClocks(cpu, wall uint32) {
	t.cpu, t.wall = cpu, wall
}

// Clocks returns the thread's current thread-CPU and wall times.
func (t *ThreadBuilder) Clocks() (cpu, wall uint32) { return t.cpu, t.wall }

// Stack returns a copy of the thread's open frames, outermost first.
func (t *ThreadBuilder) Stack() []uint32 { return slices.Clone(t.stack) }

// ExitAll writes an exit for every open frame, innermost first, like an
// app that returns all the way up before tracing stops.
func (t *ThreadBuilder) ExitAll() {
	for len(t.stack) > 0 {
		t.Exit(t.stack[len(t.stack)-1])
	}
}
