package main

import (
	"errors"

	"github.com/atrace2/atrace2/report"
)

// DiffCmd compares the flat profiles of two traces (dmtracedump -d).
type DiffCmd struct {
	Sort       string `default:"excl" enum:"excl,incl,calls,name" help:"Order rows by the absolute change of exclusive time, inclusive time or calls (largest first), or by method name. One of: ${enum}."`
	Limit      int    `name:"limit" short:"n" placeholder:"N" default:"50" help:"Print at most N rows (default 50); 0 prints every method."`
	Threshold  string `default:"0" help:"Hide methods whose exclusive and inclusive times both changed by less than this: a duration (500us, 2ms) or a percentage of the old trace's total time (0.5%); only a percentage for sampled profiles, which count samples."`
	OldMapping string `name:"old-mapping" placeholder:"FILE" help:"The mapping.txt (file, gzip or directory, as --mapping) of the old trace's build, when the two builds differ; the new trace then takes --new-mapping, or none."`
	NewMapping string `name:"new-mapping" placeholder:"FILE" help:"The mapping.txt of the new trace's build (see --old-mapping)."`
	reportFlags
	Traces []string `arg:"" name:"OLD NEW" help:"The old and the new trace (- for standard input, or a pipe such as <(...), for one of them: a pipe can be read only once), each optionally followed by its .sec key file; or two sampled profiles (hprof text, Android 5.x ART profile)."`
}

// Help is the detailed help.
func (c *DiffCmd) Help() string {
	return "Per method (matched by class, name and signature, all threads combined): exclusive time, inclusive time and calls in the old and new trace, the change and the change in percent; methods that ran in only one trace show as new or gone. The text table shows the first clock; csv and json carry every clock both traces have. The exit status is 0 whether or not the traces differ: use --format json or csv and --threshold to gate CI on regressions.\n\n" + report.TimeDefinitions + "\n\n" + report.DiffDefinitions
}

// Run prints the report.
func (c *DiffCmd) Run(g *Globals) error {
	th, err := report.ParseThreshold(c.Threshold)
	if err != nil {
		return usagef("--threshold: %v", err)
	}
	ins, err := pairInputs(c.Traces)
	if err != nil {
		return err
	}
	if len(ins) != 2 {
		return usagef("diff compares two traces, got %d", len(ins))
	}
	if ins[0].Path == "-" && ins[1].Path == "-" {
		return usagef("only one of OLD and NEW can be standard input")
	}
	if g.env.opener.SameStream(ins[0], ins[1]) {
		return usagef("OLD and NEW name the same pipe, which can be read only once")
	}
	if g.Mapping != "" && (c.OldMapping != "" || c.NewMapping != "") {
		return usagef("--mapping names the map of both traces: give it, or --old-mapping and --new-mapping, not both")
	}
	og, ng := *g, *g
	if c.OldMapping != "" || c.NewMapping != "" {
		og.Mapping, ng.Mapping = c.OldMapping, c.NewMapping
	}
	old, err := loadProfile(&og, ins[0])
	if err != nil {
		return err
	}
	cur, err := loadProfile(&ng, ins[1])
	if err != nil {
		return err
	}
	r, err := report.Diff(old, cur, report.DiffOptions{Sort: c.Sort, Limit: c.Limit, Threshold: th})
	if errors.Is(err, report.ErrNoCalls) || errors.Is(err, report.ErrThresholdUnit) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	return c.write(g, r)
}
