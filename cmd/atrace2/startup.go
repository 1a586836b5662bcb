package main

import (
	"io"

	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/startup"
)

// StartupCmd prints the app-startup phases of traces.
type StartupCmd struct {
	Format string   `default:"text" enum:"text,json" help:"Output format: aligned text, or json (times in ns; an array with one report per trace, also for one trace, so that a script reads every glob alike). One of: ${enum}."`
	Trace  []string `arg:"" name:"TRACE" help:"Trace files (- for standard input), each optionally followed by its .sec key file."`
}

// Help is the detailed help: the phases and how they are found.
func (c *StartupCmd) Help() string {
	return `The phases are found on the main thread (the thread whose tid is the trace's pid, else the one named main) from the framework methods that mark them, matched by class and method name (overloads are one method):

  bind                ActivityThread.handleBindApplication
  application-create  Instrumentation.callApplicationOnCreate
  activity-create     Activity.performCreate
  activity-start      Activity.performStart
  activity-resume     Activity.performResume
  first-frame         the first Choreographer.doFrame after activity-resume
  fully-drawn         from the begin of the first recorded phase to the end of Activity.reportFullyDrawn

Each is the first call of its method; with several activities, the launch phases are of the first. For each phase: begin and end on the wall clock since the trace start, wall, thread CPU and off-CPU time (per stack, exclusive wall minus exclusive CPU, at least 0, summed), and its five methods with the most exclusive time (on the first clock) inside it. A phase the trace did not record says why: began before tracing started (tracing started late), did not end before tracing stopped, or not in the trace.

The phases are gate metrics of diff too: --fail-on 'phase:first-frame:wall>+5%'.

The whole main thread is needed: --thread, --root and --from/--to are refused. Sampled profiles have no times and are refused.`
}

// Run prints the report of each trace.
func (c *StartupCmd) Run(e *env) error {
	if err := driver.CheckStartup(e.opt.Flags); err != nil {
		return err
	}
	var reps []*startup.Report
	for in, err := range e.d.Inputs(c.Trace) {
		if err != nil {
			return err
		}
		r, err := in.Startup()
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	return e.out().Print(func(w io.Writer) error {
		if c.Format == "json" {
			return startup.WriteJSON(w, reps)
		}
		return startup.WriteTexts(w, reps)
	})
}
