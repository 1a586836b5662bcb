package convert

import (
	"fmt"

	"github.com/atrace2/atrace2/mapping"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// tableFrame names a method of h's table; an id missing from the table gets
// a name that still tells methods apart.
func tableFrame(id stream.FrameID, mid parser.MethodID, h *parser.Header) stream.Frame {
	m, ok := h.Method(mid)
	if !ok {
		name := fmt.Sprintf("<unknown method %#x>", uint64(mid))
		return stream.Frame{ID: id, MethodID: stream.MethodID(mid), Name: name, Method: name}
	}
	return stream.Frame{
		ID: id, MethodID: stream.MethodID(mid), Listed: true,
		Name:  m.Class + "." + m.Name,
		Class: m.Class, Method: m.Name, Signature: m.Signature,
		Line: m.Line, HasLine: m.HasLine,
		File: stream.SourcePath(m.Class, m.Source),
	}
}

// newMappedFrame is tableFrame with the method named as m resolves it
// (docs/formats.md §19); m nil gives tableFrame's frame. It reports how m
// resolved the method, and ok false, with tableFrame's frame, when there is
// no map or the method is not in the table.
func newMappedFrame(id stream.FrameID, mid parser.MethodID, h *parser.Header, m *mapping.Map) (f stream.Frame, s mapping.Status, ok bool) {
	f = tableFrame(id, mid, h)
	if m == nil || !f.Listed {
		return f, 0, false
	}
	pm, _ := h.Method(mid)
	res := m.Resolve(MappingMethod(pm))
	rename(&f, res)
	return f, res.Status, true
}

// MappingMethod is a method of the table as package mapping takes it.
func MappingMethod(m *parser.Method) mapping.Method {
	return mapping.Method{Class: m.Class, Name: m.Name, Signature: m.Signature, Source: m.Source}
}

// MappingMethods lists the header's methods as package mapping takes them.
func MappingMethods(h *parser.Header) []mapping.Method {
	ms := make([]mapping.Method, len(h.Methods))
	for i := range h.Methods {
		ms[i] = MappingMethod(&h.Methods[i])
	}
	return ms
}

// rename names the frame of a method as a mapping resolved it: the
// original name, class, method and signature, and the source path of the
// owner class (stream.SourcePath), keeping the trace's own name and
// descriptor in Obfuscated and ObfuscatedSignature. An Untouched method
// keeps the frame as it is.
func rename(f *stream.Frame, res mapping.Result) {
	if res.Status == mapping.Untouched {
		return
	}
	f.Obfuscated, f.ObfuscatedSignature = f.Name, f.Signature
	f.Name, f.Class, f.Method, f.Signature = res.Name, res.Class, res.Method, res.Signature
	f.File = stream.SourcePath(res.Class, res.Source)
	f.Synthesized = res.Synthesized
}

// Deobf is the summary of how m named the methods that c counts (see
// mapping.Counts), as the Trace carries it; nil when m is nil.
func Deobf(m *mapping.Map, c mapping.Counts) *stream.Deobf {
	if m == nil {
		return nil
	}
	return &stream.Deobf{
		Map: m.Name, MapID: m.ID,
		Mapped: c[mapping.Mapped], NameOnly: c[mapping.NameOnly], Ambiguous: c[mapping.Ambiguous],
		ClassOnly: c[mapping.ClassOnly], Untouched: c[mapping.Untouched],
	}
}

// process is what h says about the process the trace recorded.
func process(h *parser.Header) stream.Process {
	elapsed, _ := h.Elapsed()
	return stream.Process{PID: h.PID(), StartMicros: h.StartTime, Epoch: h.EpochStart(), Elapsed: elapsed}
}
