package parser

import (
	"encoding/binary"
)

// The 32-byte SLOW data header (docs/formats.md §4).
const (
	magicSLOW      = 0x574F4C53 // "SLOW" read as a little-endian u4
	dataHeaderSize = 32
	streamingBit   = 0xF0
	maxRecordSize  = 64 // larger values are corruption (a re-encoded file reads 1186)
)

// minRecordSize is the smallest record of each layout version.
var minRecordSize = [...]int{1: 9, 2: 10, 3: 14}

// dataHeader is the part of the SLOW header a reader needs.
type dataHeader struct {
	version    int // raw u2, streaming bit included
	dataOffset int64
	start      uint64
	recordSize int
	v2         bool // ART's V2 format: no data offset or record size (docs/formats.md §10.2)
}

// parseDataHeader reads the SLOW header at off and checks it.
func parseDataHeader(s *source, off int64) (dataHeader, error) {
	var b [dataHeaderSize]byte
	if s.size-off < 4 {
		return dataHeader{}, formatErr(off, "the key text ends without the binary data: expected the 32-byte SLOW data header (a key-only file, or the .key half of a NAME.key/NAME.data pair?)")
	}
	n := min(int64(len(b)), s.size-off)
	if err := s.readAt(b[:n], off); err != nil {
		return dataHeader{}, err
	}
	if binary.LittleEndian.Uint32(b[:]) != magicSLOW {
		return dataHeader{}, formatErr(off, "expected the SLOW data header magic 53 4c 4f 57, found % x", b[:4])
	}
	if n < dataHeaderSize {
		return dataHeader{}, formatErr(off, "the SLOW data header is cut short: %d of %d bytes", n, dataHeaderSize)
	}
	h := dataHeader{
		version:    int(binary.LittleEndian.Uint16(b[4:])),
		dataOffset: int64(binary.LittleEndian.Uint16(b[6:])),
		start:      binary.LittleEndian.Uint64(b[8:]),
		recordSize: int(binary.LittleEndian.Uint16(b[16:])),
	}
	low := h.version &^ streamingBit
	streaming := h.version&streamingBit == streamingBit
	switch {
	case low == 4 || low == 5:
		if streaming || h.version == low {
			h.v2, h.start, h.dataOffset = true, binary.LittleEndian.Uint64(b[6:]), off+dataHeaderSize
			return h, nil
		}
		return h, formatErr(off+4, "unknown data version %#x: expected 1, 2, 3, 4, 5 or streaming 0xf2 to 0xf5", h.version)
	case streaming && (low == 2 || low == 3):
	case !streaming && low >= 1 && low <= 3:
	default:
		return h, formatErr(off+4, "unknown data version %#x: expected 1, 2, 3 or streaming 0xf2/0xf3 (4, 5, 0xf4 and 0xf5 are ART's V2)", h.version)
	}
	if h.dataOffset < dataHeaderSize {
		return h, formatErr(off+6, "data offset %d is smaller than the 32-byte header", h.dataOffset)
	}
	// The record size field is written only when the version value is ≥ 3,
	// which includes every streaming version; v1 and v2 files hold 0 there.
	switch {
	case low == 1 && !streaming:
		h.recordSize = minRecordSize[1]
	case low == 2 && !streaming:
		h.recordSize = minRecordSize[2]
	case h.recordSize == 18:
		return h, formatErr(off+16, "record size 18 is the 2015 ART development variant with 64-bit method ids, which atrace2 does not read")
	case h.recordSize < minRecordSize[low] || h.recordSize > maxRecordSize:
		return h, formatErr(off+16, "impossible record size %d for data version %#x: expected %d to %d (a file that went through a text re-encoding?)", h.recordSize, h.version, minRecordSize[low], maxRecordSize)
	}
	h.dataOffset += off
	return h, nil
}

// decodeRecord fills rec from one record b (len(b) ≥ the record size).
// v1 has a u1 thread id; v2 and later a u2. v2 carries the one clock the key
// names; v3 the thread CPU time, then the wall time (docs/formats.md §5).
func decodeRecord(b []byte, version int, clock Clock, rec *Record) {
	var word uint32
	switch version {
	case 1:
		rec.Thread = ThreadID(b[0])
		word = binary.LittleEndian.Uint32(b[1:])
		rec.CPU, rec.Wall = oneClock(clock, binary.LittleEndian.Uint32(b[5:]))
	case 2:
		rec.Thread = ThreadID(binary.LittleEndian.Uint16(b))
		word = binary.LittleEndian.Uint32(b[2:])
		rec.CPU, rec.Wall = oneClock(clock, binary.LittleEndian.Uint32(b[6:]))
	default:
		rec.Thread = ThreadID(binary.LittleEndian.Uint16(b))
		word = binary.LittleEndian.Uint32(b[2:])
		rec.CPU = uint64(binary.LittleEndian.Uint32(b[6:]))
		rec.Wall = uint64(binary.LittleEndian.Uint32(b[10:]))
	}
	rec.Method = MethodID(word &^ 3)
	rec.Action = Action(word & 3)
}

// oneClock puts a single-clock time where the clock says it belongs.
func oneClock(c Clock, t uint32) (cpu, wall uint64) {
	if c == ClockWall {
		return 0, uint64(t)
	}
	return uint64(t), 0
}
