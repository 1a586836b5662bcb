package report

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// Writer is what every report can do: text for people, CSV and JSON for
// scripts.
type Writer interface {
	WriteText(io.Writer, TextOptions) error
	WriteCSV(io.Writer) error
	WriteJSON(io.Writer) error
}

// GateWriter is a report of diff (DiffReport, BenchReport), which CI also
// reads as JUnit test results and as a Markdown job summary.
type GateWriter interface {
	Writer
	WriteJUnit(io.Writer) error
	WriteMarkdown(io.Writer, MarkdownOptions) error
}

// WriteAs writes r in format: "text" laid out with text, "csv", "json", or,
// for a GateWriter, "junit" or "markdown".
func WriteAs(w io.Writer, r Writer, format string, text TextOptions) error {
	g, gate := r.(GateWriter)
	switch {
	case format == "text":
		return r.WriteText(w, text)
	case format == "csv":
		return r.WriteCSV(w)
	case format == "json":
		return r.WriteJSON(w)
	case format == "junit" && gate:
		return g.WriteJUnit(w)
	case format == "markdown" && gate:
		return g.WriteMarkdown(w, MarkdownOptions{})
	}
	return fmt.Errorf("invariant violation: no %s output of this report", format)
}

// DefaultWidth is the line width of text written to a file or pipe.
const DefaultWidth = 160

// LayoutFor is the layout of text written to w: with wide everything at
// full width; on a terminal its width, fitted by leaving columns out too;
// else $COLUMNS or DefaultWidth, to which only method names are shortened.
func LayoutFor(w io.Writer, wide bool) TextOptions {
	if wide {
		return TextOptions{}
	}
	if fd, ok := w.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		if w, _, err := term.GetSize(int(fd.Fd())); err == nil && w > 0 {
			return TextOptions{Width: w, Fit: true}
		}
	}
	if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		return TextOptions{Width: w}
	}
	return TextOptions{Width: DefaultWidth}
}
