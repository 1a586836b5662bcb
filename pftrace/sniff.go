package pftrace

import (
	"bytes"
	"compress/gzip"
	"io"

	"github.com/atrace2/atrace2/internal/pbread"
)

// packetWire gives the wire type of the TracePacket fields the reader
// uses or that lead a packet; a first packet with one of them of another
// type is no Perfetto trace (a pprof profile, for one, also starts with a
// length-delimited field 1, whose first field is a varint).
var packetWire = map[uint32]int{
	1: pbread.Bytes, 2: pbread.Bytes, 3: pbread.Varint, 6: pbread.Bytes, 8: pbread.Varint,
	10: pbread.Varint, 11: pbread.Bytes, 12: pbread.Bytes, 13: pbread.Varint, 33: pbread.Bytes,
	35: pbread.Bytes, 41: pbread.Varint, 42: pbread.Varint, 43: pbread.Bytes, 44: pbread.Bytes,
	45: pbread.Bytes, 47: pbread.Bytes, 50: pbread.Bytes, 54: pbread.Bytes, 58: pbread.Varint,
	59: pbread.Bytes, 60: pbread.Bytes, 64: pbread.Bytes, 66: pbread.Bytes, 69: pbread.Bytes,
	79: pbread.Varint, 87: pbread.Varint, 89: pbread.Bytes, 98: pbread.Varint, 133: pbread.Bytes,
	135: pbread.Bytes,
}

// sniffPacket reports whether b decodes as a TracePacket whose known
// fields have their wire types.
func sniffPacket(b []byte) bool {
	m := pbread.Msg{B: b}
	n := 0
	for m.Next() {
		if t, ok := packetWire[m.Num]; ok && t != m.Type {
			return false
		}
		n++
	}
	return m.Err == nil && n > 0
}

// Sniff reports whether a file's first bytes (ideally 4 KiB or more),
// gzip-compressed or not, are a Perfetto trace: a packet field (1,
// length-delimited) whose content, when the head holds all of it, decodes
// as a TracePacket; when it does not, the fields it holds must decode.
func Sniff(head []byte) bool {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		head, _ = io.ReadAll(io.LimitReader(zr, 4096))
	}
	if len(head) < 2 || head[0] != 0x0a {
		return false
	}
	l, n := pbread.Uvarint(head[1:])
	if n <= 0 || l == 0 || l > maxPacket {
		return false
	}
	body := head[1+n:]
	if uint64(len(body)) >= l {
		return sniffPacket(body[:l])
	}
	// Only the start of the packet: its whole fields must decode, and
	// the field the head cuts must be one a packet has, with its wire
	// type (a first packet that is a bundle of compressed packets, field
	// 50, is larger than any head).
	fields, small := 0, len(body) < 16
	for len(body) > 0 {
		tag, n := pbread.Uvarint(body)
		if n <= 0 || tag>>3 == 0 || tag>>3 > 1<<29-1 {
			return false
		}
		num, typ := uint32(tag>>3), int(tag&7)
		if t, ok := packetWire[num]; ok && t != typ {
			return false
		}
		body = body[n:]
		var size uint64
		switch typ {
		case pbread.Varint:
			if _, k := pbread.Uvarint(body); k > 0 {
				size = uint64(k)
			} else {
				return fields > 0 || known(num) || small
			}
		case pbread.Fixed64:
			size = 8
		case pbread.Fixed32:
			size = 4
		case pbread.Bytes:
			l, k := pbread.Uvarint(body)
			if k <= 0 {
				return fields > 0 || known(num) || small
			}
			body, size = body[k:], l
		default:
			return false
		}
		if uint64(len(body)) < size {
			return fields > 0 || known(num) || small // cut by the head
		}
		body = body[size:]
		fields++
	}
	return fields > 0 || small
}

// known reports whether num is a TracePacket field that packetWire lists.
func known(num uint32) bool {
	_, ok := packetWire[num]
	return ok
}
