package main

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/outputs"
)

// ConvertCmd writes several formats from one reading of a method trace:
// the exporters share the parser and the stack policy.
type ConvertCmd struct {
	Pprof       string   `placeholder:"FILE" help:"Write a gzipped pprof profile to FILE (- for standard output)."`
	Perfetto    string   `placeholder:"FILE" help:"Write a binary Perfetto trace to FILE (- for standard output)."`
	Speedscope  string   `placeholder:"FILE" help:"Write a speedscope file to FILE (- for standard output)."`
	Folded      string   `placeholder:"FILE" help:"Write folded stacks to FILE (- for standard output)."`
	NoThread    bool     `help:"Folded stacks without the thread as their first frame."`
	ProcessName string   `placeholder:"NAME" help:"The Perfetto process track's name (default: the trace's file name)."`
	Trace       []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file."`
}

// Help explains what convert is for.
func (c *ConvertCmd) Help() string {
	return "Each output is what the command of the same name writes; giving several reads the trace once for all of them (with Perfetto among them, twice when the trace has methods that were running before tracing began, as that command does). No output is kept unless every one is complete.\n\nExample: atrace2 convert --pprof app.pb.gz --perfetto app.perfetto-trace --speedscope app.speedscope.json app.trace"
}

// requests are the outputs asked for, in the table's order.
func (c *ConvertCmd) requests() []outputs.Request {
	return outputs.Requests(formats, map[string]string{"pprof": c.Pprof, "perfetto": c.Perfetto, "speedscope": c.Speedscope, "folded": c.Folded})
}

// Validate asks for at least one output, at most one on stdout, and each
// to a file of its own.
func (c *ConvertCmd) Validate() error {
	reqs := c.requests()
	if len(reqs) == 0 {
		return fmt.Errorf("name at least one output: --pprof, --perfetto, --speedscope or --folded")
	}
	return outputs.Check(reqs)
}

// Run converts one trace into every requested output.
func (c *ConvertCmd) Run(e *env) error {
	in, err := e.oneInput(c.Trace, "convert")
	if err != nil {
		return err
	}
	if err := in.NeedTimeline("convert reads method traces"); err != nil {
		return usagef("%v", err)
	}
	_, err = e.out().Write(in, c.requests(), &outputs.Options{NoThread: c.NoThread, ProcessName: c.ProcessName, Value: e.opt.Value, Input: in.Name()})
	return err
}
