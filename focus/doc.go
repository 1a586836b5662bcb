// Package focus narrows the balanced event stream to what the user asked
// to see, once, before any exporter, so that every output agrees. Each
// focus is a stage: a stream.Exporter that wraps the next one, passes
// Begin and Finish on and filters and rewrites the events (--from/--to:
// NewWindow; --root: Root). Package convert chains them, the window
// first, between two Counters, which count the whole stream and what the
// focus kept (stream.FocusStats). --thread comes before them all, as a
// ThreadFilter that the reader of each input family applies to its
// threads (convert drops the records of the others before its stack
// policy).
//
// A stage needs the orphan frames opened at their thread's start, so a
// focused trace is read in two passes (convert.Run): a one-read
// stream.Enclose instruction is refused.
//
// The package imports the standard library and stream only.
package focus
