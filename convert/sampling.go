package convert

import (
	"slices"

	"github.com/atrace2/atrace2/stream"
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
	n     int
	last  int64
	steps []int64 // ns: the thread's nonzero steps
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
			pt.steps = append(pt.steps, d)
		} else {
			s.same++
		}
	}
	pt.n++
	pt.last = v
}

// result: the mean of the lowest 20 % of nonzero steps; at 100 µs or more
// the trace is taken as sampled. The interval is the median step of the
// busiest thread: of the threads with at least 10 nonzero steps (else of
// all), the one whose median step is the shortest, as a thread whose stack
// changes at every sample steps by the interval. Idle threads change stack
// rarely, so the median step over every thread overstates the interval.
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
	busy, median, enough := -1, int64(0), false
	for i := range s.perThread {
		steps := s.perThread[i].steps
		if len(steps) == 0 || enough && len(steps) < 10 {
			continue
		}
		slices.Sort(steps)
		m := steps[len(steps)/2]
		if busy < 0 || !enough && len(steps) >= 10 || m < median {
			busy, median, enough = i, m, len(steps) >= 10
		}
	}
	return stream.Sampling{Likely: true, Interval: median, Thread: stream.ThreadIndex(busy)}
}
