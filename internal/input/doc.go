// Package input acquires the inputs of a run: it opens each argument once,
// decides once whether it is a method trace or a sampled profile
// (Opener.Identify), and hands the parser something it can read at any
// offset. Standard input and pipes (bash's <(...)) are opened once and
// peeked at, so the decision consumes nothing; input that cannot be read
// twice (standard input that is not a regular file, a pipe, a device) or
// that is gzip-compressed is copied to an unlinked temporary file first,
// after its first bytes were checked to be able to start a trace.
//
// Fast path: gzip is decompressed with github.com/klauspost/compress/gzip,
// about 1.4 times as fast as compress/gzip on traces. The reference path is
// compress/gzip, chosen by the unexported switch fastGzip (off in builds
// tagged atrace2_reference); TestGzipReaders ties the two. The parser
// itself imports the standard library only.
package input
