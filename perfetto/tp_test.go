package perfetto_test

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/atrace2/atrace2/proto"
)

// This file is an independent reader of our output that rebuilds slices the
// way trace_processor does (src/trace_processor/importers/proto/
// proto_trace_reader.cc, track_event_*.cc, common/slice_tracker.cc): packet
// sequences with their incremental state, interned names, sequence-scoped
// incremental clocks related to BOOTTIME by clock snapshots, track
// descriptors, incremental counters feeding thread_ts, and END events that
// close the innermost open slice of their track. It uses only the generated
// types, never the exporter's code. Where trace_processor would silently
// drop or repair something, it records a problem instead, so tests can
// require none.

const tpMaxDepth = 512 // slice_tracker.h kMaxDepth

// tpSlice is one row of trace_processor's slice table.
type tpSlice struct {
	Track        uint64
	Name         string
	TS, Dur      int64 // ns; Dur is -1 while the slice is open
	Depth        int
	ThreadTS     int64
	HasThreadTS  bool
	ThreadDur    int64
	HasThreadDur bool
	Args         map[string]string
}

// tpTrack is a TrackDescriptor with the state of its slices or counter.
type tpTrack struct {
	Desc    *pb.TrackDescriptor
	Seq     uint32 // the sequence that described it
	stack   []int  // open slices, indexes into tpResult.Slices
	counter int64  // incremental counter's current value
}

// tpResult is what a trace decodes to.
type tpResult struct {
	Tracks   map[uint64]*tpTrack
	Order    []uint64 // track uuids in the order they were described
	Slices   []tpSlice
	Realtime map[uint32]int64 // sequence → REALTIME ns at its snapshot, when declared
	Packets  int
	Problems []string
}

// tpClock is a sequence-scoped clock defined by a snapshot.
type tpClock struct {
	incremental bool
	mult        int64
	snapValue   int64 // in clock units
	snapBoot    int64 // BOOTTIME ns at the snapshot
	cur         int64 // the latest value, for an incremental clock
}

// tpSeq is the incremental state of one packet sequence.
type tpSeq struct {
	seen, valid bool
	defaults    *pb.TracePacketDefaults
	names       map[uint64]string
	locations   map[uint64]*pb.SourceLocation
	annNames    map[uint64]string
	annStrings  map[uint64]string
	clocks      map[uint32]*tpClock
}

func (s *tpSeq) clear() {
	s.valid = true
	s.defaults = nil
	s.names = map[uint64]string{}
	s.locations = map[uint64]*pb.SourceLocation{}
	s.annNames = map[uint64]string{}
	s.annStrings = map[uint64]string{}
	s.clocks = map[uint32]*tpClock{}
}

type tpDecoder struct {
	res  tpResult
	seqs map[uint32]*tpSeq
}

// decodeTP reads a whole trace. An error means the bytes are not a Trace.
func decodeTP(data []byte) (*tpResult, error) {
	d := &tpDecoder{seqs: map[uint32]*tpSeq{}}
	d.res.Tracks = map[uint64]*tpTrack{}
	d.res.Realtime = map[uint32]int64{}
	for off := 0; off < len(data); {
		num, typ, n := protowire.ConsumeTag(data[off:])
		if n < 0 || num != 1 || typ != protowire.BytesType {
			return nil, fmt.Errorf("offset %d: not a Trace.packet field", off)
		}
		off += n
		body, n := protowire.ConsumeBytes(data[off:])
		if n < 0 {
			return nil, fmt.Errorf("offset %d: bad packet length", off)
		}
		off += n
		p := &pb.TracePacket{}
		if err := proto.Unmarshal(body, p); err != nil {
			return nil, fmt.Errorf("packet %d: %v", d.res.Packets, err)
		}
		if len(p.ProtoReflect().GetUnknown()) != 0 {
			d.problem("packet %d: fields outside the subset", d.res.Packets)
		}
		d.packet(p)
		d.res.Packets++
	}
	for i := range d.res.Slices {
		if d.res.Slices[i].Dur < 0 {
			d.problem("slice %q did not end", d.res.Slices[i].Name)
		}
	}
	return &d.res, nil
}

func (d *tpDecoder) problem(format string, args ...any) {
	if len(d.res.Problems) < 20 {
		d.res.Problems = append(d.res.Problems, fmt.Sprintf(format, args...))
	}
}

// packet applies one packet in file order. (trace_processor sorts packets
// by timestamp first; per track our packets are already in that order.)
func (d *tpDecoder) packet(p *pb.TracePacket) {
	id := p.GetTrustedPacketSequenceId()
	if id == 0 {
		d.problem("packet %d: no trusted_packet_sequence_id", d.res.Packets)
		return
	}
	s := d.seqs[id]
	if s == nil {
		s = &tpSeq{}
		d.seqs[id] = s
	}
	first := !s.seen
	s.seen = true
	flags := p.GetSequenceFlags()
	switch {
	case flags&1 != 0:
		if !first || !p.GetFirstPacketOnSequence() {
			d.problem("sequence %d: state cleared after its first packet, or without first_packet_on_sequence", id)
		}
		s.clear()
	case flags&2 != 0 && !s.valid:
		d.problem("sequence %d: packet needs incremental state before it was cleared (skipped)", id)
		return
	}
	if p.TracePacketDefaults != nil {
		s.defaults = p.TracePacketDefaults
	}
	if p.InternedData != nil {
		d.intern(s, id, p.InternedData)
	}
	switch data := p.Data.(type) {
	case *pb.TracePacket_ClockSnapshot:
		d.snapshot(s, id, data.ClockSnapshot)
	case *pb.TracePacket_TrackDescriptor:
		d.descriptor(id, data.TrackDescriptor)
	case *pb.TracePacket_TrackEvent:
		if flags&2 == 0 {
			d.problem("sequence %d: track event without SEQ_NEEDS_INCREMENTAL_STATE", id)
		}
		d.event(s, p, data.TrackEvent)
	}
}

func (d *tpDecoder) intern(s *tpSeq, id uint32, in *pb.InternedData) {
	add := func(m map[uint64]string, iid uint64, v, what string) {
		if iid == 0 {
			d.problem("sequence %d: %s with iid 0", id, what)
		}
		if old, ok := m[iid]; ok && old != v {
			d.problem("sequence %d: %s iid %d redefined", id, what, iid)
		}
		m[iid] = v
	}
	for _, n := range in.EventNames {
		add(s.names, n.GetIid(), n.GetName(), "event name")
	}
	for _, n := range in.DebugAnnotationNames {
		add(s.annNames, n.GetIid(), n.GetName(), "annotation name")
	}
	for _, v := range in.DebugAnnotationStringValues {
		add(s.annStrings, v.GetIid(), string(v.GetStr()), "annotation value")
	}
	for _, l := range in.SourceLocations {
		s.locations[l.GetIid()] = l
	}
}

// snapshot defines the sequence's clocks relative to BOOTTIME.
func (d *tpDecoder) snapshot(s *tpSeq, id uint32, cs *pb.ClockSnapshot) {
	var boot int64
	hasBoot := false
	for _, c := range cs.Clocks {
		switch c.GetClockId() {
		case 6:
			boot, hasBoot = int64(c.GetTimestamp()), true
		case 1:
			d.res.Realtime[id] = int64(c.GetTimestamp())
		}
	}
	if !hasBoot {
		d.problem("sequence %d: clock snapshot without BOOTTIME", id)
	}
	for _, c := range cs.Clocks {
		if c.GetClockId() < 64 {
			continue
		}
		mult := int64(c.GetUnitMultiplierNs())
		if mult == 0 {
			mult = 1
		}
		v := int64(c.GetTimestamp())
		s.clocks[c.GetClockId()] = &tpClock{incremental: c.GetIsIncremental(), mult: mult,
			snapValue: v, snapBoot: boot, cur: v}
	}
}

func (d *tpDecoder) descriptor(id uint32, td *pb.TrackDescriptor) {
	u := td.GetUuid()
	if u == 0 {
		d.problem("track descriptor with uuid 0")
		return
	}
	if old, ok := d.res.Tracks[u]; ok {
		if !proto.Equal(old.Desc, td) {
			d.problem("track %d described twice, differently", u)
		}
		return
	}
	d.res.Tracks[u] = &tpTrack{Desc: td, Seq: id}
	d.res.Order = append(d.res.Order, u)
}

// timestamp converts the packet's timestamp to BOOTTIME ns.
func (d *tpDecoder) timestamp(s *tpSeq, p *pb.TracePacket) (int64, bool) {
	if p.Timestamp == nil {
		d.problem("track event without a timestamp")
		return 0, false
	}
	ts := int64(p.GetTimestamp())
	clock := p.GetTimestampClockId()
	if clock == 0 && s.defaults != nil {
		clock = s.defaults.GetTimestampClockId()
	}
	if clock == 0 || clock == 6 {
		return ts, true
	}
	c := s.clocks[clock]
	if c == nil {
		d.problem("clock %d is not defined on its sequence", clock)
		return 0, false
	}
	v := ts
	if c.incremental {
		c.cur += ts
		v = c.cur
	}
	return c.snapBoot + (v-c.snapValue)*c.mult, true
}

func (d *tpDecoder) event(s *tpSeq, p *pb.TracePacket, te *pb.TrackEvent) {
	ts, ok := d.timestamp(s, p)
	if !ok {
		return
	}
	var defs *pb.TrackEventDefaults
	if s.defaults != nil {
		defs = s.defaults.TrackEventDefaults
	}
	uuid := te.GetTrackUuid()
	if te.TrackUuid == nil {
		uuid = defs.GetTrackUuid()
	}
	tr := d.res.Tracks[uuid]
	if tr == nil {
		d.problem("track event on unknown track %d", uuid)
		return
	}
	threadTS, hasThreadTS := d.counters(te, defs)
	switch te.GetType() {
	case pb.TrackEvent_TYPE_SLICE_BEGIN:
		d.begin(s, tr, uuid, te, ts, threadTS, hasThreadTS)
	case pb.TrackEvent_TYPE_SLICE_END:
		d.end(s, tr, te, ts, threadTS, hasThreadTS)
	default:
		d.problem("unexpected track event type %v", te.GetType())
	}
}

// counters applies the extra counter values and returns the thread time
// (from the counter named thread_time, i.e. COUNTER_THREAD_TIME_NS).
func (d *tpDecoder) counters(te *pb.TrackEvent, defs *pb.TrackEventDefaults) (int64, bool) {
	uuids := te.ExtraCounterTrackUuids
	if len(uuids) == 0 {
		uuids = defs.GetExtraCounterTrackUuids()
	}
	if len(te.ExtraCounterValues) != len(uuids) {
		if len(te.ExtraCounterValues) != 0 {
			d.problem("%d counter values for %d counter tracks", len(te.ExtraCounterValues), len(uuids))
		}
		return 0, false
	}
	var threadTS int64
	has := false
	for i, u := range uuids {
		ct := d.res.Tracks[u]
		if ct == nil || ct.Desc.Counter == nil {
			d.problem("counter value for track %d, which is not a counter", u)
			continue
		}
		v := te.ExtraCounterValues[i]
		if ct.Desc.Counter.GetIsIncremental() {
			ct.counter += v
			v = ct.counter
		}
		if m := ct.Desc.Counter.GetUnitMultiplier(); m != 0 {
			v *= m
		}
		if ct.Desc.Counter.GetType() == pb.CounterDescriptor_COUNTER_THREAD_TIME_NS {
			threadTS, has = v, true
		}
	}
	return threadTS, has
}

func (d *tpDecoder) begin(s *tpSeq, tr *tpTrack, uuid uint64, te *pb.TrackEvent, ts, threadTS int64, hasTT bool) {
	var name string
	switch n := te.NameField.(type) {
	case *pb.TrackEvent_Name:
		name = n.Name
	case *pb.TrackEvent_NameIid:
		var ok bool
		if name, ok = s.names[n.NameIid]; !ok {
			d.problem("name iid %d not interned on its sequence", n.NameIid)
		}
	default:
		d.problem("BEGIN without a name")
	}
	depth := len(tr.stack)
	if depth >= tpMaxDepth {
		d.problem("slice %q at depth %d dropped (slice_max_depth_exceeded)", name, depth)
		return
	}
	sl := tpSlice{Track: uuid, Name: name, TS: ts, Dur: -1, Depth: depth,
		ThreadTS: threadTS, HasThreadTS: hasTT, Args: map[string]string{}}
	if te.SourceLocationField != nil {
		if _, inline := te.SourceLocationField.(*pb.TrackEvent_SourceLocation); inline {
			d.problem("inline source location (trace_processor makes no args of it)")
		}
		l, ok := s.locations[te.GetSourceLocationIid()]
		if !ok {
			d.problem("source location iid %d not interned", te.GetSourceLocationIid())
		} else {
			addLocationArgs(sl.Args, l)
		}
	}
	d.annotations(s, sl.Args, te)
	tr.stack = append(tr.stack, len(d.res.Slices))
	d.res.Slices = append(d.res.Slices, sl)
}

func addLocationArgs(args map[string]string, l *pb.SourceLocation) {
	if l.FileName != nil {
		args["source.file_name"] = l.GetFileName()
	}
	if l.FunctionName != nil {
		args["source.function_name"] = l.GetFunctionName()
	}
	if l.LineNumber != nil {
		args["source.line_number"] = strconv.Itoa(int(l.GetLineNumber()))
	}
}

// end closes the innermost open slice of the track. A name on the END would
// make trace_processor search the stack; we never write one.
func (d *tpDecoder) end(s *tpSeq, tr *tpTrack, te *pb.TrackEvent, ts, threadTS int64, hasTT bool) {
	if te.NameField != nil {
		d.problem("END with a name")
	}
	if len(tr.stack) == 0 {
		d.problem("END on track %d with nothing open (ignored)", tr.Desc.GetUuid())
		return
	}
	i := tr.stack[len(tr.stack)-1]
	tr.stack = tr.stack[:len(tr.stack)-1]
	sl := &d.res.Slices[i]
	sl.Dur = ts - sl.TS
	if sl.Dur < 0 {
		d.problem("slice %q has a negative duration", sl.Name)
	}
	if hasTT && sl.HasThreadTS && threadTS != sl.ThreadTS {
		sl.ThreadDur, sl.HasThreadDur = threadTS-sl.ThreadTS, true
	}
	d.annotations(s, sl.Args, te)
}

// annotations adds debug annotations as the args debug.<name>.
func (d *tpDecoder) annotations(s *tpSeq, args map[string]string, te *pb.TrackEvent) {
	for _, a := range te.DebugAnnotations {
		name := a.GetName()
		if _, interned := a.NameField.(*pb.DebugAnnotation_NameIid); interned {
			n, ok := s.annNames[a.GetNameIid()]
			if !ok {
				d.problem("annotation name iid %d not interned", a.GetNameIid())
			}
			name = n
		}
		var v string
		switch x := a.Value.(type) {
		case *pb.DebugAnnotation_BoolValue:
			v = strconv.FormatBool(x.BoolValue)
		case *pb.DebugAnnotation_IntValue:
			v = strconv.FormatInt(x.IntValue, 10)
		case *pb.DebugAnnotation_UintValue:
			v = strconv.FormatUint(x.UintValue, 10)
		case *pb.DebugAnnotation_StringValue:
			v = x.StringValue
		case *pb.DebugAnnotation_StringValueIid:
			sv, ok := s.annStrings[x.StringValueIid]
			if !ok {
				d.problem("annotation value iid %d not interned", x.StringValueIid)
			}
			v = sv
		default:
			d.problem("annotation %q without a value", name)
		}
		args["debug."+name] = v
	}
}
