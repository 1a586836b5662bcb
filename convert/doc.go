// Package convert turns the records of a [parser.File] into a balanced,
// thread-aware event stream and hands it to exporters.
//
// It owns the stack policy, applied once so that no exporter ever sees an
// unbalanced stack. Per thread, in file order:
//
//  1. A time smaller than the thread's previous time on the same clock is
//     clamped to it; a jump back of more than 2^31 µs is a wrap of the 32-bit
//     counter and adds 2^32.
//  2. An enter pushes a frame. An exit or unwind of the top frame pops it; an
//     exit of a frame deeper in the stack first ends the frames above it at
//     that time (implicit exits).
//  3. An exit with an empty stack is an orphan: the method was running before
//     tracing began, so it becomes a frame that starts at the trace start
//     (time 0 on both clocks) and encloses everything earlier on that thread.
//     Successive orphans nest, the later one outside. A first pass over the
//     records finds them, so they can be opened before the thread's first
//     event. Once as many orphan frames as the depth limit (rule 6) enclose
//     a thread, its later orphan exits are dropped: each would nest
//     everything before it one level deeper.
//  4. An exit of a method that is not on a non-empty stack is dropped, and so
//     is a record with action 3.
//  5. Frames still open at the end end at the trace end on the wall clock
//     (the largest wall time of any record) and at the thread's last time on
//     the thread-CPU clock.
//  6. A frame nested deeper than the depth limit ([Options].MaxDepth,
//     [DefaultMaxDepth]) inside its thread's orphan frames is folded into
//     the frame at the limit: its begin and end are not sent, so its time
//     is that frame's self time. The orphan frames, which one read meets
//     only as they exit, are not counted, so that one read and two agree;
//     rule 3 limits them to as many, so no stack in any output is deeper
//     than twice the limit. The policy still tracks a folded frame (4 bytes
//     a level), and a real stack that reaches [CorruptDepth], or a thread
//     with that many orphan exits, stops the pass with a
//     [parser.FormatError]. Exporters may fold lower for their viewer
//     (Perfetto at 512), never higher.
//
// Frames begun or ended by rules 3 and 5 carry the Synthetic flag; every
// repair is counted in [stream.Stats], the frames of rule 6 in DeepFrames
// and the orphan exits rule 3 drops in DeepOrphans.
// A second read that meets a thread, a method or an orphan exit the first
// did not (the input changed between them) ends in [ErrChanged].
//
// What each exporter needs of the stream is declared by the caller, in
// the [Output] values given to [Run]; no exporter is asked, and Run reads
// the trace as few times as the needs allow. An exporter that keeps
// everything until Finish ([Aggregate]: the call tree, speedscope) takes
// an orphan exit as a stream.Enclose instruction that says exactly what
// to do ([Output].Enclose), so [Run] reads the trace once. A timeline
// writes each event as it comes (Perfetto) and needs the orphan frames
// opened at the thread's start, and so two passes when the trace has
// orphan exits; as recent ART traces have none, Run first tries one read
// when every output can start over: its output can be taken back
// ([Output].Restart, [Timeline]) or it writes only at Finish
// ([Output].AtFinish, [Deferred]: startup's phases). It reads again only
// once it meets an orphan exit. An output that needs the complete Trace
// at Begin ([Output].Complete: dump) is read twice. The pass's mode
// (run.go) says what each of these reads does.
//
// The orphan rule is decided here only. In one read, the stream.Enclose
// event is an instruction, not a fact to interpret: "frame F began at the
// thread's start, at time 0 on both clocks, and ends now; everything the
// thread has begun so far is inside it, one level deeper". The call tree
// (stacks) executes it by moving the thread's nodes under a new root
// child, speedscope by writing the open at time 0 before the thread's
// spooled events; neither decides anything about orphans. One read stays
// for both because a second read costs a whole first pass, which runs at
// a few times the speed of the speedscope and pprof exporters on one core
// and so would make those commands much slower than the 5 % the project
// allows; speedscope's per-thread memory budget, which shrinks as threads
// appear, is the price of not knowing the threads at Begin.
//
// The consumers come in two tiers. Exporters take the stream: perfetto,
// speedscope and dump write it out, and stacks builds the call tree. Views
// take the finished tree after Run returns, never the stream: pprofout,
// folded and report (top, calls, diff) each read a *stacks.Tree, so the
// tree is built once for every view of one trace.
//
// [Run] decodes and applies the policy on the caller's goroutine. With
// more than one CPU the exporters run on a second goroutine, handed
// batches of events (decode.go, pipeline.go), unless every output is
// declared Inline (the call tree), for which handing the events to
// another core costs more than it saves (docs/performance.md §3.6).
//
// Fast paths. Each has an unexported switch for its reference path, set by
// tests through export_test.go, and the build tag atrace2_reference turns
// every one to the reference path (reference.Only), so that the whole
// test suite runs on them:
//   - the policy: fastRecords takes the common records without calls,
//     loading each thread's state from a table at a thread switch;
//     pass.record and policy.go take any record (Options.generalOnly;
//     TestFastPathEqualsGeneral, FuzzFastPath);
//   - the pipeline: the exporters on a goroutine of their own; serially
//     on the caller's (Options.serial; TestPipelineEqualsSerial, which
//     runs every kind of output through both);
//   - one read: oneRead and speculative passes; two reads
//     (Options.twoReads; TestReadOnce, TestSpeculativeRead, and
//     TestOnePassEqualsTwoPasses in stacks and speedscope, which declare
//     two reads through the Output).
package convert
