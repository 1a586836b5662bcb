package pbread

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded field, as both decoders report it.
type field struct {
	num uint32
	typ int
	u   uint64
	val []byte
}

// decodeOurs decodes b with Msg.
func decodeOurs(b []byte) ([]field, error) {
	var out []field
	m := Msg{B: b}
	for m.Next() {
		f := field{num: m.Num, typ: m.Type, u: m.U}
		if m.Type == Bytes {
			f.val, f.u = m.Val, 0
		}
		out = append(out, f)
	}
	return out, m.Err
}

// decodeProtowire decodes b with protobuf-go's protowire, the reference:
// it reports the same fields, groups skipped.
func decodeProtowire(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return out, protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: uint32(num), typ: int(typ)}
		switch typ {
		case protowire.VarintType:
			f.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.u, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.u = uint64(v)
		case protowire.BytesType:
			f.val, n = protowire.ConsumeBytes(b)
		case protowire.StartGroupType:
			_, n = protowire.ConsumeGroup(num, b)
			if n >= 0 {
				b = b[n:]
				continue
			}
		default:
			return out, errors.New("wire type")
		}
		if n < 0 {
			return out, protowire.ParseError(n)
		}
		b = b[n:]
		out = append(out, f)
	}
	return out, nil
}

// check decodes b both ways and requires the same fields and the same
// verdict.
func check(t *testing.T, b []byte) {
	t.Helper()
	got, gerr := decodeOurs(b)
	want, werr := decodeProtowire(b)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%x: our error %v, protowire's %v", b, gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("%x: %d fields, protowire %d", b, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.num != w.num || g.typ != w.typ || g.u != w.u || !bytes.Equal(g.val, w.val) {
			t.Fatalf("%x: field %d is %+v, protowire %+v", b, i, g, w)
		}
	}
	var e *Error
	if gerr != nil && (!errors.As(gerr, &e) || e.Off < 0 || e.Off > int64(len(b))) {
		t.Fatalf("%x: error %v has no offset within the input", b, gerr)
	}
}

// TestAgainstProtowire checks hand-built messages of every wire type, whole
// and cut at every byte.
func TestAgainstProtowire(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 300)
	b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.MaxUint64-1)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte("hello"))
	b = protowire.AppendTag(b, 4, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, 0xdeadbeef)
	b = protowire.AppendTag(b, 5, protowire.StartGroupType)
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 7)
	b = protowire.AppendTag(b, 6, protowire.StartGroupType)
	b = protowire.AppendTag(b, 6, protowire.EndGroupType)
	b = protowire.AppendTag(b, 5, protowire.EndGroupType)
	b = protowire.AppendTag(b, 536870911, protowire.VarintType)
	b = protowire.AppendVarint(b, math.MaxUint64)
	fields, err := decodeOurs(b)
	if err != nil || len(fields) != 5 || fields[2].num != 3 || string(fields[2].val) != "hello" || fields[4].u != math.MaxUint64 {
		t.Fatalf("decoded %+v, %v", fields, err)
	}
	for i := 0; i <= len(b); i++ {
		check(t, b[:i])
	}
	// Malformed: an 11-byte varint, field number 0, wire types 6 and 7, an
	// end group with no start, a group ended by another field's end tag.
	for _, bad := range [][]byte{
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0x00, 0x01},
		{0x0e}, {0x0f}, {0x0c},
		{0x0b, 0x14},
	} {
		check(t, bad)
		if _, err := decodeOurs(bad); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

// TestSub: an embedded message's errors carry offsets in the outer one.
func TestSub(t *testing.T) {
	var inner, outer []byte
	inner = protowire.AppendTag(inner, 1, protowire.VarintType)
	inner = append(inner, 0x80) // cut varint
	outer = protowire.AppendTag(outer, 9, protowire.VarintType)
	outer = protowire.AppendVarint(outer, 1)
	outer = protowire.AppendTag(outer, 2, protowire.BytesType)
	outer = protowire.AppendBytes(outer, inner)
	m := Msg{B: outer, Base: 100}
	for m.Next() {
		if m.Num == 2 {
			s := m.Sub()
			for s.Next() {
			}
			var e *Error
			if !errors.As(s.Err, &e) || e.Off != 100+int64(len(outer)-1) {
				t.Fatalf("error %v, want offset %d", s.Err, 100+len(outer)-1)
			}
		}
	}
}

// TestPacked reads packed varints and stops at a cut one.
func TestPacked(t *testing.T) {
	var b []byte
	for _, v := range []uint64{1, 300, math.MaxUint64} {
		b = protowire.AppendVarint(b, v)
	}
	p := Packed{B: b}
	var got []uint64
	for p.Next() {
		got = append(got, p.V)
	}
	if p.Err != nil || len(got) != 3 || got[1] != 300 || got[2] != math.MaxUint64 {
		t.Fatalf("got %v, %v", got, p.Err)
	}
	p = Packed{B: append(b, 0x80)}
	for p.Next() {
	}
	if p.Err == nil {
		t.Fatal("a cut varint gave no error")
	}
}

// FuzzMessage decodes any bytes the same way protowire does.
func FuzzMessage(f *testing.F) {
	f.Add([]byte{0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i'})
	f.Add([]byte{0x0b, 0x08, 0x01, 0x0c})
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}
