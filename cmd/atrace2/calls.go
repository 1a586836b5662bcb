package main

import (
	"fmt"
	"regexp"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/report"
)

// CallsCmd prints the callers and callees of the methods matching a
// pattern: Traceview's parents/children view.
type CallsCmd struct {
	Limit int `name:"limit" short:"n" placeholder:"N" default:"0" help:"Print at most N matching methods, largest inclusive time first (default 0: every match)."`
	reportFlags
	Trace   string `arg:"" name:"TRACE" help:"Trace file (- for standard input); a streaming trace's NAME.sec key file is found by name. A sampled profile (hprof text, Android 5.x ART profile) works too."`
	Pattern string `arg:"" name:"PATTERN" help:"Regular expression (Go RE2 syntax) matched anywhere in <class>.<method>, e.g. 'Activity\\.onCreate$'."`
}

// Help is the detailed help: how the shares are defined.
func (c *CallsCmd) Help() string {
	return "For each method whose <class>.<method> matches PATTERN: its parents (callers), itself, its exclusive time (self) and its children (callees), each with its share of the method's inclusive time and its calls, over all threads.\n\n" + report.Definitions
}

// Run prints the report.
func (c *CallsCmd) Run(g *Globals) error {
	re, err := regexp.Compile(c.Pattern)
	if err != nil {
		return usagef("PATTERN: %v", err)
	}
	p, err := loadProfile(g, input.Arg{Path: c.Trace})
	if err != nil {
		return err
	}
	r := p.Calls(report.CallsOptions{Pattern: re, Limit: c.Limit})
	if r.Matched == 0 && !g.Quiet {
		fmt.Fprintf(g.env.stderr, "atrace2: no method of %s matches %q\n", p.Name, c.Pattern)
	}
	return c.write(g, r)
}
