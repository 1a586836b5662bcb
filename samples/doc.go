// Package samples reads sampled CPU profiles written as text by Java
// runtimes: profiles that count call stacks and have no timeline. Its
// readers use only the standard library; Profile.Tree builds the model of
// package stacks.
//
// Read accepts, plain or gzip-compressed (docs/formats.md §18):
//
//   - Dalvik's SamplingProfiler text ("ASCII hprof", libcore's
//     dalvik/system/profiler/AsciiHprofWriter.java): THREAD START/END
//     lines with a decimal obj=, one "TRACE n: (thread=m)" per distinct
//     (thread, stack) with StackTraceElement frames leaf first, and a
//     CPU SAMPLES table of counts.
//   - Classic JVM hprof text (-agentlib:hprof / -Xrunhprof, JDK ≤ 8,
//     OpenJDK's demo/jvmti/hprof/hprof_io.c) with cpu=samples or cpu=times:
//     the "JAVA PROFILE 1.0.1, created …" header text up to "--------" is
//     skipped (it contains lines that look like records), obj= is hex, the
//     TRACE header's "(thread=n)" is optional and may be followed by
//     "(from <phase> phase of JVM)", frames read class.method(File:line)
//     with "Unknown line", "Compiled method", "Native method",
//     "<Unknown Source>" and "<Unknown Method>" for what the VM did not
//     know, and "<empty>" for a trace without frames. SITES, HEAP DUMP,
//     MONITOR TIME and MONITOR DUMP sections and monitor event lines are
//     skipped. Several CPU sections (one per dump; hprof resets its counts
//     after each) are added up.
//   - Android 5.x ART profile files (runtime/profiler.cc, removed in 2016)
//     in method mode and bounded-stack mode.
//
// Every input becomes a Profile: de-duplicated frames, threads, and samples
// whose stacks are frame indices, root first. For cpu=times the count is the
// number of calls and each sample also has its elapsed time (hprof measures
// cpu=times with the time of day, not thread CPU time), rebuilt from the
// printed percentage of the section total. Stacks of hprof files are cut at
// the profiler's depth= (4 frames by default): Profile.DepthLimited and
// Profile.CutStack say so. None of these files has timestamps.
//
// Errors about the content are *FormatError values that name the line and
// what was expected there; input of no known format gives an error wrapping
// ErrUnrecognized. Lines are limited to 1 MiB and stacks to 65 536 frames,
// and the reader never panics (FuzzRead).
//
// Profile.Tree turns a profile into the call tree every view reads
// (stacks.Tree): the model of every input. The focus (--thread, --root)
// and the mapping (--mapping) are applied to the profile before that, at
// one site, by the load stage (internal/driver); a renamed frame keeps the
// file's own name in Frame.Obfuscated.
//
// Package samplegen writes all of these formats for the tests.
package samples
