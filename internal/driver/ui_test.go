package driver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/progress"
	"github.com/atrace2/atrace2/internal/testutil"
)

// recordingUI keeps what the driver gives it: each call to Diagnose as one
// entry, the texts joined by " | ".
type recordingUI struct{ calls []string }

func (u *recordingUI) Bar(string) *progress.Bar { return nil }
func (u *recordingUI) Writing(*progress.Bar)    {}
func (u *recordingUI) Diagnose(ds []Diagnostic) {
	var texts []string
	for _, d := range ds {
		texts = append(texts, d.Text)
	}
	u.calls = append(u.calls, strings.Join(texts, " | "))
}

func testDriver(t *testing.T, f Flags, ui UI) *Driver {
	t.Helper()
	f.Clock, f.TimeUnit, f.MaxDepth, f.MappingMismatch = "auto", "auto", 10000, "error"
	opt, err := NewOptions(f)
	if err != nil {
		t.Fatal(err)
	}
	return New(opt, input.NewOpener(strings.NewReader("")), ui)
}

// TestUIDiagnose: each read gives the UI what it said once, at its end: a
// read that calls another (Profile reads the tree) gives it once too; a
// second read gives only its own; --quiet gives nothing.
func TestUIDiagnose(t *testing.T) {
	sample := testutil.SampleTrace(t)
	repaired := sample + ": repaired: 1 orphan exit, 25 frames open at the end"
	for _, c := range []struct {
		name  string
		quiet bool
		read  func(in *Input) error
		want  []string
	}{
		{"tree", false, func(in *Input) error { _, err := in.Tree(); return err }, []string{repaired}},
		{"profile", false, func(in *Input) error { _, err := in.Profile(); return err }, []string{repaired}},
		{"two reads", false, func(in *Input) error {
			if _, err := in.Profile(); err != nil {
				return err
			}
			_, err := in.Info()
			return err
		}, []string{repaired, repaired}},
		{"quiet", true, func(in *Input) error { _, err := in.Tree(); return err }, nil},
	} {
		ui := &recordingUI{}
		in, err := testDriver(t, Flags{Quiet: c.quiet}, ui).Load(input.Arg{Path: sample})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.read(in); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(ui.calls, c.want) {
			t.Errorf("%s: UI given %q, want %q", c.name, ui.calls, c.want)
		}
		if n := len(in.Diagnostics()); n != len(c.want) {
			t.Errorf("%s: %d diagnostics kept, want %d", c.name, n, len(c.want))
		}
	}
}

// TestUIDiagnoseOnError: a read that fails gives the UI what was said
// before it returns its error.
func TestUIDiagnoseOnError(t *testing.T) {
	ui := &recordingUI{}
	missing := t.TempDir() + "/missing.trace"
	in, err := testDriver(t, Flags{}, ui).Load(input.Arg{Path: missing})
	if err != nil {
		t.Fatal(err)
	}
	in.say(Warning, "warning: said before the read")
	if _, err := in.Tree(); err == nil || !strings.Contains(err.Error(), "missing.trace") {
		t.Fatalf("error %v, want the missing file's", err)
	}
	if want := []string{missing + ": warning: said before the read"}; !slices.Equal(ui.calls, want) {
		t.Errorf("UI given %q, want %q", ui.calls, want)
	}
}

// TestLoadOneAndInputs: the usage errors of the arguments, and the
// iteration that stops at the first error.
func TestLoadOneAndInputs(t *testing.T) {
	sample := testutil.SampleTrace(t)
	d := testDriver(t, Flags{Quiet: true}, nil)
	var ue *UsageError
	if _, err := d.LoadOne([]string{sample, sample}, "top reads one trace"); !errors.As(err, &ue) || err.Error() != "top reads one trace, got 2" {
		t.Errorf("two traces: %v", err)
	}
	if _, err := d.LoadOne([]string{"a.sec"}, "top reads one trace"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "must follow the streaming trace") {
		t.Errorf("a key file alone: %v", err)
	}
	in, err := d.LoadOne([]string{sample, sample + ".sec"}, "x")
	if err != nil || in.Arg() != (input.Arg{Path: sample, Sec: sample + ".sec"}) {
		t.Errorf("a trace and its key file: %v, %+v", err, in)
	}
	var got []string
	for in, err := range d.Inputs([]string{sample, "-", sample}) {
		if err != nil {
			got = append(got, "error "+err.Error())
			break
		}
		got = append(got, in.Name())
	}
	if want := []string{sample, "<stdin>", sample}; !slices.Equal(got, want) {
		t.Errorf("inputs %q, want %q", got, want)
	}
	got = nil
	for _, err := range d.Inputs(nil) {
		got = append(got, fmt.Sprint(err))
	}
	if want := []string{"no trace given"}; !slices.Equal(got, want) {
		t.Errorf("no arguments: %q, want %q", got, want)
	}
}
