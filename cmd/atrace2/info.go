package main

import (
	"io"

	"github.com/atrace2/atrace2/info"
)

// InfoCmd describes a trace, or a sampled profile, without converting it.
type InfoCmd struct {
	Format string   `default:"text" enum:"text,json" help:"Output format: text for people, json for scripts. One of: ${enum}."`
	Trace  []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile)."`
}

// Run prints the report for each trace.
func (c *InfoCmd) Run(e *env) error {
	var reports []info.Report
	for in, err := range e.d.Inputs(c.Trace) {
		if err != nil {
			return err
		}
		r, err := in.Info()
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	return e.out().Print(func(w io.Writer) error { return info.Write(w, reports, c.Format == "json") })
}
