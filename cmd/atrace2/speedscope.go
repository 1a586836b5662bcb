package main

import (
	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/speedscope"
	"github.com/atrace2/atrace2/stacks"
)

// SpeedscopeCmd converts one trace into a speedscope file.
type SpeedscopeCmd struct {
	Output    string   `short:"o" placeholder:"FILE" help:"Write the speedscope file to FILE (- for standard output, the default). Name it app.speedscope.json: speedscope recognises that suffix, and the file's $schema as well."`
	Trace     []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile)."`
	openFlags `embed:""`
}

// Help is shown by atrace2 speedscope --help.
func (c *SpeedscopeCmd) Help() string {
	return `Writes one evented profile per thread, named "<thread> (tid <id>)", with
the main thread shown first. The timeline is wall time when the trace has a
wall clock, else thread CPU time; --clock cpu chooses thread CPU time for a
dual-clock trace. Times are in microseconds from the trace start (in
nanoseconds for a trace recorded in nanoseconds). Open the file at
https://www.speedscope.app or with speedscope's own command:

  atrace2 speedscope -o app.speedscope.json app.trace
  atrace2 speedscope app.trace | speedscope -

Memory stays small for any trace: events are spooled to a temporary file
and the output is written as a stream.

A sampled profile (hprof text, Android 5.x ART profile) has no timeline: it
becomes one "sampled" profile per thread, each stack weighted by its sample
count (by its elapsed time in nanoseconds for JVM hprof cpu=times, which
measures wall time, not thread CPU time).`
}

// Run converts the trace.
func (c *SpeedscopeCmd) Run(g *Globals) error {
	src, err := oneInput(g.env, c.Trace, "speedscope")
	if err != nil {
		return err
	}
	view, err := c.openFlags.start(&c.Output, perfetto.DefaultProcessName(src.Path)+".speedscope.json")
	if err != nil {
		return err
	}
	defer view.close()
	if (c.Output == "" || c.Output == "-") && outfile.IsTerminal(g.env.stdout) {
		return usagef("refusing to write a speedscope profile (one long line of JSON) to a terminal: use -o app.speedscope.json (then open it at https://www.speedscope.app), --open, redirect stdout, or pipe it to speedscope -")
	}
	out, err := g.env.createLargeOutput(c.Output, false, "speedscope")
	if err != nil {
		return err
	}
	defer out.Abort()
	var s *stacks.Sampled
	if src.Sampled {
		if s, err = readSampled(g, src); err != nil {
			return err
		}
	}
	opt := speedscope.Options{Exporter: "atrace2@" + versionString()}
	if s != nil {
		if err := speedscope.WriteSampled(out, s, opt); err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		return view.serve(g, &c.openFlags, openview.Speedscope)
	}
	exp := speedscope.New(out, opt)
	defer exp.Close()
	if _, err := convertTrace(g, src, convert.Aggregate(exp)); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return view.serve(g, &c.openFlags, openview.Speedscope)
}
