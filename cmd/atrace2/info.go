package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/atrace2/atrace2/info"
)

// InfoCmd describes a trace, or a sampled profile, without converting it.
type InfoCmd struct {
	Format string   `default:"text" enum:"text,json" help:"Output format: text for people, json for scripts. One of: ${enum}."`
	Trace  []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile)."`
}

// infoWriter is the report of one input: a method trace's or a sampled
// profile's, which encode to JSON as they are.
type infoWriter interface {
	WriteText(w io.Writer)
}

// Run prints the report for each trace.
func (c *InfoCmd) Run(g *Globals) error {
	ins, err := pairInputs(c.Trace)
	if err != nil {
		return err
	}
	var reports []infoWriter
	for _, in := range ins {
		src, err := g.env.opener.Identify(in)
		if err != nil {
			return err
		}
		if src.Sampled {
			s, err := readSampled(g, src)
			if err != nil {
				return err
			}
			reports = append(reports, info.NewSampled(in.Name(), s, src.Gzip))
			continue
		}
		t, h, err := readTrace(g, src)
		if err != nil {
			return err
		}
		reports = append(reports, info.NewTrace(in.Name(), h, t))
	}
	out, err := g.env.createOutput("-", false, "")
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
	for i := range reports {
		if i > 0 {
			fmt.Fprintln(out)
		}
		reports[i].WriteText(out)
	}
	return out.Commit()
}
