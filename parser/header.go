package parser

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// Variant names the container a trace came in.
type Variant uint8

const (
	Regular     Variant = iota + 1 // key text, then SLOW header and records
	Streaming                      // SLOW 0xF2/0xF3 with interleaved definitions
	SplitPair                      // NAME.key + NAME.data (pre-1.0 SDK)
	V2Regular                      // ART V2, SLOW 4/5: packets, blocks written when tracing stops, summary
	V2Streaming                    // ART V2, SLOW 0xF4/0xF5: blocks written as buffers fill, summary
	V2Hybrid                       // ART V2 of android-15.0.0_r1: method packets, key text, then SLOW 4/5 and blocks
)

var variantNames = [...]string{"", "regular", "streaming", "split key/data", "ART V2", "ART V2 streaming", "ART V2 after key text"}

func (v Variant) String() string {
	if int(v) < len(variantNames) && v != 0 {
		return variantNames[v]
	}
	return "unknown"
}

// Header is everything a trace says outside its records.
type Header struct {
	Variant       Variant
	Compressed    bool          // the input was gzip-compressed; set by the caller that decompressed it
	KeyVersion    int           // the version in the key text (*version), 0 if none
	DataVersion   int           // the u2 at offset 4 of the SLOW header, streaming bit included
	RecordVersion int           // the record layout: 1, 2 or 3; ART V2: 4 (one clock) or 5 (two)
	Clock         Clock         // which times the records carry
	ClockFrom     string        // where the clock came from: "key", "summary", "sec file", "record size", "--clock"
	Options       []Option      // every key=value line, in order (unknown keys kept)
	StartTime     uint64        // header start time in µs (epoch for Dalvik, monotonic for ART; V2d's ns / 1000)
	TimeUnit      time.Duration // what one tick of a record time is: µs in legacy files, µs or ns in V2
	TimeBits      int           // width of the record time counters: 32 in legacy files, which wrap; 64 in V2
	RecordSize    int           // bytes per record; 0 in V2, whose LEB128 records vary
	DataOffset    int64         // offset of the first record (or streaming item)
	DataEnd       int64         // offset after the last whole record or item
	Records       int64         // number of method records
	LostBytes     int64         // bytes of a record cut off at the end of the file
	HasSummary    bool          // streaming: the op-3 summary was found; V2: the type-3 summary
	Layout        V2Layout      // ART V2: the event-block layout; 0 for legacy files
	Warnings      []string      // things the reader worked around (missing summary, cut gzip stream)
	Threads       []Thread
	Methods       []Method

	methodIndex map[MethodID]int32
	threadIndex map[ThreadID]int32 // record id (low 16 bits of the tid; V2: the tid) → Threads index
	v2          *v2Meta            // ART V2: what the reader needs to frame the blocks
	inBand      bool               // streaming, not scanned: the first reader applies the definitions (Options.SkipStreamingScan)
}

// Option is one key=value line of the key text.
type Option struct{ Key, Value string }

// Thread is one *threads line or streaming thread definition.
type Thread struct {
	ID   ThreadID // as listed: a full OS tid, Dalvik's id, or ART's index
	Name string
}

// Method is one *methods line.
type Method struct {
	ID        MethodID
	Class     string // dotted: android/os/Debug is stored as android.os.Debug
	Name      string
	Signature string // JVM descriptor, e.g. (Ljava/lang/String;)V; may be empty
	Source    string // source file name; "" when the writer printed (null) or nothing
	Line      int    // first line, when HasLine (Dalvik's 6-field lines only)
	HasLine   bool
}

// Option returns the value of the last option line with the given key.
func (h *Header) Option(key string) (string, bool) {
	for i := len(h.Options) - 1; i >= 0; i-- {
		if h.Options[i].Key == key {
			return h.Options[i].Value, true
		}
	}
	return "", false
}

// VM returns the vm= option: "dalvik", "art" or "".
func (h *Header) VM() string { v, _ := h.Option("vm"); return v }

// PID returns the pid= option (ART only), or 0.
func (h *Header) PID() int {
	v, _ := h.Option("pid")
	n, _ := strconv.Atoi(v)
	return n
}

// EpochStart reports whether StartTime is a Unix epoch time. Only Dalvik
// wrote gettimeofday; ART's start time is a monotonic clock and must never be
// shown as a date (docs/formats.md §6.3).
func (h *Header) EpochStart() bool { return h.VM() == "dalvik" }

// Elapsed returns the trace's length as its key states it, in ns, and the
// option that states it (elapsed-time-usec, or elapsed-time-nsec); 0 and
// "" when it states none or a malformed one.
func (h *Header) Elapsed() (int64, string) {
	for _, o := range []struct {
		key   string
		scale int64
	}{{"elapsed-time-usec", 1000}, {"elapsed-time-nsec", 1}} {
		v, ok := h.Option(o.key)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64/o.scale {
			continue
		}
		return n * o.scale, o.key
	}
	return 0, ""
}

// DataFileOverflow reports data-file-overflow=true: every thread stopped
// recording when the buffer filled.
func (h *Header) DataFileOverflow() bool { v, _ := h.Option("data-file-overflow"); return v == "true" }

// Method returns the method with the given id.
func (h *Header) Method(id MethodID) (*Method, bool) {
	i, ok := h.methodIndex[id]
	if !ok {
		return nil, false
	}
	return &h.Methods[i], true
}

// Thread returns the table entry for a record thread id. Record ids are
// matched against the listed ids modulo 65536, because ART writes the OS tid
// truncated to 16 bits while *threads prints it whole (docs/formats.md §7). ART V2
// records carry the whole tid, which must match exactly.
func (h *Header) Thread(id ThreadID) (*Thread, bool) {
	i, ok := h.threadIndex[h.threadKey(id)]
	if !ok {
		return nil, false
	}
	return &h.Threads[i], true
}

// addThread adds or renames a thread; a later entry for the same record id
// wins, as a reused tid's later name does in ART's table.
func (h *Header) addThread(t Thread) {
	if h.threadIndex == nil {
		h.threadIndex = make(map[ThreadID]int32)
	}
	if i, ok := h.threadIndex[h.threadKey(t.ID)]; ok {
		h.Threads[i] = t
		return
	}
	h.threadIndex[h.threadKey(t.ID)] = int32(len(h.Threads))
	h.Threads = append(h.Threads, t)
}

func (h *Header) addMethod(m Method) {
	if h.methodIndex == nil {
		h.methodIndex = make(map[MethodID]int32)
	}
	if i, ok := h.methodIndex[m.ID]; ok {
		h.Methods[i] = m
		return
	}
	h.methodIndex[m.ID] = int32(len(h.Methods))
	h.Methods = append(h.Methods, m)
}

// keySection is the section of the key text a line belongs to.
type keySection uint8

const (
	secNone keySection = iota
	secVersion
	secOptions
	secThreads
	secMethods
	secOther // an unknown *section (e.g. Telescope's *extra-info): ignored
)

// keyParser parses key text line by line; it is shared by regular files, the
// streaming summary, .sec files and split .key files.
type keyParser struct {
	h          *Header
	sec        keySection
	sawVersion bool
	done       bool // *end seen
	options    int  // key=value lines so far
}

// maxKeyOptions bounds the key=value lines of one key text, which are all
// kept (Header.Options): the key text of a method table can be long, but
// its options are a dozen lines.
const maxKeyOptions = 4096

// line handles one line (without its '\n') that starts at offset off.
func (p *keyParser) line(b []byte, off int64) error {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(b) > 0 && b[0] == '*' {
		switch string(b) {
		case "*version":
			p.sec, p.sawVersion = secVersion, true
		case "*threads":
			p.sec = secThreads
		case "*methods":
			p.sec = secMethods
		case "*end":
			p.done = true
		default:
			p.sec = secOther
		}
		return nil
	}
	switch p.sec {
	case secVersion:
		v, err := strconv.Atoi(string(bytes.TrimSpace(b)))
		if err != nil {
			return formatErr(off, "key text: expected a version number after *version, found %q", clip(b))
		}
		p.h.KeyVersion, p.sec = v, secOptions
	case secOptions:
		if k, v, ok := bytes.Cut(b, []byte{'='}); ok {
			if p.options++; p.options > maxKeyOptions {
				return formatErr(off, "key text: more than %d key=value lines (a real key has about a dozen)", maxKeyOptions)
			}
			p.h.Options = append(p.h.Options, Option{string(k), string(v)})
		}
	case secThreads:
		return p.thread(b, off)
	case secMethods:
		return p.method(b, off)
	}
	return nil
}

func (p *keyParser) thread(b []byte, off int64) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	idText, name, _ := bytes.Cut(b, []byte{'\t'})
	id, err := strconv.ParseUint(string(bytes.TrimSpace(idText)), 10, 32)
	if err != nil {
		return formatErr(off, "key text: expected <tid><TAB><name> in *threads, found %q", clip(b))
	}
	p.h.addThread(Thread{ID: ThreadID(id), Name: decodeName(name)})
	return nil
}

func (p *keyParser) method(b []byte, off int64) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	m, ok := parseMethodLine(b)
	if !ok {
		return formatErr(off, "key text: expected <id><TAB><class><TAB><method>… in *methods, found %q", clip(b))
	}
	p.h.addMethod(m)
	return nil
}

// parseMethodLine reads one method line in any era's form (docs/formats.md §3.4):
// Dalvik's 6 fields with slash class names and a line number, ART's 5 fields,
// or the 4-field form other readers accept. Ids are hex with or without 0x.
func parseMethodLine(b []byte) (Method, bool) {
	var f [6][]byte
	n := 0
	for n < len(f) {
		i := bytes.IndexByte(b, '\t')
		if i < 0 || n == len(f)-1 {
			f[n] = b
			n++
			break
		}
		f[n], b = b[:i], b[i+1:]
		n++
	}
	if n < 3 {
		return Method{}, false
	}
	idText := bytes.TrimPrefix(bytes.TrimPrefix(bytes.TrimSpace(f[0]), []byte("0x")), []byte("0X"))
	id, err := strconv.ParseUint(string(idText), 16, 64)
	if err != nil {
		return Method{}, false
	}
	m := Method{ID: MethodID(id) &^ 3, Class: dotted(decodeName(f[1])), Name: decodeName(f[2])}
	switch {
	case n == 4 && !bytes.HasPrefix(f[3], []byte("(")):
		m.Source = sourceName(f[3])
	case n >= 4:
		m.Signature = decodeName(f[3])
	}
	if n >= 5 {
		m.Source = sourceName(f[4])
	}
	if n == 6 {
		if line, err := strconv.Atoi(string(bytes.TrimSpace(f[5]))); err == nil {
			m.Line, m.HasLine = line, true
		}
	}
	return m, true
}

// sourceName maps the writer's placeholder for "no source file" to "".
func sourceName(b []byte) string {
	if string(b) == "(null)" {
		return ""
	}
	return decodeName(b)
}

// dotted turns Dalvik's slash class names into the dotted form ART writes.
func dotted(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}

// clip shortens a quoted value in an error message.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// applyClock sets Clock from the clock= option; a missing key means
// thread-cpu, as perflib, Traceview and the Firefox Profiler assume.
func (h *Header) applyClock(from string) error {
	v, ok := h.Option("clock")
	if !ok {
		h.Clock, h.ClockFrom = ClockThreadCPU, from+" (no clock= line: thread-cpu assumed)"
		return nil
	}
	c, ok := ParseClock(v)
	if !ok {
		return formatErr(0, "key text: unknown clock %q, expected thread-cpu, wall or dual", v)
	}
	h.Clock, h.ClockFrom = c, from
	return nil
}
