package perfetto

import (
	"encoding/binary"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/atrace2/atrace2/stream"
)

// Tags (field number << 3 | wire type) of the hand-encoded fields, from
// ../proto/perfetto_trace.proto: varint fields have wire type 0, messages
// and strings wireBytes. Tests check the output against the generated
// types.
const (
	wireBytes = 2

	tagTracePacket = 1<<3 | wireBytes // Trace.packet

	tagTimestamp     = 8 << 3            // TracePacket.timestamp
	tagTrackEvent    = 11<<3 | wireBytes // TracePacket.track_event
	tagSequenceID    = 10 << 3           // TracePacket.trusted_packet_sequence_id
	tagInternedData  = 12<<3 | wireBytes // TracePacket.interned_data
	tagSequenceFlags = 13 << 3           // TracePacket.sequence_flags

	tagEventType    = 9 << 3           // TrackEvent.type
	tagNameIID      = 10 << 3          // TrackEvent.name_iid
	tagCounterValue = 12 << 3          // TrackEvent.extra_counter_values (int64)
	tagAnnotation   = 4<<3 | wireBytes // TrackEvent.debug_annotations

	tagAnnNameIID = 1 << 3           // DebugAnnotation.name_iid
	tagAnnBool    = 2 << 3           // DebugAnnotation.bool_value
	tagAnnInt     = 4 << 3           // DebugAnnotation.int_value
	tagAnnString  = 6<<3 | wireBytes // DebugAnnotation.string_value

	tagEventNames = 2<<3 | wireBytes // InternedData.event_names
	tagLocations  = 4<<3 | wireBytes // InternedData.source_locations
	tagIID        = 1 << 3           // EventName.iid, SourceLocation.iid
	tagName       = 2<<3 | wireBytes // EventName.name
	tagLocFile    = 2<<3 | wireBytes // SourceLocation.file_name
	tagLocFunc    = 3<<3 | wireBytes // SourceLocation.function_name
	tagLocLine    = 4 << 3           // SourceLocation.line_number
	tagAnnNames   = 3<<3 | wireBytes // InternedData.debug_annotation_names
	tagStr        = 2<<3 | wireBytes // InternedString.str

	// Two-byte tags, as the two bytes of their varint.
	tagClockID0      = 58<<3&0x7F | 0x80 // TracePacket.timestamp_clock_id
	tagClockID1      = 58 << 3 >> 7
	tagSourceIID0    = 34<<3&0x7F | 0x80 // TrackEvent.source_location_iid
	tagSourceIID1    = 34 << 3 >> 7
	tagAnnStringIID0 = 17<<3&0x7F | 0x80 // DebugAnnotation.string_value_iid
	tagAnnStringIID1 = 17 << 3 >> 7
	tagAnnStrings0   = (29<<3|wireBytes)&0x7F | 0x80 // InternedData.debug_annotation_string_values
	tagAnnStrings1   = (29<<3 | wireBytes) >> 7

	typeSliceBegin = 1 // TrackEvent.TYPE_SLICE_BEGIN
	typeSliceEnd   = 2 // TrackEvent.TYPE_SLICE_END
)

// Event packets are encoded straight into the output buffer. A nested
// message's length is not known until its end, so beginMsg reserves one
// byte for it and endMsg fills it in, moving the body in the rare case that
// the length needs more than one byte. Tags below 128 are one byte and are
// appended as such.

// beginMsg appends a one-byte tag and a length placeholder and returns
// where the body starts.
func beginMsg(b []byte, tag byte) ([]byte, int) {
	b = append(b, tag, 0)
	return b, len(b)
}

// endMsg sets the length of the message whose body starts at body.
func endMsg(b []byte, body int) []byte {
	n := len(b) - body
	if n >= 0x80 {
		return endLongMsg(b, body)
	}
	b[body-1] = byte(n)
	return b
}

func endLongMsg(b []byte, body int) []byte {
	var l [binary.MaxVarintLen64]byte
	lv := protowire.AppendVarint(l[:0], uint64(len(b)-body))
	extra := len(lv) - 1
	b = slices.Grow(b, extra)[:len(b)+extra]
	copy(b[body+extra:], b[body:len(b)-extra])
	copy(b[body-1:], lv)
	return b
}

// begin writes a SLICE_BEGIN; the first begin of a method on a sequence
// also interns its name and source location. A method's iids are its
// FrameID + 1, the same for its name and its location.
func (e *Exporter) begin(th *thread, ev *stream.Event, ts, cpu int64) {
	iid := uint64(ev.Frame) + 1
	b, pkt := beginMsg(e.out, tagTracePacket)
	b = e.appendHeader(b, th, ts)
	b = append(b, tagTrackEvent, 0, tagEventType, typeSliceBegin, tagNameIID)
	te := len(b) - 3
	b = appendVarint(b, iid)
	if e.counter {
		b = appendCounter(b, th, cpu)
	}
	if e.listed[ev.Frame] {
		b = append(b, tagSourceIID0, tagSourceIID1)
		b = appendVarint(b, iid)
	}
	switch {
	case ev.Flags&stream.Cut != 0:
		b = appendStringAnnotation(b, annSynthetic, CutBegin)
	case ev.Flags&stream.Synthetic != 0:
		b = appendAnnotation(b, annSynthetic, fieldStringIID, valBeganBefore)
	}
	set := &th.interned
	if e.args[ev.Frame] {
		set = &th.withArgs
		b = appendFrameArgs(b, &e.tables.Frames[ev.Frame], ev.Frame)
	}
	b = endMsg(b, te)
	if !set.has(ev.Frame) {
		set.add(ev.Frame, &e.spare)
		fr := &e.tables.Frames[ev.Frame]
		var d int
		b, d = beginInterned(b, fr, iid)
		if e.args[ev.Frame] {
			b = appendInternedArgs(b, fr, ev.Frame, !th.argNames)
			th.argNames = true
		}
		b = endMsg(b, d)
	}
	e.out = endMsg(b, pkt)
	th.open = append(th.open, openSlice{ts: ts, cpu: cpu, began: ev.Flags & (stream.Cut | stream.Synthetic)})
}

// end writes a SLICE_END, with no name so that it closes the innermost open
// slice, and the annotations known only at the end: how the frame ended
// and whether deeper frames were folded into it.
func (e *Exporter) end(th *thread, ev *stream.Event, ts, cpu int64) {
	var o openSlice
	if n := len(th.open); n > 0 {
		o = th.open[n-1]
		th.open = th.open[:n-1]
	}
	b, pkt := beginMsg(e.out, tagTracePacket)
	b = e.appendHeader(b, th, ts)
	b = append(b, tagTrackEvent, 0, tagEventType, typeSliceEnd)
	te := len(b) - 2
	if e.counter {
		b = appendCounter(b, th, cpu)
	}
	if ev.Flags != 0 {
		b = appendEndFlags(b, ev.Flags, o.began)
	}
	if ev.Depth == MaxDepth-1 && th.folded > 0 {
		b = appendAnnotation(b, annFolded, fieldInt, uint64(th.folded))
		th.folded = 0
	}
	if e.counter && cpu == o.cpu && ts > o.ts {
		b = appendAnnotation(b, annCPU, fieldInt, 0)
	}
	if e.counter {
		if off := offCPU(th, &o, ts, cpu); off > 0 {
			b = appendAnnotation(b, annOffCPU, fieldInt, uint64(off))
		}
	}
	b = endMsg(b, te)
	e.out = endMsg(b, pkt)
}

// beginNote is the debug.synthetic of a begin flagged fl (Cut or Synthetic).
func beginNote(fl stream.Flags) string {
	if fl&stream.Cut != 0 {
		return CutBegin
	}
	return SyntheticBegin
}

// endNote is the debug.synthetic of an end flagged fl, "" for none.
func endNote(fl stream.Flags) string {
	switch {
	case fl&stream.Cut != 0:
		return CutEnd
	case fl&stream.Synthetic != 0:
		return SyntheticEnd
	case fl&stream.Implicit != 0:
		return SyntheticImplied
	}
	return ""
}

// offCPU returns the exclusive off-CPU µs of slice o, popped from th.open,
// which ends at wall ts and thread CPU cpu (it may be below 0, when the
// CPU clock ran ahead), and adds the slice's inclusive difference to its
// parent's children.
func offCPU(th *thread, o *openSlice, ts, cpu int64) int64 {
	incl := (ts - o.ts) - (cpu - o.cpu)
	if k := len(th.open); k > 0 {
		th.open[k-1].child += incl
	}
	return incl - o.child
}

// appendEndFlags marks how a frame ended: completed by the converter, or
// left by an exception. The end's debug.synthetic replaces the begin's in
// trace_processor's args, so when a window made either note, the end
// writes both (BothNotes); without a window a frame never has both.
func appendEndFlags(b []byte, fl, began stream.Flags) []byte {
	if began != 0 && fl&(stream.Cut|stream.Synthetic|stream.Implicit) != 0 && (began|fl)&stream.Cut != 0 {
		b = appendStringAnnotation(b, annSynthetic, BothNotes(beginNote(began), endNote(fl)))
		fl &^= stream.Cut | stream.Synthetic | stream.Implicit
	}
	switch {
	case fl&stream.Cut != 0:
		b = appendStringAnnotation(b, annSynthetic, CutEnd)
	case fl&stream.Synthetic != 0:
		b = appendAnnotation(b, annSynthetic, fieldStringIID, valRunningAtEnd)
	case fl&stream.Implicit != 0:
		b = appendAnnotation(b, annSynthetic, fieldStringIID, valImplied)
	}
	if fl&stream.Unwound != 0 {
		b = appendAnnotation(b, annException, fieldBool, 1)
	}
	return b
}

// appendHeader starts an event packet: its timestamp as a delta on clock 64,
// then the sequence and the flag saying the packet needs the sequence's
// state (th.prefix). A time before the previous one (never, for a valid
// stream) is written absolute on BOOTTIME instead, which leaves the delta
// chain alone.
func (e *Exporter) appendHeader(b []byte, th *thread, ts int64) []byte {
	if d := ts - th.ts; d >= 0 {
		b = append(b, tagTimestamp)
		b = appendVarint(b, uint64(d))
		th.ts = ts
	} else {
		b = append(b, tagTimestamp)
		b = appendVarint(b, uint64(e.baseNs+ts*1000))
		b = append(b, tagClockID0, tagClockID1, clockBoottime)
	}
	if th.seq < 0x80 {
		return append(b, tagSequenceID, byte(th.seq), tagSequenceFlags, seqNeeds)
	}
	return append(b, th.prefix...)
}

// appendCounter adds the thread-time counter's delta.
func appendCounter(b []byte, th *thread, cpu int64) []byte {
	d := cpu - th.cpu
	th.cpu = cpu
	b = append(b, tagCounterValue)
	return appendVarint(b, uint64(d)) // int64: two's complement
}

// appendAnnotation adds a DebugAnnotation with an interned name and one
// varint value (a bool, an int or an interned string).
func appendAnnotation(b []byte, name uint64, field annValue, v uint64) []byte {
	b, a := beginMsg(b, tagAnnotation)
	b = append(b, tagAnnNameIID, byte(name))
	switch field {
	case fieldBool:
		b = append(b, tagAnnBool)
	case fieldInt:
		b = append(b, tagAnnInt)
	case fieldStringIID:
		b = append(b, tagAnnStringIID0, tagAnnStringIID1)
	}
	b = appendVarint(b, v)
	return endMsg(b, a)
}

// appendStringAnnotation appends a debug annotation with an interned name
// and a string value written out.
func appendStringAnnotation(b []byte, name uint64, v string) []byte {
	b, a := beginMsg(b, tagAnnotation)
	b = append(b, tagAnnNameIID, byte(name), tagAnnString)
	b = appendVarint(b, uint64(len(v)))
	b = append(b, v...)
	return endMsg(b, a)
}

// annValue says which DebugAnnotation value field an annotation uses.
type annValue uint8

const (
	fieldBool annValue = iota
	fieldInt
	fieldStringIID
)

// renamed reports whether a mapping gave a frame another name or
// descriptor than the trace's. A class and method the build kept are
// mapped to themselves: their slices carry no debug.obfuscated.
func renamed(fr *stream.Frame) bool {
	return fr.Obfuscated != "" && (fr.Obfuscated != fr.Name || fr.ObfuscatedSignature != fr.Signature)
}

// appendFrameArgs adds the args of a frame a mapping renamed or marked:
// debug.obfuscated, the trace's own name (interned by
// appendInternedArgs), and debug.synthesized.
func appendFrameArgs(b []byte, fr *stream.Frame, f stream.FrameID) []byte {
	if renamed(fr) {
		b = appendAnnotation(b, annObfuscated, fieldStringIID, valFrame+uint64(f))
	}
	if fr.Synthesized {
		b = appendAnnotation(b, annSynthesized, fieldBool, 1)
	}
	return b
}

// appendInternedArgs adds to a frame's InternedData what its args need:
// the args' names, the first time on a sequence (names), and the frame's
// obfuscated name, "<class>.<method> <descriptor>" as the trace has it
// (the form of pprof's SystemName).
func appendInternedArgs(b []byte, fr *stream.Frame, f stream.FrameID, names bool) []byte {
	if names {
		for i, name := range argNames {
			var n int
			b, n = beginMsg(b, tagAnnNames)
			b = appendField(b, tagIID, uint64(annObfuscated+i))
			b = appendString(b, tagName, name)
			b = endMsg(b, n)
		}
	}
	if renamed(fr) {
		b = append(b, tagAnnStrings0, tagAnnStrings1, 0)
		v := len(b)
		b = appendField(b, tagIID, valFrame+uint64(f))
		if fr.ObfuscatedSignature != "" {
			b = appendString3(b, tagStr, fr.Obfuscated, " ", fr.ObfuscatedSignature)
		} else {
			b = appendString(b, tagStr, fr.Obfuscated)
		}
		b = endMsg(b, v)
	}
	return b
}

// beginInterned starts InternedData with a method's EventName and, for a
// method in the table, its SourceLocation: the source path, the method name
// with its JVM signature, and the line when known. The caller may add more
// and ends the message, whose body starts at d.
func beginInterned(b []byte, fr *stream.Frame, iid uint64) (_ []byte, d int) {
	b, d = beginMsg(b, tagInternedData)
	b, n := beginMsg(b, tagEventNames)
	b = appendField(b, tagIID, iid)
	b = appendString(b, tagName, fr.Name)
	b = endMsg(b, n)
	if fr.Listed {
		var l int
		b, l = beginMsg(b, tagLocations)
		b = appendField(b, tagIID, iid)
		if fr.File != "" {
			b = appendString(b, tagLocFile, fr.File)
		}
		b = appendString2(b, tagLocFunc, fr.Method, fr.Signature)
		if fr.HasLine && fr.Line > 0 {
			b = appendField(b, tagLocLine, uint64(uint32(fr.Line)))
		}
		b = endMsg(b, l)
	}
	return b, d
}

// appendVarint is protowire.AppendVarint with the one-byte case, most
// values here, inlined.
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

func appendField(b []byte, tag byte, v uint64) []byte {
	return appendVarint(append(b, tag), v)
}

func appendString(b []byte, tag byte, s string) []byte {
	b = append(b, tag)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendString3 appends the concatenation of three strings as one field.
func appendString3(b []byte, tag byte, s1, s2, s3 string) []byte {
	b = append(b, tag)
	b = appendVarint(b, uint64(len(s1)+len(s2)+len(s3)))
	return append(append(append(b, s1...), s2...), s3...)
}

// appendString2 appends the concatenation of two strings as one field.
func appendString2(b []byte, tag byte, s1, s2 string) []byte {
	b = append(b, tag)
	b = appendVarint(b, uint64(len(s1)+len(s2)))
	return append(append(b, s1...), s2...)
}
