package speedscope

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/atrace2/atrace2/stream"
)

// frameKey is what makes two speedscope frames the same (docs/outputs.md §3.2):
// a frame a mapping renamed also keeps the trace's own <class>.<method>,
// written as the frame's "obfuscated" key, so frames of one name that the
// trace names differently stay apart. A frame the mapping gave its own
// name (a kept class and method) has none.
type frameKey struct {
	name, file string
	line       int
	hasLine    bool
	obfuscated string
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
		if f.Obfuscated != f.Name { // "" unless a mapping renamed it
			k.obfuscated = f.Obfuscated
		}
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
	shown := e.shown()
	w.str(`,"activeProfileIndex":`)
	w.int(int64(max(0, slices.Index(shown, e.active(shown)))))
	writeFrameList(w, frames)
	w.str(`,"profiles":[`)
	d := eventWriter{tails: streamSuffixes(shared, frameSuffixes(len(frames))), micro: micro}
	var scratch []byte
	for n, i := range shown {
		if n > 0 {
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

// shown are the threads that get a profile, by index: every thread, but
// under a focus (--from/--to, --root) those it left nothing of are left
// out, as pprof and folded stacks leave them out.
func (e *Exporter) shown() []int {
	out := make([]int, 0, len(e.t.Threads))
	for i := range e.t.Threads {
		tb := &e.threads[i]
		if e.t.Focus.Active() && len(tb.buf) == 0 && len(tb.blocks) == 0 && len(tb.orphans) == 0 {
			continue
		}
		out = append(out, i)
	}
	return out
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
		if f.obfuscated != "" {
			// A key of our own: speedscope's importer keeps a frame's
			// keys, and its schema allows more than it names.
			w.str(`,"obfuscated":`)
			w.quoted(f.obfuscated)
		}
		w.str("}")
		w.maybeFlush()
	}
	w.str("]}")
}

// writeProfile writes thread i's evented profile with a fresh copy of d:
// its orphan frames opened at time 0, then its spilled blocks in order, then
// what is still buffered.
func (e *Exporter) writeProfile(w *writer, i int, d eventWriter, scratch []byte) ([]byte, error) {
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
