package speedscope

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/varint"
)

// frameKey is what makes two speedscope frames the same (OUTPUTS §3.2).
type frameKey struct {
	name, file string
	line       int
	hasLine    bool
}

// dedupFrames maps every stream frame to its shared frame, in order of
// first appearance.
func dedupFrames(frames []stream.Frame) ([]int32, []frameKey) {
	shared := make([]int32, len(frames))
	index := make(map[frameKey]int32, len(frames))
	var keys []frameKey
	for i := range frames {
		f := &frames[i]
		k := frameKey{name: f.Name, file: f.File, line: f.Line, hasLine: f.HasLine}
		if !f.HasLine {
			k.line = 0
		}
		id, ok := index[k]
		if !ok {
			id = int32(len(keys))
			index[k] = id
			keys = append(keys, k)
		}
		shared[i] = id
	}
	return shared, keys
}

// flushAt is when the output buffer is handed to the writer: as large as
// the CLI's bufio.Writer, which then passes it through without copying.
const flushAt = 256 << 10

// writer builds the JSON in a byte slice and flushes it in large pieces:
// the per-event loop then costs a few appends and no interface calls.
type writer struct {
	w   io.Writer
	buf []byte
	err error
}

func (w *writer) flush() {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.w.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

func (w *writer) maybeFlush() {
	if len(w.buf) >= flushAt {
		w.flush()
	}
}

func (w *writer) str(s string) { w.buf = append(w.buf, s...) }

func (w *writer) quoted(s string) { w.buf = appendQuoted(w.buf, s) }

func (w *writer) int(v int64) { w.buf = strconv.AppendInt(w.buf, v, 10) }

// write produces the whole file.
func (e *Exporter) write() error {
	if e.t == nil {
		return errors.New("speedscope: Finish without Begin")
	}
	// The tables are complete only now in one pass; the threads of the
	// tables that had no event still get a profile.
	if n := len(e.t.Threads); n > len(e.threads) {
		e.threads = append(e.threads, make([]threadBuf, n-len(e.threads))...)
	}
	shared, frames := dedupFrames(e.t.Frames)
	w := &writer{w: e.w, buf: make([]byte, 0, flushAt+4096)}
	micro := e.subMicro == 0 // every time is a whole µs
	w.str(`{"$schema":`)
	w.quoted(Schema)
	if e.opt.Exporter != "" {
		w.str(`,"exporter":`)
		w.quoted(e.opt.Exporter)
	}
	w.str(`,"name":`)
	w.quoted(e.name())
	w.str(`,"activeProfileIndex":`)
	w.int(int64(e.active()))
	writeFrameList(w, frames)
	w.str(`,"profiles":[`)
	d := decoder{suffix: streamSuffixes(shared, frameSuffixes(len(frames))), micro: micro}
	var scratch []byte
	for i := range e.t.Threads {
		if i > 0 {
			w.str(",")
		}
		var err error
		if scratch, err = e.writeProfile(w, i, d, scratch); err != nil {
			return err
		}
	}
	w.str("]}\n")
	w.flush()
	return w.err
}

// writeFrameList writes shared.frames from the de-duplicated frames.
func writeFrameList(w *writer, frames []frameKey) {
	w.str(`,"shared":{"frames":[`)
	for i, f := range frames {
		if i > 0 {
			w.str(",")
		}
		w.str(`{"name":`)
		w.quoted(f.name)
		if f.file != "" {
			w.str(`,"file":`)
			w.quoted(f.file)
		}
		if f.hasLine {
			w.str(`,"line":`)
			w.int(int64(f.line))
		}
		w.str("}")
		w.maybeFlush()
	}
	w.str("]}")
}

// writeProfile writes thread i's evented profile with a fresh copy of d:
// its orphan frames opened at time 0, then its spilled blocks in order, then
// what is still buffered.
func (e *Exporter) writeProfile(w *writer, i int, d decoder, scratch []byte) ([]byte, error) {
	th := &e.t.Threads[i]
	tb := &e.threads[i]
	w.str(`{"type":"evented","name":`)
	w.quoted(ProfileName(th))
	end := max(e.end(th), tb.last)
	if d.micro {
		w.str(`,"unit":"microseconds","startValue":0,"endValue":`)
		end /= 1000
	} else {
		w.str(`,"unit":"nanoseconds","startValue":0,"endValue":`)
	}
	w.int(end)
	w.str(`,"events":[`)
	d.first = true
	scratch = orphanOpens(tb.orphans, scratch[:0])
	if err := d.events(w, scratch); err != nil {
		return scratch, err
	}
	for _, b := range tb.blocks {
		var err error
		if scratch, err = e.sp.read(b, scratch); err != nil {
			return scratch, err
		}
		if err := d.events(w, scratch); err != nil {
			return scratch, err
		}
	}
	if err := d.events(w, tb.buf); err != nil {
		return scratch, err
	}
	w.str("]}")
	return scratch, w.err
}

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

// appendQuoted appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// so the file is always valid JSON; unlike encoding/json it leaves <, > and
// & alone, which Java's <init> and <clinit> are full of.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
