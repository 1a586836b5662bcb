package speedscope

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/varint"
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

// decoder turns encoded events back into JSON, carrying the running time
// across blocks. suffix[f] is the precomputed tail of an event of stream
// frame f, `,"frame":s}` with s its shared frame, so that the loop formats
// only the time.
type decoder struct {
	at     int64 // ns
	out    decimal
	first  bool
	micro  bool // write µs: divide by a constant, which compiles to a multiply
	suffix []suffix
}

// suffix is an event's tail in a fixed-size array, so that the loop copies
// it with a few moves instead of a call to memmove.
type suffix struct {
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
	headLen  = 18
	maxEvent = headLen + 20 + len(suffix{}.b) // head, digits, fixed-size tail
)

// events writes the encoded events p. Every event is written with
// fixed-size copies into the room at the end of the buffer (the loop
// keeps maxEvent bytes of it): the time's digits as the 16 bytes that end
// with them, then the head over the bytes before the digits, then the tail
// with whatever follows it, which the next event overwrites.
func (d *decoder) events(w *writer, p []byte) error {
	buf := w.buf
	for len(p) > 0 {
		code, n := varint.Short(p)
		if n == 0 {
			code, n = binary.Uvarint(p)
		}
		if n <= 0 || code>>2 >= uint64(len(d.suffix)) {
			return errCorrupt
		}
		p = p[n:]
		delta, m := varint.Short(p)
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
		if !d.out.step(at) {
			d.out.advance(at)
		}
		if len(buf) >= flushAt || cap(buf)-len(buf) < maxEvent {
			w.buf = buf
			w.flush()
			buf = w.buf
			if cap(buf) < maxEvent { // a writer made without room
				buf = make([]byte, 0, flushAt+4096)
			}
		}
		digits := d.out.digits()
		sf := &d.suffix[code>>2]
		if d.first || len(digits) > 16 {
			// The first event has no comma; a time of 17 digits or more
			// does not fit the window. Both are rare.
			head := heads[code>>1&1][:]
			if d.first {
				head, d.first = head[1:], false
			}
			buf = append(buf, head...)
			buf = append(buf, digits...)
			buf = append(buf, sf.b[:sf.n]...)
			continue
		}
		i := len(buf)
		room := buf[i : i+maxEvent]
		e := headLen + len(digits)
		// Two words, as step writes the last one (see there).
		digits16 := d.out.d[len(d.out.d)-16:]
		binary.LittleEndian.PutUint64(room[e-16:], binary.LittleEndian.Uint64(digits16))
		binary.LittleEndian.PutUint64(room[e-8:], binary.LittleEndian.Uint64(digits16[8:]))
		*(*[headLen]byte)(room) = heads[code>>1&1]
		*(*[len(suffix{}.b)]byte)(room[e:]) = sf.b
		buf = buf[:i+e+int(sf.n)]
	}
	if len(buf) >= flushAt {
		w.buf = buf
		w.flush()
		buf = w.buf
	}
	w.buf = buf
	return w.err
}

// streamSuffixes gives every stream frame the suffix of its shared frame.
func streamSuffixes(shared []int32, sufs []suffix) []suffix {
	out := make([]suffix, len(shared))
	for i, s := range shared {
		out[i] = sufs[s]
	}
	return out
}

// frameSuffixes precomputes `,"frame":i}` for every shared frame.
func frameSuffixes(n int) []suffix {
	out := make([]suffix, n)
	for i := range out {
		b := append(out[i].b[:0], `,"frame":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '}')
		out[i].n = uint8(len(b))
	}
	return out
}
