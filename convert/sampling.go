package convert

import (
	"slices"

	"github.com/atrace2/atrace2/convert/stream"
)

// samplingProbe implements the Firefox Profiler's heuristic (docs/formats.md §14.3):
// sampling mode synthesizes enters and exits by diffing stack samples, so
// most events share a timestamp and the distinct ones step by about the
// sampling interval. It looks at the first events of each thread.
type samplingProbe struct {
	perThread []probeThread // by ThreadIndex
	deltas    []int64       // ns: nonzero steps between successive events of one thread
	same      int           // events at the same time as their thread's previous one
	total     int
}

type probeThread struct {
	n    int
	last int64
}

const probeEvents = 500 // per thread, as the Firefox Profiler does

func (s *samplingProbe) add(t stream.ThreadIndex, wall, cpu int64) {
	for int(t) >= len(s.perThread) {
		s.perThread = append(s.perThread, probeThread{})
	}
	pt := &s.perThread[t]
	if pt.n >= probeEvents {
		return
	}
	v := wall
	if v == 0 {
		v = cpu
	}
	if pt.n > 0 {
		s.total++
		if d := v - pt.last; d > 0 {
			s.deltas = append(s.deltas, d)
		} else {
			s.same++
		}
	}
	pt.n++
	pt.last = v
}

// result: the mean of the lowest 20 % of nonzero steps; at 100 µs or more
// the trace is taken as sampled, with the median step as its interval.
func (s *samplingProbe) result() stream.Sampling {
	if len(s.deltas) < 10 {
		return stream.Sampling{}
	}
	slices.Sort(s.deltas)
	low := s.deltas[:max(1, len(s.deltas)/5)]
	var sum int64
	for _, d := range low {
		sum += d
	}
	if sum/int64(len(low)) < 100_000 {
		return stream.Sampling{}
	}
	return stream.Sampling{Likely: true, Interval: s.deltas[len(s.deltas)/2]}
}
