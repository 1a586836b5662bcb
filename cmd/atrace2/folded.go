package main

import "github.com/atrace2/atrace2/internal/outputs"

// FoldedCmd writes the folded stacks of one trace.
type FoldedCmd struct {
	Output   string   `short:"o" placeholder:"FILE" help:"Write the folded stacks to FILE (- for standard output, the default)."`
	NoThread bool     `help:"Leave out the thread frame at the root of each stack, so that equal stacks of all threads add up."`
	Trace    []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile)."`
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

For a sampled profile VALUE is the stack's sample count (--clock cpu: the
CPU time its samples stand for, in microseconds, for a Perfetto trace or
simpleperf profile that states its sampling period; for JVM hprof
cpu=times, its elapsed time in microseconds: cpu=times measures wall time, not thread CPU time); in hprof text and ART profiles the thread frame reads "<name> (thread <serial>)", and stacks
whose thread the file does not record have no thread frame.`
}

// Run converts the trace.
func (c *FoldedCmd) Run(e *env) error {
	return e.writeOne(formatNamed("folded"), c.Trace, c.Output, nil, &outputs.Options{NoThread: c.NoThread, Value: e.opt.Value})
}
