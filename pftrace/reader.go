package pftrace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/samples"
)

// Options says which samples Read keeps (samples.Select: the process, the
// threads, a time window, the timeline).
type Options struct {
	samples.Select
}

// TracePacket fields (protos/perfetto/trace/trace_packet.proto).
const (
	tpFtraceEvents        = 1
	tpProcessTree         = 2
	tpClockSnapshot       = 6
	tpTimestamp           = 8
	tpSequenceID          = 10
	tpTrackEvent          = 11
	tpInternedData        = 12
	tpSequenceFlags       = 13
	tpTraceConfig         = 33
	tpIncrementalCleared  = 41
	tpPreviousDropped     = 42
	tpProcessDescriptor   = 43
	tpThreadDescriptor    = 44
	tpPackagesList        = 47
	tpCompressedPackets   = 50
	tpStreamingProfile    = 54
	tpTimestampClockID    = 58
	tpPacketDefaults      = 59
	tpTrackDescriptor     = 60
	tpDeobfuscation       = 64
	tpPerfSample          = 66
	tpZstdCompressed      = 133
	tpStackSample         = 135
	seqIncrementalCleared = 1 // SEQ_INCREMENTAL_STATE_CLEARED
	seqNeedsIncremental   = 2 // SEQ_NEEDS_INCREMENTAL_STATE
)

// Read reads the CPU stack samples of a Perfetto trace: plain, gzip-
// compressed, or with compressed packets inside (the content decides, not
// the name). It keeps the samples opt selects and returns them as a
// profile of format samples.PerfettoTrace.
//
// Errors: input that is no Perfetto trace wraps ErrNotPerfetto; malformed
// packets give a *FormatError naming the offset; a trace with no CPU stack
// sample gives a *NoSamplesError, and a process asked for that has none a
// *ProcessError. A trace cut inside a packet is not an error: the samples
// before the cut are kept, Profile.Truncated and a note say so.
func Read(r io.Reader, opt Options) (*samples.Profile, error) {
	src, err := newSource(r)
	if err != nil {
		return nil, err
	}
	rd := newReader(src, opt)
	first := true
	for {
		pkt, off, ok, err := src.next()
		if err != nil {
			if first {
				return nil, fmt.Errorf("%w: %v", ErrNotPerfetto, err)
			}
			return nil, err
		}
		if !ok {
			break
		}
		if first && !sniffPacket(pkt) {
			return nil, fmt.Errorf("%w: the first packet does not decode as a TracePacket", ErrNotPerfetto)
		}
		first = false
		if err := rd.packet(pkt, off, -1); err != nil {
			return nil, err
		}
	}
	if first {
		if src.lost > 0 {
			return nil, fmt.Errorf("%w: %d bytes and no whole packet", ErrNotPerfetto, src.lost)
		}
		return nil, fmt.Errorf("%w: no packet", ErrNotPerfetto)
	}
	return rd.finish()
}

// reader holds the state of one Read.
type reader struct {
	src    *source
	opt    Options
	b      *profbuild.Builder
	res    resolver
	clocks *clocks
	inf    inflater

	seqs    map[uint32]*sequence
	lastSeq *sequence
	latest  int64 // the latest timestamp seen, for packets without one

	packets   int64
	kinds     [256]int64       // packets by their content's field number (0: none)
	moreKinds map[uint32]int64 // those of field numbers from 256 on

	deferred   []deferredSample
	timebases  map[string]int64 // stack samples per timebase description
	timebaseNs map[string]int64 // the period of each, in ns (0 when unknown)
	ssKinds    map[ssKey]int64  // StackSamples per source and counter
	deobf      [][]byte
	packages   map[uint64]string // app id → package
	procUID    map[int64]uint64
	tidPID     map[int64]int64
	stackSeen  int64 // stack samples met, read or not
	st         stats
	bundleSeen bool
}

// stats counts what the reader skipped, for the notes.
type stats struct {
	invalidSkipped  int64 // stack-sample packets skipped: incremental state invalid
	noSeqNeeds      int64 // packets needing incremental state on sequence 0
	clockDropped    map[uint32]int64
	lostRecords     int64
	guardrail       int64
	counterOnly     int64
	notInScope      int64
	streamNoDelta   int64
	streamNoThread  int64
	noCallstack     int64 // StackSamples without a call stack
	dataLoss        int64
	zstdBundles     int64
	nestedBundles   int64
	noSeqState      int64 // interned data, defaults or clears without a sequence id
	weightsIgnored  map[string]int64
	deobfAmbiguous  int64
	deobfRenamed    int64
	seqScopedNoSeq  int64
	negativeStreams int64
}

// deferredSample is a sample whose clock no snapshot related to the trace
// clock when it was read: converted at the end, with every snapshot.
type deferredSample struct {
	thread, node int32
	clock        clockKey
	ns           int64
	weight       int64
}

func newReader(src *source, opt Options) *reader {
	rd := &reader{
		src: src, opt: opt,
		b:         profbuild.New(samples.PerfettoTrace, opt.Select),
		clocks:    newClocks(),
		seqs:      map[uint32]*sequence{},
		moreKinds: map[uint32]int64{},
		timebases: map[string]int64{}, timebaseNs: map[string]int64{}, ssKinds: map[ssKey]int64{},
		packages: map[uint64]string{},
		procUID:  map[int64]uint64{},
		tidPID:   map[int64]int64{},
	}
	rd.res = resolver{b: rd.b, unknownStack: -1, unknownFrame: -1}
	rd.st.clockDropped = map[uint32]int64{}
	rd.st.weightsIgnored = map[string]int64{}
	return rd
}

// pkt is what packet collects of a TracePacket before acting on it.
type pkt struct {
	ts            uint64
	hasTS         bool
	clock         uint32
	seq           uint32
	hasSeq        bool
	flags         uint32
	cleared       bool
	dropped       uint32
	defaults      pbread.Msg
	hasDefaults   bool
	interned      pbread.Msg
	hasInterned   bool
	data          pbread.Msg
	dataNum       uint32
	compressed    []byte
	compressedOff int64
	zstd          bool
	hasData       bool
}

// packet reads one TracePacket at offset off (of the stream, or of a
// compressed bundle's bytes when bundle ≥ 0), following trace_processor's
// ProtoTraceReader::ParsePacket step by step (docs/formats.md §20.3).
func (rd *reader) packet(b []byte, off, bundle int64) error {
	var p pkt
	m := pbread.Msg{B: b, Base: off}
	for m.Next() {
		switch m.Num {
		case tpTimestamp:
			if m.Type == pbread.Varint {
				p.ts, p.hasTS = m.U, true
			}
		case tpTimestampClockID:
			p.clock = uint32(m.U)
		case tpSequenceID:
			if m.Type == pbread.Varint {
				p.seq, p.hasSeq = uint32(m.U), true
			}
		case tpSequenceFlags:
			p.flags = uint32(m.U)
		case tpIncrementalCleared:
			p.cleared = m.U != 0
		case tpPreviousDropped:
			p.dropped = uint32(m.U)
		case tpPacketDefaults:
			if m.Type == pbread.Bytes {
				p.defaults, p.hasDefaults = m.Sub(), true
			}
		case tpInternedData:
			if m.Type == pbread.Bytes {
				p.interned, p.hasInterned = m.Sub(), true
			}
		case tpCompressedPackets, tpZstdCompressed:
			if m.Type == pbread.Bytes {
				p.compressed, p.compressedOff, p.zstd = m.Val, m.ValOff(), m.Num == tpZstdCompressed
			}
		case 3, 79, 87, 98: // trusted_uid, trusted_pid, first_packet_on_sequence, machine_id
		default:
			if m.Type == pbread.Bytes {
				p.data, p.dataNum, p.hasData = m.Sub(), m.Num, true
			}
		}
	}
	if m.Err != nil {
		return rd.wrap(m.Err, bundle, "a TracePacket")
	}
	if p.compressed != nil {
		return rd.bundle(p.compressed, p.compressedOff, p.zstd, bundle)
	}
	rd.packets++
	if p.dataNum < uint32(len(rd.kinds)) {
		rd.kinds[p.dataNum]++ // 0 when the packet has no content
	} else {
		rd.moreKinds[p.dataNum]++
	}
	if p.dataNum == tpPerfSample || p.dataNum == tpStreamingProfile || p.dataNum == tpStackSample {
		rd.stackSeen++
	}

	// The sequence: its state is reset by SEQ_INCREMENTAL_STATE_CLEARED and
	// invalidated by a lost packet until the next reset.
	seq := rd.sequence(p.seq)
	if p.cleared || p.flags&seqIncrementalCleared != 0 {
		if p.hasSeq {
			rd.flushTimebase(seq)
			seq.reset()
			seq.valid = true
		} else {
			rd.st.noSeqState++
		}
	} else if p.dropped != 0 {
		rd.st.dataLoss++
		if p.hasSeq {
			seq.valid, seq.trackNsOK = false, false
		}
	}
	if p.hasDefaults {
		if p.hasSeq {
			if err := rd.defaults(seq, p.defaults); err != nil {
				return rd.wrap(err, bundle, "TracePacketDefaults")
			}
		} else {
			rd.st.noSeqState++
		}
	}
	if p.hasInterned {
		if !p.hasSeq {
			rd.st.noSeqState++
		} else if seq.valid {
			if err := seq.intern(p.interned); err != nil {
				return rd.wrap(err, bundle, "InternedData")
			}
		}
	}
	if p.dataNum == tpClockSnapshot {
		return rd.wrap(rd.clockSnapshot(p.data, p.seq), bundle, "a ClockSnapshot")
	}
	if p.flags&seqNeedsIncremental != 0 {
		if p.seq == 0 {
			rd.st.noSeqNeeds++
			return nil
		}
		if !seq.valid {
			if p.dataNum == tpPerfSample || p.dataNum == tpStreamingProfile || p.dataNum == tpStackSample {
				rd.st.invalidSkipped++
			}
			return nil
		}
	}
	if !p.hasData {
		return nil
	}
	ts, clk, ok := rd.timestamp(&p, seq)
	var err error
	switch p.dataNum {
	case tpPerfSample:
		err = rd.perfSample(seq, p.data, ts, clk, ok)
	case tpStreamingProfile:
		err = rd.streaming(seq, p.data)
	case tpStackSample:
		err = rd.stackSample(seq, p.data, ts, clk, ok)
	case tpProcessTree:
		err = rd.processTree(p.data)
	case tpTrackDescriptor:
		err = rd.trackDescriptor(seq, p.hasSeq, p.data)
	case tpThreadDescriptor:
		if p.hasSeq && seq.valid {
			err = rd.threadDescriptor(seq, p.data, true)
		}
	case tpProcessDescriptor:
		err = rd.processDescriptor(p.data)
	case tpPackagesList:
		err = rd.packagesList(p.data)
	case tpDeobfuscation:
		rd.deobf = append(rd.deobf, slices.Clone(p.data.B))
	}
	return rd.wrap(err, bundle, "")
}

// wrap turns a decoding error into a *FormatError at its offset.
func (rd *reader) wrap(err error, bundle int64, what string) error {
	if err == nil {
		return nil
	}
	var pe *pbread.Error
	if errors.As(err, &pe) {
		msg := pe.Msg
		if what != "" {
			msg = "in " + what + ": " + msg
		}
		return &FormatError{Off: pe.Off, Msg: msg, Gzip: rd.src.gzip, Bundle: bundle}
	}
	return err
}

// bundle reads the packets a compressed_packets field holds: a Trace
// message's bytes, compressed (docs/formats.md §20.2).
func (rd *reader) bundle(b []byte, off int64, zstd bool, outer int64) error {
	if outer >= 0 {
		rd.st.nestedBundles++ // trace_processor refuses these too
		return nil
	}
	if zstd {
		rd.st.zstdBundles++
		return nil
	}
	rd.bundleSeen = true
	data, err := rd.inf.inflate(b)
	if err != nil {
		return &FormatError{Off: off, Msg: fmt.Sprintf("compressed packets do not decompress: %v", err), Gzip: rd.src.gzip, Bundle: -1}
	}
	// A Trace's fields: packets are field 1; trace_processor wants nothing
	// else in a bundle.
	m := pbread.Msg{B: data}
	for m.Next() {
		if m.Num != 1 || m.Type != pbread.Bytes {
			return &FormatError{Off: int64(m.At), Msg: fmt.Sprintf("field %d in compressed packets, where only packets (field 1) belong", m.Num), Gzip: rd.src.gzip, Bundle: off}
		}
		if len(m.Val) == 0 {
			continue
		}
		if err := rd.packet(m.Val, m.ValOff(), off); err != nil {
			return err
		}
	}
	if m.Err != nil {
		var pe *pbread.Error
		errors.As(m.Err, &pe)
		return &FormatError{Off: pe.Off, Msg: pe.Msg, Gzip: rd.src.gzip, Bundle: off}
	}
	return nil
}

// sequence returns the state of sequence id, creating it: a new sequence's
// incremental state is not valid until its first reset.
func (rd *reader) sequence(id uint32) *sequence {
	if rd.lastSeq != nil && rd.lastSeq.id == id {
		return rd.lastSeq
	}
	s, ok := rd.seqs[id]
	if !ok {
		s = &sequence{id: id}
		rd.seqs[id] = s
	}
	rd.lastSeq = s
	return s
}

// timestamp resolves a packet's timestamp to the trace clock: its
// timestamp_clock_id, else its sequence's default clock, else none (the
// value is trace time already). ok is false when no snapshot relates the
// clock to the trace clock yet; clk and the returned ns then say what to
// convert later.
func (rd *reader) timestamp(p *pkt, seq *sequence) (ns int64, clk clockKey, ok bool) {
	if !p.hasTS {
		return rd.latest, clockKey{}, true
	}
	raw := int64(p.ts)
	id := p.clock
	if id == 0 {
		id = seq.clockID
	}
	if id == 0 {
		rd.latest = max(rd.latest, raw)
		return raw, clockKey{}, true
	}
	if id >= firstSequenceClock && id < endSequenceClock && p.seq == 0 {
		rd.st.seqScopedNoSeq++
		return 0, clockKey{}, false
	}
	clk = keyOf(id, p.seq)
	v := rd.clocks.toNanos(clk, raw)
	t, ok := rd.clocks.convert(clk, v)
	if !ok {
		return v, clk, false
	}
	rd.latest = max(rd.latest, t)
	return t, clk, true
}

// add counts a stack sample, or keeps it for the end when its time could
// not be converted yet.
func (rd *reader) add(thread, node int32, ts int64, clk clockKey, ok bool, weight int64) {
	if !ok {
		if clk.id == 0 {
			rd.st.clockDropped[0]++ // a sequence-scoped clock on no sequence
			return
		}
		rd.deferred = append(rd.deferred, deferredSample{thread, node, clk, ts, weight})
		return
	}
	rd.b.Add(thread, node, ts, weight)
}

// defaults reads a TracePacketDefaults: timestamp_clock_id 58,
// perf_sample_defaults 12 (its timebase 1), stack_sample_defaults 100.
func (rd *reader) defaults(seq *sequence, m pbread.Msg) error {
	rd.flushTimebase(seq)
	seq.clockID, seq.timebase, seq.ssDef = 0, timebase{}, stackSampleDefaults{}
	for m.Next() {
		switch m.Num {
		case 58:
			seq.clockID = uint32(m.U)
		case 12:
			if m.Type != pbread.Bytes {
				continue
			}
			d := m.Sub()
			for d.Next() {
				if d.Num == 1 && d.Type == pbread.Bytes {
					tb, err := readTimebase(d.Sub())
					if err != nil {
						return err
					}
					seq.timebase = tb
				}
			}
			if d.Err != nil {
				return d.Err
			}
		case 100:
			if m.Type != pbread.Bytes {
				continue
			}
			d := m.Sub()
			for d.Next() {
				switch d.Num {
				case 1:
					seq.ssDef.source = string(d.Val)
				case 2:
					if d.Type == pbread.Bytes {
						_, cd, ok := readCounterDesc(d.Sub())
						if ok {
							seq.ssDef.primary, seq.ssDef.hasPrimary = cd, true
						}
					}
				}
			}
			if d.Err != nil {
				return d.Err
			}
		}
	}
	return m.Err
}

// clockSnapshot reads a ClockSnapshot: clocks 1 {clock_id 1, timestamp 2,
// is_incremental 3, unit_multiplier_ns 4}, primary_trace_clock 2.
func (rd *reader) clockSnapshot(m pbread.Msg, seqID uint32) error {
	var cl []snapClock
	var primary uint32
	for m.Next() {
		switch m.Num {
		case 1:
			if m.Type != pbread.Bytes {
				continue
			}
			c := m.Sub()
			var x snapClock
			var id uint32
			for c.Next() {
				switch c.Num {
				case 1:
					id = uint32(c.U)
				case 2:
					x.ts = int64(c.U)
				case 3:
					x.incr = c.U != 0
				case 4:
					x.unit = int64(min(c.U, 1<<62))
				}
			}
			if c.Err != nil {
				return c.Err
			}
			if id >= firstSequenceClock && id < endSequenceClock && seqID == 0 {
				continue // trace_processor refuses this snapshot
			}
			x.key = keyOf(id, seqID)
			cl = append(cl, x)
		case 2:
			primary = uint32(m.U)
		}
	}
	if m.Err != nil {
		return m.Err
	}
	rd.clocks.add(cl, primary)
	return nil
}

// finish converts the deferred samples, builds the profile and applies the
// trace's own deobfuscation mappings.
func (rd *reader) finish() (*samples.Profile, error) {
	for _, d := range rd.deferred {
		t, ok := rd.clocks.convert(d.clock, d.ns)
		if !ok {
			rd.st.clockDropped[d.clock.id]++
			continue
		}
		rd.b.Add(d.thread, d.node, t, d.weight)
	}
	for _, s := range rd.seqs {
		rd.flushTimebase(s)
	}
	if rd.src.lost > 0 {
		rd.b.Truncated = true
		rd.b.Note("the trace ends inside a packet: its last %d bytes were not read", rd.src.lost)
	}
	rd.notes()
	rd.period()
	if rd.b.Samples() == 0 {
		return nil, rd.noSamples()
	}
	p, err := rd.b.Finish()
	if err != nil {
		return nil, err
	}
	rd.deobfuscate(p)
	return p, nil
}

// noSamples says what a trace without stack samples holds.
func (rd *reader) noSamples() error {
	e := &NoSamplesError{Packets: rd.packets, ZstdBundles: rd.st.zstdBundles}
	for num, n := range rd.kinds {
		if n > 0 {
			e.Kinds = append(e.Kinds, Kind{kindName(uint32(num), n), n})
		}
	}
	for num, n := range rd.moreKinds {
		e.Kinds = append(e.Kinds, Kind{kindName(num, n), n})
	}
	slices.SortFunc(e.Kinds, func(a, b Kind) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	var dropped int64
	for _, n := range rd.st.clockDropped {
		dropped += n
	}
	switch {
	case rd.st.invalidSkipped > 0:
		e.Skipped, e.Reason = rd.st.invalidSkipped, "their sequence's interned data was lost or never started"
	case dropped > 0:
		e.Skipped, e.Reason = dropped, "their clock is not related to the trace clock by any clock snapshot"
	case rd.st.counterOnly > 0:
		e.Skipped, e.Reason = rd.st.counterOnly, "perf samples without a call stack"
	}
	return e
}
