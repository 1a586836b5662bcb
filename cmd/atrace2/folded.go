package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/folded"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/stacks"
)

// FoldedCmd writes the folded stacks of one trace.
type FoldedCmd struct {
	Output   string   `short:"o" placeholder:"FILE" help:"Write the folded stacks to FILE (- for standard output, the default)."`
	NoThread bool     `help:"Leave out the thread frame at the root of each stack, so that equal stacks of all threads add up."`
	Trace    []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile)."`
}

// Help is shown by atrace2 folded --help.
func (c *FoldedCmd) Help() string {
	return `Writes Brendan Gregg's folded stacks, one line per distinct call stack:
"<thread> (tid <id>);<class>.<method>;... VALUE", outermost frame first,
VALUE being the stack's exclusive time in microseconds. The time is wall
time when the trace has a wall clock, else thread CPU time; --clock cpu
chooses thread CPU time for a dual-clock trace, and --clock offcpu its
off-CPU time: per stack, exclusive wall minus exclusive thread CPU time (at
least 0), the time the thread was on the stack but blocked, waiting or
descheduled. Feed it to flamegraph.pl, inferno-flamegraph or speedscope:

  atrace2 folded app.trace | flamegraph.pl > app.svg
  atrace2 folded --clock cpu app.trace | inferno-flamegraph > app-cpu.svg
  atrace2 folded --clock offcpu app.trace | flamegraph.pl > app-offcpu.svg

For a sampled profile (hprof text, Android 5.x ART profile) VALUE is the
stack's sample count (for JVM hprof cpu=times, its elapsed time in
microseconds: cpu=times measures wall time, not thread CPU time), the thread frame reads "<name> (thread <serial>)", and stacks
whose thread the file does not record have no thread frame.`
}

// Run converts the trace.
func (c *FoldedCmd) Run(g *Globals) error {
	src, err := oneInput(g.env, c.Trace, "folded")
	if err != nil {
		return err
	}
	out, err := g.env.createOutput(c.Output, false, "folded")
	if err != nil {
		return err
	}
	defer out.Abort()
	// On a terminal, folded stacks are printed when they are short; the
	// stacks of a whole app are refused as speedscope and pprof are.
	var w io.Writer = out
	var short *termBuffer
	if (c.Output == "" || c.Output == "-") && outfile.IsTerminal(g.env.stdout) {
		short = &termBuffer{max: foldedTerminalMax}
		w = short
	}
	if src.Sampled {
		s, err := readSampled(g, src)
		if err != nil {
			return err
		}
		err = folded.Write(w, s, folded.Options{NoThread: c.NoThread})
		return c.finish(out, short, err)
	}
	tb := stacks.New()
	if _, err := convertTrace(g, src, convert.Aggregate(tb).Inlined()); err != nil {
		return err
	}
	err = writeFolded(w, src, tb.Tree(), folded.Options{NoThread: c.NoThread, OffCPU: g.Clock == offCPUClock})
	return c.finish(out, short, err)
}

// foldedTerminalMax is the most folded stacks printed on a terminal:
// about a thousand lines.
const foldedTerminalMax = 64 << 10

// finish copies the folded stacks held for a terminal to out, or refuses
// them when they were too long, and keeps out.
func (c *FoldedCmd) finish(out *outfile.File, short *termBuffer, err error) error {
	if errors.Is(err, errTooLong) {
		return usagef("refusing to write more than %d KiB of folded stacks to a terminal: use -o app.folded, or pipe them to flamegraph.pl > app.svg, inferno-flamegraph > app.svg or less", foldedTerminalMax>>10)
	}
	if err != nil {
		return err
	}
	if short != nil {
		if _, err := out.Write(short.buf.Bytes()); err != nil {
			return err
		}
	}
	return out.Commit()
}

// errTooLong stops writing to a termBuffer.
var errTooLong = errors.New("too long for a terminal")

// termBuffer holds up to max bytes, and fails a write beyond them.
type termBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *termBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, errTooLong
	}
	return c.buf.Write(p)
}

// writeFolded writes the folded stacks of a trace's tree. An error names
// the input first, as the conversion's errors do.
func writeFolded(w io.Writer, src *input.Source, t *stacks.Tree, opt folded.Options) error {
	if err := folded.Write(w, t, opt); err != nil {
		return fmt.Errorf("%s: %w", src.Name(), err)
	}
	return nil
}
