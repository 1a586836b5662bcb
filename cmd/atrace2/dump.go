package main

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/units"
)

// DumpCmd prints the balanced event stream, one line per event.
type DumpCmd struct {
	Trace []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file."`
}

// Run dumps each trace.
func (c *DumpCmd) Run(g *Globals) error {
	ins, err := pairInputs(c.Trace)
	if err != nil {
		return err
	}
	out, err := g.createOutput("-", false, "")
	if err != nil {
		return err
	}
	defer out.Abort()
	for _, in := range ins {
		if err := g.noTimeline(in, "dump prints the events of a method trace"); err != nil {
			return err
		}
		if _, err := g.convert(in, &dumper{w: out}); err != nil {
			return err
		}
	}
	return out.Close()
}

// dumper writes dmtracedump -o style lines: thread, action, the times on
// each clock in µs, and the method indented by depth. Repairs are marked:
// "enter*" opens a frame that was running before tracing began, "exit*"
// closes one still open when it stopped, "exit~" is an implied exit of a
// frame above one that exited.
type dumper struct {
	w *output
	t *stream.Trace
}

func (d *dumper) Begin(t *stream.Trace) error {
	d.t = t
	fmt.Fprintf(d.w, "# %s: %s clock; times in µs; * = synthetic (running before tracing began, or still open at its end), ~ = implicit exit\n", t.Name, t.Header.Clock)
	fmt.Fprintf(d.w, "# %-7s %-20s %-7s %12s %12s  %s\n", "tid", "thread", "action", "wall", "cpu", "method")
	return nil
}

func (d *dumper) Event(ev *stream.Event) error {
	th := &d.t.Threads[ev.Thread]
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
	if d.t.HasWall {
		wall = units.Micros(ev.Wall)
	}
	if d.t.HasCPU {
		cpu = units.Micros(ev.CPU)
	}
	fr := &d.t.Frames[ev.Frame]
	_, err := fmt.Fprintf(d.w, "%-9d %-20s %-7s %12s %12s  %s%s %s\n", th.ID, clipName(th.Name, 20), action, wall, cpu,
		strings.Repeat(". ", int(ev.Depth)), fr.Name, fr.Signature)
	return err
}

func (d *dumper) Finish() error { return nil }

// clipName keeps a column narrow.
func clipName(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
