package perfetto

import (
	"google.golang.org/protobuf/proto"

	pb "github.com/atrace2/atrace2/proto"
)

// The debug annotation names, interned with the same iids on every sequence
// by its first packet. trace_processor shows them as debug.<name>.
const (
	annSynthetic = 1 + iota // string: why the converter began or ended the frame
	annException            // bool: the frame was left by an exception (an unwind record)
	annFolded               // int: frames nested below this one that were not written
	annCPU                  // int: thread CPU µs, written only when it is 0 and the slice is not
)

// The annotations of frames a mapping (--mapping) renamed. Their names are
// interned on a sequence with the first such frame it interns (argNames),
// not with the static ones, so that a trace without a mapping keeps its
// bytes.
const (
	annObfuscated  = annCPU + 1 + iota // string: the trace's own <class>.<method> and descriptor
	annSynthesized                     // bool: the mapping marks the method as made by the compiler
)

// annOffCPU is the annotation of a slice's exclusive off-CPU µs, written
// with its end when it is above 0, on traces with both clocks only: its
// name is interned by such a sequence's first packet (firstPacket), so
// that single-clock traces keep their bytes.
const annOffCPU = annSynthesized + 1 // int: exclusive wall µs − exclusive thread CPU µs, when > 0

// offCPUName is annOffCPU's name: trace_processor shows debug.offcpu_us.
const offCPUName = "offcpu_us"

// argNames are the names of annObfuscated and annSynthesized, in order.
var argNames = [...]string{"obfuscated", "synthesized"}

var annNames = [...]string{
	annSynthetic: "synthetic",
	annException: "exception",
	annFolded:    "folded_frames",
	annCPU:       "cpu_us",
}

// Values of debug.synthetic: the converter completed the frame because the
// trace lacks one of its records.
const (
	// SyntheticBegin marks a frame whose enter is missing (an orphan exit).
	SyntheticBegin = "begin: the method was already running when tracing started; atrace2 began it at the trace start"
	// SyntheticEnd marks a frame whose exit is missing at the end of the trace.
	SyntheticEnd = "end: the method was still running when tracing stopped; atrace2 ended it at the trace end"
	// SyntheticImplied marks a frame whose exit is missing but whose caller exited.
	SyntheticImplied = "end: the trace has no exit for this method; atrace2 ended it when its caller exited"
)

// Values of debug.synthetic for a frame a window (--from/--to) cut at its
// boundary. They are written inline (DebugAnnotation.string_value), not
// interned, so that the interned data of a trace without a window keeps
// its bytes: a window cuts few frames, at most the stack of each thread at
// each boundary.
const (
	// CutBegin marks a frame that began before the window.
	CutBegin = "cut: the frame began before --from; atrace2 began it at the window's start"
	// CutEnd marks a frame still running at the window's end.
	CutEnd = "cut: the frame was still running at --to; atrace2 ended it at the window's end"
)

// BothNotes is the debug.synthetic of a frame whose begin and end both have
// a note, one of them a window's cut: trace_processor keeps one value per
// arg, the end's, so the end carries both.
func BothNotes(begin, end string) string { return begin + " | " + end }

// The interned string values (DebugAnnotation.string_value_iid).
const (
	valBeganBefore = 1 + iota
	valRunningAtEnd
	valImplied
)

// valFrame is the first interned string value iid of the obfuscated names:
// a frame's is valFrame + its FrameID, interned on a sequence with the
// frame's name.
const valFrame = valImplied + 1

var annValues = [...]string{
	valBeganBefore:  SyntheticBegin,
	valRunningAtEnd: SyntheticEnd,
	valImplied:      SyntheticImplied,
}

// staticInterned is the interned data every sequence starts with.
func staticInterned() *pb.InternedData {
	d := &pb.InternedData{}
	for iid := 1; iid < len(annNames); iid++ {
		d.DebugAnnotationNames = append(d.DebugAnnotationNames, &pb.DebugAnnotationName{
			Iid: proto.Uint64(uint64(iid)), Name: proto.String(annNames[iid]),
		})
	}
	for iid := 1; iid < len(annValues); iid++ {
		d.DebugAnnotationStringValues = append(d.DebugAnnotationStringValues, &pb.InternedString{
			Iid: proto.Uint64(uint64(iid)), Str: []byte(annValues[iid]),
		})
	}
	return d
}
