package dump

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
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
			for _, fl := range []stream.Flags{0, stream.Synthetic, stream.Implicit, stream.Unwound, stream.Unwound | stream.Synthetic, stream.Unwound | stream.Implicit, stream.Cut, stream.Cut | stream.Synthetic} {
				events = append(events, stream.Event{Kind: kind, Flags: fl, Thread: stream.ThreadIndex(i % 2), Frame: stream.FrameID(i % 2),
					Depth: depth, Wall: int64(i)*1_234_567 + int64(fl), CPU: int64(i) * 1_000_000_000_000})
			}
		}
	}
	for _, clock := range []parser.Clock{parser.ClockDual, parser.ClockWall, parser.ClockThreadCPU} {
		tr := &stream.Trace{Name: "x.trace", Threads: threads, Frames: frames, HasWall: clock.HasWall(), HasCPU: clock.HasCPU()}
		var got bytes.Buffer
		d := New(&got, Options{})
		if err := d.Begin(tr); err != nil {
			t.Fatal(err)
		}
		head := got.Len()
		if err := d.Events(&stream.Batch{Events: events[:7], Threads: tr.Threads, Frames: tr.Frames}); err != nil { // a batch, then one by one
			t.Fatal(err)
		}
		for i := range events[7:] {
			if err := d.Events(&stream.Batch{Events: []stream.Event{events[7+i]}, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Finish(tr); err != nil {
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
	case ev.Flags&stream.Cut != 0:
		action += "|"
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

// TestObfuscated: with Options.Obfuscated a renamed frame shows the
// trace's own name and descriptor in brackets, and synthesized when the
// mapping marks it, a frame the mapping kept as it was shows nothing, and
// the header explains the brackets. Without the
// option, or without a renamed frame, the dump is what it was.
func TestObfuscated(t *testing.T) {
	frames := []stream.Frame{
		{Name: "a.B.c", Signature: "()V"},
		{Name: "com.ex.Foo.bar", Signature: "(Lcom/ex/Foo;)V", Obfuscated: "a.a.a", ObfuscatedSignature: "(La/a;)V"},
		{Name: "com.ex.Foo$$ExternalSyntheticLambda0.run", Obfuscated: "a.b.run", Synthesized: true},
		{Name: "com.ex.Kept.x", Signature: "()V", Synthesized: true},
		{Name: "com.ex.Kept.y", Signature: "()V", Obfuscated: "com.ex.Kept.y", ObfuscatedSignature: "()V"},
	}
	var evs []stream.Event
	for i := range frames {
		evs = append(evs, stream.Event{Kind: stream.Begin, Frame: stream.FrameID(i), Depth: int32(i), Wall: int64(i) * 1000})
	}
	for i := len(frames) - 1; i >= 0; i-- {
		evs = append(evs, stream.Event{Kind: stream.End, Frame: stream.FrameID(i), Depth: int32(i), Wall: int64(9-i) * 1000})
	}
	run := func(frames []stream.Frame, opt Options) string {
		tr := &stream.Trace{Name: "o.trace", Threads: []stream.Thread{{ID: 1, Name: "main"}}, Frames: frames, HasWall: true}
		var out bytes.Buffer
		d := New(&out, opt)
		if err := d.Begin(tr); err != nil {
			t.Fatal(err)
		}
		if err := d.Events(&stream.Batch{Events: evs, Threads: tr.Threads, Frames: tr.Frames}); err != nil {
			t.Fatal(err)
		}
		if err := d.Finish(tr); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want := `# o.trace: wall clock; times in µs; * = synthetic (running before tracing began, or still open at its end), ~ = implicit exit; [ ] = the name in the trace, before --mapping renamed it
# tid     thread               action          wall          cpu  method
1         main                 enter              0            -  a.B.c ()V
1         main                 enter              1            -  . com.ex.Foo.bar (Lcom/ex/Foo;)V [a.a.a (La/a;)V]
1         main                 enter              2            -  . . com.ex.Foo$$ExternalSyntheticLambda0.run  [a.b.run; synthesized]
1         main                 enter              3            -  . . . com.ex.Kept.x ()V [synthesized]
1         main                 enter              4            -  . . . . com.ex.Kept.y ()V
1         main                 exit               5            -  . . . . com.ex.Kept.y ()V
1         main                 exit               6            -  . . . com.ex.Kept.x ()V [synthesized]
1         main                 exit               7            -  . . com.ex.Foo$$ExternalSyntheticLambda0.run  [a.b.run; synthesized]
1         main                 exit               8            -  . com.ex.Foo.bar (Lcom/ex/Foo;)V [a.a.a (La/a;)V]
1         main                 exit               9            -  a.B.c ()V
`
	if got := run(frames, Options{Obfuscated: true}); got != want {
		t.Errorf("with Obfuscated:\n%s\nwant:\n%s", got, want)
	}
	plain := make([]stream.Frame, len(frames))
	for i, f := range frames {
		plain[i] = stream.Frame{Name: f.Name, Signature: f.Signature}
	}
	without := run(plain, Options{})
	if got := run(frames, Options{}); got != without {
		t.Errorf("renamed frames without Obfuscated:\n%s\nwant:\n%s", got, without)
	}
	if got := run(plain, Options{Obfuscated: true}); got != without {
		t.Errorf("Obfuscated without renamed frames:\n%s\nwant:\n%s", got, without)
	}
	if strings.Contains(without, "[") {
		t.Errorf("plain dump with brackets:\n%s", without)
	}
}
