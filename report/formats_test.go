package report

import (
	"io"
	"strings"
	"testing"
)

// fakeReport writes the name of the method called, and the text layout.
type fakeReport struct{}

func (fakeReport) WriteText(w io.Writer, o TextOptions) error {
	_, err := io.WriteString(w, "text "+strings.Repeat("+", o.Width/80))
	return err
}
func (fakeReport) WriteCSV(w io.Writer) error  { _, err := io.WriteString(w, "csv"); return err }
func (fakeReport) WriteJSON(w io.Writer) error { _, err := io.WriteString(w, "json"); return err }

type fakeGate struct{ fakeReport }

func (fakeGate) WriteJUnit(w io.Writer) error { _, err := io.WriteString(w, "junit"); return err }
func (fakeGate) WriteMarkdown(w io.Writer, o MarkdownOptions) error {
	_, err := io.WriteString(w, "markdown")
	return err
}

// TestWriteAs: each format goes to its writer; junit and markdown only for
// a gate's report.
func TestWriteAs(t *testing.T) {
	for _, c := range []struct {
		r      Writer
		format string
		want   string
	}{
		{fakeReport{}, "text", "text ++"},
		{fakeReport{}, "csv", "csv"},
		{fakeGate{}, "json", "json"},
		{fakeGate{}, "junit", "junit"},
		{fakeGate{}, "markdown", "markdown"},
		{fakeReport{}, "junit", "error: invariant violation: no junit output of this report"},
	} {
		var s strings.Builder
		if err := WriteAs(&s, c.r, c.format, TextOptions{Width: 160}); err != nil {
			s.WriteString("error: " + err.Error())
		}
		if s.String() != c.want {
			t.Errorf("%T as %s: %q, want %q", c.r, c.format, s.String(), c.want)
		}
	}
}

// TestLayoutFor: --wide never shortens; a file or pipe takes $COLUMNS, or
// DefaultWidth without it.
func TestLayoutFor(t *testing.T) {
	var s strings.Builder
	if o := LayoutFor(&s, true); o != (TextOptions{}) {
		t.Errorf("wide: %+v", o)
	}
	t.Setenv("COLUMNS", "")
	if o := LayoutFor(&s, false); o != (TextOptions{Width: DefaultWidth}) {
		t.Errorf("no COLUMNS: %+v", o)
	}
	t.Setenv("COLUMNS", "97")
	if o := LayoutFor(&s, false); o != (TextOptions{Width: 97}) {
		t.Errorf("COLUMNS=97: %+v", o)
	}
}
