// Package tracegen writes Android method traces in every legacy layout from
// a readable description, so that parser tests use generated fixtures rather
// than hand-edited bytes.
//
// A [Trace] is the description: version, clock, VM flavour, options, the
// thread and method tables and the records, each record as it appears in the
// file (thread id, method id, action, thread-CPU and wall times in µs). From
// it the package writes:
//
//   - [Trace.Regular]: the key text followed by the 32-byte SLOW header and
//     fixed-size records, as v1 (9-byte records), v2 (10) or v3 (normally 14)
//     (docs/formats.md §3, §4, §5);
//   - [Trace.Split]: the pre-1.0 NAME.key + NAME.data pair (docs/formats.md §9);
//   - [Trace.Streaming]: the 0xF2/0xF3 layout with op-1/op-2 definitions
//     interleaved with the records and an optional op-3 summary
//     (docs/formats.md §8);
//   - [Gzip] of any of them (docs/formats.md §1, row H).
//
// The writer mirrors ART's runtime/trace.cc and Dalvik's vm/Profile.cpp as
// described in docs/formats.md (section numbers are cited in the
// comments). It is deliberately lenient: it writes whatever the description
// says, including ids truncated to the record field, unknown methods, orphan
// exits, action 3, and record or header sizes that disagree with the clock,
// because producing such files is what the parser tests need it for.
//
// Two front ends build descriptions: [ParseText] reads a line-oriented text
// form (used inside txtar test cases) that [Trace.Text] writes back, and
// [Builder] lays out realistic call trees with per-thread clocks.
//
// For deobfuscation tests, [Obfuscate] renames a readable trace's methods
// as a [Plan] of a minified build says and checks that the R8 map
// ([Plan.R8]) restores it exactly under the rules of docs/formats.md §19;
// [Plan.ProGuard] writes the ProGuard-style map, and [MinifiedApp] is a
// trace and plan that cover every situation those rules name.
//
// For regression-gate tests, an [App] is a call tree with self times, and
// [App.Run] writes repeated runs of it with seeded run-to-run [Noise], one
// method optionally stretched by a known factor; [FeedApp] is a realistic
// one.
//
// The package imports nothing from atrace2 on purpose: it is an independent
// implementation of the format, used to check the parser.
package tracegen
