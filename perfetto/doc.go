// Package perfetto writes the balanced event stream as a binary Perfetto
// trace (a Trace message: repeated TracePacket) for ui.perfetto.dev and
// trace_processor.
//
// The output is streamed: each packet is appended to a reused buffer as
// field 1 of Trace (tag 0x0A, length, packet bytes) and the buffer is written
// whenever it fills, so memory depends on the number of threads and methods,
// never on the number of records. The layout follows what the Perfetto SDK
// writes (docs/outputs.md §2.3):
//
//   - sequence 1 holds the process track: TrackDescriptor{process{pid,
//     process_name}};
//   - every thread has its own packet sequence (2 + thread index). Its first
//     packet clears the incremental state and carries the defaults (clock 64,
//     the thread's track and its thread-time counter), a clock snapshot and
//     the interned annotation names and values; then come the thread track
//     (ThreadDescriptor{pid, tid, thread_name}) and, with a thread-CPU clock
//     beside the wall clock, a COUNTER_THREAD_TIME_NS counter track;
//   - every Begin of the stream is a SLICE_BEGIN and every End a SLICE_END
//     without a name, in the stream's strict LIFO order, so trace_processor
//     closes exactly the slice the stream closes.
//
// Timestamps use clock 64, a sequence-scoped incremental clock counting µs
// (the unit of the records), so an event costs a one- or two-byte delta. The
// snapshot ties it to BOOTTIME at the header start time: ART's start time is
// a monotonic clock, so events stay on the trace's own timeline, and a
// REALTIME clock is declared only for Dalvik's epoch start times
// (docs/outputs.md §2.5). A trace without a wall clock is laid out on each thread's
// CPU clock instead, and its tracks say so in their description.
//
// Slice names are interned per sequence (EventName), and so is a
// SourceLocation per method: file_name is the source path, function_name the
// method name with its JVM signature, line_number the line when the trace
// has one; trace_processor turns it into the args source.*. Debug
// annotations, with interned names and values, mark what the converter
// changed: debug.synthetic on frames it began at the trace start or ended at
// the trace end (or ended because a caller exited), debug.exception on frames
// left by an exception, debug.folded_frames on the deepest slice kept when
// recursion goes past trace_processor's 512 levels (deeper frames are not
// written), and debug.cpu_us = 0 on slices that took wall time but no CPU
// time, which trace_processor would otherwise show without a thread
// duration.
//
// A frame a mapping (--mapping) renamed keeps the trace's own name: its
// slices carry debug.obfuscated, "<class>.<method> <descriptor>" as the
// trace names it (the descriptor left out when the input has none; none
// for a kept class and method, which the map names as themselves), and
// those of a frame the mapping marks as made by the compiler
// debug.synthesized = true. The value is interned with the frame's name,
// and the two annotation names with the first such frame of a sequence,
// so that a trace without a mapping is written as before. Begins of these
// frames take the general path (thread.withArgs).
//
// With both clocks each event carries the thread's CPU time as an
// incremental extra counter value, from which trace_processor computes the
// slices' thread_ts and thread_dur ("Thread duration" in the UI,
// docs/outputs.md §2.6), and each end the slice's exclusive off-CPU time,
// debug.offcpu_us, when it is above 0: each open slice keeps the sum of
// its closed children's inclusive wall minus CPU µs (openSlice.child), so
// its own exclusive difference is known at its end.
//
// The hot path (one packet per event) is encoded by hand with protowire; the
// few descriptor packets are marshalled from the generated types of
// ../proto. Tests decode the output with those types.
//
// Fast paths. fast.go's fastRun writes the common event packets with
// whole-word stores; encode.go's begin and end write every packet (the
// reference path, Options.reference through export_test.go, and every
// exporter under the build tag atrace2_reference). TestFastPathBytes ties
// the two byte for byte.
package perfetto
