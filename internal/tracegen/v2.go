package tracegen

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// V2Layout selects the event-block layout [Trace.V2] writes (docs/formats.md §10.4).
type V2Layout uint8

const (
	// V2c is the layout shipped in android-15.0.0_r23 (ART 2024-06 to
	// 2025-03): a 12-byte block header (u1 2, u4 tid, u3 count, u4 payload
	// size), then LEB128 records whose delta state restarts at 0 in each
	// block; times in µs. It is the zero value.
	V2c V2Layout = iota
	// V2b is the layout shipped in android-15.0.0_r1: the first record lives
	// in the block header (u8 method word, u4 CPU, u4 wall), followed by
	// u2 (n-1) and a u2 payload size; times in µs.
	V2b
	// V2d is V2c with every time in ns (ART 2025-03 onward): the records,
	// the header start time and the summary's elapsed-time-nsec.
	V2d
)

var v2LayoutNames = [...]string{V2c: "V2c", V2b: "V2b", V2d: "V2d"}

// String returns "V2b", "V2c" or "V2d".
func (l V2Layout) String() string {
	if int(l) < len(v2LayoutNames) {
		return v2LayoutNames[l]
	}
	return "V2(" + strconv.Itoa(int(l)) + ")"
}

// V2Options selects the variant [Trace.V2] writes.
type V2Options struct {
	// Layout is the event-block layout.
	Layout V2Layout
	// Streaming sets the 0xF0 bit of the version and writes each thread's
	// packet just before its first block, as the streaming writer does. A
	// non-streaming file has every thread packet before the first block.
	Streaming bool
	// NoSummary omits the type-3 summary, as a killed app leaves the file.
	NoSummary bool
	// Hybrid writes row E, android-15.0.0_r1's non-streaming V2 file (docs/formats.md
	// §10.6): the method packets, then the V1-style key text with *version
	// 4 or 5, then SLOW, the V2 header and the blocks; no thread packets and
	// no summary packet. Use it with V2b.
	Hybrid bool
	// FlushRecords caps the records of one block: a run of one thread's
	// consecutive records is flushed in pieces of at most this many, as a
	// per-thread buffer that fills up. 0 means no cap.
	FlushRecords int
	// SplitRecords (V2c, V2d) splits each flush into blocks of at most this
	// many records the way ART does when a flush overflows its 3 MiB staging
	// buffer: the delta state carries over to the next block and each block
	// header holds the cumulative record count (docs/formats.md §10.5). 0 means no
	// split.
	SplitRecords int
	// RawTimes writes the records' CPU and Wall values unscaled in V2d
	// files; by default V2d writes them ×1000, since they are µs.
	RawTimes bool
	// SkipThreadNames lists threads that get no thread packet, the way ART
	// never announces "Shutdown thread" (docs/formats.md §10.5).
	SkipThreadNames map[uint32]bool
	// RepeatMethods writes every method packet twice, as ART does for a
	// class prepared after tracing started.
	RepeatMethods bool
	// ExtraMethods adds that many method packets for methods no record uses,
	// as ART's eager method infos for every loaded class produce.
	ExtraMethods int
}

// MethodPointer is the ArtMethod* that [Trace.V2] writes for a method id:
// V2 files carry raw 64-bit pointers (docs/formats.md §7), and these look like
// ones, 8-byte aligned so that the two action bits are free.
func MethodPointer(id uint32) uint64 { return 0x7f00_0000_0000 + uint64(id)*0x38 }

// V2 returns the trace in ART's V2 packet format (docs/formats.md §10): the 32-byte
// header (version 5 for a dual clock, 4 otherwise, |0xF0 when streaming, the
// start time at offset 6), method packets for every method, thread packets,
// the records as event blocks and the summary packet.
//
// Records are grouped as ART's per-thread buffers group them: each run of
// consecutive records of one thread becomes one block (or several, see
// FlushRecords), so the file order of records is kept. Thread ids are
// written whole as u4 OS tids and method ids as [MethodPointer]. Methods
// missing from the table get no packet, which makes them unknown.
//
// A one-clock layout holds Wall when Clock is "wall" and CPU otherwise.
func (t *Trace) V2(opt V2Options) []byte {
	w := &v2Writer{t: t, opt: opt, dual: t.Clock == "dual", seen: make(map[uint32]bool)}
	var b []byte
	if opt.Hybrid {
		b = w.methods(b)
		c := *t
		c.Version = w.version()
		b = append(b, c.key(keyKind{summary: true})...)
		b = append(b, w.header()...)
		return w.blocks(b, false)
	}
	b = append(b, w.header()...)
	b = w.methods(b)
	if !opt.Streaming {
		for _, th := range t.Threads {
			b = w.thread(b, th.ID)
		}
	}
	b = w.blocks(b, opt.Streaming)
	if opt.Streaming {
		for _, th := range t.Threads {
			b = w.thread(b, th.ID) // listed threads without records
		}
	}
	if !opt.NoSummary {
		b = w.summary(b)
	}
	return b
}

// V2 packet types (ART trace.h kThreadInfoHeaderV2 and the next three).
const (
	v2ThreadInfo = 0
	v2MethodInfo = 1
	v2Block      = 2
	v2Summary    = 3
)

type v2Writer struct {
	t    *Trace
	opt  V2Options
	dual bool
	seen map[uint32]bool // threads whose packet is written
}

// v2State is the delta state of a block: the previous method word and times.
type v2State struct{ word, wall, cpu uint64 }

func (w *v2Writer) version() int {
	if w.dual {
		return 5
	}
	return 4
}

// header is the 32-byte V2 header: no data offset and no record size, the
// start time as a u8 at offset 6 (ART trace.cc:L939-948).
func (w *v2Writer) header() []byte {
	b := make([]byte, headerSize)
	binary.LittleEndian.PutUint32(b, magic)
	v := uint16(w.version())
	if w.opt.Streaming && !w.opt.Hybrid {
		v |= streamingFlag
	}
	binary.LittleEndian.PutUint16(b[4:], v)
	start := w.t.Start
	if w.opt.Layout == V2d {
		start *= 1000
	}
	binary.LittleEndian.PutUint64(b[6:], start)
	return b
}

// methods appends a type-1 packet per method: u1 1, u8 ArtMethod*, u2 len,
// class⇥name⇥signature⇥source\n (ART trace.cc:L480-558).
func (w *v2Writer) methods(b []byte) []byte {
	rounds := 1
	if w.opt.RepeatMethods {
		rounds = 2
	}
	var top uint32
	for range rounds {
		for _, m := range w.t.Methods {
			b = appendV2Method(b, MethodPointer(m.ID), m.Class, m.Name, m.Signature, m.Source)
			top = max(top, m.ID)
		}
	}
	for i := range w.opt.ExtraMethods {
		id := top + 4*uint32(i+1)
		b = appendV2Method(b, MethodPointer(id), fmt.Sprintf("java.lang.Extra%d", i), "run", "()V", "Extra.java")
	}
	return b
}

func appendV2Method(b []byte, ptr uint64, class, name, sig, source string) []byte {
	text := class + "\t" + name + "\t" + sig + "\t" + source + "\n"
	b = append(b, v2MethodInfo)
	b = binary.LittleEndian.AppendUint64(b, ptr)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(text)))
	return append(b, text...)
}

// thread appends the type-0 packet of a listed thread once: u1 0, u4 tid,
// u2 len, the name (ART trace.cc:L1265-1283).
func (w *v2Writer) thread(b []byte, tid uint32) []byte {
	if w.seen[tid] || w.opt.SkipThreadNames[tid] || w.opt.Hybrid {
		return b
	}
	for _, th := range w.t.Threads {
		if th.ID == tid {
			w.seen[tid] = true
			b = append(b, v2ThreadInfo)
			b = binary.LittleEndian.AppendUint32(b, tid)
			b = binary.LittleEndian.AppendUint16(b, uint16(len(th.Name)))
			return append(b, th.Name...)
		}
	}
	return b
}

// blocks appends the records as event blocks, one flush per run of a
// thread's consecutive records (capped by FlushRecords).
func (w *v2Writer) blocks(b []byte, announce bool) []byte {
	recs := w.t.Records
	for len(recs) > 0 {
		n := 1
		for n < len(recs) && recs[n].Thread == recs[0].Thread {
			n++
		}
		if w.opt.FlushRecords > 0 {
			n = min(n, w.opt.FlushRecords)
		}
		if announce {
			b = w.thread(b, recs[0].Thread)
		}
		if w.opt.Layout == V2b {
			b = w.blockB(b, recs[:n])
		} else {
			b = w.flushC(b, recs[:n])
		}
		recs = recs[n:]
	}
	return b
}

// flushC writes one flush in the V2c/V2d layout: u1 2, u4 tid, u3 count,
// u4 payload size, then the records (ART trace.cc:L1629-1700). The count
// goes through a u16 helper in ART, so its third byte is always 0
// (docs/formats.md §10.5). A split flush keeps its delta state across blocks and
// counts cumulatively.
func (w *v2Writer) flushC(b []byte, recs []Record) []byte {
	split := w.opt.SplitRecords
	if split <= 0 {
		split = len(recs)
	}
	var st v2State
	for done := 0; done < len(recs); {
		n := min(split, len(recs)-done)
		var payload []byte
		for _, r := range recs[done : done+n] {
			payload = w.record(payload, r, &st)
		}
		done += n
		b = append(b, v2Block)
		b = binary.LittleEndian.AppendUint32(b, recs[0].Thread)
		b = append(b, byte(done), byte(done>>8), 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
		b = append(b, payload...)
	}
	return b
}

// blockB writes one V2b block: the first record in the header (u8 method
// word, then the CPU and the wall time as u4, in that order), u2 (n-1), u2
// payload size, then the other records (ART android-15.0.0_r1
// trace.cc:L1726-1792). Both u2 fields are truncated, as ART truncates them.
func (w *v2Writer) blockB(b []byte, recs []Record) []byte {
	first := recs[0]
	st := v2State{word: w.word(first), wall: w.time(first.Wall), cpu: w.time(first.CPU)}
	b = append(b, v2Block)
	b = binary.LittleEndian.AppendUint32(b, first.Thread)
	b = binary.LittleEndian.AppendUint64(b, st.word)
	if w.hasCPU() {
		b = binary.LittleEndian.AppendUint32(b, first.CPU)
	}
	if w.hasWall() {
		b = binary.LittleEndian.AppendUint32(b, first.Wall)
	}
	var payload []byte
	for _, r := range recs[1:] {
		payload = w.record(payload, r, &st)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(recs)-1))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(payload)))
	return append(b, payload...)
}

// record appends SLEB128 of the method word's change, then ULEB128 of the
// wall change and of the CPU change, each clock only if the trace has it
// (ART trace.cc:L1660-1680). Differences wrap in 64 bits, as in ART.
func (w *v2Writer) record(b []byte, r Record, st *v2State) []byte {
	word := w.word(r)
	b = appendSLEB(b, int64(word-st.word))
	st.word = word
	if w.hasWall() {
		v := w.time(r.Wall)
		b = appendULEB(b, v-st.wall)
		st.wall = v
	}
	if w.hasCPU() {
		v := w.time(r.CPU)
		b = appendULEB(b, v-st.cpu)
		st.cpu = v
	}
	return b
}

func (w *v2Writer) word(r Record) uint64 { return MethodPointer(r.Method) | uint64(r.Action&3) }

func (w *v2Writer) hasWall() bool { return w.dual || w.t.Clock == "wall" }
func (w *v2Writer) hasCPU() bool  { return w.dual || w.t.Clock != "wall" }

// time scales a record time to the layout's unit.
func (w *v2Writer) time(v uint32) uint64 {
	if w.opt.Layout == V2d && !w.opt.RawTimes {
		return uint64(v) * 1000
	}
	return uint64(v)
}

// summary appends the type-3 packet: u1 3, a u2 length truncated to 16 bits,
// and key text with no *threads or *methods section (ART
// trace.cc:L1122-1131). V2d says elapsed-time-nsec, the others
// elapsed-time-usec; num-method-calls is written only when not streaming.
func (w *v2Writer) summary(b []byte) []byte {
	var s strings.Builder
	fmt.Fprintf(&s, "*version\n%d\n", w.version())
	k := keyKind{summary: w.opt.Streaming}
	for _, key := range standardKeys {
		if w.t.writeOptions(&s, key) {
			continue
		}
		v, ok := w.t.standardValue(key, k)
		if !ok {
			continue
		}
		if key == "elapsed-time-usec" && w.opt.Layout == V2d {
			key, v = "elapsed-time-nsec", strconv.FormatUint(w.time(w.t.elapsed()), 10)
		}
		fmt.Fprintf(&s, "%s=%s\n", key, v)
	}
	for _, o := range w.t.Options {
		if !isStandardKey(o.Key) {
			fmt.Fprintf(&s, "%s=%s\n", o.Key, o.Value)
		}
	}
	s.WriteString("*end\n")
	b = append(b, v2Summary)
	b = binary.LittleEndian.AppendUint16(b, uint16(s.Len()))
	return append(b, s.String()...)
}

func appendULEB(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
