package perfetto

import "github.com/atrace2/atrace2/stream"

// frameSet is the set of frames whose name and location are interned on
// one sequence. Its memory grows with what the sequence interned, not with
// the largest frame id: a bitset covers the frame ids below 64·len(dense),
// and the frames above it are in a map. Frame ids are numbered in order of
// first use, so the threads of a real trace keep every frame in the
// bitset, whose test on the fast path is one load and a mask
// (BenchmarkExporterOnly). A thread that uses a few frames with large ids
// (a late thread of a trace with many methods) holds them in the map
// instead of a bitset as large as the method table: the bitset grows only
// while it stays within a few words per frame the thread interned, or
// within a budget shared by all threads that is proportional to the
// number of methods. The memory of all sets is then O(threads + methods +
// frames interned).
type frameSet struct {
	dense  []uint64                    // bit per FrameID below 64·len(dense)
	sparse map[stream.FrameID]struct{} // interned frames at or above 64·len(dense)
	n      int                         // frames in the set
}

// denseHas reports whether f is in the set's bitset: the fast path's test.
// A false answer means f is in the map or not in the set.
func (s *frameSet) denseHas(f stream.FrameID) bool {
	w := int(uint32(f) >> 6)
	return w < len(s.dense) && s.dense[w]&(1<<(f&63)) != 0
}

// has reports whether f is in the set.
func (s *frameSet) has(f stream.FrameID) bool {
	if int(uint32(f)>>6) < len(s.dense) {
		return s.denseHas(f)
	}
	_, ok := s.sparse[f]
	return ok
}

// Words a bitset may hold whatever the shared budget: per frame interned,
// and per set.
const (
	denseWordsPerFrame = 2
	denseWordsFree     = 16
)

// add puts f, not in the set, into it. spare is the budget of bitset
// words left to all sets; add takes what it grows the bitset by from it,
// unless the set is small enough not to need it.
func (s *frameSet) add(f stream.FrameID, spare *int) {
	if w := int(uint32(f) >> 6); w < len(s.dense) || s.grow(w+1, spare) {
		s.dense[w] |= 1 << (f & 63)
	} else {
		if s.sparse == nil {
			s.sparse = make(map[stream.FrameID]struct{})
		}
		s.sparse[f] = struct{}{}
	}
	s.n++
}

// grow makes the bitset at least need words long, doubling it when it
// may, so that the frames moved over from the map are moved a few times
// at most. It reports false, and leaves the set as it is, when the bitset
// may not grow that far.
func (s *frameSet) grow(need int, spare *int) bool {
	n := max(need, 2*len(s.dense))
	if !s.mayGrow(n, *spare) {
		if n = need; !s.mayGrow(n, *spare) {
			return false
		}
	}
	if extra := n - len(s.dense); n > s.n*denseWordsPerFrame+denseWordsFree {
		*spare -= extra
	}
	s.dense = append(s.dense, make([]uint64, n-len(s.dense))...)
	for f := range s.sparse {
		if w := int(uint32(f) >> 6); w < n {
			s.dense[w] |= 1 << (f & 63)
			delete(s.sparse, f)
		}
	}
	return true
}

// mayGrow reports whether the bitset may be n words long.
func (s *frameSet) mayGrow(n, spare int) bool {
	return n <= s.n*denseWordsPerFrame+denseWordsFree || n-len(s.dense) <= spare
}
