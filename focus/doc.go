// Package focus narrows the balanced event stream to what the user asked
// about, once, so that every output agrees: the window (--from/--to,
// window.go) and the root (--root, root.go). Each stage is a
// stream.Exporter that wraps the next one: Begin and Finish pass through,
// Events are filtered and rewritten. Package convert chains them, window
// first, behind a Counter at each end of the chain (count.go), which give
// the totals and what was kept (stream.FocusStats).
//
// The stages take the stream of two reads (convert.Run reads twice when a
// focus is set): orphan frames come opened at their thread's start, never
// as a one-read stream.Enclose instruction, which a stage refuses.
//
// The package imports the standard library and convert/stream only.
package focus
