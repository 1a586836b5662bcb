package parser

import (
	"encoding/binary"
	"io"
	"math/bits"
)

// block counts the records of a V2c/V2d block: u1 2, u4 tid, u3 count,
// u4 payload size (docs/formats.md §10.4). The payload size frames the block; the
// count is truncated to 16 bits and only tells split flushes apart.
func (sc *v2Scan) block(start int64) (bool, error) {
	if sc.layout == 0 {
		sc.layout = sc.detect(start)
	}
	if sc.layout == V2b {
		return sc.blockB(start)
	}
	s := sc.s
	b := s.peek(v2BlockHeader)
	if len(b) < v2BlockHeader {
		return true, sc.cut(start)
	}
	tid := ThreadID(binary.LittleEndian.Uint32(b[1:]))
	count := uint64(b[5]) | uint64(b[6])<<8 | uint64(b[7])<<16
	end := start + v2BlockHeader + int64(binary.LittleEndian.Uint32(b[8:]))
	s.skip(v2BlockHeader)
	sc.sample(tid, end, true)
	c := recCounter{k: sc.m.k, whole: s.pos()}
	if err := c.feed(s, min(end, s.size)); err != nil {
		return true, err
	}
	sc.h.Records += c.n
	if end > s.size {
		if sc.inRun && tid == sc.last {
			sc.m.check = append(sc.m.check, start) // its count cannot be checked
		}
		sc.h.DataEnd, sc.h.LostBytes = c.whole, s.size-c.whole
		return true, nil
	}
	sc.partial += end - c.whole
	sc.link(start, tid, uint64(c.n), count)
	return false, nil
}

// link notes whether a block starts a flush or continues the one before.
// ART writes each block of a split flush with the cumulative record count
// and carries the delta state across (docs/formats.md §10.5): a count that matches
// the records so far of the previous block's flush, and not this block's
// own, marks a continuation. When both match, the reader decides.
func (sc *v2Scan) link(start int64, tid ThreadID, n, count uint64) {
	const mask = 0xFFFF // ART truncates the count to 16 bits
	cont := sc.inRun && tid == sc.last && (sc.cum+n)&mask == count&mask
	switch {
	case n&mask == count&mask:
		if cont {
			sc.m.check = append(sc.m.check, start)
		}
		sc.cum = n
	case cont:
		sc.cum += n
		sc.m.carry = append(sc.m.carry, start)
	default:
		sc.mismatch++
		sc.cum = n
	}
	sc.last, sc.inRun = tid, true
}

// v2BHeader is the size of a V2b block header: u1 2, u4 tid, u8 method
// word, a u4 per clock, u2 (n-1), u2 payload size.
func (sc *v2Scan) v2BHeader() int { return 17 + 4*(sc.m.k-1) }

// blockB counts the records of a V2b block, whose first record is in the
// header.
func (sc *v2Scan) blockB(start int64) (bool, error) {
	s, hb := sc.s, sc.v2BHeader()
	b := s.peek(hb)
	if len(b) < hb {
		return true, sc.cut(start)
	}
	tid := ThreadID(binary.LittleEndian.Uint32(b[1:]))
	if _, ok := sc.firsts[tid]; !ok {
		sc.firsts[tid] = uint64(binary.LittleEndian.Uint32(b[13:]))
	}
	first := start + int64(hb) + int64(binary.LittleEndian.Uint16(b[hb-2:]))
	s.skip(int64(hb))
	sc.sample(tid, first, false)
	end, c, ok, err := sc.frameB(s, start, b)
	if err != nil {
		return true, err
	}
	sc.h.Records += 1 + c.n
	if ok {
		if end != first {
			sc.m.ends[start] = end
		}
		return false, nil
	}
	// The input ends inside the block, or no end fits (a damaged block):
	// its whole records up to the end of the input are kept.
	sc.unframed = sc.unframed || first <= s.size
	sc.m.ends[start] = s.size
	sc.h.DataEnd, sc.h.LostBytes = c.whole, s.size-c.whole
	return true, nil
}

// frameB counts the payload of the V2b block at start, whose header is hdr,
// from s positioned at the payload. The u2 size and count wrap past 65535,
// so the payload end is the first of size, size+64 KiB, … that closes a
// whole record, agrees with the count and is followed by a packet or the
// end of the file (best effort, docs/formats.md §10.5). When none does, ok is false
// and s is at the end of the input.
func (sc *v2Scan) frameB(s *source, start int64, hdr []byte) (end int64, c recCounter, ok bool, err error) {
	hb := sc.v2BHeader()
	count := int64(binary.LittleEndian.Uint16(hdr[hb-4:]))
	payload := start + int64(hb)
	c = recCounter{k: sc.m.k, whole: payload}
	for end = payload + int64(binary.LittleEndian.Uint16(hdr[hb-2:])); end <= s.size; end += 1 << 16 {
		if err = c.feed(s, end); err != nil {
			return end, c, false, err
		}
		if c.whole == end && c.n&0xFFFF == count && sc.packetAt(end) {
			return end, c, true, nil
		}
	}
	return end, c, false, c.feed(s, s.size)
}

// packetAt reports whether off is the end of the input or holds a packet
// type.
func (sc *v2Scan) packetAt(off int64) bool {
	if off == sc.s.size {
		return true
	}
	var b [1]byte
	return sc.s.readAt(b[:], off) == nil && b[0] <= v2Summary
}

// maxV2CPayload bounds a V2c/V2d payload: one flush of a per-thread buffer
// of 512 Ki pointer-sized slots, at most 262 144 records of at most 20
// bytes (one clock) or 174 762 of 30 (two), about 5.2 MB (ART
// trace.cc:L86-90).
const maxV2CPayload = 6 << 20

// detect tells V2b blocks from V2c/V2d ones at the first block. V2c fits
// when its count field has a zero third byte (docs/formats.md §10.5) and its
// payload size closes a record and lands on the next packet or the end of
// the file; V2b fits when framing it as blockB does succeeds. Failing both
// (the input ends inside the block), a header that could be V2c is V2c, and
// one that cannot is V2b.
func (sc *v2Scan) detect(start int64) V2Layout {
	hb := sc.v2BHeader()
	b := sc.s.peek(hb)
	maybeC := len(b) >= v2BlockHeader && b[7] == 0 && binary.LittleEndian.Uint32(b[8:]) <= maxV2CPayload
	if maybeC && sc.lands(start+v2BlockHeader, start+v2BlockHeader+int64(binary.LittleEndian.Uint32(b[8:]))) {
		return V2c
	}
	if len(b) >= hb {
		alt := newSource(sc.s.ra, sc.s.size, start+int64(hb))
		if _, _, ok, _ := sc.frameB(alt, start, b); ok {
			return V2b
		}
	}
	if !maybeC && len(b) >= v2BlockHeader {
		return V2b
	}
	return V2c
}

// lands reports whether a payload from payload to end closes a record and
// is followed by a packet or the end of the file.
func (sc *v2Scan) lands(payload, end int64) bool {
	if end < payload || end > sc.s.size {
		return false
	}
	var b [1]byte
	if end > payload && (sc.s.readAt(b[:], end-1) != nil || b[0] >= 0x80) {
		return false
	}
	return sc.packetAt(end)
}

// recCounter counts the records of a block payload without decoding them:
// every LEB128 value ends with a byte below 0x80, and a record is k values.
type recCounter struct {
	k, terms int
	n        int64
	whole    int64 // offset after the last whole record
}

// feed counts the bytes from the cursor to end and consumes them.
func (c *recCounter) feed(s *source, end int64) error {
	for s.pos() < end {
		b := s.peek(int(min(end-s.pos(), bufSize)))
		if len(b) == 0 {
			if s.err != nil {
				return s.err
			}
			return io.ErrUnexpectedEOF // the input shrank under us
		}
		if t := c.terms + countTerminators(b); t >= c.k {
			c.n += int64(t / c.k)
			c.terms = t % c.k
			c.whole = s.pos() + int64(afterNth(b, c.terms+1))
		} else {
			c.terms = t
		}
		s.skip(int64(len(b)))
	}
	return nil
}

// countTerminators counts the bytes below 0x80, eight at a time.
func countTerminators(b []byte) int {
	n := 0
	for len(b) >= 8 {
		n += 8 - bits.OnesCount64(binary.LittleEndian.Uint64(b)&0x8080808080808080)
		b = b[8:]
	}
	for _, x := range b {
		if x < 0x80 {
			n++
		}
	}
	return n
}

// afterNth returns the index after the nth byte below 0x80 counted from
// the end of b, which must hold that many.
func afterNth(b []byte, nth int) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0x80 {
			if nth--; nth == 0 {
				return i + 1
			}
		}
	}
	return 0
}
