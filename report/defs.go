package report

// The definitions of the numbers of the reports, which the commands print
// in their --help, each the parts about itself: they are written for
// users, not for Go readers. docs/guide.md (Definitions) has them all.

// TimeDefinitions defines what top, calls and diff share: methods, stacks,
// exclusive and inclusive time, calls and the clocks.
const TimeDefinitions = `Definitions. A method is a distinct class.method and signature. The trace
is aggregated into call stacks per thread, each with its exclusive time
(time when that stack was current) and its calls (times it was entered).
A method's exclusive time is that of the stacks whose innermost frame it
is; its inclusive time that of the stacks that contain it at least once, so
recursion is never counted twice; its calls are the times a stack ending
in it was entered, calls already running when tracing began or still
running when it stopped included.

Clocks: every clock the trace has after --clock is shown (wall, thread
CPU); sorting uses the first, wall when the trace has it (--clock cpu ranks
by thread CPU time). CSV and JSON carry every clock, times in ns. Sampled
profiles (hprof text, Android 5.x ART) count samples instead of timing
calls, and their calls are not known. Every definition, with off-CPU time
and sampled profiles in full: docs/guide.md, section Definitions.`

// TopDefinitions are the definitions of top's own columns.
const TopDefinitions = `total: the exclusive time of every stack, summed over the threads (of the
table's thread with --per-thread). Time when a thread runs no traced method
(before its first event, between top-level calls) is not counted.
Percentages are of this total.

recursive: the calls made while the same method was already on the stack
below; they are part of calls.

(idle): a well-known waiting method (LockSupport.park, Object.wait,
Thread.sleep, MessageQueue.nativePollOnce, poll …): its time is a thread
waiting, not working; --clock cpu or --thread main shows the work.

offcpu (--clock offcpu or --sort offcpu; dual-clock traces): per stack,
exclusive wall minus exclusive thread CPU time, at least 0: the time the
thread was on the stack but blocked, waiting or descheduled.`

// CallsDefinitions are the definitions of calls' rows.
const CallsDefinitions = `parent P of M: the time of the stacks containing M whose outermost M was
called directly by P, that is the inclusive time of M's non-recursive
calls from P; "(top level)" when the outermost M is a thread's outermost
frame. Its calls are the calls of M made from P.

child C of M: the time of the stacks containing M whose innermost M called
C directly. Time in C that leads back into M goes to that inner M, not to
C. Its calls are the calls of C made from M.

self: M's exclusive time. The parents add up to M's inclusive time, and so
do self and the children. A direct recursive call M -> M shows its calls
with zero time.`

// DiffDefinitions are the definitions of diff's columns.
const DiffDefinitions = `--threshold applies to the first clock. offcpu (--clock offcpu; dual-clock
traces): per stack, exclusive wall minus exclusive thread CPU time, at
least 0.`
