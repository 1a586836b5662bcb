// Package info describes one input without converting it: a method
// trace's variant, clock, start, durations, records, tables, repairs and
// threads (Trace), or a sampled profile's format, totals, depth and
// threads (Sampled). Each report encodes to the JSON of `atrace2 info
// --format json` as it is, and WriteText prints the same fields as aligned
// text.
package info
