package main

import (
	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/dump"
)

// DumpCmd prints the balanced event stream, one line per event.
type DumpCmd struct {
	Trace      []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file."`
	Obfuscated bool     `help:"Show beside each method that --mapping renamed the name and descriptor the trace gives it, in brackets."`
}

// Run dumps each trace.
func (c *DumpCmd) Run(g *Globals) error {
	ins, err := pairInputs(c.Trace)
	if err != nil {
		return err
	}
	out, err := g.env.createLargeOutput("-", false, "")
	if err != nil {
		return err
	}
	defer out.Abort()
	for _, in := range ins {
		src, err := g.env.opener.Identify(in)
		if err != nil {
			return err
		}
		if err := requireMethodTrace(src, "dump prints the events of a method trace"); err != nil {
			return err
		}
		if _, err := convertTrace(g, src, convert.Output{Exporter: dump.New(out, dump.Options{Obfuscated: c.Obfuscated})}); err != nil {
			return err
		}
	}
	return out.Commit()
}
