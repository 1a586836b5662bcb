package parser

import (
	"encoding/binary"
	"io"
)

// maxV2Record is the longest well-formed record: three LEB128 values of at
// most 10 bytes each.
const maxV2Record = 30

// v2Reader decodes the records of an ART V2 trace block by block, straight
// out of the Reader's buffer: SLEB128 of the method word's change, then
// ULEB128 of the wall time's change and of the thread CPU time's change,
// each clock only if the trace has it (docs/formats.md §10.4). The delta state
// starts at 0 in every block, except in the blocks the scan found to
// continue a split flush.
type v2Reader struct {
	end      int64 // Header.DataEnd
	layout   V2Layout
	k        int   // LEB128 values per record
	single   Clock // where the time of a one-clock record goes
	keepWall bool
	keepCPU  bool
	ends     map[int64]int64
	carry    []int64 // continuation blocks not yet reached
	check    []int64 // blocks to place by their first method word, not yet reached
	h        *Header

	blockEnd int64
	tid      ThreadID
	st       v2State
}

// v2State is the delta state: the last method word (ArtMethod* | action)
// and times. t1 is the wall time of a two-clock record or the one time of a
// one-clock record; t2 is the thread CPU time of a two-clock record.
type v2State struct{ word, t1, t2 uint64 }

func newV2Reader(h *Header) *v2Reader {
	return &v2Reader{
		end: h.DataEnd, layout: h.Layout, k: h.v2.k, single: h.Clock,
		keepWall: h.Clock.HasWall(), keepCPU: h.Clock.HasCPU(),
		ends: h.v2.ends, carry: h.v2.carry, check: h.v2.check, blockEnd: h.DataOffset, h: h,
	}
}

// next decodes the next record into rec, or returns io.EOF after the last.
func (r *v2Reader) next(s *source, rec *Record) error {
	for {
		off := s.pos()
		if off >= r.blockEnd {
			at, pending, err := r.nextBlock(s)
			if err != nil {
				return err
			}
			if pending { // V2b: the record in the block header
				r.emit(rec, at)
				return nil
			}
			continue
		}
		// Fast path: a whole record in the buffer and in the block.
		if s.w-s.r >= maxV2Record && r.blockEnd-off >= maxV2Record {
			if n := r.decode(s.buf[s.r : s.r+maxV2Record]); n > 0 {
				s.r += n
				r.emit(rec, off)
				return nil
			}
		}
		ok, err := r.slow(s)
		if err != nil {
			return err
		}
		if ok {
			r.emit(rec, off)
			return nil
		}
	}
}

// batch fills recs as Reader.ReadRecords does.
func (r *v2Reader) batch(s *source, recs []Record) (int, error) {
	for i := range recs {
		if err := r.next(s, &recs[i]); err != nil {
			if i > 0 && err == io.EOF {
				return i, nil
			}
			return i, err
		}
	}
	return len(recs), nil
}

// emit fills rec from the state, keeping only the clocks the trace has.
func (r *v2Reader) emit(rec *Record, off int64) {
	rec.Offset, rec.Thread = off, r.tid
	rec.Method, rec.Action = MethodID(r.st.word&^3), Action(r.st.word&3)
	rec.Wall, rec.CPU = 0, 0
	switch {
	case r.k == 3:
		rec.Wall, rec.CPU = r.st.t1, r.st.t2
	case r.single == ClockThreadCPU:
		rec.CPU = r.st.t1
	default:
		rec.Wall = r.st.t1
	}
	if !r.keepWall {
		rec.Wall = 0
	}
	if !r.keepCPU {
		rec.CPU = 0
	}
}

// decode reads one record from b and applies it to the state; it returns 0,
// leaving the state alone, when b does not hold the whole record. The k
// LEB128 values are decoded in one loop: the first is signed. Differences
// wrap in 64 bits, as ART computes them.
func (r *v2Reader) decode(b []byte) int {
	var v [3]uint64
	i := 0
	for j := range r.k {
		var x uint64
		var shift uint
		for {
			if i >= len(b) {
				return 0
			}
			c := b[i]
			i++
			if shift < 64 {
				x |= uint64(c&0x7f) << shift
				shift += 7
			}
			if c < 0x80 {
				if j == 0 && c&0x40 != 0 && shift < 64 {
					x |= ^uint64(0) << shift
				}
				break
			}
		}
		v[j] = x
	}
	r.st.word += v[0]
	r.st.t1 += v[1]
	r.st.t2 += v[2]
	return i
}

// slow decodes a record near the end of the buffer or of its block, or one
// with overlong values. ok is false when the block ends inside the record:
// the scan did not count it, and its bytes are skipped.
func (r *v2Reader) slow(s *source) (ok bool, err error) {
	var v [3]uint64
	for i := range r.k {
		if v[i], ok = readLEB(s, r.blockEnd, i == 0); !ok {
			if s.err != nil {
				return false, s.err
			}
			s.skip(max(r.blockEnd-s.pos(), 0))
			return false, nil
		}
	}
	r.st.word += v[0]
	r.st.t1 += v[1]
	r.st.t2 += v[2]
	return true, nil
}

// nextBlock skips thread and method packets to the next block, at off, and
// reads its header. pending is true for a V2b block, whose first record is
// in the header and is now in the state.
func (r *v2Reader) nextBlock(s *source) (off int64, pending bool, err error) {
	for {
		off = s.pos()
		if off >= r.end {
			return off, false, io.EOF
		}
		b := s.peek(1)
		if len(b) == 0 {
			return off, false, short(s)
		}
		switch b[0] {
		case v2ThreadInfo, v2MethodInfo:
			hdr, lenAt := v2ThreadHeader, 5
			if b[0] == v2MethodInfo {
				hdr, lenAt = v2MethodHeader, 9
			}
			h := s.peek(hdr)
			if len(h) < hdr {
				return off, false, short(s)
			}
			s.skip(int64(hdr) + int64(binary.LittleEndian.Uint16(h[lenAt:])))
		case v2Block:
			if r.layout == V2b {
				return off, true, r.startB(s, off)
			}
			return off, false, r.startC(s, off)
		default:
			return off, false, formatErr(off, "unknown V2 packet type %d", b[0])
		}
	}
}

// startC reads a V2c/V2d block header and resets the delta state, unless
// the block continues a split flush.
func (r *v2Reader) startC(s *source, off int64) error {
	b := s.peek(v2BlockHeader)
	if len(b) < v2BlockHeader {
		return short(s)
	}
	r.tid = ThreadID(binary.LittleEndian.Uint32(b[1:]))
	r.blockEnd = min(off+v2BlockHeader+int64(binary.LittleEndian.Uint32(b[8:])), r.end)
	s.skip(v2BlockHeader)
	switch {
	case len(r.carry) > 0 && r.carry[0] == off:
		r.carry = r.carry[1:]
	case len(r.check) > 0 && r.check[0] == off:
		r.check = r.check[1:]
		if !r.continues(s) {
			r.st = v2State{}
		}
	default:
		r.st = v2State{}
	}
	return nil
}

// continues reports whether the block at the cursor, of the same thread as
// the block before, carries that block's delta state: its first value reads
// as a likelier method word from the carried state than from a reset one
// (docs/formats.md §10.5).
func (r *v2Reader) continues(s *source) bool {
	d, n := sleb(s.peek(int(min(r.blockEnd-s.pos(), 10))))
	return n > 0 && r.likely(r.st.word+d) > r.likely(d)
}

// likely scores a method word: 2 for a known method, 1 for a value shaped
// like a user-space pointer (above the null page, below 2^48), else 0.
func (r *v2Reader) likely(word uint64) int {
	if _, ok := r.h.Method(MethodID(word &^ 3)); ok {
		return 2
	}
	if word >= 1<<16 && word < 1<<48 {
		return 1
	}
	return 0
}

// startB reads a V2b block header, which holds the first record: the
// method word, then the CPU and the wall time as u4, in that order.
func (r *v2Reader) startB(s *source, off int64) error {
	hb := 17 + 4*(r.k-1)
	b := s.peek(hb)
	if len(b) < hb {
		return short(s)
	}
	r.tid = ThreadID(binary.LittleEndian.Uint32(b[1:]))
	r.st = v2State{word: binary.LittleEndian.Uint64(b[5:]), t1: uint64(binary.LittleEndian.Uint32(b[13:]))}
	if r.k == 3 {
		r.st.t1, r.st.t2 = uint64(binary.LittleEndian.Uint32(b[17:])), r.st.t1
	}
	end, ok := r.ends[off]
	if !ok {
		end = off + int64(hb) + int64(binary.LittleEndian.Uint16(b[hb-2:]))
	}
	r.blockEnd = min(end, r.end)
	s.skip(int64(hb))
	return nil
}

// short is the error for input that ends where the scan saw more.
func short(s *source) error {
	if s.err != nil {
		return s.err
	}
	return io.ErrUnexpectedEOF // the input shrank under us
}

// uleb decodes an unsigned LEB128 value from b; n is 0 when b ends first.
// Bits beyond 64 are dropped, as every value ends at its first byte below
// 0x80 whatever its length (the scan counts records that way). One-byte
// values, the commonest, take an inlined path.
func uleb(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return lebLong(b, false)
}

// sleb decodes a signed LEB128 value from b as a 64-bit two's complement
// difference; n is 0 when b ends first.
func sleb(b []byte) (v uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(int64(int8(b[0]<<1)) >> 1), 1 // sign-extend 7 bits
	}
	return lebLong(b, true)
}

func lebLong(b []byte, signed bool) (v uint64, n int) {
	var d leb
	for i, c := range b {
		if d.add(c, signed) {
			return d.v, i + 1
		}
	}
	return 0, 0
}

// leb accumulates a LEB128 value a byte at a time; bits past 64 are
// dropped.
type leb struct {
	v     uint64
	shift uint
}

// add takes the next byte and reports whether it was the last one.
func (d *leb) add(c byte, signed bool) bool {
	if d.shift < 64 {
		d.v |= uint64(c&0x7f) << d.shift
		d.shift += 7
	}
	if c >= 0x80 {
		return false
	}
	if signed && c&0x40 != 0 && d.shift < 64 {
		d.v |= ^uint64(0) << d.shift // sign-extend
	}
	return true
}

// readLEB decodes a LEB128 value from the cursor, across buffer refills,
// without reading past end; ok is false when end comes first.
func readLEB(s *source, end int64, signed bool) (v uint64, ok bool) {
	var d leb
	for s.pos() < end {
		b := s.peek(int(min(end-s.pos(), 64)))
		if len(b) == 0 {
			return 0, false
		}
		for i, c := range b {
			if d.add(c, signed) {
				s.skip(int64(i + 1))
				return d.v, true
			}
		}
		s.skip(int64(len(b)))
	}
	return 0, false
}
