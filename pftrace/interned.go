package pftrace

import (
	"fmt"
	"strings"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/samples"
)

// InternedData fields this reader uses (protos/perfetto/trace/interned_data).
const (
	idFunctionNames    = 5
	idFrames           = 6
	idCallstacks       = 7
	idBuildIDs         = 16
	idMappingPaths     = 17
	idSourcePaths      = 18
	idMappings         = 19
	idTaskContexts     = 48
	idCounterDescripts = 50
)

// sequence is the state of one packet sequence (trusted_packet_sequence_id):
// its interned data and defaults, which SEQ_INCREMENTAL_STATE_CLEARED
// resets, and what survives a reset (the thread a ThreadDescriptor names).
// docs/formats.md §20.3.
type sequence struct {
	id    uint32
	valid bool // incremental state valid: interned data may be read and used

	// Interned data of the current generation. The first definition of an
	// iid counts, as in trace_processor.
	strings  [4]map[uint64]string // by the s… slots below
	mappings map[uint64]mappingDef
	frames   map[uint64]frameDef
	stacks   map[uint64][]uint64
	tasks    map[uint64]taskContext
	counters map[uint64]counterDesc

	// Caches of resolved entries, valid for the generation.
	frameIdx  map[uint64]int32 // frame iid → builder frame
	stackNode iidCache         // callstack iid → builder node
	mapCache  map[uint64]mappingRes

	// Defaults (TracePacketDefaults), reset with the generation.
	clockID  uint32
	timebase timebase
	ssDef    stackSampleDefaults

	// What a ThreadDescriptor or a thread TrackDescriptor says: kept across
	// resets. trackNs is the running time of StreamingProfilePacket deltas,
	// valid from a ThreadDescriptor on, until a reset or a packet loss.
	pid, tid    int64
	hasThread   bool
	trackNs     int64
	trackNsOK   bool
	generations int
	tbCount     int64 // PerfSamples read under the current timebase
}

// string table slots of sequence.strings.
const (
	sFunctionNames = iota
	sBuildIDs
	sMappingPaths
	sSourcePaths
)

type mappingDef struct {
	buildID uint64
	paths   []uint64
}

type frameDef struct {
	fn, mapping, relPC, sourcePath uint64
	line                           uint32
	hasLine                        bool
	kind                           uint64 // Frame.kind: 3 interpreted, 4 JIT
}

type mappingRes struct {
	name, buildID string
	ok            bool
}

type taskContext struct {
	pid, tid       int64
	hasPID, hasTID bool
}

type counterDesc struct {
	name       string
	unit       uint64
	multiplier uint64
}

// iidCache maps iids to builder indices: a slice for the small, dense iids
// producers use, a map beyond. Values are stored +1, so 0 is absent.
type iidCache struct {
	dense  []int32
	sparse map[uint64]int32
}

const denseLimit = 1 << 20

func (c *iidCache) get(iid uint64) (int32, bool) {
	if iid < uint64(len(c.dense)) {
		v := c.dense[iid]
		return v - 1, v != 0
	}
	v, ok := c.sparse[iid]
	return v, ok
}

func (c *iidCache) put(iid uint64, v int32) {
	if iid < denseLimit {
		if iid >= uint64(len(c.dense)) {
			n := max(64, 2*len(c.dense))
			for uint64(n) <= iid {
				n *= 2
			}
			c.dense = append(c.dense, make([]int32, n-len(c.dense))...)
		}
		c.dense[iid] = v + 1
		return
	}
	if c.sparse == nil {
		c.sparse = map[uint64]int32{}
	}
	c.sparse[iid] = v
}

// reset starts a new generation of interned data and defaults.
func (s *sequence) reset() {
	for i := range s.strings {
		s.strings[i] = nil
	}
	s.mappings, s.frames, s.stacks, s.tasks, s.counters = nil, nil, nil, nil, nil
	s.frameIdx, s.mapCache = nil, nil
	s.stackNode = iidCache{}
	s.clockID, s.timebase, s.ssDef = 0, timebase{}, stackSampleDefaults{}
	s.trackNsOK = false
	s.generations++
}

// intern reads an InternedData message into the sequence.
func (s *sequence) intern(m pbread.Msg) error {
	for m.Next() {
		if m.Type != pbread.Bytes {
			continue
		}
		e := m.Sub()
		switch m.Num {
		case idFunctionNames:
			s.internString(sFunctionNames, e)
		case idBuildIDs:
			s.internString(sBuildIDs, e)
		case idMappingPaths:
			s.internString(sMappingPaths, e)
		case idSourcePaths:
			s.internString(sSourcePaths, e)
		case idMappings:
			var d mappingDef
			iid, ok := uint64(0), false
			for e.Next() {
				switch e.Num {
				case 1:
					iid, ok = e.U, true
				case 2:
					d.buildID = e.U
				case 7:
					d.paths = appendRepeated(d.paths, &e)
				}
			}
			if ok && e.Err == nil {
				if s.mappings == nil {
					s.mappings = map[uint64]mappingDef{}
				}
				if _, dup := s.mappings[iid]; !dup {
					s.mappings[iid] = d
				}
			}
		case idFrames:
			var d frameDef
			iid, ok := uint64(0), false
			for e.Next() {
				switch e.Num {
				case 1:
					iid, ok = e.U, true
				case 2:
					d.fn = e.U
				case 3:
					d.mapping = e.U
				case 4:
					d.relPC = e.U
				case 5:
					d.sourcePath = e.U
				case 6:
					d.line, d.hasLine = uint32(e.U), true
				case 7:
					d.kind = e.U
				}
			}
			if ok && e.Err == nil {
				if s.frames == nil {
					s.frames = map[uint64]frameDef{}
				}
				if _, dup := s.frames[iid]; !dup {
					s.frames[iid] = d
				}
			}
		case idCallstacks:
			var frames []uint64
			iid, ok := uint64(0), false
			for e.Next() {
				switch e.Num {
				case 1:
					iid, ok = e.U, true
				case 2:
					frames = appendRepeated(frames, &e)
				}
			}
			if ok && e.Err == nil {
				if s.stacks == nil {
					s.stacks = map[uint64][]uint64{}
				}
				if _, dup := s.stacks[iid]; !dup {
					s.stacks[iid] = frames
				}
			}
		case idTaskContexts:
			iid, tc, ok := readTaskContext(e)
			if ok {
				if s.tasks == nil {
					s.tasks = map[uint64]taskContext{}
				}
				if _, dup := s.tasks[iid]; !dup {
					s.tasks[iid] = tc
				}
			}
		case idCounterDescripts:
			iid, cd, ok := readCounterDesc(e)
			if ok {
				if s.counters == nil {
					s.counters = map[uint64]counterDesc{}
				}
				if _, dup := s.counters[iid]; !dup {
					s.counters[iid] = cd
				}
			}
		}
		if e.Err != nil {
			return e.Err
		}
	}
	return m.Err
}

// internString reads an InternedString (iid 1, str 2).
func (s *sequence) internString(slot int, e pbread.Msg) {
	var iid uint64
	var str []byte
	ok := false
	for e.Next() {
		switch e.Num {
		case 1:
			iid, ok = e.U, true
		case 2:
			str = e.Val
		}
	}
	if !ok || e.Err != nil {
		return
	}
	t := s.strings[slot]
	if t == nil {
		t = map[uint64]string{}
		s.strings[slot] = t
	}
	if _, dup := t[iid]; !dup {
		t[iid] = string(str)
	}
}

// appendRepeated appends a repeated varint field's values, packed or not.
func appendRepeated(dst []uint64, e *pbread.Msg) []uint64 {
	switch e.Type {
	case pbread.Varint:
		return append(dst, e.U)
	case pbread.Bytes:
		p := pbread.Packed{B: e.Val}
		for p.Next() {
			dst = append(dst, p.V)
		}
	}
	return dst
}

// resolver turns a sequence's interned ids into builder frames and nodes.
type resolver struct {
	b     *profbuild.Builder
	stack []int32

	unknownStack, unknownFrame int32 // builder frames, -1 until needed
}

// repairs named in Profile.Repairs.
const (
	repairStack = "samples whose call stack was never interned"
	repairFrame = "samples with frames, function names, mappings or build ids never interned"
)

// callstack returns the node of callstack iid; what was never interned
// becomes an UnknownFrame. Only complete resolutions are cached, since a
// later packet of the generation may still define what is missing.
func (r *resolver) callstack(s *sequence, iid uint64) int32 {
	if n, ok := s.stackNode.get(iid); ok {
		return n
	}
	ids, ok := s.stacks[iid]
	if !ok {
		if r.unknownStack < 0 {
			r.unknownStack = r.b.Frame(samples.Frame{Name: "[unknown call stack]", Kind: samples.UnknownFrame})
			r.b.RepairFrame(r.unknownStack, repairStack)
		}
		return r.b.Node(profbuild.NoParent, r.unknownStack)
	}
	complete := true
	r.stack = r.stack[:0]
	for _, fid := range ids {
		f, ok := r.frame(s, fid)
		complete = complete && ok
		r.stack = append(r.stack, f)
	}
	n := r.b.Stack(r.stack)
	if complete {
		s.stackNode.put(iid, n)
	}
	return n
}

// frame returns the builder frame of frame iid, or the unknown frame and
// false when it, its function name, its mapping or the mapping's build id
// was never interned (trace_processor then drops the whole call stack).
func (r *resolver) frame(s *sequence, iid uint64) (int32, bool) {
	if f, ok := s.frameIdx[iid]; ok {
		return f, true
	}
	d, ok := s.frames[iid]
	var fn string
	if ok && d.fn != 0 {
		fn, ok = s.strings[sFunctionNames][d.fn]
	}
	var m mappingRes
	if ok && d.mapping != 0 {
		m = s.mapping(d.mapping)
		ok = m.ok
	}
	if !ok {
		if r.unknownFrame < 0 {
			r.unknownFrame = r.b.Frame(samples.Frame{Name: "[unknown frame]", Kind: samples.UnknownFrame})
			r.b.RepairFrame(r.unknownFrame, repairFrame)
		}
		return r.unknownFrame, false
	}
	f := profbuild.MakeFrame(fn, m.name, m.buildID, d.relPC, d.kind == 3 || d.kind == 4)
	if d.sourcePath != 0 {
		if p, ok := s.strings[sSourcePaths][d.sourcePath]; ok {
			f.File = p
		}
	}
	if d.hasLine {
		f.Line, f.HasLine = int(d.line), true
	}
	i := r.b.Frame(f)
	if s.frameIdx == nil {
		s.frameIdx = map[uint64]int32{}
	}
	s.frameIdx[iid] = i
	return i, true
}

// mapping resolves mapping iid to its path (trace_processor's mapping
// name: "/" before each path element, which stops at the first element
// never interned) and build id; ok is false when the mapping or its build
// id was never interned.
func (s *sequence) mapping(iid uint64) mappingRes {
	if m, ok := s.mapCache[iid]; ok {
		return m
	}
	d, ok := s.mappings[iid]
	if !ok {
		return mappingRes{}
	}
	var b strings.Builder
	for _, p := range d.paths {
		str, ok := s.strings[sMappingPaths][p]
		if !ok {
			break
		}
		b.WriteByte('/')
		b.WriteString(str)
	}
	name := b.String()
	if strings.HasPrefix(name, "//") {
		name = name[1:] // a single element holding a whole path
	}
	m := mappingRes{name: name, ok: true}
	if d.buildID != 0 {
		m.buildID, m.ok = s.strings[sBuildIDs][d.buildID]
	}
	if m.ok {
		if s.mapCache == nil {
			s.mapCache = map[uint64]mappingRes{}
		}
		s.mapCache[iid] = m
	}
	return m
}

// readTaskContext reads a StackSample.TaskContext: iid 1, pid 2, tid 3.
func readTaskContext(e pbread.Msg) (uint64, taskContext, bool) {
	var tc taskContext
	var iid uint64
	for e.Next() {
		switch e.Num {
		case 1:
			iid = e.U
		case 2:
			tc.pid, tc.hasPID = int64(uint32(e.U)), true
		case 3:
			tc.tid, tc.hasTID = int64(uint32(e.U)), true
		}
	}
	return iid, tc, e.Err == nil
}

// readCounterDesc reads a StackSample.CounterDescriptor: iid 1, name 2,
// unit 3, unit_multiplier 5.
func readCounterDesc(e pbread.Msg) (uint64, counterDesc, bool) {
	var cd counterDesc
	var iid uint64
	for e.Next() {
		switch e.Num {
		case 1:
			iid = e.U
		case 2:
			cd.name = string(e.Val)
		case 3:
			cd.unit = e.U
		case 5:
			cd.multiplier = e.U
		}
	}
	return iid, cd, e.Err == nil
}

// describe names a counter for Profile.Period.
func (cd counterDesc) describe() string {
	if cd.name == "" {
		return "unnamed counter"
	}
	return fmt.Sprintf("%q", cd.name)
}
