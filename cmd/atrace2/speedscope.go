package main

import "github.com/atrace2/atrace2/internal/outputs"

// SpeedscopeCmd converts one trace into a speedscope file.
type SpeedscopeCmd struct {
	Output    string   `short:"o" placeholder:"FILE" help:"Write the speedscope file to FILE (- for standard output, the default). Name it app.speedscope.json: speedscope recognises that suffix, and the file's $schema as well."`
	Trace     []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile)."`
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

A Perfetto trace or simpleperf profile of CPU stack samples becomes one
evented profile per thread too: the thread's stack as it changes from sample
to sample, each sample lasting its sampling period, or until the next.
Other sampled profiles (hprof text, Android 5.x ART profile) have no
timeline: each becomes one "sampled" profile per thread, each stack weighted by its sample
count (by its elapsed time in nanoseconds for JVM hprof cpu=times, which
measures wall time, not thread CPU time).`
}

// Run converts the trace.
func (c *SpeedscopeCmd) Run(e *env) error {
	return e.writeOne(formatNamed("speedscope"), c.Trace, c.Output, &c.openFlags, &outputs.Options{Value: e.opt.Value})
}
