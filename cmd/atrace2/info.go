package main

import (
	"encoding/json"
	"fmt"

	"github.com/atrace2/atrace2/info"
)

// InfoCmd describes a trace, or a sampled profile, without converting it.
type InfoCmd struct {
	Format string   `default:"text" enum:"text,json" help:"Output format: text for people, json for scripts. One of: ${enum}."`
	Trace  []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile)."`
}

// Run prints the report for each trace.
func (c *InfoCmd) Run(e *env) error {
	ins, err := pairInputs(c.Trace)
	if err != nil {
		return err
	}
	var reports []info.Report
	for _, a := range ins {
		in, err := e.d.Load(a)
		if err != nil {
			return err
		}
		t, tree, err := in.Describe()
		e.diagnose(in)
		if err != nil {
			return err
		}
		reports = append(reports, info.New(in.Name(), t, tree, in.Compressed()))
	}
	out, err := e.createOutput("-", false, "")
	if err != nil {
		return err
	}
	defer out.Abort()
	if c.Format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if len(reports) == 1 {
			err = enc.Encode(reports[0])
		} else {
			err = enc.Encode(reports)
		}
		if err != nil {
			return err
		}
		return out.Commit()
	}
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(out)
		}
		r.WriteText(out)
	}
	return out.Commit()
}
