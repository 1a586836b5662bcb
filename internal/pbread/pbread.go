// Package pbread decodes the protocol-buffer wire format in place, field by
// field, without a schema, generated code or allocations: the minimal
// decoder the Perfetto and simpleperf readers (packages pftrace and
// simpleperf) share. It imports only the standard library.
//
// A message is a sequence of fields, each a varint tag (field number << 3 |
// wire type) and a value: a varint (type 0), 8 little-endian bytes (1), a
// varint length and that many bytes (2), or 4 bytes (5). Types 3 and 4
// (groups, deprecated in proto2) are skipped with what they hold; a reader
// that does not know a field skips it, which is how the wire format stays
// compatible (protobuf's encoding guide, "Message Structure").
//
// Every length is checked against the bytes left before it is used, and
// varints are at most 10 bytes: malformed input gives an error, never a
// panic or a slice out of range (FuzzMessage).
package pbread

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Wire types.
const (
	Varint  = 0 // int32, int64, uint32, uint64, sint32, sint64, bool, enum
	Fixed64 = 1 // fixed64, sfixed64, double
	Bytes   = 2 // string, bytes, embedded messages, packed repeated fields
	SGroup  = 3 // group start (deprecated)
	EGroup  = 4 // group end (deprecated)
	Fixed32 = 5 // fixed32, sfixed32, float
)

// maxGroupDepth bounds the nesting of groups Skip walks through.
const maxGroupDepth = 100

// Error describes malformed input at a byte offset of the message being
// decoded (Msg.Base added: the offset in the file when the caller sets it).
type Error struct {
	Off int64
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("offset %d (%#x): %s", e.Off, e.Off, e.Msg) }

// Msg walks the fields of one message held in B. Base is the offset of B[0]
// in whatever the caller counts offsets in (errors add it). After Next
// returns false, Err says whether the message ended cleanly.
//
//	m := pbread.Msg{B: data}
//	for m.Next() {
//		switch m.Num {
//		case 1:
//			v := m.U // a varint, fixed32 or fixed64 field's value
//		case 2:
//			b := m.Val // a length-delimited field's bytes (aliasing data)
//		}
//	}
//	if m.Err != nil { … }
type Msg struct {
	B    []byte
	Base int64
	pos  int

	Num  uint32 // the current field's number
	Type int    // the current field's wire type
	U    uint64 // the value of a varint, fixed32 or fixed64 field
	Val  []byte // the bytes of a length-delimited field
	At   int    // the offset in B of the current field's tag
	Err  error
}

// Next decodes the next field. It returns false at the end of the message
// or on malformed input (then Err is set). Groups are skipped.
func (m *Msg) Next() bool {
	for m.pos < len(m.B) {
		m.At = m.pos
		tag, n := uvarint(m.B[m.pos:])
		if n <= 0 {
			return m.fail(m.pos, "malformed field tag")
		}
		m.pos += n
		num := tag >> 3
		if num == 0 || num > math.MaxInt32 {
			return m.fail(m.At, fmt.Sprintf("invalid field number %d", num))
		}
		m.Num, m.Type = uint32(num), int(tag&7)
		switch m.Type {
		case Varint:
			v, n := uvarint(m.B[m.pos:])
			if n <= 0 {
				return m.fail(m.pos, fmt.Sprintf("field %d: malformed varint", num))
			}
			m.U, m.pos = v, m.pos+n
		case Fixed64:
			if len(m.B)-m.pos < 8 {
				return m.fail(m.pos, fmt.Sprintf("field %d: 8-byte value cut short", num))
			}
			m.U, m.pos = binary.LittleEndian.Uint64(m.B[m.pos:]), m.pos+8
		case Fixed32:
			if len(m.B)-m.pos < 4 {
				return m.fail(m.pos, fmt.Sprintf("field %d: 4-byte value cut short", num))
			}
			m.U, m.pos = uint64(binary.LittleEndian.Uint32(m.B[m.pos:])), m.pos+4
		case Bytes:
			l, n := uvarint(m.B[m.pos:])
			if n <= 0 {
				return m.fail(m.pos, fmt.Sprintf("field %d: malformed length", num))
			}
			m.pos += n
			if l > uint64(len(m.B)-m.pos) {
				return m.fail(m.pos, fmt.Sprintf("field %d: length %d, only %d bytes left", num, l, len(m.B)-m.pos))
			}
			m.Val, m.pos = m.B[m.pos:m.pos+int(l)], m.pos+int(l)
		case SGroup:
			end, err := skipGroup(m.B, m.pos, uint32(num), 1)
			if err != nil {
				return m.fail(int(err.Off), err.Msg)
			}
			m.pos = end
			continue
		default:
			return m.fail(m.At, fmt.Sprintf("field %d: invalid wire type %d", num, m.Type))
		}
		return true
	}
	return false
}

// fail records a malformed-input error at offset off of B and stops.
func (m *Msg) fail(off int, msg string) bool {
	m.Err = &Error{Off: m.Base + int64(off), Msg: msg}
	m.pos = len(m.B)
	return false
}

// Sub returns a Msg over the current length-delimited field's bytes, with
// its Base set to their offset, to decode an embedded message.
func (m *Msg) Sub() Msg {
	return Msg{B: m.Val, Base: m.Base + int64(m.pos-len(m.Val))}
}

// ValOff is the offset (Base added) of the current length-delimited field's
// first byte.
func (m *Msg) ValOff() int64 { return m.Base + int64(m.pos-len(m.Val)) }

// Pos is the offset in B of the byte after the current field.
func (m *Msg) Pos() int { return m.pos }

// skipGroup skips the fields of a group that started before b[i] with field
// number num, returning the offset after its end tag.
func skipGroup(b []byte, i int, num uint32, depth int) (int, *Error) {
	if depth > maxGroupDepth {
		return 0, &Error{Off: int64(i), Msg: "groups nested too deeply"}
	}
	for i < len(b) {
		at := i
		tag, n := uvarint(b[i:])
		if n <= 0 {
			return 0, &Error{Off: int64(i), Msg: "malformed field tag in a group"}
		}
		i += n
		f := tag >> 3
		if f == 0 || f > math.MaxInt32 {
			return 0, &Error{Off: int64(at), Msg: fmt.Sprintf("invalid field number %d in a group", f)}
		}
		switch tag & 7 {
		case Varint:
			_, n := uvarint(b[i:])
			if n <= 0 {
				return 0, &Error{Off: int64(i), Msg: "malformed varint in a group"}
			}
			i += n
		case Fixed64:
			i += 8
		case Fixed32:
			i += 4
		case Bytes:
			l, n := uvarint(b[i:])
			if n <= 0 || l > uint64(len(b)-i-n) {
				return 0, &Error{Off: int64(i), Msg: "malformed length in a group"}
			}
			i += n + int(l)
		case SGroup:
			end, err := skipGroup(b, i, uint32(f), depth+1)
			if err != nil {
				return 0, err
			}
			i = end
		case EGroup:
			if f != uint64(num) {
				return 0, &Error{Off: int64(at), Msg: fmt.Sprintf("group %d ends with the end tag of field %d", num, f)}
			}
			return i, nil
		default:
			return 0, &Error{Off: int64(at), Msg: fmt.Sprintf("invalid wire type %d in a group", tag&7)}
		}
		if i > len(b) {
			return 0, &Error{Off: int64(at), Msg: "value cut short in a group"}
		}
	}
	return 0, &Error{Off: int64(len(b)), Msg: fmt.Sprintf("group %d does not end", num)}
}

// uvarint decodes a varint of at most 10 bytes at the start of b: n is its
// length, or 0 when b ends inside it, or -1 when it is longer than 10 bytes
// or overflows 64 bits. The one-byte case, by far the most common in
// Perfetto's packets, is tested first.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// Uvarint decodes the varint at the start of b as uvarint does, with n ≤ 0
// for a cut or malformed one.
func Uvarint(b []byte) (v uint64, n int) { return uvarint(b) }

// Packed walks the varints of a packed repeated field (the bytes of a
// length-delimited field). A repeated scalar field may also arrive
// unpacked, one field per value, so a reader accepts both.
type Packed struct {
	B   []byte
	pos int
	V   uint64
	Err error
}

// Next decodes the next varint; false at the end or on a malformed one.
func (p *Packed) Next() bool {
	if p.pos >= len(p.B) {
		return false
	}
	v, n := uvarint(p.B[p.pos:])
	if n <= 0 {
		p.Err = errMalformedPacked
		p.pos = len(p.B)
		return false
	}
	p.V, p.pos = v, p.pos+n
	return true
}

var errMalformedPacked = errors.New("malformed varint in a packed repeated field")
