package pprofout

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// This file turns sampled profiles (package samples, through
// stacks.FromSamples) into pprof profiles. They are pprof's own kind of
// data, so the mapping is direct: one pprof sample per distinct (thread,
// stack) with the count the file gives.
//
//   - Sample-counting formats (Dalvik SamplingProfiler, JVM hprof
//     cpu=samples, ART profiles) get the one sample type samples/count and
//     the period type samples/count, period 1 (the file does not state the
//     sampling interval).
//   - JVM hprof cpu=times counts calls and elapsed time per stack (hprof
//     measures it with the time of day, not thread CPU time), what a
//     wall-clock method trace gives: calls/count and wall/nanoseconds with
//     wall the default, and the period type of every atrace2 method-trace
//     profile, so that pprof -diff_base compares the two (docs/outputs.md §1.5).
//   - A frame's line is the line that was running, so it is the
//     Location's line and the Function has no start line; the call sites of
//     one method are one Function, which pprof's default granularity merges.
//   - Labels: thread (string) and thread_serial (number, the file's thread
//     serial, not an OS tid) when the file says which thread a stack ran on;
//     truncated=depth-limit on stacks that reach the profiler's depth limit;
//     synthesized=true, as on method-trace profiles, on stacks whose leaf a
//     mapping marks as made by the compiler.
//   - A frame a mapping renamed keeps the file's own name (and descriptor,
//     for ART profiles) as its Function's SystemName, as on method-trace
//     profiles (systemName).

// TypeSamples is the sample type of sample-counting profiles.
const TypeSamples = "samples"

// Labels of sampled profiles.
const (
	LabelThreadSerial = "thread_serial" // number: the file's thread serial
	LabelTruncated    = "truncated"     // string: TruncatedDepth
)

// TruncatedDepth is the value of LabelTruncated: the stack is as deep as
// the profiler's depth limit, so its outer frames may be missing.
const TruncatedDepth = "depth-limit"

// SampledBuilder collects sampled profiles into one pprof profile. All must
// be timed (hprof cpu=times) or all counted: their values differ in kind.
type SampledBuilder struct {
	version string
	mapping *profile.Mapping
	funcs   map[funcKey]*profile.Function
	locs    map[locKey]*profile.Location
	samples []*profile.Sample
	index   map[string]int // sample by thread, serial and stack
	sources []*stacks.Sampled
	key     []byte
	// counts and nanos sum the counts and times of the profiles added: each
	// profile's sums fit an int64 (samples.Profile), and so must the
	// merged profile's, whose every value is a part of them.
	counts, nanos int64
}

type locKey struct {
	fn   *profile.Function
	line int64
}

// NewSampled returns an empty builder; version is the atrace2 version
// written in the profile's comment.
func NewSampled(version string) *SampledBuilder {
	return &SampledBuilder{
		version: version,
		mapping: &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true},
		funcs:   make(map[funcKey]*profile.Function),
		locs:    make(map[locKey]*profile.Location),
		index:   make(map[string]int),
	}
}

// Add adds the samples of one profile. Samples of threads with the same
// name and serial, and of the same stack, add up across profiles.
func (b *SampledBuilder) Add(s *stacks.Sampled) error {
	if len(b.sources) > 0 && b.sources[0].Timed() != s.Timed() {
		return fmt.Errorf("pprof: %s (%s) and %s (%s) cannot be merged: one counts samples, the other calls and CPU time",
			sourceName(b.sources[0]), b.sources[0].Source().Format, sourceName(s), s.Source().Format)
	}
	counts, nanos := b.counts, b.nanos
	for _, smp := range s.Source().Samples {
		if !addInt64(&counts, smp.Count) || !addInt64(&nanos, smp.TimeNanos) {
			return fmt.Errorf("pprof: %s: the counts or times of the profiles add up to more than %d, which a pprof value cannot hold",
				sourceName(s), int64(math.MaxInt64))
		}
	}
	b.counts, b.nanos = counts, nanos
	b.sources = append(b.sources, s)
	t := s.Trace()
	unknown, hasUnknown := s.UnknownThread()
	locOf := make([]*profile.Location, len(t.Frames)) // by frame, filled on first use
	marked := anySynthesized(t.Frames)
	var ids []stream.FrameID
	for i, n := range s.Nodes() {
		id := stacks.NodeID(i)
		if n.IsRoot() || (s.Weight(id) == 0 && n.Calls == 0) {
			continue
		}
		th := &t.Threads[n.Thread]
		known := !hasUnknown || n.Thread != unknown
		ids = s.Stack(id, ids[:0])
		locs := make([]*profile.Location, len(ids))
		for j, f := range ids {
			if locOf[f] == nil {
				locOf[f] = b.location(&t.Frames[f])
			}
			locs[len(ids)-1-j] = locOf[f] // leaf first
		}
		synthesized := marked && len(ids) > 0 && t.Frames[ids[len(ids)-1]].Synthesized
		smp := b.sample(th.Name, int64(th.ID), known, locs, s.Cut(id), synthesized)
		if s.Timed() {
			smp.Value[0] += n.Calls
			smp.Value[1] += n.Wall
		} else {
			smp.Value[0] += s.Samples(id)
		}
	}
	return nil
}

// sample returns the sample of a thread and stack, creating it. Its key
// holds the labels a stack does not imply: the thread and synthesized (the
// leaf's location implies it too, as funcKey holds the mark; it is in the
// key all the same, so that a sample never merges two label sets).
func (b *SampledBuilder) sample(thread string, serial int64, known bool, locs []*profile.Location, cut, synthesized bool) *profile.Sample {
	b.key = b.key[:0]
	if known {
		b.key = binary.AppendVarint(append(b.key, thread...), serial)
	}
	sep := byte(0)
	if synthesized {
		sep = 1
	}
	b.key = append(b.key, sep)
	for _, l := range locs {
		b.key = binary.AppendUvarint(b.key, l.ID)
	}
	if i, ok := b.index[string(b.key)]; ok {
		return b.samples[i]
	}
	smp := &profile.Sample{Location: locs, Value: make([]int64, 1)}
	if b.sources[0].Timed() {
		smp.Value = make([]int64, 2)
	}
	if known {
		smp.Label = map[string][]string{LabelThread: {thread}}
		smp.NumLabel = map[string][]int64{LabelThreadSerial: {serial}}
	}
	if cut {
		if smp.Label == nil {
			smp.Label = map[string][]string{}
		}
		smp.Label[LabelTruncated] = []string{TruncatedDepth}
	}
	if synthesized {
		if smp.Label == nil {
			smp.Label = map[string][]string{}
		}
		smp.Label[LabelSynthesized] = []string{SynthesizedTrue}
	}
	b.index[string(b.key)] = len(b.samples)
	b.samples = append(b.samples, smp)
	return smp
}

// location returns the location of a frame: one per method and line.
func (b *SampledBuilder) location(fr *stream.Frame) *profile.Location {
	k := funcKey{name: fr.Name, file: fr.File, system: systemName(fr), synthesized: fr.Synthesized}
	fn, ok := b.funcs[k]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.funcs) + 1), Name: k.name, SystemName: k.system, Filename: k.file}
		b.funcs[k] = fn
	}
	lk := locKey{fn: fn}
	if fr.HasLine && fr.Line > 0 {
		lk.line = int64(fr.Line)
		b.mapping.HasLineNumbers = true
	}
	loc, ok := b.locs[lk]
	if !ok {
		loc = &profile.Location{ID: uint64(len(b.locs) + 1), Mapping: b.mapping,
			Line: []profile.Line{{Function: fn, Line: lk.line}}}
		b.locs[lk] = loc
	}
	return loc
}

// Profile builds the profile of every source added so far and checks it.
// Call it once, after the last Add.
func (b *SampledBuilder) Profile() (*profile.Profile, error) {
	if len(b.sources) == 0 {
		return nil, errors.New("pprof: no sampled profile was added")
	}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: TypeSamples, Unit: "count"}},
		PeriodType:        &profile.ValueType{Type: TypeSamples, Unit: "count"},
		Period:            1,
		DefaultSampleType: TypeSamples,
		Sample:            b.samples,
		Mapping:           []*profile.Mapping{b.mapping},
		Location:          make([]*profile.Location, len(b.locs)),
		Function:          make([]*profile.Function, len(b.funcs)),
	}
	if b.sources[0].Timed() {
		p.SampleType = []*profile.ValueType{{Type: TypeCalls, Unit: "count"}, {Type: TypeWall, Unit: "nanoseconds"}}
		p.PeriodType = &profile.ValueType{Type: TypeCalls, Unit: "count"}
		p.DefaultSampleType = TypeWall
	}
	for _, l := range b.locs {
		p.Location[l.ID-1] = l
	}
	for _, fn := range b.funcs {
		p.Function[fn.ID-1] = fn
	}
	names := make([]string, len(b.sources))
	for i, s := range b.sources {
		names[i] = sourceName(s)
		p.Comments = append(p.Comments, b.sourceComments(s)...)
	}
	b.mapping.File = strings.Join(names, ", ")
	if len(names) > 3 {
		b.mapping.File = fmt.Sprintf("%s and %d more", names[0], len(names)-1)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: invariant violation: %w", err)
	}
	return p, nil
}

// sourceComments says where a profile came from and what its stacks lack.
func (b *SampledBuilder) sourceComments(s *stacks.Sampled) []string {
	p, name := s.Source(), sourceName(s)
	out := []string{fmt.Sprintf("converted by atrace2 %s from %s (%s)", b.version, name, p.Format)}
	if p.Created != "" {
		out = append(out, fmt.Sprintf("%s: created %s", name, p.Created))
	}
	if c := cutComment(s); c != "" {
		out = append(out, name+": "+c)
	}
	if u, ok := s.UnknownThread(); ok {
		which := "some stacks ran on: those samples have"
		if len(s.Trace().Threads) == 1 && u == 0 {
			which = "its stacks ran on: the samples have"
		}
		out = append(out, fmt.Sprintf("%s: the file does not say which thread %s no thread label", name, which))
	}
	for _, u := range p.Unlisted {
		out = append(out, fmt.Sprintf("%s: %s in no stack: %s", name, plural(u.Count, "sample", "samples"), u.Reason))
	}
	for _, n := range p.Notes {
		out = append(out, name+": note: "+n)
	}
	return out
}

// cutComment explains the truncated label, or is "" when no stack is cut.
func cutComment(s *stacks.Sampled) string {
	p := s.Source()
	var n int64
	for i := range p.Samples {
		if p.CutStack(i) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	why := fmt.Sprintf("stacks are cut at depth=%d (hprof's depth= option, 4 by default, inferred from the deepest stack)", p.MaxDepth)
	if p.Format == samples.ARTProfileBoundedStack {
		why = fmt.Sprintf("ART's bounded-stack mode records a few callers only (the deepest stack has %d frames)", p.MaxDepth)
	}
	return fmt.Sprintf("%s: %d of the file's %s may miss outer frames; their samples carry the label %s=%s", why,
		n, plural(int64(len(p.Samples)), "stack", "stacks"), LabelTruncated, TruncatedDepth)
}

// sourceName is how comments and the mapping name a profile.
// addInt64 adds n, not negative, to *sum, failing instead of overflowing.
func addInt64(sum *int64, n int64) bool {
	if *sum > math.MaxInt64-n {
		return false
	}
	*sum += n
	return true
}

func sourceName(s *stacks.Sampled) string {
	switch n := s.Trace().Name; n {
	case "", "-":
		return "<stdin>"
	default:
		return n
	}
}
