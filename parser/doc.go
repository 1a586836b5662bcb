// Package parser decodes Android method traces: the files written by
// Debug.startMethodTracing, Android Studio's Java/Kotlin method recording
// and `adb shell am profile`.
//
// It reads every legacy variant that Dalvik and ART have written:
//
//   - regular files: a text key (*version, key=value options, *threads,
//     *methods, *end) followed by the 32-byte SLOW data header and
//     fixed-size records — v1 (9 bytes, u1 thread id), v2 (10 bytes, one
//     clock) and v3 (normally 14 bytes: thread-cpu time, then wall time);
//   - the pre-1.0 split pair NAME.key + NAME.data;
//   - streaming files (data version 0xF2/0xF3), where method and thread
//     definitions are interleaved with the records and the key text (with the
//     clock) is a summary item at the very end of the file, or in a separate
//     .sec file on Android 6-7;
//   - ART's "V2" packet format (data versions 4/5, 0xF4/0xF5 when
//     streaming): thread and method packets, per-thread event blocks of
//     LEB128 deltas, and a text summary; the layouts V2c (µs) and V2d (ns),
//     and V2b on a best-effort basis (v2*.go).
//
// Decompressing gzip copies and copying standard input or pipes to a file
// that can be read at any offset are the caller's (cmd/atrace2 does both in
// internal/input); the parser reads a regular file or an [io.ReaderAt].
//
// The writer the layouts mirror is ART's runtime/trace.cc (and Dalvik's
// vm/Profile.cpp before it); docs/formats.md in the atrace2
// repository describes every byte with citations.
//
// The package reports what the file says and nothing more: records come out
// in file order with their raw 32-bit times. The stack policy (orphan exits,
// frames left open, clamped times) lives in package convert, applied once.
// Memory does not grow with the number of records: the key tables are held,
// records are streamed through a fixed buffer, and a [File] can be read more
// than once (convert needs a first pass to find orphan exits).
//
// Fast paths. Reader.ReadRecords decodes the whole records in its buffer
// with decodeBuffered, a loop per layout; the reference path decodes one
// record at a time (Reader.ReadRecord's readSlow and decode). The build tag
// atrace2_reference turns the fast path off (reference.Only), and
// TestReadRecordsBatches and FuzzReader tie the two.
package parser
