package report

// Definitions explains the numbers of every report. The commands print it
// in their --help, so it is written for users, not for Go readers.
const Definitions = `Definitions. A method is a distinct class.method and signature. The trace
is aggregated into call stacks per thread, each with its exclusive time
(time when that stack was current) and its calls (times it was entered).

total: the exclusive time of every stack (of the table's thread with
top --per-thread). Time when a thread runs no traced method (before its
first event, between top-level calls) is not counted. Percentages in top
are of this total.

exclusive: the time of the stacks whose innermost frame is the method.

inclusive: the time of the stacks that contain the method at least once.
A stack counts once however often the method appears in it, so recursion
is never double-counted.

calls: the times a stack ending in the method was entered, including calls
already running when tracing began and still running when it stopped.

recursive: the calls made while the same method was already on the stack
below; they are part of calls.

parent P of M: the time of the stacks containing M whose outermost M was
called directly by P, that is the inclusive time of M's non-recursive
calls from P; "(top level)" when the outermost M is a thread's outermost
frame. Its calls are the calls of M made from P.

child C of M: the time of the stacks containing M whose innermost M called
C directly. Time in C that leads back into M goes to that inner M, not to
C. Its calls are the calls of C made from M.

self: M's exclusive time. The parents add up to M's inclusive time, and so
do self and the children. A direct recursive call M -> M shows its calls
with zero time.

Clocks: every clock the trace has after --clock is shown (wall, thread CPU).
Sorting, --threshold and diff's text table use the first clock: wall when
the trace has it. Use --clock cpu to rank by thread CPU time. CSV and JSON
carry every clock, times in ns.

offcpu (--clock offcpu, top --sort offcpu; dual-clock traces): per stack,
exclusive wall minus exclusive thread CPU time, at least 0: the time the
thread was on the stack but blocked, waiting or descheduled. It is summed
like the clocks, and shown first, beside the wall time it is part of.

Sampled profiles (hprof text, Android 5.x ART profiles) count stacks
instead of timing calls: every "time" above is a number of samples (the
clock is called samples; CSV columns end in _count, and JSON's *_ns fields
hold the counts), calls are not known (left out of text, empty in CSV, 0
with calls_unknown in JSON), and --threshold takes a percentage only. Stacks
cut at the profiler's depth limit make inclusive counts of outer methods
lower bounds. JVM hprof cpu=times counts calls and elapsed time per stack
(hprof measures it with the time of day, not thread CPU time) and reads
like a wall-clock trace.`
