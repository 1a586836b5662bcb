// Package info describes one input without converting it: a method
// trace's variant, clock, start, durations, records, tables, repairs and
// threads (Trace), or a sampled profile's format, totals, depth and
// threads (Sampled). Each report encodes to the JSON of `atrace2 info
// --format json` as it is, and WriteText prints the same fields as aligned
// text.
package info

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Report is the report of one input, which encodes to the JSON of
// `atrace2 info --format json` as it is.
type Report interface {
	WriteText(w io.Writer)
}

// New describes an input from what the load stage read of it: a method
// trace's file header h and trace t, analysed, or a tree whose Source says
// what its file states (a sampled profile); gz says whether such a file
// was gzip-compressed (a method trace's header says it of itself).
func New(name string, h *parser.Header, t *stream.Trace, tree *stacks.Tree, gz bool) Report {
	if tree != nil && tree.Source() != nil {
		return NewSampled(name, tree, gz)
	}
	return NewTrace(name, h, t)
}

// Write writes reports as text, a blank line between two, or as indented
// JSON: one report as an object, several as an array.
func Write(w io.Writer, reports []Report, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(reports) == 1 {
			return enc.Encode(reports[0])
		}
		return enc.Encode(reports)
	}
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		r.WriteText(w)
	}
	return nil
}
