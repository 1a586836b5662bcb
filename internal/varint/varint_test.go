package varint

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestAgainstBinary: PutUvarint writes what binary.AppendUvarint writes,
// and Uvarint2 reads what binary.Uvarint reads, or declines (n == 0)
// exactly when the varint is not one or two whole bytes, for values at
// every length boundary, whole and cut.
func TestAgainstBinary(t *testing.T) {
	var values []uint64
	for shift := 0; shift < 64; shift += 7 {
		v := uint64(1) << shift
		values = append(values, v-1, v, v+1)
	}
	values = append(values, math.MaxUint64, 300)
	for _, v := range values {
		want := binary.AppendUvarint(nil, v)
		room := make([]byte, MaxLen+3)
		room[0] = 0xEE
		n := PutUvarint(room, 1, v)
		if got := room[1:n]; string(got) != string(want) {
			t.Errorf("PutUvarint(%d) = % x, want % x", v, got, want)
		}
		for cut := 0; cut <= len(want); cut++ {
			p := append(want[:cut:cut], 0x05) // a next byte, as in a stream
			if cut < len(want) {
				p = want[:cut]
			}
			gv, gn := Uvarint2(p)
			wv, wn := binary.Uvarint(p)
			short := wn == 1 || wn == 2
			if short && (gv != wv || gn != wn) || !short && gn != 0 {
				t.Errorf("Uvarint2(% x) = %d, %d; binary.Uvarint gives %d, %d", p, gv, gn, wv, wn)
			}
		}
	}
}
