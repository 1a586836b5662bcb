package pprofout

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"

	"github.com/atrace2/atrace2/stacks"
)

// Write builds the profile of every trace added so far, checks it and
// writes it gzipped. Call it once, after the last Add, instead of Profile.
//
// Fast path: Write encodes profile.proto itself (encoder, below) from the
// builder's sums, without a profile.Sample per sample: pprof's library
// needs a Sample, its location and label lists and their encoded copies
// for each, which made a long trace's profile most of the peak memory
// (BenchmarkPprof reports the allocations). Reference path: WriteProfile(w, b.Profile()), the
// library's encoder, taken when the build tag atrace2_reference is set.
// The encoder writes the library's bytes for the same profile (its string
// table order, field order and packing), which TestBuilderWrite checks,
// byte for byte.
func (b *Builder) Write(w io.Writer) error {
	if b.referencePath() {
		p, err := b.Profile()
		if err != nil {
			return err
		}
		return WriteProfile(w, p)
	}
	return b.writeEncoded(w)
}

// writeEncoded is Write's fast path.
func (b *Builder) writeEncoded(w io.Writer) error {
	samples := b.samples
	meta, err := b.build(false)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, compression)
	if err != nil {
		return err
	}
	e := encoder{w: zw, b: b, samples: samples, pending: b.pending,
		out: make([]byte, 0, spillSize+spillSize/4)}
	e.profile(meta)
	if err := e.flush(); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pprof: writing: %w", err)
	}
	return nil
}

// spillSize is how much encoded output the encoder collects before it
// hands it to the gzip writer.
const spillSize = 64 << 10

// compression is the gzip level of written profiles: the fastest, since
// the default level took a large share of a conversion for a file only a
// little smaller. The writer is klauspost's (whose reader opens .gz
// traces), faster than the standard library's for a file about as large.
// BenchmarkPprofBuild guards the choice.
const compression = gzip.BestSpeed

// Field numbers of profile.proto (github.com/google/pprof, proto/profile.proto).
const (
	// Profile
	fieldSampleType        = 1
	fieldSample            = 2
	fieldMapping           = 3
	fieldLocation          = 4
	fieldFunction          = 5
	fieldStringTable       = 6
	fieldDropFrames        = 7
	fieldKeepFrames        = 8
	fieldTimeNanos         = 9
	fieldDurationNanos     = 10
	fieldPeriodType        = 11
	fieldPeriod            = 12
	fieldComment           = 13
	fieldDefaultSampleType = 14
	fieldDocURL            = 15

	// ValueType
	fieldValueTypeType = 1
	fieldValueTypeUnit = 2

	// Sample
	fieldSampleLocationID = 1
	fieldSampleValue      = 2
	fieldSampleLabel      = 3

	// Label
	fieldLabelKey     = 1
	fieldLabelStr     = 2
	fieldLabelNum     = 3
	fieldLabelNumUnit = 4

	// Mapping
	fieldMappingID              = 1
	fieldMappingStart           = 2
	fieldMappingLimit           = 3
	fieldMappingOffset          = 4
	fieldMappingFilename        = 5
	fieldMappingBuildID         = 6
	fieldMappingHasFunctions    = 7
	fieldMappingHasFilenames    = 8
	fieldMappingHasLineNumbers  = 9
	fieldMappingHasInlineFrames = 10

	// Location
	fieldLocationID        = 1
	fieldLocationMappingID = 2
	fieldLocationAddress   = 3
	fieldLocationLine      = 4
	fieldLocationIsFolded  = 5

	// Line
	fieldLineFunctionID = 1
	fieldLineLine       = 2
	fieldLineColumn     = 3

	// Function
	fieldFunctionID         = 1
	fieldFunctionName       = 2
	fieldFunctionSystemName = 3
	fieldFunctionFilename   = 4
	fieldFunctionStartLine  = 5
)

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

// encoder writes a profile.proto message the way pprof's library
// (profile.Profile.WriteUncompressed) does:
//
//   - the string table holds each string once, in order of first use as
//     the library looks at them (stringTable);
//   - the Profile's fields come in field-number order, repeated messages
//     in their slice's order, the samples in first-seen order;
//   - a zero optional number is left out, except default_sample_type;
//   - a repeated number field with more than two values is packed, with
//     two or fewer it is one field per value.
type encoder struct {
	w       io.Writer
	b       *Builder
	samples []sampleAcc // the builder's samples, or
	pending *treeTables // the tree whose nodes are the samples (see Add)
	stack   *stackIDs   // the ids of the pending tree's stacks (node)
	strs    stringTable
	labels  [][]byte // by label id × 2 + cut: the encoded label fields of a sample
	out     []byte   // encoded, not yet written
	msg     []byte   // scratch: a message's body
	sub     []byte   // scratch: a nested message's or packed field's body
	err     error
}

// profile encodes meta (everything but the samples) with the samples.
func (e *encoder) profile(meta *profile.Profile) {
	e.strings(meta)
	for _, st := range meta.SampleType {
		e.message(fieldSampleType, e.valueType(e.msg[:0], st))
	}
	c := e.b.sampleTypes()
	if tt := e.pending; tt != nil {
		if !e.b.walkStacks {
			e.stack = newStackIDs(tt.depth)
		}
		nodes := tt.tree.Nodes()
		for i := range nodes {
			if !nodes[i].IsRoot() {
				e.node(tt, nodes, i, c)
			}
		}
	}
	for i := range e.samples {
		e.sample(&e.samples[i], c)
	}
	for _, m := range meta.Mapping {
		e.message(fieldMapping, e.mapping(e.msg[:0], m))
	}
	for _, l := range meta.Location {
		e.message(fieldLocation, e.location(e.msg[:0], l))
	}
	for _, f := range meta.Function {
		e.message(fieldFunction, e.function(e.msg[:0], f))
	}
	for _, s := range e.strs.list {
		e.out = appendString(e.out, fieldStringTable, s)
		e.spill()
	}
	o := e.out
	o = appendOpt(o, fieldDropFrames, uint64(e.strs.index(meta.DropFrames)))
	o = appendOpt(o, fieldKeepFrames, uint64(e.strs.index(meta.KeepFrames)))
	o = appendOpt(o, fieldTimeNanos, uint64(meta.TimeNanos))
	o = appendOpt(o, fieldDurationNanos, uint64(meta.DurationNanos))
	e.out = o
	if pt := meta.PeriodType; pt != nil && (e.strs.index(pt.Type) != 0 || e.strs.index(pt.Unit) != 0) {
		e.message(fieldPeriodType, e.valueType(e.msg[:0], pt))
	}
	o = appendOpt(e.out, fieldPeriod, uint64(meta.Period))
	comments := make([]uint64, len(meta.Comments))
	for i, c := range meta.Comments {
		comments[i] = uint64(e.strs.index(c))
	}
	o, e.sub = appendRepeated(o, fieldComment, comments, e.sub)
	o = appendVarint(o, fieldDefaultSampleType, uint64(e.strs.index(meta.DefaultSampleType)))
	e.out = appendOpt(o, fieldDocURL, uint64(e.strs.index(meta.DocURL)))
}

// strings fills the string table in the library's order (preEncode in
// github.com/google/pprof/profile/encode.go): the empty string; the sample
// types; each sample's label keys and values, keys sorted, string labels
// before numeric ones; the mapping's file and build id; each function's
// name, system name and file; drop and keep frames; the period type; the
// comments; the default sample type and the doc URL. It also encodes each
// label set once, for the samples that have it.
func (e *encoder) strings(meta *profile.Profile) {
	// At most this many strings: sized up front, the table takes its
	// memory once instead of leaving the garbage of each growth, which
	// cost page faults (BenchmarkPprofBuild/add+write/cold).
	n := 1 + 2*len(meta.SampleType) + 8*len(e.b.labels) + 2*len(meta.Mapping) +
		3*len(meta.Function) + 4 + len(meta.Comments) + 2
	t := &e.strs
	t.idx = make(map[string]int64, n)
	t.list = make([]string, 0, n)
	t.add("")
	for _, st := range meta.SampleType {
		t.add(st.Type)
		t.add(st.Unit)
	}
	e.labels = make([][]byte, 2*len(e.b.labels))
	if tt := e.pending; tt != nil {
		nodes := tt.tree.Nodes()
		for i := range nodes {
			if !nodes[i].IsRoot() {
				e.label(tt.label(&nodes[i]), false)
			}
		}
	}
	for i := range e.samples {
		e.label(e.samples[i].label, e.samples[i].cut)
	}
	for _, m := range meta.Mapping {
		t.add(m.File)
		t.add(m.BuildID)
	}
	for _, f := range meta.Function {
		t.add(f.Name)
		t.add(f.SystemName)
		t.add(f.Filename)
	}
	t.add(meta.DropFrames)
	t.add(meta.KeepFrames)
	if pt := meta.PeriodType; pt != nil {
		t.add(pt.Type)
		t.add(pt.Unit)
	}
	for _, c := range meta.Comments {
		t.add(c)
	}
	t.add(meta.DefaultSampleType)
	t.add(meta.DocURL)
}

// label encodes a label set, with the truncated label when cut, the first
// time a sample has it, adding its strings to the table: the string
// labels first, by key ("process" < "synthesized" < "synthetic" <
// "thread" < "truncated"), then the number labels ("pid" before
// "thread_serial" or "tid").
func (e *encoder) label(id int32, cut bool) {
	at := 2 * id
	if cut {
		at++
	}
	if e.labels[at] != nil {
		return
	}
	t, lk := &e.strs, &e.b.labels[id]
	enc := []byte{} // not nil: a sample may have no label
	if lk.process != "" {
		enc = appendLabel(enc, t.add(LabelProcess), t.add(lk.process), 0)
	}
	if lk.synthesized {
		enc = appendLabel(enc, t.add(LabelSynthesized), t.add(SynthesizedTrue), 0)
	}
	if lk.synth != "" {
		enc = appendLabel(enc, t.add(LabelSynthetic), t.add(lk.synth), 0)
	}
	if !lk.noThread {
		enc = appendLabel(enc, t.add(LabelThread), t.add(lk.thread), 0)
	}
	if cut {
		enc = appendLabel(enc, t.add(LabelTruncated), t.add(TruncatedDepth), 0)
	}
	if lk.pid != 0 {
		enc = appendLabel(enc, t.add(LabelPID), 0, lk.pid)
	}
	if !lk.noThread {
		enc = appendLabel(enc, t.add(lk.numKey()), 0, lk.tid)
	}
	e.labels[at] = enc
}

// stringTable is a profile's string table: each string once, by first use.
type stringTable struct {
	idx  map[string]int64
	list []string
}

// add returns the index of s, adding it if it is new.
func (t *stringTable) add(s string) int64 {
	if i, ok := t.idx[s]; ok {
		return i
	}
	i := int64(len(t.list))
	t.idx[s] = i
	t.list = append(t.list, s)
	return i
}

// index returns the index of s, which add has seen.
func (t *stringTable) index(s string) int64 { return t.idx[s] }

// message appends body as a field of the Profile.
func (e *encoder) message(num int, body []byte) {
	e.out = appendBytes(e.out, num, body)
	e.msg = body
	e.spill()
}

// spill writes the encoded bytes out once they reach spillSize.
func (e *encoder) spill() {
	if len(e.out) >= spillSize {
		e.flush()
	}
}

// flush writes the encoded bytes out; it returns the first write error.
func (e *encoder) flush() error {
	if len(e.out) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.out)
	}
	e.out = e.out[:0]
	return e.err
}

// sample encodes one Sample of the builder's as a field of the Profile.
func (e *encoder) sample(s *sampleAcc, c sampleTypes) {
	ids, n := e.sub[:0], 0
	for i := s.path; i >= 0; i = e.b.paths[i].parent {
		ids = binary.AppendUvarint(ids, uint64(e.b.paths[i].loc)+1)
		n++
	}
	e.sub = ids
	at := 2 * s.label
	if s.cut {
		at++
	}
	e.encodeSample(ids, n, c.values(s.calls, s.cpu, s.wall, s.off), at)
}

// node encodes the Sample of a pending tree's node i as a field of the
// Profile: the node's own values and its frames' locations.
func (e *encoder) node(tt *treeTables, nodes []stacks.Node, i int, c sampleTypes) {
	nd := &nodes[i]
	ids, ok := e.stack.push(nodes, i, uint64(tt.loc(nd))+1)
	n := int(nd.Depth)
	if !ok { // the reference: the node's parents, walked
		ids, n = e.sub[:0], 0
		for j := stacks.NodeID(i); !nodes[j].IsRoot(); j = nodes[j].Parent {
			ids = binary.AppendUvarint(ids, uint64(tt.loc(&nodes[j]))+1)
			n++
		}
		e.sub = ids
	}
	e.encodeSample(ids, n, c.values(nd.Calls, nd.CPU, nd.Wall, nd.OffCPU()), 2*tt.label(nd))
}

// stackIDs keeps the location ids of the stacks of the nodes encoded
// last, leaf first, as varints at the end of buf: the ids of a node at
// depth d are the id of its own frame written just before those of its
// parent, the node last encoded at depth d-1. Nodes come depth first
// (stacks.Tree.Nodes), so that parent is nearly always in place, and a
// node's ids cost one varint instead of a walk up its stack: the walk was
// the encoder's largest cost (BenchmarkPprofBuild). A node whose parent is
// not in place takes the walk (encoder.node).
type stackIDs struct {
	buf  []byte
	at   []int           // by depth: where the ids of node[depth] begin in buf
	node []stacks.NodeID // by depth: the node last encoded at that depth
	top  int             // the deepest depth whose ids are intact in buf
}

// newStackIDs makes room for stacks of up to depth frames.
func newStackIDs(depth int) *stackIDs {
	s := &stackIDs{buf: make([]byte, depth*binary.MaxVarintLen32), at: make([]int, depth+1),
		node: make([]stacks.NodeID, depth+1)}
	s.at[0] = len(s.buf)
	return s
}

// push returns the ids of node i, whose frame's location id is id, leaf
// first, if its parent's are in place; ok is false if they are not.
func (s *stackIDs) push(nodes []stacks.Node, i int, id uint64) (ids []byte, ok bool) {
	if s == nil {
		return nil, false
	}
	n := &nodes[i]
	d := int(n.Depth)
	switch {
	case d < 1 || d >= len(s.at) || d-1 > s.top:
		return nil, false
	case d == 1 && !nodes[n.Parent].IsRoot(), d > 1 && s.node[d-1] != n.Parent:
		return nil, false
	}
	var v [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(v[:], id)
	start := s.at[d-1] - k
	if start < 0 || id > 1<<32-1 {
		return nil, false
	}
	copy(s.buf[start:], v[:k])
	// Writing depth d overwrites the ids of the nodes kept deeper.
	s.at[d], s.node[d], s.top = start, stacks.NodeID(i), d
	return s.buf[start:], true
}

// sampleValues are a sample's values, at most four.
type sampleValues struct {
	v [4]uint64
	n int
}

// values are the values of a sample, in the order of the sample types:
// calls (or samples, in a Counted tree's profile) first.
func (c sampleTypes) values(calls, cpu, wall, off int64) sampleValues {
	sv := sampleValues{n: 1}
	sv.v[0] = uint64(calls)
	if c.cpu {
		sv.v[sv.n] = uint64(cpu)
		sv.n++
	}
	if c.wall {
		sv.v[sv.n] = uint64(wall)
		sv.n++
	}
	if c.off {
		sv.v[sv.n] = uint64(off)
		sv.n++
	}
	return sv
}

// encodeSample encodes a Sample as a field of the Profile, straight into
// the output: its n location ids (ids holds them, leaf first, as varints;
// a location's id is its index in locList plus one, Builder.location), its
// values and its labels (e.labels[label]).
func (e *encoder) encodeSample(ids []byte, n int, sv sampleValues, label int32) {
	var vb [4 * binary.MaxVarintLen64]byte
	vals := vb[:0]
	for _, v := range sv.v[:sv.n] {
		vals = binary.AppendUvarint(vals, v)
	}
	labels := e.labels[label]
	size := repeatedLen(fieldSampleLocationID, ids, n) + repeatedLen(fieldSampleValue, vals, sv.n) + len(labels)
	o := binary.AppendUvarint(e.out, fieldSample<<3|wireBytes)
	o = binary.AppendUvarint(o, uint64(size))
	o = appendVarints(o, fieldSampleLocationID, ids, n)
	o = appendVarints(o, fieldSampleValue, vals, sv.n)
	e.out = append(o, labels...)
	e.spill()
}

// repeatedLen is the size of a repeated varint field of n values, which
// varints holds (appendRepeated's rule).
func repeatedLen(num int, varints []byte, n int) int {
	if n > 2 {
		return uvarintLen(uint64(num)<<3|wireBytes) + uvarintLen(uint64(len(varints))) + len(varints)
	}
	return n*uvarintLen(uint64(num)<<3|wireVarint) + len(varints)
}

// appendVarints appends a repeated varint field of n values, which varints
// holds (appendRepeated's rule).
func appendVarints(b []byte, num int, varints []byte, n int) []byte {
	if n > 2 {
		return appendBytes(b, num, varints)
	}
	for len(varints) > 0 {
		_, k := binary.Uvarint(varints)
		b = binary.AppendUvarint(b, uint64(num)<<3|wireVarint)
		b = append(b, varints[:k]...)
		varints = varints[k:]
	}
	return b
}

// uvarintLen is the size of v as a varint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// valueType appends the fields of a ValueType.
func (e *encoder) valueType(m []byte, vt *profile.ValueType) []byte {
	m = appendOpt(m, fieldValueTypeType, uint64(e.strs.index(vt.Type)))
	return appendOpt(m, fieldValueTypeUnit, uint64(e.strs.index(vt.Unit)))
}

// mapping appends the fields of a Mapping.
func (e *encoder) mapping(m []byte, mp *profile.Mapping) []byte {
	m = appendOpt(m, fieldMappingID, mp.ID)
	m = appendOpt(m, fieldMappingStart, mp.Start)
	m = appendOpt(m, fieldMappingLimit, mp.Limit)
	m = appendOpt(m, fieldMappingOffset, mp.Offset)
	m = appendOpt(m, fieldMappingFilename, uint64(e.strs.index(mp.File)))
	m = appendOpt(m, fieldMappingBuildID, uint64(e.strs.index(mp.BuildID)))
	m = appendBool(m, fieldMappingHasFunctions, mp.HasFunctions)
	m = appendBool(m, fieldMappingHasFilenames, mp.HasFilenames)
	m = appendBool(m, fieldMappingHasLineNumbers, mp.HasLineNumbers)
	return appendBool(m, fieldMappingHasInlineFrames, mp.HasInlineFrames)
}

// location appends the fields of a Location, its lines as nested messages.
func (e *encoder) location(m []byte, l *profile.Location) []byte {
	m = appendOpt(m, fieldLocationID, l.ID)
	if l.Mapping != nil {
		m = appendOpt(m, fieldLocationMappingID, l.Mapping.ID)
	}
	m = appendOpt(m, fieldLocationAddress, l.Address)
	for _, ln := range l.Line {
		sub := e.sub[:0]
		if ln.Function != nil {
			sub = appendOpt(sub, fieldLineFunctionID, ln.Function.ID)
		}
		sub = appendOpt(sub, fieldLineLine, uint64(ln.Line))
		sub = appendOpt(sub, fieldLineColumn, uint64(ln.Column))
		m = appendBytes(m, fieldLocationLine, sub)
		e.sub = sub
	}
	return appendBool(m, fieldLocationIsFolded, l.IsFolded)
}

// function appends the fields of a Function.
func (e *encoder) function(m []byte, f *profile.Function) []byte {
	m = appendOpt(m, fieldFunctionID, f.ID)
	m = appendOpt(m, fieldFunctionName, uint64(e.strs.index(f.Name)))
	m = appendOpt(m, fieldFunctionSystemName, uint64(e.strs.index(f.SystemName)))
	m = appendOpt(m, fieldFunctionFilename, uint64(e.strs.index(f.Filename)))
	return appendOpt(m, fieldFunctionStartLine, uint64(f.StartLine))
}

// appendLabel appends one Label message as a field of a Sample.
func appendLabel(b []byte, key, str, num int64) []byte {
	var m [32]byte
	l := appendOpt(m[:0], fieldLabelKey, uint64(key))
	l = appendOpt(l, fieldLabelStr, uint64(str))
	l = appendOpt(l, fieldLabelNum, uint64(num))
	l = appendOpt(l, fieldLabelNumUnit, 0) // tid and thread_serial have no unit: left out
	return appendBytes(b, fieldSampleLabel, l)
}

// appendVarint appends a varint field.
func appendVarint(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|wireVarint)
	return binary.AppendUvarint(b, v)
}

// appendOpt appends a varint field unless it is 0.
func appendOpt(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(b, num, v)
}

// appendBool appends a bool field if it is true.
func appendBool(b []byte, num int, v bool) []byte {
	if !v {
		return b
	}
	return appendVarint(b, num, 1)
}

// appendBytes appends a length-delimited field.
func appendBytes(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendString appends a string field.
func appendString(b []byte, num int, s string) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendRepeated appends a repeated varint field: packed when it has more
// than two values, else one field per value (the library's rule). scratch
// is returned for reuse.
func appendRepeated(b []byte, num int, vs []uint64, scratch []byte) ([]byte, []byte) {
	if len(vs) <= 2 {
		for _, v := range vs {
			b = appendVarint(b, num, v)
		}
		return b, scratch
	}
	body := scratch[:0]
	for _, v := range vs {
		body = binary.AppendUvarint(body, v)
	}
	return appendBytes(b, num, body), body
}
