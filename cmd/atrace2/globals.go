package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/parser"
)

// env is the process's standard streams, bound so tests can run commands
// in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	pipes          map[string]*pipeInput // named inputs that are pipes or devices
	inputs         []string              // the inputs no output may overwrite; "-" for stdin
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Globals are the flags every command takes.
type Globals struct {
	Quiet  bool   `short:"q" help:"Print nothing on stderr but errors: no repair summary and no warnings."`
	Strict bool   `help:"Fail (exit 1) when the trace needed any repair (orphan exits, open frames, unknown ids, lost bytes …) or the reader had to work around anything."`
	Clock  string `default:"auto" enum:"auto,wall,cpu,thread-cpu,dual" help:"Clock to read: wall, cpu (thread CPU time) or dual; auto reads every clock the trace has. It can narrow a dual-clock trace to one clock, and it sets the clock of a streaming trace whose summary is missing (there it is otherwise guessed from the record size). One of: ${enum}."`

	TimeUnit string `name:"time-unit" default:"auto" enum:"auto,us,ns" help:"Unit of an ART V2 trace's times: us or ns. auto takes it from the trace's summary, or guesses it from the size of the time steps when the summary is missing (a warning says so). Other traces always count µs. One of: ${enum}."`

	// CPUProfile is for atrace2's developers: where a conversion's time goes.
	CPUProfile string `name:"cpu-profile" hidden:"" type:"path" help:"Write a Go CPU profile of the run to this file."`

	env *env
}

// input is one trace argument, with the .sec key file that may follow it.
type input struct {
	path string
	sec  string
}

// name is how messages refer to an input.
func (in input) name() string {
	if in.path == "-" {
		return "<stdin>"
	}
	return in.path
}

// pairInputs reads trace arguments: a NAME.sec argument is the key file of
// the trace before it (Android 6-7 wrote streaming summaries there).
func pairInputs(args []string) ([]input, error) {
	var ins []input
	for _, a := range args {
		if strings.HasSuffix(a, ".sec") {
			if len(ins) == 0 || ins[len(ins)-1].sec != "" {
				return nil, usagef("%s: a .sec key file must follow the streaming trace it belongs to", a)
			}
			ins[len(ins)-1].sec = a
			continue
		}
		ins = append(ins, input{path: a})
	}
	if len(ins) == 0 {
		return nil, usagef("no trace given")
	}
	return ins, nil
}

// outputInputs reads the trace arguments of a command that writes files,
// and remembers them, so that no output can overwrite one (checkOutput).
func (g *Globals) outputInputs(args []string) ([]input, error) {
	ins, err := pairInputs(args)
	for _, in := range ins {
		g.env.inputs = append(g.env.inputs, parser.Sources(in.path)...)
		if in.sec != "" {
			g.env.inputs = append(g.env.inputs, in.sec)
		}
		if in.path == "-" {
			g.env.inputs = append(g.env.inputs, "-")
		}
	}
	return ins, err
}

// checkOutput refuses an output path that names one of the inputs: the
// rename at the end would replace the trace with the conversion.
func (g *Globals) checkOutput(path, what string) error {
	if path == "" || path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	for _, p := range g.env.inputs {
		if p == "-" {
			// Standard input may be the file itself: < app.trace.
			if f, ok := regularStdin(g.stdin()); ok {
				if in, err := f.Stat(); err == nil && os.SameFile(in, out) {
					return usagef("refusing to write the %s output over the input on standard input", what)
				}
			}
			continue
		}
		if in, err := os.Stat(p); err == nil && os.SameFile(in, out) {
			return usagef("refusing to write the %s output over the input %s", what, p)
		}
	}
	return nil
}

// open opens one input with the global options.
func (g *Globals) open(in input) (*parser.File, error) {
	// Every command reads the file through convert, which takes a
	// streaming file's definitions as they come: one read, not two.
	opt := parser.Options{KeyFile: in.sec, Stdin: g.env.stdin, SkipStreamingScan: true}
	if g.Clock != "auto" && g.Clock != "" {
		opt.Clock, _ = parser.ParseClock(g.Clock)
	}
	switch g.TimeUnit {
	case "us":
		opt.TimeUnit = time.Microsecond
	case "ns":
		opt.TimeUnit = time.Nanosecond
	}
	if p, ok := g.pipe(in); ok {
		opt.Input = p.r
	}
	// Standard input, pipes and gzip are copied to a temporary file first,
	// which can take longer than the conversion.
	bar := g.progress(in.name() + " (reading)")
	if bar != nil {
		opt.Progress = bar.update
	}
	f, err := parser.Open(in.path, opt)
	bar.clear()
	if err != nil {
		var ce *parser.ClockError
		if errors.As(err, &ce) {
			return nil, usagef("%s: --clock %s: %v", in.name(), g.Clock, err)
		}
		return nil, fmt.Errorf("%s: %w", in.name(), err)
	}
	return f, nil
}

// convert runs the converter over one input into the exporters (one read
// or two, see convert.Run) and prints the repair summary. With no
// exporters it only analyses the trace.
func (g *Globals) convert(in input, outs ...convert.Output) (*stream.Trace, error) {
	f, err := g.open(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opt := convert.Options{Strict: g.Strict}
	bar := g.progress(in.name())
	if bar != nil {
		opt.Progress = bar.update
	}
	var t *stream.Trace
	if len(outs) == 0 {
		t, err = convert.Analyze(f, opt)
	} else {
		t, err = convert.Run(f, opt, outs...)
	}
	bar.clear()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name(), err)
	}
	g.summarize(in, t)
	return t, nil
}

// summarize prints the reader's warnings and the repairs, one line each.
func (g *Globals) summarize(in input, t *stream.Trace) {
	if g.Quiet {
		return
	}
	for _, w := range t.Header.Warnings {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: warning: %s\n", in.name(), w)
	}
	if s := t.Stats.Summary(); s != "" {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: repaired: %s\n", in.name(), s)
	}
}
