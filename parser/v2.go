package parser

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// ART's V2 method-trace format (docs/formats.md §10): after a 32-byte SLOW header
// with version 4 (one clock) or 5 (two), |0xF0 when streaming, comes a
// sequence of packets whose first byte is the type.
const (
	v2ThreadInfo = 0 // u1 0, u4 tid, u2 len, the name
	v2MethodInfo = 1 // u1 1, u8 ArtMethod*, u2 len, class⇥name⇥signature⇥source\n
	v2Block      = 2 // one thread's records (docs/formats.md §10.4)
	v2Summary    = 3 // u1 3, u2 len truncated to 16 bits, key text; the last packet
)

const (
	v2ThreadHeader = 7
	v2MethodHeader = 11
	v2BlockHeader  = 12      // V2c/V2d: u1 2, u4 tid, u3 count, u4 payload size
	maxV2Summary   = 1 << 20 // a summary is a few hundred bytes of key text
)

// V2Layout is the event-block layout of an ART V2 trace (docs/formats.md §10.4).
// The same bytes serve V2c and V2d: only the time unit tells them apart.
type V2Layout uint8

const (
	V2b V2Layout = iota + 1 // android-15.0.0_r1: the first record in the block header; µs
	V2c                     // android-15.0.0_r23 (ART 2024-06 to 2025-03): 12-byte block header; µs
	V2d                     // ART 2025-03 onward: as V2c, with every time in ns
)

var v2LayoutNames = [...]string{"", "V2b", "V2c", "V2d"}

func (l V2Layout) String() string {
	if int(l) < len(v2LayoutNames) && l != 0 {
		return v2LayoutNames[l]
	}
	return "V2(" + strconv.Itoa(int(l)) + ")"
}

// v2Meta is what a Reader needs, beyond the Header's public fields, to
// frame the blocks of a V2 trace the way the scan did.
type v2Meta struct {
	k     int             // LEB128 values per record: the method word and one or two times
	carry []int64         // offsets of blocks that continue the delta state of the block before, ascending
	check []int64         // blocks the scan could not place: the first method word decides, ascending
	ends  map[int64]int64 // V2b blocks whose payload runs past their 16-bit size: block offset → payload end
}

// Format describes the layout of the file for people: the Variant, and for
// ART's V2 format also the block layout with its time unit, the number of
// clocks and the container, e.g. "ART V2c (µs), dual clock, streaming".
func (h *Header) Format() string {
	if h.v2 == nil {
		return h.Variant.String()
	}
	unit := "µs"
	if h.TimeUnit == time.Nanosecond {
		unit = "ns"
	}
	clocks := "single clock"
	if h.v2.k == 3 {
		clocks = "dual clock"
	}
	mode := "non-streaming"
	switch h.Variant {
	case V2Streaming:
		mode = "streaming"
	case V2Hybrid:
		mode = "non-streaming, after key text (Android 15 r1)"
	}
	return fmt.Sprintf("ART %s (%s), %s, %s", h.Layout, unit, clocks, mode)
}

// threadKey is the Threads index key of a record thread id: legacy records
// carry the tid truncated to 16 bits, V2 records the whole tid.
func (h *Header) threadKey(id ThreadID) ThreadID {
	if h.v2 != nil {
		return id
	}
	return id & 0xFFFF
}

// reindexThreads rebuilds the thread index after the key changed.
func (h *Header) reindexThreads() {
	old := h.Threads
	h.Threads, h.threadIndex = nil, nil
	for _, t := range old {
		h.addThread(t)
	}
}

// isV2MethodPacket reports whether the input starts with a whole V2 method
// packet: android-15.0.0_r1's non-streaming V2 files begin with them
// (row E, docs/formats.md §10.6).
func isV2MethodPacket(s *source) bool {
	b := s.peek(v2MethodHeader)
	if len(b) < v2MethodHeader || b[0] != v2MethodInfo {
		return false
	}
	n := v2MethodHeader + int(binary.LittleEndian.Uint16(b[9:]))
	b = s.peek(n)
	return len(b) == n && b[n-1] == '\n' && bytes.Count(b[v2MethodHeader:], []byte{'\t'}) == 3
}

// parseV2Hybrid reads row E: the method packets ART's worker threads wrote
// during tracing, then the V1-style key text, SLOW and the V2 blocks, which
// android-15.0.0_r1 appended when tracing stopped (docs/formats.md §10.6).
func (f *File) parseV2Hybrid(s *source, h *Header, opt Options) error {
	sc := &v2Scan{h: h, s: s}
	for {
		start := s.pos()
		b := s.peek(1)
		var cut bool
		var err error
		switch {
		case len(b) == 0:
			return formatErr(start, "the V2 method packets end without the key text and SLOW header that follow them in Android 15 r1 traces")
		case b[0] == '*':
			return f.parseRegular(s, h, opt)
		case b[0] == v2MethodInfo:
			cut, err = sc.method(start)
		case b[0] == v2ThreadInfo:
			cut, err = sc.thread(start)
		default:
			return formatErr(start, "V2 method packets followed by byte %#x: expected another packet or the key text (*version)", b[0])
		}
		if err != nil {
			return err
		}
		if cut {
			return formatErr(start, "the file ends inside a V2 packet, before the key text of an Android 15 r1 trace")
		}
	}
}

// parseV2 reads an ART V2 trace from its SLOW header (docs/formats.md §10): one walk
// over the packets collects the tables, the block layout, the record count
// and the summary; then the time unit and the clock are settled.
func (f *File) parseV2(s *source, h *Header, opt Options, dh dataHeader, v Variant) error {
	h.Variant = v
	if dh.version&streamingBit != 0 {
		h.Variant = V2Streaming
	}
	h.DataVersion, h.RecordVersion = dh.version, dh.version&^streamingBit
	h.DataOffset, h.TimeBits, h.RecordSize = dh.dataOffset, 64, 0
	h.v2 = &v2Meta{k: 2, ends: map[int64]int64{}}
	if h.RecordVersion == 5 {
		h.v2.k = 3
	}
	h.reindexThreads() // a row-E key may have listed threads
	head := dh.dataOffset - dataHeaderSize
	if v == V2Hybrid && h.KeyVersion != h.RecordVersion {
		if h.KeyVersion != 4 && h.KeyVersion != 5 {
			return formatErr(head+4, "data version %#x is ART's V2 method-trace format, but the key text before it says version %d", dh.version, h.KeyVersion)
		}
		h.warn("the key text says version %d but the V2 header says %d; the V2 header decides the record layout", h.KeyVersion, h.RecordVersion)
	}
	if err := h.checkV2Tail(s, head); err != nil {
		return err
	}
	s.skip(h.DataOffset - s.pos())
	sc := &v2Scan{h: h, s: s, m: h.v2, firsts: map[ThreadID]uint64{}}
	if err := sc.run(); err != nil {
		return err
	}
	if sc.layout == 0 && v == V2Hybrid {
		sc.layout = V2b // no blocks to tell, but row E is V2b by its era
	}
	sc.report()
	if err := h.settleV2Unit(opt, sc); err != nil {
		return err
	}
	h.StartTime = dh.start
	if h.TimeUnit == time.Nanosecond {
		h.StartTime /= 1000 // StartTime is µs for every variant
	}
	if err := h.v2ClockSource(opt, sc, v); err != nil {
		return err
	}
	return h.settleV2Clock(opt)
}

// checkV2Tail warns when header bytes 14..31 are not zero. ART writes zeros
// there; Perfetto's reader expects a TSC start and frequency, a layout no
// public ART source writes (docs/formats.md §10.7).
func (h *Header) checkV2Tail(s *source, head int64) error {
	var b [dataHeaderSize - 14]byte
	if err := s.readAt(b[:], head+14); err != nil {
		return err
	}
	if b != [len(b)]byte{} {
		h.warn("bytes 14-31 of the V2 header are not zero (ART writes zeros; Perfetto's experimental layout keeps a TSC start and frequency there): reading the blocks as ART writes them")
	}
	return nil
}

// settleV2Unit sets TimeUnit and the block layout. The summary's elapsed
// time key names the unit (docs/formats.md §10.5); without a summary, V2b is µs and
// the other layouts are told apart by the size of their time steps.
func (h *Header) settleV2Unit(opt Options, sc *v2Scan) error {
	_, ns := h.Option("elapsed-time-nsec")
	_, us := h.Option("elapsed-time-usec")
	switch {
	case opt.TimeUnit == time.Microsecond || opt.TimeUnit == time.Nanosecond:
		h.TimeUnit = opt.TimeUnit
	case opt.TimeUnit != 0:
		return fmt.Errorf("time unit %v: ART V2 traces count µs or ns", opt.TimeUnit)
	case ns:
		h.TimeUnit = time.Nanosecond
	case us || sc.layout == V2b:
		h.TimeUnit = time.Microsecond
	default:
		unit, why := guessV2Unit(sc.zeros, sc.steps)
		h.TimeUnit = unit
		h.warn("the V2 trace does not state its time unit (no summary): %s, so times count %s; --time-unit overrides it", why, unitName(unit))
	}
	switch {
	case sc.layout == V2b:
		h.Layout = V2b
	case h.TimeUnit == time.Nanosecond:
		h.Layout = V2d
	default:
		h.Layout = V2c
	}
	return nil
}

func unitName(d time.Duration) string {
	if d == time.Nanosecond {
		return "ns"
	}
	return "µs"
}

// guessV2Unit tells µs from ns by the size of the time steps between
// records. Instrumented µs traces step by 0 or a few µs; ns traces by
// hundreds of ns or more, rarely 0. Sampled traces step by 0 within a
// sample and by the interval (about 1 ms) between samples, in either unit.
func guessV2Unit(zeros int, steps []uint64) (time.Duration, string) {
	if len(steps) == 0 {
		return time.Nanosecond, "there are no time steps to measure, and ART has written ns since 2025-03"
	}
	steps = slices.Clone(steps)
	slices.Sort(steps)
	median := steps[len(steps)/2]
	zeroShare := float64(zeros) / float64(zeros+len(steps))
	switch {
	case median < 100:
		return time.Microsecond, fmt.Sprintf("the median time step is %d, too small for ns", median)
	case zeroShare >= 0.25 && median < 100_000:
		return time.Microsecond, fmt.Sprintf("%.0f%% of the time steps are 0 and the median of the others is %d, as in a µs clock", 100*zeroShare, median)
	}
	return time.Nanosecond, fmt.Sprintf("the median time step is %d, too large for µs", median)
}

// v2ClockSource sets the clock from the summary (or row E's key text).
// Without one, version 5 means two clocks; version 4's one clock is thread
// CPU time when every thread's first time reads 0 (each thread's CPU clock
// starts at its first record), otherwise wall time, a guess --clock replaces.
func (h *Header) v2ClockSource(opt Options, sc *v2Scan, v Variant) error {
	switch {
	case v == V2Hybrid:
		return h.applyClock("key text")
	case h.HasSummary:
		return h.applyClock("summary")
	case h.RecordVersion == 5:
		h.Clock, h.ClockFrom = ClockDual, "data version 5"
		return nil
	}
	h.Clock, h.ClockFrom = ClockWall, inferredClockV2
	if sc.cpuLike() {
		h.Clock = ClockThreadCPU
	}
	if opt.Clock == ClockUnknown {
		h.warn("the V2 summary is missing (a killed app?): clock %s guessed from the threads' first times; --clock overrides it", h.Clock)
	}
	return nil
}

// inferredClockV2 is ClockFrom for a V2 clock guessed without a summary.
const inferredClockV2 = "first record times (no summary)"

// settleV2Clock applies --clock and checks the clock against the version:
// version 4 records hold one time, version 5 records two.
func (h *Header) settleV2Clock(opt Options) error {
	if err := h.settleClock(opt); err != nil {
		return err
	}
	if h.v2.k == 2 && h.Clock == ClockDual {
		return formatErr(h.DataOffset-dataHeaderSize+4, "clock dual needs two times per record, but V2 version %d records hold one; use --clock wall or --clock thread-cpu", h.RecordVersion)
	}
	if h.v2.k == 3 && h.Clock != ClockDual && opt.Clock == ClockUnknown {
		h.warn("V2 version 5 records hold two times but the clock is %s; reading only that one (--clock dual reads both)", h.Clock)
	}
	if v, ok := h.Option("num-method-calls"); ok && h.LostBytes == 0 {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n != h.Records {
			h.warn("the summary counts %d method calls but the event blocks hold %d records", n, h.Records)
		}
	}
	return nil
}
