package simpleperf

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/atrace2/atrace2/internal/pbread"
	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/samples"
)

// Magic starts every file simpleperf's report-sample --protobuf writes.
const Magic = "SIMPLEPERF"

// maxRecord is the largest record the reader accepts; simpleperf's are a
// few KiB (a File record's symbol table is the largest).
const maxRecord = 256 << 20

// ErrNotSimpleperf is wrapped by Read's error for input that is no
// simpleperf protobuf file; callers branch on it to try other readers.
var ErrNotSimpleperf = errors.New("not a simpleperf protobuf file")

// FormatError reports malformed input at a byte offset of the file (of
// the decompressed stream when the file is gzip-compressed).
type FormatError struct {
	Off  int64
	Msg  string
	Gzip bool
}

func (e *FormatError) Error() string {
	where := ""
	if e.Gzip {
		where = " of the decompressed stream"
	}
	return fmt.Sprintf("offset %d (%#x)%s: %s", e.Off, e.Off, where, e.Msg)
}

// NoSamplesError is Read's error for a file without a sample of the event
// read (simpleperf recorded nothing, or only other events).
type NoSamplesError struct {
	Records int64
	Events  []string // the events the file has samples of, and how many
}

func (e *NoSamplesError) Error() string {
	if len(e.Events) > 0 {
		return fmt.Sprintf("no CPU samples: the file holds %s, with samples of %s only", units.Plural(e.Records, "record", "records"), strings.Join(e.Events, ", "))
	}
	return fmt.Sprintf("no samples: the file holds %s", units.Plural(e.Records, "record", "records"))
}

// ProcessError is Read's error when Options.Process names no process with
// samples.
type ProcessError = profbuild.ProcessError

// Options says which samples Read keeps: samples.Select (process, threads,
// window, timeline), and the events.
type Options struct {
	samples.Select
	// AllEvents reads the samples of every event the file has, as
	// trace_processor does; by default only those of its first event (the
	// one simpleperf record leads with, cpu-clock or cpu-cycles), since
	// the others (sched:sched_switch with --trace-offcpu) do not sample
	// CPU time.
	AllEvents bool
}

// Sniff reports whether a file's first bytes, gzip-compressed or not, are
// a simpleperf protobuf file.
func Sniff(head []byte) bool {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		head, _ = io.ReadAll(io.LimitReader(zr, int64(len(Magic))))
	}
	return bytes.HasPrefix(head, []byte(Magic))
}

// Record fields (cmd_report_sample.proto).
const (
	recSample        = 1
	recLost          = 2
	recFile          = 3
	recThread        = 4
	recMetaInfo      = 5
	recContextSwitch = 6
)

// Read reads a simpleperf protobuf file (docs/formats.md §21), plain or
// gzip-compressed, and returns the samples opt selects as a profile of
// format samples.SimpleperfProto. Its files and threads come after the
// samples, so samples are counted per distinct call chain of file and
// symbol ids and named at the end. A file cut short keeps the samples
// before the cut (Profile.Truncated).
func Read(r io.Reader, opt Options) (*samples.Profile, error) {
	return read(r, opt, false)
}

// read is Read, on the reference path when reference is true.
func read(r io.Reader, opt Options, reference bool) (*samples.Profile, error) {
	rd := &reader{opt: opt, cache: !referenceOnly && !reference, b: profbuild.New(samples.SimpleperfProto, opt.Select),
		raw: map[rawFrame]int32{}, chains: map[string]int32{}, files: map[uint32]file{}, threads: map[int64]thread{},
		eventSamples: map[uint32]int64{}, eventNs: map[uint32]int64{}}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: reading the gzip header: %v", ErrNotSimpleperf, err)
		}
		rd.gzip = true
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	var hdr [12]byte
	n, err := io.ReadFull(br, hdr[:])
	if !bytes.HasPrefix(hdr[:n], []byte(Magic)) || n < len(Magic) {
		return nil, fmt.Errorf("%w: no %q magic", ErrNotSimpleperf, Magic)
	}
	if err != nil {
		return nil, &FormatError{Off: int64(n), Msg: "the file ends inside its header", Gzip: rd.gzip}
	}
	if v := binary.LittleEndian.Uint16(hdr[10:]); v != 1 {
		return nil, &FormatError{Off: 10, Msg: fmt.Sprintf("version %d; this reader knows version 1", v), Gzip: rd.gzip}
	}
	off := int64(12)
	var buf []byte
	size := make([]byte, 4)
	for {
		if k, err := io.ReadFull(br, size); err != nil {
			if k > 0 || err != io.EOF {
				rd.truncated(off, int64(k))
			} else {
				rd.truncated(off, 0) // no end marker
			}
			break
		}
		l := binary.LittleEndian.Uint32(size)
		if l == 0 {
			break // the end marker
		}
		if l > maxRecord {
			return nil, &FormatError{Off: off, Msg: fmt.Sprintf("a record of %d bytes, more than the %d this reader accepts", l, maxRecord), Gzip: rd.gzip}
		}
		if cap(buf) < int(l) {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if k, err := io.ReadFull(br, buf); err != nil {
			rd.truncated(off, 4+int64(k))
			break
		}
		if err := rd.record(buf, off+4); err != nil {
			return nil, err
		}
		rd.records++
		off += 4 + int64(l)
	}
	return rd.finish()
}

// reader holds the state of one Read.
type reader struct {
	opt     Options
	b       *profbuild.Builder
	gzip    bool
	records int64

	raw     map[rawFrame]int32 // call chain entries → builder frames, named at the end
	rawList []rawFrame
	stack   []int32
	chains  map[string]int32 // a call chain's bytes → its node
	cache   bool             // the fast path: chains is used

	files   map[uint32]file
	threads map[int64]thread
	meta    meta

	eventSamples map[uint32]int64 // samples per event type id
	eventNs      map[uint32]int64 // their event counts, for the CPU-clock events
	switches     int64
	lost         int64
}

// rawFrame is a call chain entry before its file is known: the symbol
// names it, or the address when it has none.
type rawFrame struct {
	file   uint32
	symbol int32
	vaddr  uint64
	exec   uint8
}

type file struct {
	path    string
	symbols []string
	mangled []string
}

type thread struct {
	pid  int64
	name string
}

type meta struct {
	events      []string
	app         string
	offCPU      bool
	sdk, appTyp string
}

// truncated notes a file cut short at off, inside a record whose first k
// bytes came, or before its end marker (k == 0).
func (rd *reader) truncated(off, k int64) {
	rd.b.Truncated = true
	if k == 0 {
		rd.b.Note("the file ends without its end marker (a record size of 0) at offset %d", off)
		return
	}
	rd.b.Note("the file ends inside the record at offset %d: its %d bytes were not read", off, k)
}

// record reads one Record at offset off.
func (rd *reader) record(b []byte, off int64) error {
	m := pbread.Msg{B: b, Base: off}
	for m.Next() {
		if m.Type != pbread.Bytes {
			continue
		}
		var err error
		switch m.Num {
		case recSample:
			err = rd.sample(m.Sub())
		case recLost:
			err = rd.lostSituation(m.Sub())
		case recFile:
			err = rd.file(m.Sub())
		case recThread:
			err = rd.thread(m.Sub())
		case recMetaInfo:
			err = rd.metaInfo(m.Sub())
		case recContextSwitch:
			rd.switches++
		}
		if err != nil {
			return rd.wrap(err)
		}
	}
	return rd.wrap(m.Err)
}

func (rd *reader) wrap(err error) error {
	if err == nil {
		return nil
	}
	var pe *pbread.Error
	if errors.As(err, &pe) {
		return &FormatError{Off: pe.Off, Msg: pe.Msg, Gzip: rd.gzip}
	}
	return err
}

// sample reads a Sample: time 1, thread_id 2, callchain 3 {vaddr_in_file
// 1, file_id 2, symbol_id 3, execution_type 4}, leaf first, event_count 4,
// event_type_id 5. The call chain's bytes, as written, key a cache of
// stacks: a sample whose chain was seen before costs one lookup, not one
// per frame.
func (rd *reader) sample(m pbread.Msg) error {
	var t, count uint64
	var tid int64
	var event uint32
	chainAt, chainEnd, chains := -1, -1, 0
	for m.Next() {
		switch m.Num {
		case 1:
			t = m.U
		case 2:
			tid = int64(int32(m.U))
		case 3:
			if m.Type != pbread.Bytes {
				continue
			}
			if chainAt < 0 {
				chainAt = m.At
			} else if m.At != chainEnd {
				chains++ // not contiguous: no cache
			}
			chainEnd = m.Pos()
			chains++
		case 4:
			count = m.U
		case 5:
			event = uint32(m.U)
		}
	}
	if m.Err != nil {
		return m.Err
	}
	rd.eventSamples[event]++
	if !rd.opt.AllEvents && event != 0 {
		return nil
	}
	node := profbuild.NoParent
	switch {
	case chainAt >= 0 && rd.cache:
		key := m.B[chainAt:chainEnd]
		n, ok := rd.chains[string(key)]
		if !ok {
			var err error
			if n, err = rd.chain(m); err != nil {
				return err
			}
			if chains > 0 {
				rd.chains[string(key)] = n
			}
		}
		node = n
	case chainAt >= 0:
		var err error
		if node, err = rd.chain(m); err != nil {
			return err
		}
	}
	thread := rd.b.Thread(0, tid)
	var w int64
	if ns, ok := rd.eventNs[event]; ok {
		w = int64(min(count, 1<<62))
		rd.eventNs[event] = ns + w
	}
	rd.b.Add(thread, node, int64(min(t, 1<<63-1)), w)
	return nil
}

// chain builds the stack of a Sample's call chain entries.
func (rd *reader) chain(m pbread.Msg) (int32, error) {
	m = pbread.Msg{B: m.B, Base: m.Base}
	rd.stack = rd.stack[:0]
	for m.Next() {
		if m.Num != 3 || m.Type != pbread.Bytes {
			continue
		}
		e := m.Sub()
		rf := rawFrame{symbol: -1}
		for e.Next() {
			switch e.Num {
			case 1:
				rf.vaddr = e.U
			case 2:
				rf.file = uint32(e.U)
			case 3:
				rf.symbol = int32(e.U)
			case 4:
				rf.exec = uint8(min(e.U, 255))
			}
		}
		if e.Err != nil {
			return 0, e.Err
		}
		if rf.symbol < 0 {
			rf.symbol = -1
		}
		rd.stack = append(rd.stack, rd.frame(rf))
	}
	slices.Reverse(rd.stack) // root first
	return rd.b.Stack(rd.stack), m.Err
}

// frame returns the builder frame standing for a call chain entry until
// the files name it.
func (rd *reader) frame(rf rawFrame) int32 {
	if i, ok := rd.raw[rf]; ok {
		return i
	}
	i := rd.b.Frame(samples.Frame{Name: strconv.Itoa(len(rd.rawList)), Kind: samples.UnknownFrame})
	rd.raw[rf] = i
	rd.rawList = append(rd.rawList, rf)
	return i
}

// file reads a File: id 1, path 2, symbol 3, mangled_symbol 4.
func (rd *reader) file(m pbread.Msg) error {
	var id uint64
	var f file
	for m.Next() {
		switch m.Num {
		case 1:
			id = m.U
		case 2:
			f.path = string(m.Val)
		case 3:
			f.symbols = append(f.symbols, string(m.Val))
		case 4:
			f.mangled = append(f.mangled, string(m.Val))
		}
	}
	if _, dup := rd.files[uint32(id)]; !dup && m.Err == nil {
		rd.files[uint32(id)] = f
	}
	return m.Err
}

// thread reads a Thread: thread_id 1, process_id 2, thread_name 3.
func (rd *reader) thread(m pbread.Msg) error {
	var tid, pid uint64
	var name string
	for m.Next() {
		switch m.Num {
		case 1:
			tid = m.U
		case 2:
			pid = m.U
		case 3:
			name = string(m.Val)
		}
	}
	rd.threads[int64(uint32(tid))] = thread{int64(uint32(pid)), name}
	return m.Err
}

// metaInfo reads the MetaInfo: event_type 1, app_package_name 2, app_type
// 3, android_sdk_version 4, trace_offcpu 6.
func (rd *reader) metaInfo(m pbread.Msg) error {
	for m.Next() {
		switch m.Num {
		case 1:
			rd.meta.events = append(rd.meta.events, string(m.Val))
			if cpuClock(string(m.Val)) {
				rd.eventNs[uint32(len(rd.meta.events)-1)] = 0
			}
		case 2:
			rd.meta.app = string(m.Val)
		case 3:
			rd.meta.appTyp = string(m.Val)
		case 4:
			rd.meta.sdk = string(m.Val)
		case 6:
			rd.meta.offCPU = m.U != 0
		}
	}
	return m.Err
}

// lostSituation reads a LostSituation: sample_count 1, lost_count 2.
func (rd *reader) lostSituation(m pbread.Msg) error {
	for m.Next() {
		if m.Num == 2 {
			rd.lost += int64(min(m.U, 1<<40))
		}
	}
	return m.Err
}

// cpuClock reports whether an event's counts are ns of CPU time
// (cpu-clock and task-clock, with or without modifiers such as ":u").
func cpuClock(event string) bool {
	name, _, _ := strings.Cut(event, ":")
	return name == "cpu-clock" || name == "task-clock"
}

// finish names the threads, processes and frames now that the file has
// listed them, and builds the profile.
func (rd *reader) finish() (*samples.Profile, error) {
	b := rd.b
	b.SetPIDs(func(tid int64) (int64, bool) {
		th, ok := rd.threads[tid]
		return th.pid, ok
	})
	for tid, th := range rd.threads {
		if th.name != "" {
			b.NameThread(tid, th.name, 1)
		}
		if tid == th.pid && th.name != "" {
			// The main thread's name is the process's, cut to 15 bytes
			// (comm); the app's package, when it ends with it, is the whole.
			name := th.name
			if rd.meta.app != "" && strings.HasSuffix(rd.meta.app, name) {
				name = rd.meta.app
			}
			b.NameProcess(th.pid, name, 1)
		}
	}
	var unknown []samples.Frame
	b.MapFrames(func(old samples.Frame) samples.Frame {
		i, err := strconv.Atoi(old.Name)
		if old.Kind != samples.UnknownFrame || err != nil || i >= len(rd.rawList) {
			return old
		}
		rf := rd.rawList[i]
		f, ok := rd.files[rf.file]
		if !ok {
			u := samples.Frame{Name: fmt.Sprintf("[unknown file %d]", rf.file), Kind: samples.UnknownFrame}
			unknown = append(unknown, u)
			return u
		}
		sym, mangled := "", ""
		if rf.symbol >= 0 && int(rf.symbol) < len(f.symbols) {
			sym = f.symbols[rf.symbol]
			if int(rf.symbol) < len(f.mangled) {
				mangled = f.mangled[rf.symbol]
			}
		}
		fr := profbuild.MakeFrame(sym, f.path, "", rf.vaddr, rf.exec == 1 || rf.exec == 2)
		if mangled != "" && mangled != sym && fr.Symbol == "" && fr.Kind != samples.JavaFrame {
			fr.Symbol = mangled
		}
		return fr
	})
	for _, u := range unknown {
		b.RepairFrame(b.Frame(u), "samples with frames in files the file does not list")
	}
	if rd.lost > 0 {
		b.Unlisted("samples simpleperf lost (kernel buffer full)", rd.lost)
	}
	rd.notes()
	if b.Samples() == 0 {
		e := &NoSamplesError{Records: rd.records}
		for _, id := range slices.Sorted(maps.Keys(rd.eventSamples)) {
			e.Events = append(e.Events, fmt.Sprintf("%s (%d)", rd.eventName(id), rd.eventSamples[id]))
		}
		return nil, e
	}
	return b.Finish()
}

func (rd *reader) eventName(id uint32) string {
	if int(id) < len(rd.meta.events) {
		return rd.meta.events[id]
	}
	return fmt.Sprintf("event %d", id)
}

// notes says which events were read, the period, and what was not read.
func (rd *reader) notes() {
	b := rd.b
	if n := rd.eventSamples[0]; n > 0 {
		if ns, ok := rd.eventNs[0]; ok {
			b.PeriodNanos = (ns + n/2) / n
			b.Period = fmt.Sprintf("simpleperf %s, mean event count of %s", rd.eventName(0), units.Plural(n, "sample", "samples"))
		} else {
			b.Period = "simpleperf " + rd.eventName(0)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(rd.eventSamples)) {
		if id == 0 {
			continue
		}
		if rd.opt.AllEvents {
			b.Note("the samples of %d events were read together: %s's too", len(rd.eventSamples), rd.eventName(id))
			b.Period, b.PeriodNanos = "", 0
			continue
		}
		b.Note("%s of %s not read: only %s samples measure CPU time", units.Plural(rd.eventSamples[id], "sample", "samples"), rd.eventName(id)+units.Agree(rd.eventSamples[id], " was", " were"), rd.eventName(0))
	}
	if rd.switches > 0 {
		b.Note("%s (--trace-offcpu) %s not read", units.Plural(rd.switches, "context switch", "context switches"), units.Agree(rd.switches, "was", "were"))
	}
}
