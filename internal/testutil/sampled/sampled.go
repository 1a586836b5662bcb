// Package sampled holds test helpers for sampled profiles: their text
// form for exact comparisons, and playing their timelines into a stream
// checker. It is apart from package testutil, which the call tree's own
// tests import, because it imports package samples, which imports stacks.
package sampled

import (
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/samples"
)

// DumpProfile prints a profile in a compact text form for exact comparisons:
// stacks root first, each frame as FrameText shows it. The tests of the
// samples readers and of the load stage compare profiles in this form.
func DumpProfile(p *samples.Profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format: %s\n", p.Format)
	fmt.Fprintf(&b, "total %d (listed %d), time %d ns, max depth %d, depth limited %v, truncated %v, created %q\n",
		p.Total, p.SampleCount(), p.TotalTimeNanos, p.MaxDepth, p.DepthLimited, p.Truncated, p.Created)
	for _, u := range p.Unlisted {
		fmt.Fprintf(&b, "unlisted %d: %s\n", u.Count, u.Reason)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for i, t := range p.Threads {
		fmt.Fprintf(&b, "thread %d: id %d %q group %q\n", i, t.ID, t.Name, t.Group)
	}
	fmt.Fprintf(&b, "%d frames\n", len(p.Frames))
	for _, s := range p.Samples {
		fmt.Fprintf(&b, "sample trace %d thread %d count %d", s.Trace, s.Thread, s.Count)
		if s.TimeNanos != 0 {
			fmt.Fprintf(&b, " time %d", s.TimeNanos)
		}
		names := make([]string, len(s.Stack))
		for i, f := range s.Stack {
			names[i] = FrameText(p.Frames[f])
		}
		if len(names) == 0 {
			names = []string{"<empty>"}
		}
		fmt.Fprintf(&b, ": %s\n", strings.Join(names, "; "))
	}
	return b.String()
}

// FrameText shows every field of a frame; Name is checked to be
// <class>.<method> (or the method alone without a class).
func FrameText(f samples.Frame) string {
	s := f.Name + f.Signature
	if want := f.Class + "." + f.Method; f.Class != "" && f.Name != want || f.Class == "" && f.Name != f.Method {
		s += fmt.Sprintf(" [class %q method %q]", f.Class, f.Method)
	}
	var loc []string
	if f.File != "" {
		loc = append(loc, f.File)
	}
	if f.HasLine {
		loc = append(loc, fmt.Sprint(f.Line))
	}
	if f.Native {
		loc = append(loc, "native")
	}
	if len(loc) > 0 {
		s += " (" + strings.Join(loc, ":") + ")"
	}
	return s
}

// PlayChecked builds the profile's call tree and plays its timeline
// (samples.Profile.Play) into an exporter that checks the stream
// contract: the timeline outputs of any file a reader accepts (the fuzz
// targets of the stack-sample readers).
func PlayChecked(t *testing.T, p *samples.Profile) {
	t.Helper()
	tree, err := p.Tree("fuzz")
	if err != nil {
		t.Fatal(err)
	}
	if p.Timeline == nil {
		return
	}
	var c testutil.StreamCheck
	if err := p.Play(tree.Trace(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Err != nil {
		t.Fatal(c.Err)
	}
}
