// Package dump prints a trace's balanced event stream one line per event,
// in the style of dmtracedump -o: thread, action, the time on each clock
// and the method indented by its depth. It is what `atrace2 dump` prints,
// like go-perf's perfdump over perffile or go tool trace -d.
//
// Fast path: lines are built by appending the columns that repeat (a
// thread's, an action's, a method's), made once in Begin. The reference is
// a line formatted with fmt, in the test TestDumperLines, which ties the
// two.
package dump

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stream"
)

// Exporter writes dmtracedump -o style lines: thread, action, the times on
// each clock in µs, and the method indented by depth (from depth 256 on,
// the indent of depth 256 and the depth in brackets). Repairs are marked:
// "enter*" opens a frame that was running before tracing began, "exit*"
// closes one still open when it stopped, "exit~" is an implied exit of a
// frame above one that exited. Under a window (--from/--to), "enter|" and
// "exit|" begin and end a frame cut at the window's boundary.
//
// With Options.Obfuscated, a method a mapping (--mapping) renamed is
// followed by the name and descriptor the trace gives it, in brackets,
// with "; synthesized" when the mapping marks it as made by the compiler:
// "com.ex.Foo.bar (I)V [a.b.c.a (I)V]". A method whose name and
// descriptor the mapping kept has no brackets, unless it is synthesized.
//
// A dump has a line per event, ten times the size of the trace, so the
// parts that repeat (a thread's columns, an action, a method) are made
// once and lines are built by appending them to a buffer.
type Exporter struct {
	w         io.Writer
	opt       Options
	t         *stream.Trace
	wall, cpu bool // the clocks printed
	buf       []byte
	threads   [][]byte // by ThreadIndex: "tid thread " padded
	methods   [][]byte // by FrameID: "name signature\n"
}

// dumpFlush is how much of the dump is buffered before a write.
const dumpFlush = 64 << 10

// dumpMaxIndent is the depth where the indent stops growing: a deeper
// line has the indent of that depth and its depth as a number, "[300] ",
// so that a dump stays linear in the trace whatever its depth.
const dumpMaxIndent = 256

// dumpIndent is ". " repeated: a line's indent is a prefix of it.
var dumpIndent = strings.Repeat(". ", dumpMaxIndent)

var _ stream.Exporter = (*Exporter)(nil)

// Options change what a dump shows.
type Options struct {
	// Obfuscated shows, beside each method a mapping renamed, the name the
	// trace gives it.
	Obfuscated bool
	// Value picks the clocks whose times are printed (--clock): by
	// default every clock the trace has. Off-CPU time, which is per
	// stack, is refused (a *stream.ValueError), as is a clock the trace
	// lacks.
	Value stream.Value
}

// New returns an exporter that writes the dump to w. It buffers about
// 64 KiB between writes; w need not be buffered.
func New(w io.Writer, opt Options) *Exporter { return &Exporter{w: w, opt: opt} }

// Begin writes the two header lines and prepares the columns that repeat.
func (d *Exporter) Begin(t *stream.Trace) error {
	d.t = t
	if d.opt.Value == stream.ValueOffCPU {
		return &stream.ValueError{Value: d.opt.Value, View: "dump", Why: "it prints the times of each event, and off-CPU time is per stack (--clock dual prints both clocks)"}
	}
	var err error
	if d.wall, d.cpu, err = d.opt.Value.Clocks(t); err != nil {
		return err
	}
	legend := ""
	if d.opt.Obfuscated && slices.ContainsFunc(t.Frames, func(fr stream.Frame) bool { return obfuscatedName(&fr) != "" }) {
		legend = "; [ ] = the name in the trace, before --mapping renamed it"
	}
	if f := &t.Focus; f.Window && (f.From > 0 || f.To < t.WallEnd) {
		// Only a window inside the trace can cut a frame: --from 0
		// without --to dumps what no window dumps.
		legend += "; | = cut at the window's boundary (--from/--to)"
	}
	fmt.Fprintf(d.w, "# %s: %s clock; times in µs; * = synthetic (running before tracing began, or still open at its end), ~ = implicit exit%s\n", t.Name, clockName(d.wall, d.cpu), legend)
	fmt.Fprintf(d.w, "# %-7s %-20s %-7s %12s %12s  %s\n", "tid", "thread", "action", "wall", "cpu", "method")
	d.threads = make([][]byte, len(t.Threads))
	for i := range t.Threads {
		th := &t.Threads[i]
		d.threads[i] = fmt.Appendf(nil, "%-9d %-20s ", th.ID, clipName(th.Name, 20))
	}
	d.methods = make([][]byte, len(t.Frames))
	for i := range t.Frames {
		fr := &t.Frames[i]
		if o := obfuscatedName(fr); d.opt.Obfuscated && o != "" {
			d.methods[i] = fmt.Appendf(nil, "%s %s [%s]\n", fr.Name, fr.Signature, o)
			continue
		}
		d.methods[i] = fmt.Appendf(nil, "%s %s\n", fr.Name, fr.Signature)
	}
	d.buf = make([]byte, 0, dumpFlush+4096)
	return nil
}

// Events writes a line per event.
func (d *Exporter) Events(batch *stream.Batch) error { return d.events(batch.Events) }

// events is Events on the events alone, so that the batch takes no
// register in the loop.
func (d *Exporter) events(evs []stream.Event) error {
	b := d.buf
	for i := range evs {
		ev := &evs[i]
		b = append(b, d.threads[ev.Thread]...)
		b = append(b, dumpAction(ev)...)
		b = appendMicrosColumn(b, d.wall, ev.Wall)
		b = appendMicrosColumn(b, d.cpu, ev.CPU)
		b = append(b, "  "...)
		if ev.Depth < dumpMaxIndent {
			b = append(b, dumpIndent[:2*ev.Depth]...)
		} else {
			b = append(b, dumpIndent...)
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(ev.Depth), 10)
			b = append(b, "] "...)
		}
		b = append(b, d.methods[ev.Frame]...)
		if len(b) >= dumpFlush {
			if _, err := d.w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	d.buf = b
	return nil
}

// obfuscatedName is what the brackets of a frame a mapping renamed or
// marked hold: the trace's name and descriptor, unless the mapping kept
// both (a class and method the build kept), and the synthesized mark; ""
// for none.
func obfuscatedName(fr *stream.Frame) string {
	var parts []string
	if fr.Obfuscated != "" && (fr.Obfuscated != fr.Name || fr.ObfuscatedSignature != fr.Signature) {
		parts = append(parts, strings.TrimSpace(fr.Obfuscated+" "+fr.ObfuscatedSignature))
	}
	if fr.Synthesized {
		parts = append(parts, "synthesized")
	}
	return strings.Join(parts, "; ")
}

// appendMicrosColumn appends a space and a time right-aligned in 12 columns, or
// "-" when the trace lacks its clock.
func appendMicrosColumn(b []byte, has bool, ns int64) []byte {
	var num [24]byte
	s := []byte("-")
	if has {
		s = units.AppendMicros(num[:0], ns)
	}
	b = append(b, ' ')
	b = append(b, "            "[:max(12-len(s), 0)]...)
	return append(b, s...)
}

// dumpActions holds the padded action column, by [end][unwound][mark]
// where mark is 0, 1 for synthetic (*), 2 for implicit (~) and 3 for cut
// by a window (|).
var dumpActions = func() (a [2][2][4]string) {
	for end := range 2 {
		for unwound := range 2 {
			for mark, sym := range []string{"", "*", "~", "|"} {
				name := "enter"
				if end == 1 {
					name = "exit"
					if unwound == 1 {
						name = "unwind"
					}
				}
				a[end][unwound][mark] = fmt.Sprintf("%-7s", name+sym)
			}
		}
	}
	return a
}()

func dumpAction(ev *stream.Event) string {
	end, unwound, mark := 0, 0, 0
	if ev.Kind == stream.End {
		end = 1
	}
	if ev.Flags&stream.Unwound != 0 {
		unwound = 1
	}
	switch {
	case ev.Flags&(stream.Synthetic|stream.Implicit|stream.Cut) == 0:
		// most events: one test
	case ev.Flags&stream.Cut != 0:
		mark = 3
	case ev.Flags&stream.Synthetic != 0:
		mark = 1
	case ev.Flags&stream.Implicit != 0:
		mark = 2
	}
	return dumpActions[end][unwound][mark]
}

// Finish writes what is buffered.
func (d *Exporter) Finish(*stream.Trace) error {
	_, err := d.w.Write(d.buf)
	d.buf = d.buf[:0]
	return err
}

// clipName keeps a column narrow.
func clipName(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// clockName names the clocks printed as a trace's key does.
func clockName(wall, cpu bool) string {
	switch {
	case wall && cpu:
		return "dual"
	case wall:
		return "wall"
	case cpu:
		return "thread-cpu"
	}
	return "unknown"
}
