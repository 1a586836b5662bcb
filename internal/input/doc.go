// Package input acquires the inputs of a run: it opens each argument once,
// decides once whether it is a method trace or a sampled profile
// (Opener.Identify), and hands the parser something it can read at any
// offset. Standard input and pipes (bash's <(...)) are opened once and
// peeked at, so the decision consumes nothing; input that cannot be read
// twice (standard input that is not a regular file, a pipe, a device) or
// that is gzip-compressed is copied to an unlinked temporary file,
// after its first bytes were checked to be able to start a trace.
//
// The copy is made on a goroutine of its own, gzip decompressed straight
// from the file or the stream, while the parser reads the copy as it grows
// (parser.NewGrowingFile): the first read of a regular trace runs beside
// the decompression instead of after it, and a second read finds the
// whole copy. Streaming and ART V2 traces, whose summaries are at the
// end, open once the copy is whole. The reference path (the opener's
// copyFirst, set by tests, or the build tag atrace2_reference) copies a
// stream whole, then decompresses the copy whole, before opening it; gzip
// within gzip and streams of fewer than 64 bytes always take it.
// TestOverlapEqualsSpool ties the two.
//
// Fast path: gzip is decompressed with github.com/klauspost/compress/gzip,
// about 1.4 times as fast as compress/gzip on traces. The reference path is
// compress/gzip (the opener's stdGzip, or the build tag);
// TestGzipReaders ties the two. The parser itself imports no compression
// library.
package input
