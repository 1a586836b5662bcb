// Package speedscope writes the balanced event stream as a speedscope file
// (https://www.speedscope.app/file-format-schema.json, defined by
// src/lib/file-format-spec.ts in jlfwong/speedscope): one "evented" profile
// per thread on one timeline, with the frames shared by all profiles.
//
// The file looks like this (docs/outputs.md §3.1, §3.4):
//
//	{"$schema":"https://www.speedscope.app/file-format-schema.json",
//	 "exporter":"atrace2@v1.0.0","name":"app.trace (wall clock)",
//	 "activeProfileIndex":0,
//	 "shared":{"frames":[{"name":"android.os.Looper.loop","file":"android/os/Looper.java"}, …]},
//	 "profiles":[{"type":"evented","name":"main (tid 4821)","unit":"microseconds",
//	   "startValue":0,"endValue":123456,
//	   "events":[{"type":"O","at":0,"frame":0}, …, {"type":"C","at":123456,"frame":0}]}, …]}
//
// What speedscope's importer requires, and why the stream already meets it
// (docs/outputs.md §3.2): a close names the frame on top of the stack, times never
// decrease, and nothing is left open at the end. Package convert guarantees
// all three per thread (orphan frames open at time 0, frames still open
// close at the trace end), and the frames of one method always map to the
// same shared frame, so the discipline survives de-duplication.
//
// One read. The exporter is declared convert.Aggregate: convert reads the
// trace once, and an orphan exit arrives when it is found rather than as
// a frame opened at the thread's start. The exporter spools the close
// there, notes the frame, and writes the opens at time 0 (the last found
// outermost) before the thread's spooled events; a thread's time before
// its last orphan exit counts as busy, as the frames were open. Events
// carry stream frame ids, mapped to shared frames at Finish, when the
// frame table is complete. The file is byte for byte the one two passes
// give.
//
// Choices:
//
//   - Frames are de-duplicated by (name, file, line), because speedscope
//     keys frames by array index and a large undeduplicated table makes it
//     load for minutes (speedscope#399). Overloads of one method share a
//     frame, as they share a name.
//   - A frame a mapping (--mapping) renamed has the key "obfuscated", the
//     trace's own <class>.<method> (without the descriptor, so that
//     overloads, which R8 gives one name, still share a frame), which is
//     also part of the frame's identity. speedscope's importer keeps keys
//     it does not know and its schema allows them; it does not show them.
//   - The timeline is wall time when the trace has it, else thread CPU time
//     (each thread's CPU clock starts at 0 at its first event). startValue
//     is 0, the trace start; endValue is the trace end on that clock (for
//     thread CPU, the thread's last CPU time).
//   - The unit is microseconds, the resolution of every legacy trace; a
//     trace with a time that is not a whole microsecond is written in
//     nanoseconds, so no time is ever rounded.
//   - activeProfileIndex, the thread shown first, is the main thread (the
//     one whose tid is the pid=, else the one named "main"), else the
//     thread with the most time inside methods.
//
// Memory. speedscope wants all events of a profile together, but the stream
// interleaves threads. The exporter encodes each event in a few bytes (a
// varint of frame, kind and the step's unit, a varint time step) into a
// buffer per thread; a full buffer is appended as a block to one temporary
// spool file, and the thread remembers the block's offset. Finish writes
// the header and frames, then each thread's blocks in order, decoding them
// into JSON. Memory is therefore the buffers (Options.Memory in all, 16 MiB
// by default) plus 16 bytes per spilled block of up to 1 MiB, whatever the
// number of records. Threads appear as the trace is read, so each new one
// shrinks the others' share, and the buffers are cut down to it whenever it
// has fallen by a quarter: together they stay under about 4/3 of
// Options.Memory. The spool holds about 2.5 bytes per event (a step of
// whole µs is stored in µs), a fifteenth of the JSON's 37. One spool file
// rather than one per thread keeps the number of open files at one for
// traces with thousands of threads, and a trace whose events fit in the
// buffers never creates it.
//
// Sampled profiles (hprof text, ART profile files) have no timeline:
// [WriteTree] writes their call tree (stacks.Tree) as "sampled" profiles,
// one per thread, each stack weighted by its count (tree.go).
//
// Fast paths. eventWriter's fast loop (events.go) writes the JSON of
// common events without calls; the loop in events writes any event (the
// reference path, taken alone under the build tag atrace2_reference).
// Both keep the time as decimal digits that advance with it (decimal.go)
// rather than formatting every time with strconv.AppendUint, and copy an
// event into the buffer with fixed-size moves (putEvent).
// TestEventsFormatting, FuzzSpooledEvents and FuzzDecimal tie them to fmt's
// formatting; BenchmarkDecoder (the JSON alone) and BenchmarkSpeedscope
// (the whole command) guard their speed against that of strconv.AppendUint
// and plain appends (docs/performance.md).
package speedscope
