package folded

import (
	"fmt"
	"io"

	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Sampled profiles (hprof text, ART profile files) are written the same
// way, with these differences:
//
//   - VALUE is the number of samples of the stack, as flame graphs of
//     sampling profilers always count; for JVM hprof cpu=times it is the
//     stack's elapsed time in whole microseconds, as for a method trace (the
//     calls that file also counts are not a weight).
//   - The thread frame is "<name> (thread <serial>)", with the serial
//     number the file gives; stacks whose thread the file does not record
//     (JVM hprof without thread=y, ART profiles) have no thread frame.
//   - A stack without Java frames (hprof "<empty>") is the one frame
//     stacks.EmptyStackName.

// sampledThreadFrame is the root frame of a sampled profile's thread:
// "main (thread 200001)".
func sampledThreadFrame(th *stream.Thread) string {
	return clean(fmt.Sprintf("%s (thread %d)", th.Name, th.ID))
}

// sampledLines returns the folded stacks of a sampled profile and their
// values (samples, or elapsed nanoseconds for cpu=times), unsorted and before
// rounding.
func sampledLines(s *stacks.Sampled, opt Options) map[string]int64 {
	t := s.Trace()
	names := make([]string, len(t.Frames))
	for i := range t.Frames {
		names[i] = clean(t.Frames[i].Name)
	}
	unknown, hasUnknown := s.UnknownThread()
	sums := make(map[string]int64)
	var buf []byte
	var ids []stream.FrameID
	for i, n := range s.Nodes() {
		v := s.Weight(stacks.NodeID(i))
		if n.IsRoot() || v == 0 {
			continue
		}
		buf = buf[:0]
		if !opt.NoThread && (!hasUnknown || n.Thread != unknown) {
			buf = append(buf, sampledThreadFrame(&t.Threads[n.Thread])...)
		}
		ids = s.Stack(stacks.NodeID(i), ids[:0])
		buf = appendFrames(buf, ids, names)
		sums[string(buf)] += v
	}
	return sums
}

// WriteSampled writes the folded stacks of a sampled profile, sorted.
func WriteSampled(w io.Writer, s *stacks.Sampled, opt Options) error {
	sums := sampledLines(s, opt)
	value := func(v int64) int64 { return v }
	if s.Timed() {
		value = roundMicros
	}
	return writeSorted(w, sums, value)
}
