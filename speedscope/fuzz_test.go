package speedscope

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

// FuzzDecimal: any sequence of steps, small, large or backwards, taken as
// the writer takes them (step, else advance), gives the digits of the sum.
func FuzzDecimal(f *testing.F) {
	f.Add([]byte{1, 0, 9, 0, 0xFF, 0xFF, 3, 0})
	f.Add([]byte{0xFE, 0xFF, 0x01, 0x80, 7, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var c decimal
		var v uint64
		for len(data) >= 2 {
			step := uint64(binary.LittleEndian.Uint16(data))
			data = data[2:]
			switch {
			case step == 0xFFFF: // a jump
				v = v*31 + 1<<40
			case step >= 0xF000: // backwards
				v /= step&0xFFF + 1
			default:
				v += step
			}
			if !c.step(v) {
				c.advance(v)
			}
			if got, want := string(c.digits()), strconv.FormatUint(v, 10); got != want {
				t.Fatalf("after %#x: %q, want %q", step, got, want)
			}
		}
	})
}

// FuzzSpooledEvents: the writer turns any bytes into the events they encode,
// checked against a plain decoding, or reports them undecodable; it never
// writes past its buffer or panics.
func FuzzSpooledEvents(f *testing.F) {
	var enc []byte
	for i, step := range []int64{0, 1000, 999, 1 << 40, 5000} {
		enc = appendSpooled(enc, i%3, i%2, step, i%2 == 0)
	}
	f.Add(enc, false)
	f.Add([]byte{0x80}, true)
	// A run of small whole-µs steps, as fast takes them.
	enc = nil
	for i := range 40 {
		enc = appendSpooled(enc, i%3, i%2, int64(i%11)*1000, true)
	}
	f.Add(enc, true)
	f.Add(enc, false)
	sufs := make([]frameTail, 3)
	for i := range sufs {
		sufs[i].n = uint8(len(fmt.Appendf(sufs[i].b[:0], `,"frame":%d}`, i)))
	}
	f.Fuzz(func(t *testing.T, p []byte, micro bool) {
		var out bytes.Buffer
		w := &writer{w: &out, buf: make([]byte, 0, flushAt+4096)}
		w.str("[")
		d := eventWriter{tails: sufs, micro: micro, first: true}
		if err := d.events(w, p); err != nil {
			return
		}
		w.str("]")
		w.flush()
		var evs []struct {
			Type  string `json:"type"`
			At    uint64 `json:"at"`
			Frame int    `json:"frame"`
		}
		if err := json.Unmarshal(out.Bytes(), &evs); err != nil {
			t.Fatalf("%x: %v in %s", p, err, out.Bytes())
		}
		var at int64
		for i := 0; len(p) > 0; i++ {
			code, n := binary.Uvarint(p)
			delta, m := binary.Uvarint(p[n:])
			p = p[n+m:]
			if code&1 == 0 {
				delta *= 1000
			}
			at += int64(delta)
			want := uint64(at)
			if micro {
				want /= 1000
			}
			got := evs[i]
			kind := code >> 1 & 1
			if got.At != want || got.Type != "OC"[kind:kind+1] || got.Frame != int(code>>2) {
				t.Fatalf("event %d: %+v, want at %d, code %d", i, got, want, code)
			}
		}
	})
}
