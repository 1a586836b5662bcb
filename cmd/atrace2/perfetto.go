package main

import (
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/perfetto"
)

// PerfettoCmd converts one trace into a binary Perfetto trace.
type PerfettoCmd struct {
	Output      string   `short:"o" placeholder:"FILE" help:"Write the Perfetto trace to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.perfetto-trace is a good name."`
	ProcessName string   `placeholder:"NAME" help:"Name of the process track, such as the app's package name. By default it is the trace's file name without its extension."`
	Trace       []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file."`
	openFlags   `embed:""`
}

// Run converts the trace.
func (c *PerfettoCmd) Run(g *Globals) error {
	src, err := oneInput(g.env, c.Trace, "perfetto")
	if err != nil {
		return err
	}
	if err := requireMethodTrace(src, "Perfetto needs a method trace"); err != nil {
		return err
	}
	view, err := c.openFlags.start(&c.Output, perfetto.DefaultProcessName(src.Path)+".perfetto-trace")
	if err != nil {
		return err
	}
	defer view.close()
	if (c.Output == "" || c.Output == "-") && outfile.IsTerminal(g.env.stdout) {
		return usagef("refusing to write binary Perfetto data to a terminal: use -o %s or redirect stdout",
			perfetto.DefaultProcessName(src.Path)+".perfetto-trace")
	}
	out, err := g.env.createLargeOutput(c.Output, true, "Perfetto")
	if err != nil {
		return err
	}
	defer out.Abort()
	exp := perfetto.New(out, perfetto.Options{ProcessName: c.ProcessName})
	if _, err := convertTrace(g, src, perfettoOutput(exp, out)); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if !g.Quiet {
		for _, w := range exp.Warnings() {
			fmt.Fprintf(g.env.stderr, "atrace2: %s: warning: %s\n", src.Name(), w)
		}
	}
	return view.serve(g, &c.openFlags, openview.Perfetto)
}

// perfettoOutput declares the Perfetto exporter to convert: a timeline
// whose output o can take back when it is a file (see outfile.File.Rewinder).
func perfettoOutput(e *perfetto.Exporter, o *outfile.File) convert.Output {
	rewind := o.Rewinder()
	if rewind == nil {
		return convert.Timeline(e, nil)
	}
	return convert.Timeline(e, func() error {
		if err := rewind(); err != nil {
			return fmt.Errorf("perfetto: taking back the output: %w", err)
		}
		return nil
	})
}
