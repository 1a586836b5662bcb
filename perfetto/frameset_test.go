package perfetto

import (
	"math/rand/v2"
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// TestFrameSet checks frameSet against a map on random frames, small and
// large ids mixed, with budgets that make the bitset grow, stay or
// take frames over from the map, and checks that the bitset stays within
// its allowance.
func TestFrameSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var s frameSet
		spare := rng.IntN(3) * 64 // none, a little, some
		want := map[stream.FrameID]bool{}
		maxID := 1 << (4 + rng.IntN(14))
		for range rng.IntN(2000) {
			f := stream.FrameID(rng.IntN(maxID))
			if rng.IntN(4) == 0 { // often the small ids of a busy thread
				f = stream.FrameID(rng.IntN(256))
			}
			if got := s.has(f); got != want[f] {
				t.Fatalf("round %d: has(%d) = %v, want %v", round, f, got, want[f])
			}
			if s.denseHas(f) && !want[f] {
				t.Fatalf("round %d: denseHas(%d) without add", round, f)
			}
			if !want[f] {
				s.add(f, &spare)
				want[f] = true
			}
			if spare < 0 {
				t.Fatalf("round %d: spare budget %d", round, spare)
			}
		}
		for f := range want {
			if !s.has(f) {
				t.Fatalf("round %d: frame %d lost", round, f)
			}
		}
		if s.n != len(want) || len(s.sparse) > s.n {
			t.Fatalf("round %d: n = %d, %d in the map, want %d in all", round, s.n, len(s.sparse), len(want))
		}
		for f := range s.sparse {
			if int(f>>6) < len(s.dense) {
				t.Fatalf("round %d: frame %d is in the map and under the bitset's %d words", round, f, len(s.dense))
			}
		}
		if limit := 2*(s.n*denseWordsPerFrame+denseWordsFree) + 2*64; len(s.dense) > limit {
			t.Fatalf("round %d: %d bitset words for %d frames", round, len(s.dense), s.n)
		}
	}
}
