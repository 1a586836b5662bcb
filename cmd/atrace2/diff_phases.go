package main

import (
	"github.com/atrace2/atrace2/gate"
	"github.com/atrace2/atrace2/internal/input"
)

// phaseSeries returns the startup phases' durations in each run, one
// series per phase rule, for `diff --fail-on phase:NAME…`.
func phaseSeries(g *Globals, olds, news []input.Arg, rules []gate.Rule) ([]gate.Series, error) {
	return nil, usagef("--fail-on %s: needs the startup phases (not built yet)", rules[0].Text)
}
