// Package simpleperf reads the protobuf file `simpleperf report-sample
// --protobuf` writes: Android's simpleperf samples, converted by its
// report-sample command, and the StackSamplingTrace .trace file Jetpack
// Microbenchmark writes beside method traces. It decodes the protobuf
// itself (package pbread) and imports only the standard library and the
// project's model (package samples, through internal/profbuild).
//
// The file is the magic "SIMPLEPERF", a little-endian u16 version (1), then
// records, each a little-endian u32 size and a Record message (a Sample,
// LostSituation, File, Thread, MetaInfo or ContextSwitch), and a size of 0
// at the end (simpleperf's cmd_report_sample.proto; docs/formats.md §21).
// Samples come first, files and threads last, so samples are counted per
// distinct call chain of (file, symbol, address) as they come, in memory
// that grows with the distinct call chains, and named at the end:
// simpleperf's demangled symbol, or "<file>+0x<address>" for an address
// without one, as Firefox Profiler and Perfetto name them. Java frames
// (interpreted, JIT-compiled, or in .oat/.odex files) become class/method
// frames; native ones keep their library (and mangled symbol).
//
// By default the samples of the file's first event are read (cpu-clock,
// task-clock or cpu-cycles, what simpleperf record leads with); the others
// (sched:sched_switch, which --trace-offcpu adds) are counted in a note,
// or read too with Options.AllEvents. cpu-clock and task-clock event
// counts are ns of CPU time: each sample's is kept (Sample.WeightNanos)
// and their mean is the period. Sample times are CLOCK_MONOTONIC ns.
//
// A file cut short keeps the samples before the cut; malformed records
// give a *FormatError naming the offset; the reader never panics
// (FuzzRead).
//
// Fast paths: a call chain's bytes, as written, key a cache of stacks, so a
// chain seen before is not decoded again; the reference path decodes every
// chain frame by frame. TestReferenceEqualsFast ties them, and the build
// tag atrace2_reference turns the cache off.
package simpleperf
