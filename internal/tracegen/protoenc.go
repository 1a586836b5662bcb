package tracegen

import "encoding/binary"

// pb is a protocol-buffer message being written: the few appends the
// Perfetto and simpleperf writers need (docs/formats.md §20, §21), written
// here from the wire format rather than shared with the readers they test.
type pb []byte

// varint appends field num as a varint.
func (m pb) varint(num int, v uint64) pb {
	m = binary.AppendUvarint(m, uint64(num)<<3)
	return binary.AppendUvarint(m, v)
}

// bytes appends field num as length-delimited bytes.
func (m pb) bytes(num int, b []byte) pb {
	m = binary.AppendUvarint(m, uint64(num)<<3|2)
	m = binary.AppendUvarint(m, uint64(len(b)))
	return append(m, b...)
}

func (m pb) str(num int, s string) pb { return m.bytes(num, []byte(s)) }

func (m pb) msg(num int, sub pb) pb { return m.bytes(num, sub) }
