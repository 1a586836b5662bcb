package speedscope

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEventsFormatting checks the event loop's fixed-size copies against
// fmt: times of every length (up to 20 digits, past the 16-byte window),
// both kinds, the first event without its comma, frame numbers of every
// length, and buffer flushes in the middle of events.
func TestEventsFormatting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	frames := []int32{0, 7, 10, 99, 12345, 1<<31 - 1}
	for _, micro := range []bool{false, true} {
		var enc []byte
		var want bytes.Buffer
		want.WriteString("[")
		at := int64(0)
		for i := range 200000 {
			// Mostly small steps, now and then a jump of up to 19 digits.
			var step int64
			switch rng.IntN(100) {
			case 0:
				step = rng.Int64N(1 << 62 / 20000)
			case 1, 2:
				step = rng.Int64N(1e12)
			default:
				step = rng.Int64N(3000)
			}
			at += step
			f := rng.IntN(len(frames))
			closes := rng.IntN(2)
			enc = appendSpooled(enc, f, closes, step, rng.IntN(2) == 0)
			if i > 0 {
				want.WriteString(",")
			}
			v := at
			if micro {
				v /= 1000
			}
			fmt.Fprintf(&want, `{"type":"%c","at":%d,"frame":%d}`, "OC"[closes], v, frames[f])
		}
		want.WriteString("]")
		if at < 1e17 {
			t.Fatalf("the times reached %d only: no 18-digit time was tested", at)
		}

		sufs := make([]suffix, len(frames))
		for i, f := range frames {
			b := fmt.Appendf(sufs[i].b[:0], `,"frame":%d}`, f)
			sufs[i].n = uint8(len(b))
		}
		var got bytes.Buffer
		w := &writer{w: &got, buf: make([]byte, 0, flushAt+4096)}
		w.str("[")
		d := decoder{suffix: sufs, micro: micro, first: true}
		// In pieces, as the spooled blocks come: the time carries over.
		for len(enc) > 0 {
			n := 0
			for k := 0; k < 1000 && n < len(enc); k++ {
				_, a := binary.Uvarint(enc[n:])
				_, b := binary.Uvarint(enc[n+a:])
				n += a + b
			}
			if err := d.events(w, enc[:n]); err != nil {
				t.Fatal(err)
			}
			enc = enc[n:]
		}
		w.str("]")
		w.flush()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			g, x := got.Bytes(), want.Bytes()
			i := 0
			for i < len(g) && i < len(x) && g[i] == x[i] {
				i++
			}
			lo := max(i-60, 0)
			t.Fatalf("micro=%v: output differs at byte %d:\ngot  %q\nwant %q", micro, i, g[lo:min(i+60, len(g))], x[lo:min(i+60, len(x))])
		}
	}
}

// TestEventsWithoutRoom: a writer made without a buffer gets one instead
// of the loop writing past its capacity.
func TestEventsWithoutRoom(t *testing.T) {
	var enc []byte
	for i := range 10 {
		enc = appendSpooled(enc, 0, i%2, 1000, i%3 == 0)
	}
	var got bytes.Buffer
	w := &writer{w: &got}
	sufs := make([]suffix, 1)
	sufs[0].n = uint8(len(fmt.Appendf(sufs[0].b[:0], `,"frame":0}`)))
	d := decoder{suffix: sufs, micro: true}
	if err := d.events(w, enc); err != nil {
		t.Fatal(err)
	}
	w.flush()
	want := strings.Repeat(`,{"type":"O","at":1,"frame":0},{"type":"C","at":2,"frame":0}`, 5)
	want = strings.NewReplacer(`"at":1,`, `"at":%d,`, `"at":2,`, `"at":%d,`).Replace(want)
	args := make([]any, 10)
	for i := range args {
		args[i] = i + 1
	}
	if w := fmt.Sprintf(want, args...); got.String() != w {
		t.Errorf("got  %s\nwant %s", got.String(), w)
	}
}

// appendSpooled encodes an event as Exporter.run does (see there): the
// step in µs when it is whole µs and inMicro is set, else in ns, which the
// decoder must read alike.
func appendSpooled(enc []byte, frame, closes int, step int64, inMicro bool) []byte {
	code := uint64(frame)<<2 | uint64(closes)<<1
	if inMicro && step%1000 == 0 {
		enc = binary.AppendUvarint(enc, code)
		return binary.AppendUvarint(enc, uint64(step/1000))
	}
	enc = binary.AppendUvarint(enc, code|1)
	return binary.AppendUvarint(enc, uint64(step))
}
