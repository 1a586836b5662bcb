package main

import "github.com/atrace2/atrace2/internal/outputs"

// PerfettoCmd converts one trace into a binary Perfetto trace.
type PerfettoCmd struct {
	Output      string   `short:"o" placeholder:"FILE" help:"Write the Perfetto trace to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.perfetto-trace is a good name."`
	ProcessName string   `placeholder:"NAME" help:"Name of the process track, such as the app's package name. By default it is the trace's file name without its extension."`
	Trace       []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a Perfetto trace or simpleperf profile of CPU stack samples (each thread's stack as it changes from sample to sample, one slice per frame)."`
	openFlags   `embed:""`
}

// Run converts the trace.
func (c *PerfettoCmd) Run(e *env) error {
	return e.writeOne(formatNamed("perfetto"), c.Trace, c.Output, &c.openFlags, &outputs.Options{ProcessName: c.ProcessName, Value: e.opt.Value})
}
