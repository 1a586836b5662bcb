// Package pprofout turns the call trees of package stacks into a pprof
// profile (github.com/google/pprof/profile), following docs/outputs.md §1:
//
//   - one sample per distinct (thread, call stack) holding that stack's
//     exclusive time, so that pprof computes inclusive time itself and never
//     counts recursion twice (§1.3, the pattern of Go's own trace-to-pprof
//     code in internal/trace/traceviewer/pprof.go);
//   - sample types calls/count, cpu/nanoseconds, wall/nanoseconds with the
//     clocks the traces have, the preferred one named by
//     default_sample_type (wall, else cpu), then offcpu/nanoseconds when
//     every trace has both clocks (the stack's exclusive off-CPU time,
//     stacks.Node.OffCPU), and the constant period type calls/count so
//     that -diff_base and merging work between any two atrace2 profiles
//     (§1.2, §1.5);
//   - labels thread (string) and tid (number) on every sample, synthetic
//     on samples whose frame the converter began or ended (§1.3 item 7),
//     and synthesized=true on samples whose frame (the sample's leaf) a
//     mapping marks as made by the compiler;
//   - one Mapping naming the trace, Functions named <class>.<method> with
//     the signature in SystemName (which keeps pprof's C++ demangler away
//     from Java names) and the source path in Filename. A frame a mapping
//     (--mapping) renamed keeps the trace's own <class>.<method> and
//     descriptor as its SystemName instead (systemName).
//
// [Write] writes the profile of one finished call tree. A [Builder] merges
// the trees of several traces into one profile: samples are keyed by
// thread name, tid and stack, so threads of the same name and id in several
// traces add up exactly, and every report pprof draws groups by thread name.
// The builder holds at most one tree: the first, whole, until a later Add,
// Profile or Write takes its samples (pending, in Add); every other tree
// can be released once Add has taken its samples.
//
// What a sample holds follows the tree's value schema (stacks.Values;
// counted.go): a Counted tree (a sampled profile) gives the one sample
// type samples/count; a Timed one calls and the times of its clocks. A
// tree with frames on their running lines (Values.RunningLines) gets a
// location per method and line, one whose threads carry serial numbers
// (Values.Serials) the label thread_serial instead of tid, and a tree
// with a Source comments on where it came from instead of the repairs.
//
// Fast paths, each with its reference path, which the build tag
// atrace2_reference selects (and tests, for one Builder: reference,
// walkStacks):
//   - Builder.Write encodes profile.proto itself (encode.go); the reference
//     is WriteProfile(w, b.Profile()), pprof's library. TestBuilderWrite
//     ties them byte for byte.
//   - Add indexes samples by key only once two nodes can share one
//     (indexSamples); the reference indexes every sample.
//     TestIndexSamples ties them.
//   - Add keeps a first tree of distinct samples whole, and Write encodes
//     it from its nodes (pending); the reference copies it into samples.
//     TestBuilderWrite ties them byte for byte.
//   - The encoder takes the location ids of a pending tree's node from its
//     parent's (stackIDs); the reference walks up every node's stack.
//     TestStackIDs ties them byte for byte.
package pprofout

import (
	"errors"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Sample type names and units, in their order in every profile.
const (
	TypeCalls = "calls" // frame instances with exactly the sample's stack
	TypeCPU   = "cpu"   // exclusive thread-CPU time
	TypeWall  = "wall"  // exclusive wall time
	// TypeOffCPU is the exclusive off-CPU time, derived from both clocks:
	// per stack of the call tree, max(0, wall − cpu), summed over the
	// stacks of the sample (more than one only when nodes merge).
	TypeOffCPU = "offcpu"
)

// Label keys on samples.
const (
	LabelThread    = "thread"    // string: the thread's name
	LabelTID       = "tid"       // number: the thread's id
	LabelSynthetic = "synthetic" // string: orphan, open or orphan+open
	// LabelProcess (string) and LabelPID (number) name the process of a
	// sampled profile's samples, when its file holds several (a
	// Perfetto trace, a simpleperf profile).
	LabelProcess = "process"
	LabelPID     = "pid"
	// LabelSynthesized is set, to SynthesizedTrue, on the samples whose
	// leaf frame a mapping marks as made by the compiler (R8's
	// com.android.tools.r8.synthesized): a lambda class, a backport, an
	// outline. Not to be confused with LabelSynthetic, the converter's
	// repairs.
	LabelSynthesized = "synthesized"
)

// SynthesizedTrue is the value of LabelSynthesized.
const SynthesizedTrue = "true"

// Values of LabelSynthetic.
const (
	SyntheticOrphan = "orphan"      // the frame was running before tracing began
	SyntheticOpen   = "open"        // the frame was still running when tracing stopped
	SyntheticBoth   = "orphan+open" // both: begun and ended by the converter
)

// Builder collects the samples of one or more traces. Its memory grows with
// the number of distinct stacks, not with the length of the traces.
type Builder struct {
	value   stream.Value // Options.Value
	version string
	mapping *profile.Mapping
	// natives are the mappings of native code (stream.Frame.Code): one per
	// library and build id, after mapping, in order of first use.
	natives  []*profile.Mapping
	nativeOf map[[2]string]*profile.Mapping
	funcs    map[funcKey]*profile.Function
	locs     map[locKey]*profile.Location
	locList  []*profile.Location
	paths    []pathEntry
	pathIdx  map[pathEntry]int32 // path entry → its index in paths
	labels   []labelKey          // interned label sets, by labelID
	labelOf  map[labelKey]int32  // label set → labelID
	samples  []sampleAcc
	index    map[sampleKey]int32 // nil while every node has a sample of its own (see Add)
	pending  *treeTables         // the first tree, not yet copied into samples (see Add)
	traces   []traceInfo
	built    bool // Profile ran: the indexes are gone

	// reference takes the reference paths (see the package doc), as the
	// build tag atrace2_reference does for every builder: the tests
	// compare the two (TestBuilderWrite, TestIndexSamples).
	reference bool
	// walkStacks makes the encoder walk up every node's stack instead of
	// taking its ids from its parent's (stackIDs): the reference that
	// TestStackIDs compares them with.
	walkStacks bool
	// counts and nanos sum the sampled profiles' counts and times
	// (mergeable).
	counts, nanos int64
}

// referencePath reports whether b takes the reference paths.
func (b *Builder) referencePath() bool { return reference.Only || b.reference }

// funcKey de-duplicates functions across the frame tables of all traces.
type funcKey struct {
	name, system, file string
	line               int64
	synthesized        bool // the frame's mark, which a sample's label takes from its leaf
}

// locKey de-duplicates locations: a function and a line in it (0 when the
// location is the function's, Builder.location), in a mapping.
type locKey struct {
	fn   *profile.Function
	line int64
	mp   *profile.Mapping
}

// pathEntry is an interned stack: a location on top of a parent stack (-1
// for none). Interning makes equal stacks of different traces one key.
type pathEntry struct {
	parent int32
	loc    int32 // index into Builder.locList
}

// labelKey is the labels of a sample: its thread (none for the stacks of
// no known thread), whether the converter completed its frame and whether
// a mapping marks its frame synthesized. A sample's truncated label is
// not part of it (sampleAcc.cut).
type labelKey struct {
	process     string // the process's name, "" when unknown (or none)
	pid         int64  // the process's pid, 0 for none
	thread      string
	tid         int64
	serial      bool // tid is a thread serial number (LabelThreadSerial)
	noThread    bool // no thread labels: the input does not say which thread
	synth       string
	synthesized bool
}

// sampleKey identifies one sample: its interned label set in the high half,
// its interned stack in the low half. A word, not a struct of strings,
// because a long trace has hundreds of thousands of samples.
type sampleKey uint64

func sampleKeyOf(label, path int32) sampleKey {
	return sampleKey(uint32(label))<<32 | sampleKey(uint32(path))
}

// sampleAcc holds one sample's sums: calls is the calls of a Timed tree's
// stacks, or the samples of a Counted tree's. cut is set when the first
// node of the sample may miss outer frames (LabelTruncated): two nodes of
// one stack and label set share a sample whatever their trees' depth
// limits.
type sampleAcc struct {
	path, label           int32
	cut                   bool
	calls, cpu, wall, off int64
}

// traceInfo is what the header and comments need from each trace.
type traceInfo struct {
	t           *stream.Trace
	tree        *stacks.Tree // for its Source and UnknownThread, not its nodes
	shown       clocks       // the clocks of the trace that the profile shows (Options.Value)
	synthetics  int          // samples of this trace that carry LabelSynthetic
	synthesized int          // samples of this trace that carry LabelSynthesized
}

// New returns an empty builder: opt.Version is the atrace2 version written
// in the profile's comment, opt.Value picks its time sample types.
func New(opt Options) *Builder {
	return &Builder{
		version: opt.Version,
		value:   opt.Value,
		mapping: &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true},
		funcs:   make(map[funcKey]*profile.Function),
		locs:    make(map[locKey]*profile.Location),
		labelOf: make(map[labelKey]int32),
	}
}

// Options change the profile a Builder builds.
type Options struct {
	// Version is the atrace2 version written in the profile's comments.
	Version string
	// Value picks the time sample types (--clock): by default every clock
	// the traces have, wall the default sample type when they have it,
	// and offcpu when they have both; one clock alone; or, on traces with
	// both clocks, all of them with offcpu the default sample type. A
	// trace that lacks a clock Value needs is an error (a
	// *stream.ValueError) at Add.
	Value stream.Value
}

// Write writes the pprof profile of one finished call tree, gzipped:
// New(opt), Add(tree), then Builder.Write.
func Write(w io.Writer, tree *stacks.Tree, opt Options) error {
	b := New(opt)
	if err := b.Add(tree); err != nil {
		return err
	}
	return b.Write(w)
}

// Add adds the samples of one finished call tree. The builder keeps
// nothing of the tree but its trace's tables once a later Add, Profile or
// Write has run, so the caller can release it then; the tree must not
// change in between (a stacks.Tree never does).
//
// Fast path: the first tree whose nodes are each a sample of their own
// (indexSamples says when they are not) is kept whole (pending) instead of
// being copied into samples, and Write encodes its samples straight from
// the nodes. The copy (samples, stacks and their index, which grow with the
// nodes) took new memory whose page faults were most of Add's time in a
// real run (BenchmarkPprofBuild/add+write/cold). A later Add or Profile
// copies it first (materialize). The reference path copies every tree at
// once. TestBuilderWrite ties the two.
func (b *Builder) Add(tree *stacks.Tree) error {
	if tree == nil || tree.Trace() == nil {
		return errors.New("pprof: the call tree has no trace")
	}
	t := tree.Trace()
	if b.built {
		return errors.New("pprof: Add after Profile")
	}
	wall, cpu, err := tree.Clocks(b.value)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	if err := b.mergeable(tree); err != nil {
		return err
	}
	b.materialize()
	info := traceInfo{t: t, tree: tree, shown: clocks{cpu: cpu, wall: wall, off: cpu && wall}}
	tt, shared, err := b.tables(tree, &info)
	if err != nil {
		return err
	}
	if shared || b.referencePath() {
		b.indexSamples() // the reference path: every sample through the index
	}
	if !b.referencePath() && b.index == nil && len(b.samples) == 0 && tt.nodeSamples {
		b.pending = tt
	} else {
		b.addSamples(tt)
	}
	b.traces = append(b.traces, info)
	return nil
}

// treeTables is what Add works out of a tree before its samples: each
// frame's location and each thread's label sets.
type treeTables struct {
	tree  *stacks.Tree
	shown clocks // the clocks of the tree's trace the profile shows
	// by frame: location index + 1, with locSynthesized set when a
	// mapping marks the frame, so that the samples read the mark with
	// the location; 0 for a frame no sample's stack has
	locOf []uint32
	// by thread and label kind: the label set's id + 1, 0 for none
	labelsOf [][labelKinds]int32
	depth    int // the deepest node's Depth
	// nodeSamples says that every node but the roots is a sample of its
	// own, with the values of a Timed tree's node and no truncated
	// label: the fast path's condition (Add).
	nodeSamples bool
}

// tables checks a tree's nodes and interns their locations and label sets
// in node order, counting in info the samples that carry the synthetic and
// synthesized labels. shared reports that two nodes, of this tree or of
// this and an earlier one, may share a sample (indexSamples).
//
// A node is a sample when it holds a value (isSample): every node of a
// tree of events does; the nodes of a sampled profile's tree that only
// lead to deeper stacks do not. Locations are numbered in the order the
// samples' stacks first use them, outermost frame first.
func (b *Builder) tables(tree *stacks.Tree, info *traceInfo) (tt *treeTables, shared bool, err error) {
	t := tree.Trace()
	nodes := tree.Nodes()
	tt = &treeTables{tree: tree, shown: info.shown, locOf: make([]uint32, len(t.Frames)),
		labelsOf: make([][labelKinds]int32, len(t.Threads)), nodeSamples: tree.Values().Kind == stacks.Timed}
	unknown, hasUnknown := tree.UnknownThread()
	serial := tree.Values().Serials
	process, pid := treeProcess(tree)
	var located []bool // by node: its whole stack has locations; nil while every sample's parent is one
	for i := range nodes {
		n := &nodes[i]
		if n.IsRoot() {
			continue // idle time of the thread is no sample
		}
		if n.Parent < 0 || int(n.Parent) >= i || int(n.Frame) >= len(t.Frames) || n.Frame < 0 {
			return nil, false, fmt.Errorf("pprof: invariant violation: node %d has parent %d and frame %d", i, n.Parent, n.Frame)
		}
		if !isSample(tree, i) {
			tt.nodeSamples = false
			if located == nil {
				located = make([]bool, len(nodes))
				for j := range i {
					located[j] = true // every node before is a sample or a root
				}
			}
			continue
		}
		tt.depth = max(tt.depth, int(n.Depth))
		if located == nil {
			shared = b.locate(tt, n.Frame) || shared
		} else {
			shared = b.locateStack(tt, located, i) || shared
		}
		kind := syntheticKind(n)
		if kind != 0 {
			info.synthetics++
		}
		shared = shared || n.Orphan
		if tt.locOf[n.Frame]&locSynthesized != 0 {
			kind |= synthesizedKind
			info.synthesized++
		}
		if tree.Cut(stacks.NodeID(i)) {
			tt.nodeSamples = false
		}
		ls := &tt.labelsOf[n.Thread][kind]
		if *ls == 0 {
			th := &t.Threads[n.Thread]
			label, sh := b.label(labelKey{process: process, pid: pid, thread: th.Name, tid: int64(th.ID), serial: serial,
				noThread: hasUnknown && n.Thread == unknown,
				synth:    syntheticValues[kind&^synthesizedKind], synthesized: kind&synthesizedKind != 0})
			shared = shared || sh
			*ls = label + 1
		}
	}
	return tt, shared, nil
}

// isSample reports whether node i of a tree holds a value: calls or time,
// or samples.
func isSample(tree *stacks.Tree, i int) bool {
	n := &tree.Nodes()[i]
	return n.Calls != 0 || n.Wall != 0 || n.CPU != 0 || tree.Samples(stacks.NodeID(i)) != 0
}

// locate gives frame f its location, if it has none yet; shared reports
// that the location existed (another frame has it).
func (b *Builder) locate(tt *treeTables, f stream.FrameID) (shared bool) {
	if tt.locOf[f] != 0 {
		return false
	}
	fr := &tt.tree.Trace().Frames[f]
	loc, shared := b.location(fr, tt.tree.Values().RunningLines)
	tt.locOf[f] = uint32(loc) + 1
	if fr.Synthesized {
		tt.locOf[f] |= locSynthesized
	}
	return shared
}

// locateStack gives every frame of node i's stack its location, outermost
// first, from below the deepest node whose stack has them all already.
func (b *Builder) locateStack(tt *treeTables, located []bool, i int) (shared bool) {
	nodes := tt.tree.Nodes()
	var todo []int
	for j := i; !located[j]; j = int(nodes[j].Parent) {
		todo = append(todo, j)
	}
	for k := len(todo) - 1; k >= 0; k-- {
		j := todo[k]
		shared = b.locate(tt, nodes[j].Frame) || shared
		located[j] = true
	}
	return shared
}

// loc returns the location index of a node's frame, which tables interned.
func (tt *treeTables) loc(n *stacks.Node) int32 {
	return int32(tt.locOf[n.Frame]&^locSynthesized) - 1
}

// label returns the label set of a node, which tables interned; only
// samples have one.
func (tt *treeTables) label(n *stacks.Node) int32 {
	kind := syntheticKind(n)
	if tt.locOf[n.Frame]&locSynthesized != 0 {
		kind |= synthesizedKind
	}
	return tt.labelsOf[n.Thread][kind] - 1
}

// addSamples adds the nodes of a tree that are samples (isSample) to the
// samples, interning their stacks.
func (b *Builder) addSamples(tt *treeTables) {
	tree := tt.tree
	nodes := tree.Nodes()
	counted := tree.Values().Kind == stacks.Counted
	nodePath := make([]int32, len(nodes))
	if len(b.samples) == 0 {
		// Sized up front: growing them leaves garbage as large as
		// themselves, which the collector returns too late for the peak.
		b.pathIdx = make(map[pathEntry]int32, len(nodes))
		b.paths = make([]pathEntry, 0, len(nodes))
		b.samples = make([]sampleAcc, 0, len(nodes))
	}
	for i := range nodes {
		n := &nodes[i]
		if n.IsRoot() || tt.locOf[n.Frame] == 0 || nodePath[n.Parent] == noPath {
			nodePath[i] = noPath // a root, or in no sample's stack
			if n.IsRoot() {
				nodePath[i] = -1
			}
			continue
		}
		nodePath[i] = b.path(nodePath[n.Parent], tt.loc(n))
		if !isSample(tree, i) {
			continue
		}
		calls := n.Calls
		if counted {
			calls = tree.Samples(stacks.NodeID(i))
		}
		b.addNode(tt.shown, n, calls, tt.label(n), nodePath[i], tree.Cut(stacks.NodeID(i)))
	}
}

// noPath marks, in addSamples, a node in no sample's stack.
const noPath = -2

// materialize copies the pending tree, if any, into the samples (see Add).
// Its nodes are distinct samples: no index is needed.
func (b *Builder) materialize() {
	if b.pending != nil {
		b.addSamples(b.pending)
		b.pending = nil
	}
}

// label interns a label set; shared reports that it was interned before.
func (b *Builder) label(lk labelKey) (id int32, shared bool) {
	if id, ok := b.labelOf[lk]; ok {
		return id, true
	}
	id = int32(len(b.labels))
	b.labels = append(b.labels, lk)
	b.labelOf[lk] = id
	return id, false
}

// indexSamples starts the index of samples by key, which Add leaves out
// while each node it adds is sure to have a sample of its own. Two nodes
// share a sample only if they have one label set and one stack of
// locations. The nodes of one tree are distinct (thread, frames, orphan)
// stacks, so for two of them, or for nodes of two trees, that takes an
// orphan frame, a location that two frames have (two method ids of one
// method, or one method in two traces), or a label set that is interned
// again (threads of one name and id). Add starts the index before the
// samples of a tree that has one of those. Until then Add appends samples
// without a map lookup each, which makes it much faster on a tree of
// distinct stacks, the common case (BenchmarkPprofBuild/add).
func (b *Builder) indexSamples() {
	if b.index != nil {
		return
	}
	b.index = make(map[sampleKey]int32, cap(b.samples))
	for i, s := range b.samples {
		b.index[sampleKeyOf(s.label, s.path)] = int32(i)
	}
}

// addNode adds one node's values on the shown clocks to its sample: calls
// are its calls, or its samples in a Counted tree; cut says its stack may
// miss outer frames.
func (b *Builder) addNode(shown clocks, n *stacks.Node, calls int64, label, path int32, cut bool) {
	i := int32(len(b.samples))
	if b.index == nil {
		b.samples = append(b.samples, sampleAcc{path: path, label: label, cut: cut})
	} else {
		k := sampleKeyOf(label, path)
		if j, ok := b.index[k]; ok {
			i = j
		} else {
			b.samples = append(b.samples, sampleAcc{path: path, label: label, cut: cut})
			b.index[k] = i
		}
	}
	s := &b.samples[i]
	s.calls += calls
	if shown.cpu {
		s.cpu += n.CPU
	}
	if shown.wall {
		s.wall += n.Wall
	}
	if shown.off {
		s.off += n.OffCPU()
	}
}

// syntheticKinds counts the LabelSynthetic values, "" (none) included.
const syntheticKinds = 4

// locSynthesized marks a location index (Add's locOf) whose frame a
// mapping marks synthesized. A location index + 1 stays below it: 2^31
// locations, with their functions, would take hundreds of GB.
const locSynthesized = 1 << 31

// A label kind is a syntheticKind, with synthesizedKind set when the
// sample carries LabelSynthesized; labelKinds counts them.
const (
	synthesizedKind = syntheticKinds
	labelKinds      = 2 * syntheticKinds
)

// syntheticValues are the LabelSynthetic values by syntheticKind.
var syntheticValues = [syntheticKinds]string{"", SyntheticOrphan, SyntheticOpen, SyntheticBoth}

// syntheticKind says whether the converter began (orphan) or ended (open)
// a node's frame: an index into syntheticValues, 0 for neither.
func syntheticKind(n *stacks.Node) int {
	k := 0
	if n.Orphan {
		k |= 1
	}
	if n.Open {
		k |= 2
	}
	return k
}

// path interns the stack loc-on-parent.
func (b *Builder) path(parent, loc int32) int32 {
	e := pathEntry{parent, loc}
	if id, ok := b.pathIdx[e]; ok {
		return id
	}
	p := int32(len(b.paths))
	b.paths = append(b.paths, e)
	b.pathIdx[e] = p
	return p
}

// location returns the index of the location of a frame, creating its
// function and location on first sight; shared reports that the location
// existed (another frame has it). A method trace records no call-site
// lines, only (in Dalvik traces) the method's first line: a method has
// one location, on that line, which is its function's start line too.
// A frame on its running line (running) is a location per method and
// line, and its function has no start line: pprof's default granularity
// merges the lines of one method.
func (b *Builder) location(fr *stream.Frame, running bool) (index int32, shared bool) {
	k := funcKey{name: fr.Name, file: fr.File, synthesized: fr.Synthesized,
		system: systemName(fr)}
	var line int64
	if fr.HasLine && fr.Line > 0 {
		line = int64(fr.Line)
	}
	if !running {
		k.line = line
	}
	fn, ok := b.funcs[k]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.funcs) + 1), Name: k.name, SystemName: k.system,
			Filename: k.file, StartLine: k.line}
		b.funcs[k] = fn
	}
	mp := b.mapping
	if c := fr.Code; c != nil && (c.Library != "" || c.BuildID != "") {
		mp = b.native(c.Library, c.BuildID)
	}
	lk := locKey{fn, line, mp}
	if loc, ok := b.locs[lk]; ok {
		return int32(loc.ID - 1), true
	}
	if line > 0 {
		mp.HasLineNumbers = true
	}
	loc := &profile.Location{ID: uint64(len(b.locList) + 1), Mapping: mp,
		Line: []profile.Line{{Function: fn, Line: line}}}
	b.locs[lk] = loc
	b.locList = append(b.locList, loc)
	return int32(loc.ID - 1), false
}

// systemName is a frame's Function.SystemName: "<class>.<method>
// <descriptor>" as the trace names it. That is the trace's own obfuscated
// name when a mapping renamed the frame, else the frame's name and
// signature. SystemName must differ from Name or pprof's demangler
// rewrites Name; left empty, it is never looked at: a frame without a
// descriptor has none (unless a mapping renamed it, when the obfuscated
// name alone is kept).
func systemName(fr *stream.Frame) string {
	switch {
	case fr.Code != nil:
		if fr.Code.Symbol == fr.Name {
			return ""
		}
		return fr.Code.Symbol // the mangled symbol, pprof's own use of it
	case fr.Obfuscated != "" && fr.ObfuscatedSignature != "":
		return fr.Obfuscated + " " + fr.ObfuscatedSignature
	case fr.Obfuscated != "":
		if fr.Obfuscated == fr.Name {
			return ""
		}
		return fr.Obfuscated
	case fr.Signature != "":
		return fr.Name + " " + fr.Signature
	}
	return ""
}

// native returns the mapping of a library of native code, making it on
// first use: pprof lists a location's library (and its build id, which
// symbolizers look up) as its mapping. The frames have their names
// already, and no addresses.
func (b *Builder) native(lib, buildID string) *profile.Mapping {
	k := [2]string{lib, buildID}
	if mp, ok := b.nativeOf[k]; ok {
		return mp
	}
	if b.nativeOf == nil {
		b.nativeOf = map[[2]string]*profile.Mapping{}
	}
	mp := &profile.Mapping{ID: uint64(2 + len(b.natives)), File: lib, BuildID: buildID, HasFunctions: true}
	b.natives = append(b.natives, mp)
	b.nativeOf[k] = mp
	return mp
}

// treeProcess is the process a tree's samples are of, for the labels
// process and pid: a sampled profile's that names it (stacks.Source), or
// none ("", 0).
func treeProcess(tree *stacks.Tree) (name string, pid int64) {
	src := tree.Source()
	if src == nil || src.Process < 0 || src.Process >= len(src.Processes) {
		return "", 0
	}
	pr := &src.Processes[src.Process]
	return pr.Name, pr.PID
}

// WriteProfile checks p and writes it gzipped, as profile.proto files are
// stored.
func WriteProfile(w io.Writer, p *profile.Profile) error {
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("pprof: invalid profile: %w", err)
	}
	zw, err := gzip.NewWriterLevel(w, compression)
	if err != nil {
		return err
	}
	if err := p.WriteUncompressed(zw); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	return nil
}

// traceName is how comments and the mapping refer to a trace.
func traceName(t *stream.Trace) string {
	switch t.Name {
	case "", "-":
		return "<stdin>"
	}
	return t.Name
}

// durationNanos is a trace's wall span; a profile that shows no wall time
// of it takes the elapsed time its key states.
func durationNanos(ti *traceInfo) int64 {
	t := ti.t
	if ti.shown.wall {
		return t.WallEnd
	}
	if ns := t.Process.Elapsed; ns < 1<<53*1000 {
		return ns
	}
	return 0
}
