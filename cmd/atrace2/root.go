package main

import (
	"fmt"
	"regexp"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stream"
)

// --root (issue 23, point 3): convert.Options.Root puts a method trace's
// stream through the focus.Root stage, after the window, before every
// exporter, so that every output keeps the same subtrees; a sampled
// profile's stacks are cut by samples.Profile.Root before its tree is
// built.

// rootPattern compiles --root, once per run; nil without it.
func (g *Globals) rootPattern() (*regexp.Regexp, error) {
	if g.Root == "" || g.rootRE != nil {
		return g.rootRE, nil
	}
	re, err := regexp.Compile(g.Root)
	if err != nil {
		return nil, usagef("--root %q: %v", g.Root, err)
	}
	g.rootRE = re
	return re, nil
}

// noRootMatch says, unless --quiet, that no method of the trace matches
// --root, which leaves every output empty.
func noRootMatch(g *Globals, src *input.Source, frames []stream.Frame) {
	if g.rootRE == nil || g.Quiet {
		return
	}
	for i := range frames {
		if g.rootRE.MatchString(frames[i].Name) {
			return
		}
	}
	fmt.Fprintf(g.env.stderr, "atrace2: %s: no method matches --root %q: the outputs are empty\n", src.Name(), g.Root)
}

// rootSampled keeps the part of p's stacks --root asks for and, unless
// --quiet, says how many samples that kept.
func rootSampled(g *Globals, src *input.Source, p *samples.Profile, re *regexp.Regexp) {
	if re == nil {
		return
	}
	k := p.Root(re)
	if g.Quiet {
		return
	}
	if len(p.Samples) == 0 {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: no stack matches --root %q: the outputs are empty\n", src.Name(), g.Root)
	}
	what, kept, total := "samples", k.Count, k.TotalCount
	if p.Format == samples.JVMHprofTimes {
		what = "calls"
	}
	fmt.Fprintf(g.env.stderr, "atrace2: %s: focus: root %s: %s of %s %s\n", src.Name(), g.Root, units.Count(kept), units.Count(total), what)
}
