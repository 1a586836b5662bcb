package dump

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/parser"
)

// TestDumperLines checks the dumper's appended lines against fmt: every
// action and mark, traces without one of the clocks, sub-µs times, long
// and non-ASCII thread names, and depths past the deepest indent.
func TestDumperLines(t *testing.T) {
	threads := []stream.Thread{
		{Index: 0, ID: 4821, Name: "main"},
		{Index: 1, ID: 123456789, Name: "Ünïcode-thread-name-longer-than-twenty"},
	}
	frames := []stream.Frame{
		{Name: "a.B.c", Signature: "()V"},
		{Name: "java.lang.Object.<init>", Signature: "(I)Ljava/lang/String;"},
	}
	var events []stream.Event
	for i, depth := range []int32{0, 1, 5, 255, 256, 257, 600} {
		for _, kind := range []stream.Kind{stream.Begin, stream.End} {
			for _, fl := range []stream.Flags{0, stream.Synthetic, stream.Implicit, stream.Unwound, stream.Unwound | stream.Synthetic, stream.Unwound | stream.Implicit} {
				events = append(events, stream.Event{Kind: kind, Flags: fl, Thread: stream.ThreadIndex(i % 2), Frame: stream.FrameID(i % 2),
					Depth: depth, Wall: int64(i)*1_234_567 + int64(fl), CPU: int64(i) * 1_000_000_000_000})
			}
		}
	}
	for _, clock := range []parser.Clock{parser.ClockDual, parser.ClockWall, parser.ClockThreadCPU} {
		tr := &stream.Trace{Name: "x.trace", Threads: threads, Frames: frames, HasWall: clock.HasWall(), HasCPU: clock.HasCPU()}
		tr.Header = &parser.Header{Clock: clock}
		var got bytes.Buffer
		d := New(&got)
		if err := d.Begin(tr); err != nil {
			t.Fatal(err)
		}
		head := got.Len()
		if err := d.Events(events[:7]); err != nil { // a batch, then one by one
			t.Fatal(err)
		}
		for i := range events[7:] {
			if err := d.Events([]stream.Event{events[7+i]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Finish(); err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for i := range events {
			want.WriteString(referenceDumpLine(tr, &events[i]))
		}
		if g := got.String()[head:]; g != want.String() {
			gl, wl := strings.Split(g, "\n"), strings.Split(want.String(), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s clock, line %d:\ngot  %q\nwant %q", clock, i, gl[i], wl[i])
				}
			}
			t.Fatalf("%s clock: %d lines, want %d", clock, len(gl), len(wl))
		}
	}
}

// referenceDumpLine formats a line with fmt, as the dumper first did.
func referenceDumpLine(tr *stream.Trace, ev *stream.Event) string {
	th := &tr.Threads[ev.Thread]
	action := "enter"
	if ev.Kind == stream.End {
		action = "exit"
		if ev.Flags&stream.Unwound != 0 {
			action = "unwind"
		}
	}
	switch {
	case ev.Flags&stream.Synthetic != 0:
		action += "*"
	case ev.Flags&stream.Implicit != 0:
		action += "~"
	}
	wall, cpu := "-", "-"
	if tr.HasWall {
		wall = units.FormatMicros(ev.Wall)
	}
	if tr.HasCPU {
		cpu = units.FormatMicros(ev.CPU)
	}
	fr := &tr.Frames[ev.Frame]
	indent := strings.Repeat(". ", int(ev.Depth))
	if ev.Depth >= 256 { // the indent stops growing, and the depth is written
		indent = strings.Repeat(". ", 256) + fmt.Sprintf("[%d] ", ev.Depth)
	}
	return fmt.Sprintf("%-9d %-20s %-7s %12s %12s  %s%s %s\n", th.ID, clipName(th.Name, 20), action, wall, cpu,
		indent, fr.Name, fr.Signature)
}
