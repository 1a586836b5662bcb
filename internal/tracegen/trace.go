package tracegen

import (
	"fmt"
	"strconv"
	"strings"
)

// Action is the two-bit action stored in the low bits of a record's method
// word (docs/formats.md §5).
type Action uint8

const (
	// Enter is a method entry (action 0).
	Enter Action = 0
	// Exit is a normal method return (action 1).
	Exit Action = 1
	// Unwind is an exit caused by an exception (action 2, docs/formats.md §12 item 5).
	Unwind Action = 2
	// BadAction is the unused action 3; no writer emits it, so it stands for
	// corruption (docs/formats.md §12 item 6).
	BadAction Action = 3
)

var actionNames = [...]string{Enter: "enter", Exit: "exit", Unwind: "unwind", BadAction: "bad"}

// String returns the name used by the text form: enter, exit, unwind, bad,
// or the decimal value for anything larger than 3.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return strconv.Itoa(int(a))
}

// Record is one method record as written in the file.
type Record struct {
	// Thread is the record's thread id. It is written as u1 in v1 and as u2
	// otherwise, truncated to the field width on purpose so that tests can
	// list tids above 65535 in *threads that match only modulo 65536
	// (docs/formats.md §7).
	Thread uint32
	// Method is the method id without the action bits (a multiple of 4). The
	// file holds Method|Action; other low bits are OR-ed in unchanged.
	Method uint32
	// Action is the record's action; only its low two bits are written.
	Action Action
	// CPU is the thread-CPU time in µs, written when the layout has a
	// thread-CPU field (see [Trace.Regular]).
	CPU uint32
	// Wall is the wall time in µs, written when the layout has a wall field.
	Wall uint32
}

// Method is one line of the *methods section (docs/formats.md §3.4).
type Method struct {
	ID        uint32
	Class     string // dotted (a.b.C); Dalvik style writes it with slashes
	Name      string
	Signature string
	Source    string
	Line      int // written only in Dalvik style (6 fields); may be negative
}

// Thread is one line of the *threads section (docs/formats.md §3.3).
type Thread struct {
	ID   uint32 // written in full, in decimal
	Name string
}

// Option is a key=value line of the key text (docs/formats.md §3.2).
type Option struct{ Key, Value string }

// Trace describes one trace file.
type Trace struct {
	// Version is the data version: 1, 2 or 3. It selects the record layout
	// of the regular file (docs/formats.md §5) and, OR-ed with 0xF0, the header
	// version of a streaming file (docs/formats.md §8).
	Version int
	// Clock is written as clock=Clock: "thread-cpu", "wall", "dual" or
	// anything else a test needs. "" omits the line, and readers must then
	// assume thread-cpu (docs/formats.md §3.2).
	Clock string
	// VM is "dalvik" or "art" and selects the method-line style (docs/formats.md
	// §3.4): Dalvik writes 6 fields, slash class names and ids as 0x%08x;
	// ART writes 5 fields, dotted names and ids as C's %#x. "" writes ART
	// style and omits the vm= line.
	VM string
	// Options are key=value lines. An option whose key is one of the lines
	// real writers always produce (data-file-overflow, clock,
	// elapsed-time-usec, num-method-calls, clock-call-overhead-nsec, vm)
	// replaces that line in place; the others follow vm=, in order, as
	// ART's pid= does.
	Options []Option
	// BareKey drops the synthesized data-file-overflow, elapsed-time-usec,
	// num-method-calls and clock-call-overhead-nsec lines, for testing
	// readers against minimal keys. Clock, VM and Options are still written.
	BareKey bool
	// Start is the header start time in µs (docs/formats.md §6.3).
	Start uint64
	// RecordSize is the record size. 0 (or less) means the natural size
	// for the layout. For v3 and streaming files it is written in the header, and
	// each record is padded with zeros (or truncated) to it. For regular v1
	// and v2 files, whose readers ignore the header field (docs/formats.md §4), a
	// non-zero value is written in the header only.
	RecordSize int
	// DataOffset is the header's "offset to data"; 0 means 32. Larger values
	// add zero padding after the 32-byte header (docs/formats.md §4).
	DataOffset int
	// Threads is the *threads section.
	Threads []Thread
	// Methods is the *methods section, and the op-1 items of a streaming
	// file.
	Methods []Method
	// Records are the records in file order.
	Records []Record
}

// clockOverheadNsec is the clock-call-overhead-nsec value the writer
// invents; real files hold a few thousand (docs/formats.md §3.2).
const clockOverheadNsec = 2000

// standardKeys are the option lines real writers produce, in the order ART's
// DumpSummary and Dalvik's dvmMethodTraceStop write them (docs/formats.md §3.2 and
// perflib's basic.trace).
var standardKeys = [...]string{
	"data-file-overflow", "clock", "elapsed-time-usec", "num-method-calls",
	"clock-call-overhead-nsec", "vm",
}

// keyKind says which key text to write: the regular key, or the streaming
// summary, which has no num-method-calls and an empty *methods section
// (docs/formats.md §8.2).
type keyKind struct {
	summary bool
	threads bool // list *threads (always for the regular key)
}

// Key returns the key text of a regular file, from *version to *end\n.
func (t *Trace) Key() []byte {
	return t.key(keyKind{threads: true})
}

func (t *Trace) key(k keyKind) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*version\n%d\n", t.Version)
	for _, key := range standardKeys {
		if t.writeOptions(&b, key) {
			continue
		}
		if v, ok := t.standardValue(key, k); ok {
			fmt.Fprintf(&b, "%s=%s\n", key, v)
		}
	}
	for _, o := range t.Options {
		if !isStandardKey(o.Key) {
			fmt.Fprintf(&b, "%s=%s\n", o.Key, o.Value)
		}
	}
	b.WriteString("*threads\n")
	if k.threads {
		for _, th := range t.Threads {
			fmt.Fprintf(&b, "%d\t%s\n", th.ID, th.Name)
		}
	}
	b.WriteString("*methods\n")
	if !k.summary {
		for i := range t.Methods {
			b.WriteString(t.methodLine(&t.Methods[i]))
		}
	}
	b.WriteString("*end\n")
	return []byte(b.String())
}

// writeOptions writes the options whose key is key and reports whether there
// were any.
func (t *Trace) writeOptions(b *strings.Builder, key string) bool {
	found := false
	for _, o := range t.Options {
		if o.Key == key {
			fmt.Fprintf(b, "%s=%s\n", o.Key, o.Value)
			found = true
		}
	}
	return found
}

// standardValue returns the synthesized value of a standard option line, or
// false when the line is omitted.
func (t *Trace) standardValue(key string, k keyKind) (string, bool) {
	switch key {
	case "clock":
		return t.Clock, t.Clock != ""
	case "vm":
		return t.VM, t.VM != ""
	}
	if t.BareKey {
		return "", false
	}
	switch key {
	case "data-file-overflow":
		return "false", true
	case "elapsed-time-usec":
		return strconv.FormatUint(uint64(t.elapsed()), 10), true
	case "num-method-calls":
		// Streaming summaries have no record count (ART trace.cc:L1023-1025).
		return strconv.Itoa(len(t.Records)), !k.summary
	case "clock-call-overhead-nsec":
		return strconv.Itoa(clockOverheadNsec), true
	}
	return "", false
}

func isStandardKey(key string) bool {
	for _, k := range standardKeys {
		if k == key {
			return true
		}
	}
	return false
}

// elapsed is the largest wall time when the clock includes wall, else the
// largest CPU time: wall times count from the trace start (docs/formats.md §6.1).
func (t *Trace) elapsed() uint32 {
	wall := t.Clock == "wall" || t.Clock == "dual"
	var m uint32
	for _, r := range t.Records {
		v := r.CPU
		if wall {
			v = r.Wall
		}
		m = max(m, v)
	}
	return m
}

// dalvik reports whether method lines use Dalvik's style.
func (t *Trace) dalvik() bool { return t.VM == "dalvik" }

// methodLine formats one *methods line including its trailing newline; the
// same bytes make up a streaming op-1 item (docs/formats.md §8.1).
func (t *Trace) methodLine(m *Method) string {
	if t.dalvik() {
		// DVM vm/Profile.cpp:L442-480: Method* as 0x%08x, the class
		// descriptor with slashes, and a line number.
		class := strings.ReplaceAll(m.Class, ".", "/")
		return fmt.Sprintf("0x%08x\t%s\t%s\t%s\t%s\t%d\n",
			m.ID, class, m.Name, m.Signature, m.Source, m.Line)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\n",
		artID(m.ID), m.Class, m.Name, m.Signature, m.Source)
}

// artID formats an id the way C's %#x does: Go's %#x prints 0 as "0x0", but
// ART's first method prints as a bare "0" (docs/formats.md §3.4, §8.4).
func artID(id uint32) string {
	if id == 0 {
		return "0"
	}
	return "0x" + strconv.FormatUint(uint64(id), 16)
}
