package speedscope

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEventsFormatting checks the event loops' fixed-size copies against
// fmt: times of every length (up to 19 digits, past the 16-byte window),
// both kinds, the first event without its comma, frame numbers of every
// length, codes of one to three bytes, steps in ns and in µs, and buffer
// flushes in the middle of events. Steps of whole µs are what fast takes,
// and the rest what it leaves to the general loop.
func TestEventsFormatting(t *testing.T) {
	// Stream frame i is shared frame shared[i], of up to 10 digits. Codes
	// (frame<<2 and two bits) take two bytes from frame 32 and three from
	// frame 4,096.
	shared := make([]int32, 5000)
	for i := range shared {
		shared[i] = int32(i * i % 100_003)
	}
	shared[4999] = 1<<31 - 1
	sufs := make([]frameTail, len(shared))
	for i, f := range shared {
		b := fmt.Appendf(sufs[i].b[:0], `,"frame":%d}`, f)
		sufs[i].n = uint8(len(b))
	}
	for _, tc := range []struct {
		name string
		unit int64 // steps are multiples of it
		max  int64 // and mostly below it
	}{
		{"ns steps", 1, 3000},
		{"µs steps", 1000, 200_000},
	} {
		for _, micro := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/micro=%v", tc.name, micro), func(t *testing.T) {
				enc, want := formattingCase(tc.unit, tc.max, micro, shared)
				var got bytes.Buffer
				w := &writer{w: &got, buf: make([]byte, 0, flushAt+4096)}
				w.str("[")
				d := eventWriter{tails: sufs, micro: micro, first: true}
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
				if !bytes.Equal(got.Bytes(), want) {
					g, x := got.Bytes(), want
					i := 0
					for i < len(g) && i < len(x) && g[i] == x[i] {
						i++
					}
					lo := max(i-60, 0)
					t.Fatalf("output differs at byte %d:\ngot  %q\nwant %q", i, g[lo:min(i+60, len(g))], x[lo:min(i+60, len(x))])
				}
			})
		}
	}
}

// formattingCase makes TestEventsFormatting's events, 200,000 of them, and
// the JSON they should give: steps of multiples of unit, mostly below max,
// now and then a jump of up to 19 digits, each spooled in µs or ns at
// random when it is whole µs; mostly of the first 3,000 frames, one in a
// hundred of any of shared's.
func formattingCase(unit, max int64, micro bool, shared []int32) (enc, want []byte) {
	rng := rand.New(rand.NewPCG(1, uint64(unit)))
	want = append(want, '[')
	at := int64(0)
	for i := range 200000 {
		var step int64
		switch rng.IntN(100) {
		case 0:
			step = rng.Int64N(1 << 62 / 20000)
		case 1, 2:
			step = rng.Int64N(1e12)
		default:
			step = rng.Int64N(max)
		}
		step -= step % unit
		at += step
		f := rng.IntN(3000)
		if rng.IntN(100) == 0 {
			f = rng.IntN(len(shared))
		}
		closes := rng.IntN(2)
		enc = appendSpooled(enc, f, closes, step, rng.IntN(4) != 0)
		if i > 0 {
			want = append(want, ',')
		}
		v := at
		if micro {
			v /= 1000
		}
		want = fmt.Appendf(want, `{"type":"%c","at":%d,"frame":%d}`, "OC"[closes], v, shared[f])
	}
	if at < 1e17 {
		panic(fmt.Sprintf("the times reached %d only: no 18-digit time was tested", at))
	}
	return enc, append(want, ']')
}

// TestFastTakesMicroseconds: the fast loop writes a trace in µs by itself,
// as many events as fit below flushAt in one call, and the general loop
// has nothing to take until the buffer is flushed.
func TestFastTakesMicroseconds(t *testing.T) {
	var enc []byte
	for i := range 20000 {
		enc = appendSpooled(enc, i%3000, i%2, int64(i%7)*1000, true)
	}
	sufs := frameSuffixes(3000)
	for _, micro := range []bool{false, true} {
		d := eventWriter{tails: sufs, micro: micro, first: true}
		w := &writer{w: io.Discard, buf: make([]byte, 0, flushAt+4096)}
		if err := d.events(w, enc[:4]); err != nil { // the first event, and one more
			t.Fatal(err)
		}
		w.flush()
		buf, n := d.fast(w.buf, enc[4:])
		if len(buf) < flushAt || n < len(enc)/3 {
			t.Errorf("micro=%v: fast wrote %d bytes of JSON from %d of the %d spooled bytes", micro, len(buf), n, len(enc)-4)
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
	sufs := make([]frameTail, 1)
	sufs[0].n = uint8(len(fmt.Appendf(sufs[0].b[:0], `,"frame":0}`)))
	d := eventWriter{tails: sufs, micro: true}
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
// eventWriter must read alike.
func appendSpooled(enc []byte, frame, closes int, step int64, inMicro bool) []byte {
	code := uint64(frame)<<2 | uint64(closes)<<1
	if inMicro && step%1000 == 0 {
		enc = binary.AppendUvarint(enc, code)
		return binary.AppendUvarint(enc, uint64(step/1000))
	}
	enc = binary.AppendUvarint(enc, code|1)
	return binary.AppendUvarint(enc, uint64(step))
}
