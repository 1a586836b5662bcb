package parser

import (
	"bytes"
	"encoding/binary"
)

// maxV2Steps bounds the time steps kept to guess the unit of a trace
// without a summary.
const maxV2Steps = 4096

// v2Scan walks the packets of a V2 trace once, before any record is read:
// thread and method tables, the block layout, the number of records, the
// blocks a split flush continues, and the summary. Records are counted,
// not decoded.
type v2Scan struct {
	h      *Header
	s      *source
	m      *v2Meta
	layout V2Layout

	last     ThreadID // tid of the previous block
	inRun    bool     // a block has been seen
	cum      uint64   // records of the previous block's flush so far
	mismatch int      // blocks whose count field fits neither a new flush nor a continued one
	partial  int64    // bytes of incomplete records at the end of blocks
	unframed bool     // a V2b block had no end consistent with its fields

	// Evidence for a trace without a summary: time steps (the unit) and
	// each thread's first time (thread CPU starts at 0).
	zeros  int
	steps  []uint64
	firsts map[ThreadID]uint64

	classRaw, class string // the last method's class, shared by its class's next methods
	srcRaw, src     string
}

// run walks the packets from the cursor to the summary or the end.
func (sc *v2Scan) run() error {
	s, h := sc.s, sc.h
	for s.pos() < s.size {
		start := s.pos()
		b := s.peek(1)
		if len(b) == 0 {
			return sc.cut(start)
		}
		var stop bool
		var err error
		switch b[0] {
		case v2ThreadInfo:
			stop, err = sc.thread(start)
		case v2MethodInfo:
			stop, err = sc.method(start)
		case v2Block:
			stop, err = sc.block(start)
		case v2Summary:
			return sc.summary(start)
		default:
			return formatErr(start, "unknown V2 packet type %d: expected 0 (thread), 1 (method), 2 (event block) or 3 (summary)", b[0])
		}
		if stop || err != nil {
			return err
		}
	}
	h.DataEnd = s.size
	return nil
}

// cut records that the input ends inside the packet that starts at off.
func (sc *v2Scan) cut(off int64) error {
	if sc.s.err != nil {
		return sc.s.err
	}
	sc.h.DataEnd, sc.h.LostBytes = off, sc.s.size-off
	return nil
}

// packet returns the whole packet at the cursor, whose u2 length at lenAt
// counts the bytes after its hdr-byte header; ok is false when the input
// ends first.
func (sc *v2Scan) packet(hdr, lenAt int) ([]byte, bool) {
	b := sc.s.peek(hdr)
	if len(b) < hdr {
		return nil, false
	}
	n := hdr + int(binary.LittleEndian.Uint16(b[lenAt:]))
	b = sc.s.peek(n)
	return b, len(b) == n
}

// thread reads a thread packet; a later packet for the same tid (a reused
// tid) renames it.
func (sc *v2Scan) thread(start int64) (bool, error) {
	b, ok := sc.packet(v2ThreadHeader, 5)
	if !ok {
		return true, sc.cut(start)
	}
	sc.h.addThread(Thread{ID: ThreadID(binary.LittleEndian.Uint32(b[1:])), Name: decodeName(b[v2ThreadHeader:])})
	sc.s.skip(int64(len(b)))
	return false, nil
}

// method reads a method packet. ART writes the methods of every loaded
// class, again at each class prepare, so later packets replace earlier ones.
func (sc *v2Scan) method(start int64) (bool, error) {
	b, ok := sc.packet(v2MethodHeader, 9)
	if !ok {
		return true, sc.cut(start)
	}
	m, ok := sc.methodText(b[v2MethodHeader:])
	if !ok {
		return false, formatErr(start+v2MethodHeader, "V2 method packet: expected <class><TAB><name><TAB><signature><TAB><source>, found %q", clip(b[v2MethodHeader:]))
	}
	m.ID = MethodID(binary.LittleEndian.Uint64(b[1:]) &^ 3)
	sc.h.addMethod(m)
	sc.s.skip(int64(len(b)))
	return false, nil
}

// methodText splits class⇥name⇥signature⇥source\n; the source is empty for
// generated classes. Consecutive methods of a class share its strings.
func (sc *v2Scan) methodText(b []byte) (Method, bool) {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	class, rest, ok := bytes.Cut(b, []byte{'\t'})
	name, rest, ok2 := bytes.Cut(rest, []byte{'\t'})
	if !ok || !ok2 {
		return Method{}, false
	}
	sig, src, _ := bytes.Cut(rest, []byte{'\t'})
	if string(class) != sc.classRaw {
		sc.classRaw, sc.class = string(class), dotted(decodeName(class))
	}
	if string(src) != sc.srcRaw {
		sc.srcRaw, sc.src = string(src), sourceName(src)
	}
	return Method{Class: sc.class, Name: decodeName(name), Signature: decodeName(sig), Source: sc.src}, true
}

// sample keeps evidence for a trace without a summary from the start of a
// block's payload (the cursor): a thread's first time, which V2c/V2d blocks
// write absolute, and up to maxV2Steps time steps (the wall one when there
// are two clocks: it comes first).
func (sc *v2Scan) sample(tid ThreadID, end int64, absolute bool) {
	_, seen := sc.firsts[tid]
	needFirst := absolute && !seen
	if !needFirst && sc.zeros+len(sc.steps) >= maxV2Steps {
		return
	}
	b := sc.s.peek(int(min(end-sc.s.pos(), 64<<10)))
	for i := 0; ; i++ {
		var v [3]uint64
		for j := range sc.m.k {
			x, n := uleb(b)
			if n == 0 {
				return
			}
			v[j], b = x, b[n:]
		}
		switch {
		case i == 0 && absolute:
			if needFirst {
				sc.firsts[tid] = v[1]
			}
		case sc.zeros+len(sc.steps) >= maxV2Steps:
			return
		case v[1] == 0:
			sc.zeros++
		default:
			sc.steps = append(sc.steps, v[1])
		}
	}
}

// cpuLike reports whether the one clock of a version-4 trace looks like
// thread CPU time: at least two threads, each starting at 0.
func (sc *v2Scan) cpuLike() bool {
	for _, t := range sc.firsts {
		if t != 0 {
			return false
		}
	}
	return len(sc.firsts) >= 2
}

// summary reads the type-3 packet, the last one: key text with the clock
// and the time unit. Its u2 length is truncated to 16 bits, so the text
// runs to *end (docs/formats.md §10.3); without *end it is cut short and lost.
func (sc *v2Scan) summary(start int64) error {
	s, h := sc.s, sc.h
	h.DataEnd = start
	rest := s.size - start - 3
	if rest < 0 {
		h.LostBytes = s.size - start
		return nil
	}
	text := make([]byte, min(rest, maxV2Summary))
	if err := s.readAt(text, start+3); err != nil {
		return err
	}
	i := bytes.Index(text, []byte("*end\n"))
	if i < 0 { // cut short: the records before it are whole
		h.LostBytes = s.size - start
		return nil
	}
	if extra := rest - int64(i+5); extra > 0 {
		h.warn("ignored %d bytes after the V2 summary", extra)
	}
	sum := &Header{}
	text = text[:i+5]
	if err := parseKeyBytes(sum, text, start+3); err != nil {
		return err
	}
	h.HasSummary = true
	h.mergeKey(sum)
	if h.KeyVersion != h.RecordVersion {
		h.warn("the V2 summary says version %d but the header says %d", h.KeyVersion, h.RecordVersion)
	}
	return nil
}

// report turns what the scan worked around into warnings.
func (sc *v2Scan) report() {
	h := sc.h
	if n := len(sc.m.carry); n > 0 {
		h.warn("%d event blocks continue the delta state of the block before them (ART splits a flush larger than its 3 MiB staging buffer)", n)
	}
	if sc.mismatch > 0 {
		h.warn("%d event blocks hold a number of records their count field does not match", sc.mismatch)
	}
	if sc.partial > 0 {
		h.warn("skipped %d bytes of incomplete records at the end of event blocks", sc.partial)
	}
	if sc.unframed {
		h.warn("a V2b event block has no end consistent with its 16-bit size and count; its records were read to the end of the file")
	}
}
