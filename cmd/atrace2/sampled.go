package main

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Sampled profiles (hprof text, Android 5.x ART profile files) are read by
// package samples, not by the method-trace parser. Every command identifies
// an input from its first bytes first (input.Opener.Identify) and takes the
// sampled path when they are one of those formats; the method-trace path is
// unchanged otherwise.

// readSampled reads a source that is a sampled profile into its call
// tree. It prints the reader's notes, applies --clock and --strict,
// names the frames with --mapping and then keeps what --root asks for.
func readSampled(g *Globals, src *input.Source) (*stacks.Tree, error) {
	root, err := g.rootPattern()
	if err != nil {
		return nil, err
	}
	if g.Clock != "auto" && g.Clock != "" {
		return nil, usagef("%s: --clock %s: a sampled profile has no clocks to choose from (--clock applies to method traces)", src.Name(), g.Clock)
	}
	if g.From != "" || g.To != "" {
		return nil, usagef("%s: --from/--to: %s has no timestamps (a window applies to method traces)", src.Name(), input.DescribeSampledFormat(src.Format))
	}
	p, err := src.ReadSampled()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name(), err)
	}
	var focus stream.FocusStats
	if len(g.Thread) > 0 {
		kept, total, err := focusSampledThreads(g, src, p) // threads.go
		if err != nil {
			return nil, err
		}
		focus = stream.FocusStats{ThreadPatterns: g.Thread, ThreadsKept: kept, ThreadsTotal: total}
	}
	if g.Strict && p.Truncated {
		return nil, fmt.Errorf("%s: strict mode: the file was cut short inside a CPU section", src.Name())
	}
	if !g.Quiet {
		for _, n := range p.Notes {
			fmt.Fprintf(g.env.stderr, "atrace2: %s: note: %s\n", src.Name(), n)
		}
	}
	m, counts, err := deobfuscateSampled(g, src, p) // mapping.go
	if err != nil {
		return nil, err
	}
	rootSampled(g, src, p, root)
	s, err := p.Tree(src.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name(), err)
	}
	t := s.Trace()
	if m != nil {
		t.Mapping, t.Deobf = m, counts
	}
	t.Focus = focus
	if s := focus.Summary(); s != "" && !g.Quiet {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: %s\n", src.Name(), s)
	}
	return s, nil
}

// requireMethodTrace refuses a sampled profile in a command that needs
// events.
func requireMethodTrace(src *input.Source, need string) error {
	if !src.Sampled {
		return nil
	}
	return fmt.Errorf("%s: %s has no timestamps; %s — use pprof, speedscope, folded or top", src.Name(), input.DescribeSampledFormat(src.Format), need)
}
