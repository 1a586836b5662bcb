package driver

import (
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Sampled profiles (hprof text, Android 5.x ART profile files) are read by
// package samples into a samples.Profile, which this file focuses and
// maps, the one site that does so for every sampled format, before
// samples.Profile.Tree makes the call tree of it.

// readSampled reads a sampled profile into its call tree: it applies
// --thread, --strict, --mapping and --root to the profile, in that order,
// and refuses --clock and --from/--to, which need a method trace.
func (in *Input) readSampled() (*stacks.Tree, error) {
	o := &in.d.opt
	// --clock names a clock the input must record (Options.Clock), as a
	// method trace's reader checks: a sampled profile records none.
	if o.Clock != 0 {
		return nil, Usagef("%s: --clock %s: a sampled profile has no clocks to choose from (--clock applies to method traces)", in.Name(), o.Flags.Clock)
	}
	if o.Window != nil {
		return nil, Usagef("%s: --from/--to: %s has no timestamps (a window applies to method traces)", in.Name(), input.DescribeSampledFormat(in.src.Format))
	}
	p, err := in.src.ReadSampled()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	var focus stream.FocusStats
	if o.Threads != nil {
		kept, total, err := in.focusThreads(p)
		if err != nil {
			return nil, err
		}
		focus = stream.FocusStats{ThreadPatterns: o.Flags.Threads, ThreadsKept: kept, ThreadsTotal: total}
	}
	if o.Flags.Strict && p.Truncated {
		return nil, fmt.Errorf("%s: strict mode: the file was cut short inside a CPU section", in.Name())
	}
	for _, n := range p.Notes {
		in.say(Note, "note: %s", n)
	}
	m, counts, err := in.deobfuscate(p)
	if err != nil {
		return nil, err
	}
	in.root(p)
	tree, err := p.Tree(in.src.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Name(), err)
	}
	t := tree.Trace()
	t.Deobf = convert.Deobf(m, counts)
	t.Focus = focus
	if s := focus.Summary(); s != "" {
		in.say(Focus, "%s", s)
	}
	return tree, nil
}

// focusThreads applies --thread to a sampled profile: an ART profile has
// no threads (a usage error); hprof text keeps the samples of the matching
// threads and drops those without a thread.
func (in *Input) focusThreads(p *samples.Profile) (kept, total int, err error) {
	if p.Format == samples.ARTProfileMethod || p.Format == samples.ARTProfileBoundedStack {
		return 0, 0, Usagef("%s: --thread: an %s has no threads to choose from (--thread applies to method traces and hprof text)", in.Name(), p.Format)
	}
	// The listing of the error names the threads with samples.
	var withSamples []threadLabel
	seen := make([]bool, len(p.Threads)+1)
	for _, s := range p.Samples {
		if !seen[s.Thread+1] {
			seen[s.Thread+1] = true
			if s.Thread < 0 {
				withSamples = append(withSamples, threadLabel{stacks.UnknownThreadName, 0})
			} else {
				th := &p.Threads[s.Thread]
				withSamples = append(withSamples, threadLabel{th.ThreadName(), th.ID})
			}
		}
	}
	filter := in.d.opt.Threads
	kept, total = keepThreads(p, func(th *samples.Thread) bool { return filter.Keep(th.ID, th.ThreadName()) })
	if kept == 0 {
		return 0, 0, in.noThreadMatches(total, "samples", withSamples)
	}
	return kept, total, nil
}

// deobfuscate names the frames of a sampled profile with --mapping, the
// methods of its frames standing for a trace's method table, says how the
// map resolved them, and returns the map and the counts; without
// --mapping it gives the hint, and returns no map. It applies --strict to
// methods resolved by name only or ambiguously.
func (in *Input) deobfuscate(p *samples.Profile) (*mapping.Map, mapping.Counts, error) {
	if in.d.opt.Flags.Mapping == "" {
		in.hint(len(p.Frames), func(i int) mapping.Method { return mappingMethod(&p.Frames[i]) })
		return nil, mapping.Counts{}, nil
	}
	methods := mappingMethods(p)
	m, err := in.loadMapping(methods)
	if err != nil {
		return nil, mapping.Counts{}, err
	}
	if err := in.checkMapID(m, methods); err != nil {
		return nil, mapping.Counts{}, err
	}
	c := rename(p, m)
	if in.d.opt.Flags.Strict && c[mapping.NameOnly]+c[mapping.Ambiguous] > 0 {
		return nil, c, fmt.Errorf("%s: strict mode: the mapping resolved %d methods by name only (no descriptor matched) and %d ambiguously",
			in.Name(), c[mapping.NameOnly], c[mapping.Ambiguous])
	}
	in.say(Deobf, "%s", convert.Deobf(m, c).Summary())
	return m, c, nil
}

// root keeps the part of p's stacks --root asks for and says how many
// samples that kept.
func (in *Input) root(p *samples.Profile) {
	re := in.d.opt.Root
	if re == nil {
		return
	}
	k := rootProfile(p, re)
	pattern := in.d.opt.Flags.Root
	if len(p.Samples) == 0 {
		in.say(Focus, "no stack matches --root %q: the outputs are empty", pattern)
	}
	what, kept, total := "samples", k.Count, k.TotalCount
	if p.Format == samples.JVMHprofTimes {
		what = "calls"
	}
	in.say(Focus, "focus: root %s: %s of %s %s", pattern, units.Count(kept), units.Count(total), what)
}
