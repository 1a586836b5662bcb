package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/report"
)

// CallsCmd prints the callers and callees of the methods matching a
// pattern: Traceview's parents/children view.
type CallsCmd struct {
	Limit int `name:"limit" short:"n" placeholder:"N" default:"0" help:"Print at most N matching methods, largest inclusive time first (default 0: every match)."`
	reportFlags
	Trace   string `arg:"" name:"TRACE" help:"Trace file (- for standard input); a streaming trace's NAME.sec key file is found by name. A sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile) works too."`
	Pattern string `arg:"" name:"PATTERN" help:"Regular expression (Go RE2 syntax) matched anywhere in <class>.<method>, e.g. 'Activity\\.onCreate$'."`
}

// Help is the detailed help: how the shares are defined.
func (c *CallsCmd) Help() string {
	return "For each method whose <class>.<method> matches PATTERN: its parents (callers), itself, its exclusive time (self) and its children (callees), each with its share of the method's inclusive time and its calls, over all threads.\n\n" + report.TimeDefinitions + "\n\n" + report.CallsDefinitions
}

// Run prints the report.
func (c *CallsCmd) Run(e *env) error {
	if isFile(c.Pattern) && c.Trace != "-" && !isFile(c.Trace) {
		return usagef("%s is no file but %s is: the trace comes first, as in atrace2 calls %s %s", c.Trace, c.Pattern,
			shellQuote(c.Pattern), shellQuote(c.Trace))
	}
	re, err := regexp.Compile(c.Pattern)
	if err != nil {
		return usagef("PATTERN: %v", err)
	}
	in, err := e.d.Load(input.Arg{Path: c.Trace})
	if err != nil {
		return err
	}
	p, err := in.Profile()
	if err != nil {
		return err
	}
	r := p.Calls(report.CallsOptions{Pattern: re, Limit: c.Limit})
	if r.Matched == 0 && !e.opt.Flags.Quiet {
		fmt.Fprintf(e.stderr, "atrace2: no method of %s matches %q\n", p.Name, c.Pattern)
	}
	return c.write(e, r)
}

// isFile reports whether path names a file that can be opened: grep's order
// of arguments, PATTERN first, gives calls a pattern where the trace goes.
func isFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	return err == nil && !st.IsDir()
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
