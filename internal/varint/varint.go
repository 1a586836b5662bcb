// Package varint writes and reads unsigned varints (the LEB128 of protocol
// buffers and of encoding/binary's Uvarint) in hot loops: PutUvarint writes
// into room the caller has made, without append's checks of capacity, and
// Uvarint2 reads the one- and two-byte varints that are the common case,
// inline.
package varint

import "encoding/binary"

// MaxLen is the most bytes a varint of a uint64 takes.
const MaxLen = binary.MaxVarintLen64

// PutUvarint writes v at b[i:] and returns the index after it. b must have
// room for it (MaxLen bytes always do).
func PutUvarint(b []byte, i int, v uint64) int {
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return i + 1
}

// Uvarint2 decodes the varint at the start of p when it takes one or two
// bytes, and returns n == 0 for any other (longer, cut or empty): the
// caller then reads it with binary.Uvarint.
func Uvarint2(p []byte) (v uint64, n int) {
	switch {
	case len(p) > 0 && p[0] < 0x80:
		return uint64(p[0]), 1
	case len(p) > 1 && p[1] < 0x80:
		return uint64(p[0]&0x7F) | uint64(p[1])<<7, 2
	}
	return 0, 0
}
