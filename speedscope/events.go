package speedscope

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/atrace2/atrace2/internal/reference"
	"github.com/atrace2/atrace2/internal/varint"
	"github.com/atrace2/atrace2/stream"
)

// orphanOpens encodes the opens of a thread's orphan frames at time 0,
// outermost (the last found) first: what two passes send at the thread's
// first record. Their closes are in the spooled events already.
func orphanOpens(orphans []stream.FrameID, buf []byte) []byte {
	for i := len(orphans) - 1; i >= 0; i-- {
		// A Begin (bit 1 clear) after a step of 0 µs (bit 0 clear).
		buf = binary.AppendUvarint(buf, uint64(orphans[i])<<2)
		buf = append(buf, 0)
	}
	return buf
}

// eventWriter turns encoded events back into JSON, carrying the running time
// across blocks. tails[f] is the precomputed tail of an event of stream
// frame f, `,"frame":s}` with s its shared frame, so that the loop formats
// only the time.
type eventWriter struct {
	at         int64 // ns
	timeDigits decimal
	first      bool
	micro      bool // write µs: divide by a constant, which compiles to a multiply
	tails      []frameTail
}

// frameTail is an event's tail in a fixed-size array, so that the loop copies
// it with a few moves instead of a call to memmove.
type frameTail struct {
	b [23]byte // b[:n] is the tail
	n uint8
}

var errCorrupt = errors.New("speedscope: invariant violation: undecodable spooled event")

// Event heads after the first, which has no comma: `,{"type":"O","at":` and
// `,{"type":"C","at":`, by the kind bit of the code (bit 1, see run).
var heads = [2][headLen]byte{
	[headLen]byte([]byte(`,{"type":"O","at":`)),
	[headLen]byte([]byte(`,{"type":"C","at":`)),
}

const (
	headLen = 18
	// The room an event is written in: the digits' window at an offset
	// masked to 31 (see putEvent), and the fixed-size tail.
	maxEvent = 31 + 16 + len(frameTail{}.b)
)

// events writes the encoded events p: fast takes the runs of common
// events, and this loop the event each run stops at, whatever it is.
func (d *eventWriter) events(w *writer, p []byte) error {
	buf := w.buf
	for len(p) > 0 {
		var n int
		if !reference.Only {
			if buf, n = d.fast(buf, p); n == len(p) {
				break
			}
		}
		p = p[n:]
		code, n := varint.Uvarint2(p)
		if n == 0 {
			code, n = binary.Uvarint(p)
		}
		if n <= 0 || code>>2 >= uint64(len(d.tails)) {
			return errCorrupt
		}
		p = p[n:]
		delta, m := varint.Uvarint2(p)
		if m == 0 {
			delta, m = binary.Uvarint(p)
		}
		if m <= 0 {
			return errCorrupt
		}
		p = p[m:]
		if code&1 == 0 { // a step in µs
			delta *= 1000
		}
		d.at += int64(delta)
		at := uint64(d.at)
		if d.micro {
			at /= 1000
		}
		if !d.timeDigits.step(at) {
			d.timeDigits.advance(at)
		}
		if len(buf) >= flushAt || cap(buf)-len(buf) < maxEvent {
			w.buf = buf
			w.flush()
			buf = w.buf
			if cap(buf) < maxEvent { // a writer made without room
				buf = make([]byte, 0, flushAt+4096)
			}
		}
		sf := &d.tails[code>>2]
		if digits := d.timeDigits.digits(); d.first || len(digits) > 16 {
			// The first event has no comma; a time of 17 digits or more
			// does not fit the window of putEvent. Both are rare.
			head := heads[code>>1&1][:]
			if d.first {
				head, d.first = head[1:], false
			}
			buf = append(buf, head...)
			buf = append(buf, digits...)
			buf = append(buf, sf.b[:sf.n]...)
			continue
		}
		room := (*[maxEvent]byte)(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+putEvent(room, &d.timeDigits, code>>1, sf)]
	}
	if len(buf) >= flushAt {
		w.buf = buf
		w.flush()
		buf = w.buf
	}
	w.buf = buf
	return w.err
}

// fastMaxBits bounds the times fast writes, in the output's unit: below
// 2^50 they have 16 digits at most, and the running time in ns stays far
// from overflowing.
const fastMaxBits = 50

// fast writes the events at the start of p for as long as each is a common
// one, and returns the buffer and the number of bytes of p it decoded. It
// calls nothing, so the compiler keeps more of its state in registers: as
// of Go 1.26, the general loop in events, with its calls on rare paths,
// spills and reloads many values around every event (BenchmarkDecoder,
// BenchmarkExporterOnly). It stops before the first
// event of a profile, an event with a varint longer than two bytes or an
// unknown frame, a step in ns when the output is in µs, a time of
// 2^fastMaxBits or more, and when the buffer is due to be flushed; and it
// leaves an event that starts in the last three bytes of p, past the reach
// of its 4-byte loads.
func (d *eventWriter) fast(buf, p []byte) ([]byte, int) {
	c := &d.timeDigits
	if d.first || c.start == 0 || c.v>>fastMaxBits != 0 {
		return buf, 0
	}
	// The loop runs while there is room for an event below flushAt: the
	// capacity is cut so that one test covers both.
	full := buf
	buf = buf[:len(buf):max(len(buf), min(cap(buf), flushAt-1+maxEvent))]
	sufs := d.tails
	scale := uint64(1000) // a step in µs, to ns; 1 when writing µs
	if d.micro {
		scale = 1
	}
	v0 := c.v
	i := 0
loop:
	for i <= len(p)-4 && cap(buf)-len(buf) >= maxEvent {
		// Both varints from one load, one or two bytes each; shifts by
		// constants, as a shift by a variable ties up CX.
		x := binary.LittleEndian.Uint32(p[i:])
		var code, delta uint64
		k := 2 // the event's length
		switch {
		case x&0x80 == 0:
			code, x = uint64(x&0x7f), x>>8
		case x&0x8000 == 0:
			code, x, k = uint64(x&0x7f|x>>1&0x3f80), x>>16, 3
		default:
			break loop
		}
		switch {
		case x&0x80 == 0:
			delta = uint64(x & 0x7f)
		case x&0x8000 == 0:
			delta, k = uint64(x&0x7f|x>>1&0x3f80), k+1
		default:
			break loop
		}
		if code&1 == 0 {
			delta *= scale
		} else if scale == 1 {
			break // events divides the time in ns
		}
		v := c.v + delta
		if v>>fastMaxBits != 0 || code>>2 >= uint64(len(sufs)) {
			break
		}
		if !c.step(v) {
			c.add(v)
		}
		room := (*[maxEvent]byte)(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+putEvent(room, c, code>>1, &sufs[code>>2])]
		i += k
	}
	if scale == 1 {
		d.at += int64(c.v-v0) * 1000
	} else {
		d.at = int64(c.v)
	}
	return full[:len(buf)], i
}

// putEvent writes an event of kind k (bit 0), with time c of 16 digits or
// fewer and tail sf, into room with fixed-size copies, and returns its
// length: the time's digits as the 16 bytes that end with them, then the
// head over the bytes before the digits, then the tail with whatever
// follows it, which the next event overwrites. The offset of the digits'
// window is masked so that the compiler (as of Go 1.26) sees every copy in
// bounds and checks none (BenchmarkDecoder).
func putEvent(room *[maxEvent]byte, c *decimal, k uint64, sf *frameTail) int {
	s := (headLen - 16 + len(c.d) - c.start) & 31
	// Two words, as step writes the last one (see there).
	binary.LittleEndian.PutUint64(room[s:], binary.LittleEndian.Uint64(c.d[len(c.d)-16:]))
	binary.LittleEndian.PutUint64(room[s+8:], binary.LittleEndian.Uint64(c.d[len(c.d)-8:]))
	*(*[headLen]byte)(room[:]) = heads[k&1]
	*(*[len(frameTail{}.b)]byte)(room[s+16:]) = sf.b
	return s + 16 + int(sf.n)
}

// streamSuffixes gives every stream frame the tail of its shared frame.
func streamSuffixes(shared []int32, sufs []frameTail) []frameTail {
	out := make([]frameTail, len(shared))
	for i, s := range shared {
		out[i] = sufs[s]
	}
	return out
}

// frameSuffixes precomputes `,"frame":i}` for every shared frame.
func frameSuffixes(n int) []frameTail {
	out := make([]frameTail, n)
	for i := range out {
		b := append(out[i].b[:0], `,"frame":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '}')
		out[i].n = uint8(len(b))
	}
	return out
}
