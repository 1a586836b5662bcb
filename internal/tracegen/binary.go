package tracegen

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
)

// Sizes and values of the binary layouts (docs/formats.md §4, §5, §8.1).
const (
	headerSize    = 32
	magic         = 0x574F4C53 // "SLOW" read as a little-endian u4
	streamingFlag = 0xF0

	v1RecordSize       = 9  // u1 thread, u4 method word, u4 time
	oneClockRecordSize = 10 // u2 thread, u4 method word, u4 time
	dualRecordSize     = 14 // u2 thread, u4 method word, u4 cpu, u4 wall

	// Streaming item opcodes (ART trace.cc:L69-71).
	opNewMethod    = 1
	opNewThread    = 2
	opTraceSummary = 3
)

// Regular returns a regular (non-streaming) file: the key text, the 32-byte
// SLOW header and the records (docs/formats.md §4, §5):
//
//   - v1: 9-byte records with a u1 thread and one time;
//   - v2: 10-byte records with a u2 thread and one time, and a header
//     record-size field of 0, as Dalvik and ART write it;
//   - v3 (and any other version): RecordSize-byte records (14 by default)
//     holding the thread-CPU time, then the wall time.
//
// A one-time layout holds Wall when Clock is "wall" and CPU otherwise: the
// single clock is the one clock= names, and thread-cpu is the default
// (docs/formats.md §3.2).
func (t *Trace) Regular() []byte {
	return append(t.Key(), t.data()...)
}

// Split returns the pre-1.0 NAME.key and NAME.data pair: the same bytes as
// [Trace.Regular], cut after *end\n, since joining the pair with cat gives a
// regular file (docs/formats.md §9).
func (t *Trace) Split() (key, data []byte) {
	return t.Key(), t.data()
}

// data returns the SLOW header and records of a regular file.
func (t *Trace) data() []byte {
	size, field := t.RecordSize, t.RecordSize
	switch t.Version {
	case 1:
		size = v1RecordSize
	case 2:
		size = oneClockRecordSize
	default:
		// The field is written only for versions >= 3 (DVM
		// vm/Profile.cpp:L584, ART trace.cc:L935-938).
		if size <= 0 {
			size, field = dualRecordSize, dualRecordSize
		}
	}
	buf := t.header(uint16(t.Version), uint16(field))
	rec := make([]byte, max(size, dualRecordSize))
	for _, r := range t.Records {
		n := t.encodeRecord(rec, r, t.Version)
		clear(rec[n:])
		buf = append(buf, rec[:size]...)
	}
	return buf
}

// header returns the 32-byte SLOW header followed by the padding that
// DataOffset asks for (docs/formats.md §4).
func (t *Trace) header(version, recordSize uint16) []byte {
	off := t.DataOffset
	if off == 0 {
		off = headerSize
	}
	b := make([]byte, max(off, headerSize))
	binary.LittleEndian.PutUint32(b[0:], magic)
	binary.LittleEndian.PutUint16(b[4:], version)
	binary.LittleEndian.PutUint16(b[6:], uint16(off))
	binary.LittleEndian.PutUint64(b[8:], t.Start)
	binary.LittleEndian.PutUint16(b[16:], recordSize)
	return b
}

// encodeRecord writes r in the record layout of the given version into b,
// which must hold at least 14 bytes, and returns the number of bytes used.
// Ids are truncated to the field width on purpose (docs/formats.md §7).
func (t *Trace) encodeRecord(b []byte, r Record, version int) int {
	word := r.Method | uint32(r.Action&3)
	switch version {
	case 1:
		b[0] = byte(r.Thread)
		binary.LittleEndian.PutUint32(b[1:], word)
		binary.LittleEndian.PutUint32(b[5:], t.singleTime(r))
		return v1RecordSize
	case 2:
		binary.LittleEndian.PutUint16(b[0:], uint16(r.Thread))
		binary.LittleEndian.PutUint32(b[2:], word)
		binary.LittleEndian.PutUint32(b[6:], t.singleTime(r))
		return oneClockRecordSize
	}
	// CPU comes before wall (ART trace.cc:L1796-1820; DVM
	// vm/Profile.cpp:L963-983).
	binary.LittleEndian.PutUint16(b[0:], uint16(r.Thread))
	binary.LittleEndian.PutUint32(b[2:], word)
	binary.LittleEndian.PutUint32(b[6:], r.CPU)
	binary.LittleEndian.PutUint32(b[10:], r.Wall)
	return dualRecordSize
}

// singleTime is the time a one-clock layout holds.
func (t *Trace) singleTime(r Record) uint32 {
	if t.Clock == "wall" {
		return r.Wall
	}
	return r.CPU
}

// StreamOptions selects the streaming variants of [Trace.Streaming].
type StreamOptions struct {
	// NoSummary omits the op-3 summary, as the Android 6-7 writer did (it
	// put the key in a .sec side file) and as a killed app leaves the file
	// (docs/formats.md §8.3).
	NoSummary bool
	// SummaryThreads lists the threads in the summary's *threads section,
	// as ART before 2023-07 did; newer ART leaves it empty (docs/formats.md §8.2).
	SummaryThreads bool
	// SkipThreadNames lists threads that get no op-2 item, the way ART never
	// announces "Shutdown thread" (docs/formats.md §8.4).
	SkipThreadNames map[uint32]bool
	// DefineAfterUse writes each op-1 and op-2 item after the first record
	// that uses its method or thread instead of before it. ART never does;
	// a reader must cope (docs/formats.md §8.4).
	DefineAfterUse bool
}

// Streaming returns a streaming file (docs/formats.md §8.1): the header with version
// 0xF0|Version and the record size filled in, then the records, each preceded
// where needed by an op-1 item (the method's *methods line, with its \n)
// before the first record that uses a method and an op-2 item before the
// first record of a thread, in that order, as in the public ART streaming
// fixtures (docs/formats.md §8.4, §17); the op-3 summary comes last.
//
// Version 3 records hold thread-CPU then wall time (14 bytes); other versions
// hold one time (10 bytes), chosen as in [Trace.Regular]. A non-zero
// RecordSize pads or truncates each record. Methods and threads missing from
// the tables get no definition item, which is how tests produce unknown ids.
func (t *Trace) Streaming(opt StreamOptions) []byte {
	layout, size := 2, oneClockRecordSize
	if t.Version >= 3 {
		layout, size = 3, dualRecordSize
	}
	if t.RecordSize > 0 {
		size = t.RecordSize
	}
	buf := t.header(uint16(streamingFlag|t.Version), uint16(size))

	methods := make(map[uint32]*Method, len(t.Methods))
	for i := range t.Methods {
		methods[t.Methods[i].ID] = &t.Methods[i]
	}
	threads := make(map[uint32]string, len(t.Threads))
	for _, th := range t.Threads {
		threads[th.ID] = th.Name
	}
	seenMethod := make(map[uint32]bool)
	seenThread := make(map[uint32]bool)
	rec := make([]byte, max(size, dualRecordSize))
	for _, r := range t.Records {
		var defs []byte
		if m, ok := methods[r.Method]; ok && !seenMethod[r.Method] {
			seenMethod[r.Method] = true
			defs = appendMethodItem(defs, t.methodLine(m))
		}
		if name, ok := threads[r.Thread]; ok && !seenThread[r.Thread] && !opt.SkipThreadNames[r.Thread] {
			seenThread[r.Thread] = true
			defs = appendThreadItem(defs, r.Thread, name)
		}
		if !opt.DefineAfterUse {
			buf = append(buf, defs...)
		}
		n := t.encodeRecord(rec, r, layout)
		clear(rec[n:])
		buf = append(buf, rec[:size]...)
		if opt.DefineAfterUse {
			buf = append(buf, defs...)
		}
	}
	if !opt.NoSummary {
		buf = appendSummaryItem(buf, t.key(keyKind{summary: true, threads: opt.SummaryThreads}))
	}
	return buf
}

// appendMethodItem appends op 1: u2 0, u1 1, u2 len, the line (ART
// trace.cc:L1308-1330).
func appendMethodItem(b []byte, line string) []byte {
	b = append(b, 0, 0, opNewMethod)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(line)))
	return append(b, line...)
}

// appendThreadItem appends op 2: u2 0, u1 2, u2 thread, u2 len, the name
// with no newline (ART trace.cc:L1265-1283).
func appendThreadItem(b []byte, tid uint32, name string) []byte {
	b = append(b, 0, 0, opNewThread)
	b = binary.LittleEndian.AppendUint16(b, uint16(tid))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	return append(b, name...)
}

// appendSummaryItem appends op 3: u2 0, u1 3, u4 len, the key text (ART
// trace.cc:L1078-1096).
func appendSummaryItem(b, key []byte) []byte {
	b = append(b, 0, 0, opTraceSummary)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(key)))
	return append(b, key...)
}

// Gzip returns b compressed with gzip (docs/formats.md §1, row H). The output is
// deterministic: the gzip header carries no name and no modification time.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
