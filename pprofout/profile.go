package pprofout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// clocks says which clocks of a trace a profile shows (Options.Value): off
// is the off-CPU time, derived from the other two.
type clocks struct{ cpu, wall, off bool }

// sampleTypes says which sample types a profile holds after the first:
// calls, or samples when the trees are Counted (the one type then); off is
// the off-CPU time, derived from the other two.
type sampleTypes struct{ counted, cpu, wall, off bool }

// sampleTypes follows the trees' value schema (stacks.Values): a Counted
// tree's profile holds samples; a Timed one's holds calls and the clocks
// every trace has. Merged traces keep only those, as pprof itself does
// when it merges profiles (CompatibilizeSampleTypes): a zero CPU time for
// a wall-only trace would be a lie, not a measurement.
func (b *Builder) sampleTypes() sampleTypes {
	if len(b.traces) > 0 && b.traces[0].tree.Values().Kind == stacks.Counted {
		return sampleTypes{counted: true}
	}
	c := sampleTypes{cpu: true, wall: true}
	for _, ti := range b.traces {
		c.cpu = c.cpu && ti.shown.cpu
		c.wall = c.wall && ti.shown.wall
	}
	c.off = c.cpu && c.wall
	return c
}

// period is the CPU time a sample stands for in a profile of Counted
// trees that all state one (stacks.Values.Period): the largest of their
// periods, as pprof's merge keeps; 0 when one states none.
func (b *Builder) period() int64 {
	var period int64
	for _, ti := range b.traces {
		v := ti.tree.Values()
		if v.Kind != stacks.Counted || v.Period <= 0 {
			return 0
		}
		period = max(period, v.Period)
	}
	return period
}

// Profile builds the profile of every trace added so far and checks it.
// The profile shares its functions, locations and mapping with the builder:
// call it once, after the last Add.
func (b *Builder) Profile() (*profile.Profile, error) {
	if !b.built {
		b.materialize()
	}
	return b.build(true)
}

// build makes the profile; without withSamples, it has everything but the
// samples, which Write encodes from the builder's sums.
func (b *Builder) build(withSamples bool) (*profile.Profile, error) {
	if len(b.traces) == 0 {
		return nil, errors.New("pprof: no trace was added")
	}
	if b.built {
		return nil, errors.New("pprof: the profile was built already")
	}
	c := b.sampleTypes()
	first := TypeCalls
	if c.counted {
		first = TypeSamples
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: first, Unit: "count"}},
		PeriodType: &profile.ValueType{Type: first, Unit: "count"},
		Period:     1,
		Mapping:    append([]*profile.Mapping{b.mapping}, b.natives...),
		Location:   b.locList,
		Function:   make([]*profile.Function, len(b.funcs)),
	}
	p.DefaultSampleType = first
	if period := b.period(); period > 0 {
		// A sample is a period of CPU time (stacks.Values.Period): the
		// period type says so, as a Go CPU profile's does.
		p.PeriodType, p.Period = &profile.ValueType{Type: TypeCPU, Unit: "nanoseconds"}, period
	}
	if c.cpu {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: TypeCPU, Unit: "nanoseconds"})
		p.DefaultSampleType = TypeCPU
	}
	if c.wall {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: TypeWall, Unit: "nanoseconds"})
		p.DefaultSampleType = TypeWall
	}
	if c.off {
		// After wall, which stays the default unless Options.Value picks
		// offcpu: a profile of old and one of new still compare
		// (-diff_base keeps the common types).
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: TypeOffCPU, Unit: "nanoseconds"})
		if b.value == stream.ValueOffCPU {
			p.DefaultSampleType = TypeOffCPU
		}
	}
	for _, fn := range b.funcs {
		p.Function[fn.ID-1] = fn
	}
	b.mapping.File = b.mappingFile()
	// The indexes are not needed any more; let the collector have them
	// before the samples take their place.
	b.index, b.pathIdx, b.labelOf, b.built = nil, nil, nil, true
	if withSamples {
		b.samplesInto(p, c)
	}
	b.header(p)
	p.Comments = b.comments(c)
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: invariant violation: %w", err)
	}
	return p, nil
}

// samplesInto turns the sums into samples, in first-seen order.
func (b *Builder) samplesInto(p *profile.Profile, c sampleTypes) {
	sets := make([]labelSet, 2*len(b.labels))
	for i, lk := range b.labels {
		sets[2*i], sets[2*i+1] = newLabelSet(lk, false), newLabelSet(lk, true)
	}
	samples := b.samples
	p.Sample = make([]*profile.Sample, len(samples))
	structs := make([]profile.Sample, len(samples))
	values := make([]int64, len(samples)*len(p.SampleType))
	stacks := b.stacks(samples)
	for i := range samples {
		acc := &samples[i]
		v := values[:0:len(p.SampleType)]
		values = values[len(p.SampleType):]
		v = append(v, acc.calls)
		if c.cpu {
			v = append(v, acc.cpu)
		}
		if c.wall {
			v = append(v, acc.wall)
		}
		if c.off {
			v = append(v, acc.off)
		}
		lb := sets[2*acc.label]
		if acc.cut {
			lb = sets[2*acc.label+1]
		}
		s := &structs[i]
		*s = profile.Sample{Location: stacks.of(acc.path), Value: v, Label: lb.str, NumLabel: lb.num}
		p.Sample[i] = s
	}
}

// labelSet is the label maps of one (thread, tid, synthetic) combination.
// The samples of a thread share them: a profile of a long trace has
// hundreds of thousands of samples but few threads, and two maps per sample
// were most of its memory. Nothing writes to them.
type labelSet struct {
	str map[string][]string
	num map[string][]int64
}

// newLabelSet makes the maps of a label set, with the truncated label when
// cut; a sample without labels has nil maps.
func newLabelSet(k labelKey, cut bool) labelSet {
	var ls labelSet
	add := func(key, v string) {
		if ls.str == nil {
			ls.str = map[string][]string{}
		}
		ls.str[key] = []string{v}
	}
	if !k.noThread {
		add(LabelThread, k.thread)
		ls.num = map[string][]int64{k.numKey(): {k.tid}}
	}
	if k.process != "" {
		add(LabelProcess, k.process)
	}
	if k.pid != 0 {
		if ls.num == nil {
			ls.num = map[string][]int64{}
		}
		ls.num[LabelPID] = []int64{k.pid}
	}
	if k.synth != "" {
		add(LabelSynthetic, k.synth)
	}
	if k.synthesized {
		add(LabelSynthesized, SynthesizedTrue)
	}
	if cut {
		add(LabelTruncated, TruncatedDepth)
	}
	return ls
}

// numKey is the key of the label set's thread id: tid, or thread_serial.
func (k *labelKey) numKey() string {
	if k.serial {
		return LabelThreadSerial
	}
	return LabelTID
}

// stackArena hands out the location lists of interned stacks, leaf first
// as pprof wants them, from one allocation: a slice per sample would cost
// an allocation and its header each.
type stackArena struct {
	b     *Builder
	depth []int32 // by path
	locs  []*profile.Location
}

// stacks sizes the arena for the stacks of samples.
func (b *Builder) stacks(samples []sampleAcc) *stackArena {
	a := &stackArena{b: b, depth: make([]int32, len(b.paths))}
	for i, e := range b.paths { // parents come before their children
		a.depth[i] = 1
		if e.parent >= 0 {
			a.depth[i] += a.depth[e.parent]
		}
	}
	n := 0
	for i := range samples {
		n += int(a.depth[samples[i].path])
	}
	a.locs = make([]*profile.Location, 0, n)
	return a
}

// of returns the locations of a stack.
func (a *stackArena) of(path int32) []*profile.Location {
	start := len(a.locs)
	for i := path; i >= 0; i = a.b.paths[i].parent {
		a.locs = append(a.locs, a.b.locList[a.b.paths[i].loc])
	}
	return a.locs[start:len(a.locs):len(a.locs)]
}

// header sets the profile's time and duration: the earliest start that is a
// calendar time (Dalvik wrote epoch µs; ART writes a monotonic clock, which
// would print as a date in 1970), and the wall spans of all traces summed,
// as pprof sums durations when it merges.
func (b *Builder) header(p *profile.Profile) {
	for _, ti := range b.traces {
		t := ti.t
		p.DurationNanos += durationNanos(&ti)
		start := t.Process.StartMicros
		if !t.Process.Epoch || start == 0 || start >= 1<<62/1000 {
			continue
		}
		if ns := int64(start) * 1000; p.TimeNanos == 0 || ns < p.TimeNanos {
			p.TimeNanos = ns
		}
	}
}

// mappingFile names the traces in the one mapping; pprof prints it as the
// profile's "File:".
func (b *Builder) mappingFile() string {
	if len(b.traces) > 3 {
		return fmt.Sprintf("%s and %d more", traceName(b.traces[0].t), len(b.traces)-1)
	}
	names := make([]string, len(b.traces))
	for i, ti := range b.traces {
		names[i] = traceName(ti.t)
	}
	return strings.Join(names, ", ")
}

// comments says where the profile came from and every repair that shaped
// it, per trace: pprof prints them in -top, -raw and the web UI. A tree
// with a Source (a sampled profile) says what its file states instead
// (sourceComments).
func (b *Builder) comments(c sampleTypes) []string {
	var out []string
	for _, ti := range b.traces {
		t, name := ti.t, traceName(ti.t)
		if src := ti.tree.Source(); src != nil {
			out = append(out, b.sourceComments(ti.tree, src, name)...)
			continue
		}
		out = append(out, fmt.Sprintf("converted by atrace2 %s from %s", b.version, name))
		for _, w := range t.Warnings {
			out = append(out, fmt.Sprintf("%s: warning: %s", name, w))
		}
		if s := t.Stats.Summary(); s != "" {
			out = append(out, fmt.Sprintf("%s: repaired: %s", name, s))
		}
		if ti.synthetics > 0 {
			out = append(out, syntheticComment(name, ti))
		}
		if ti.synthesized > 0 {
			out = append(out, fmt.Sprintf("%s: %s the label %s=%s: the mapping marks the method that ran as made by the compiler",
				name, units.Plural(int64(ti.synthesized), "sample carries", "samples carry"), LabelSynthesized, SynthesizedTrue))
		}
		if t.Sampling.Likely {
			out = append(out, fmt.Sprintf("%s: looks like a sampling-mode trace (about %s between samples): calls count sampled entries and times are approximate",
				name, units.Duration(t.Sampling.Interval)))
		}
		if !c.cpu && ti.shown.cpu {
			out = append(out, fmt.Sprintf("%s: cpu/nanoseconds left out: not every merged trace has a thread-CPU clock", name))
		}
		if !c.wall && ti.shown.wall {
			out = append(out, fmt.Sprintf("%s: wall/nanoseconds left out: not every merged trace has a wall clock", name))
		}
		if !c.off && ti.shown.off {
			out = append(out, fmt.Sprintf("%s: offcpu/nanoseconds left out: not every merged trace has both clocks", name))
		}
	}
	return out
}

// syntheticComment counts the frames the converter began or ended and the
// samples that carry their label (docs/outputs.md §1.3 item 7: never hide them).
func syntheticComment(name string, ti traceInfo) string {
	var why []string
	if n := ti.t.Stats.OrphanExits; n > 0 {
		why = append(why, units.Plural(n, "orphan frame", "orphan frames")+" (running before tracing began, begun at the trace start)")
	}
	if n := ti.t.Stats.OpenAtEnd; n > 0 {
		why = append(why, units.Plural(n, "frame", "frames")+" open at the end (ended when tracing stopped)")
	}
	return fmt.Sprintf("%s: %s the label synthetic: %s", name,
		units.Plural(int64(ti.synthetics), "sample carries", "samples carry"), strings.Join(why, ", "))
}
