// Package pftrace reads the CPU stack samples of Perfetto traces: what
// Android's ProfilingManager returns for a stack-sampling request
// (.perfetto-stack-sample, traced_perf's linux.perf data source), what
// `perfetto` records with linux.perf on the command line, Chrome's
// StreamingProfilePackets and the newer StackSample packets. It decodes
// the protobuf itself (package pbread: no generated code, no protobuf
// library) and imports only the standard library and the project's
// model (package samples, built through internal/profbuild).
//
// Read follows the format as Perfetto defines it, and as its own reader,
// trace_processor v58.2, imports it (docs/formats.md §20):
//
//   - The input is a Trace message, plain or gzip-compressed; packets may
//     be bundled in compressed_packets fields (zlib's deflate). The bytes
//     decide, not the file name. Fields other than packets are skipped.
//   - Each trusted_packet_sequence_id has its own interned data (call
//     stacks, frames, mappings, function names, build ids, mapping paths)
//     and packet defaults. SEQ_INCREMENTAL_STATE_CLEARED starts a new
//     generation; a lost packet (previous_packet_dropped) invalidates the
//     sequence until then, and packets that need the state are skipped,
//     as trace_processor skips them. The first definition of an iid
//     counts; iid 0 of a function name or build id is "".
//   - Timestamps are converted to the trace clock (BOOTTIME unless a clock
//     snapshot names another) through the sequence's default clock
//     (traced_perf stamps samples on CLOCK_MONOTONIC) and the trace's
//     ClockSnapshots, never by an assumed offset.
//   - PerfSample (field 66), StreamingProfilePacket (54) and StackSample
//     (135) are the samples; process_tree, track and thread descriptors
//     name processes and threads; DeobfuscationMapping packets rename Java
//     frames; packages_list gives apps' packages.
//
// Frames are named by package profbuild: ART's Java frames (in .oat,
// .odex, .vdex, .dex, .apk and JIT-cache mappings) become class/method
// frames that --mapping deobfuscates by name; native frames keep library
// and build id and are demangled.
//
// Memory grows with the distinct call stacks, frames and interned strings,
// not with the samples: samples are counted per distinct (thread, stack)
// as they are read. A time window or a timeline (samples.Select) keeps
// 24 bytes per sample, since the window counts from the first sample of
// the whole trace, known at its end. Packets are read one at a time
// through a buffer that grows to the largest packet.
//
// Errors name the offset; unknown fields are skipped; samples whose call
// stack or frames were never interned are kept under UnknownFrame frames
// and counted in Profile.Repairs; a trace cut inside a packet keeps what
// came before. The reader never panics (FuzzRead).
package pftrace
