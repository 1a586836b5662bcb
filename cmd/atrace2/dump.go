package main

import (
	"io"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/dump"
)

// DumpCmd prints the balanced event stream, one line per event.
type DumpCmd struct {
	Trace      []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a Perfetto trace or simpleperf profile of CPU stack samples (the changes of each thread's stack at the sample times)."`
	Obfuscated bool     `help:"Show beside each method that --mapping renamed the name and descriptor the trace gives it, in brackets."`
}

// Run dumps each trace.
func (c *DumpCmd) Run(e *env) error {
	return e.out().PrintLarge(func(w io.Writer) error {
		for in, err := range e.d.Inputs(c.Trace) {
			if err != nil {
				return err
			}
			if err := in.NeedTimeline("dump prints the events of a method trace"); err != nil {
				return err
			}
			if _, err := in.Run(false, convert.Output{Exporter: dump.New(w, dump.Options{Obfuscated: c.Obfuscated, Value: e.opt.Value}), Complete: true}); err != nil {
				return err
			}
		}
		return nil
	})
}
