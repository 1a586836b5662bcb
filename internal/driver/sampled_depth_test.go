package driver

import (
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
)

// TestLimitDepthSampled: --max-depth on a sampled profile keeps the first
// (outermost) frames of each stack, counts the frames it folds once per
// sample, drops the frames no stack uses any more, and clears a
// profiler's own depth limit, which no stack then reaches, with a note.
func TestLimitDepthSampled(t *testing.T) {
	p := lettersProfile() // R A B A C ×3, R A D ×2, M A D ×5, R B ×4, t1 R A D ×1, <empty> ×1
	if folded, cut := limitDepth(p, 5); folded != 0 || cut != 0 {
		t.Errorf("limit 5 (the deepest stack): %d frames folded, %d stacks cut; want none", folded, cut)
	}
	p.DepthLimited = true
	// Cut at 2: R A B A C loses 3 frames ×3 samples, each R A D or M A D
	// one: 9 + 2 + 5 + 1.
	folded, cut := limitDepth(p, 2)
	if folded != 17 || cut != 4 {
		t.Errorf("limit 2: %d frames folded, %d stacks cut; want 17 and 4", folded, cut)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	got := sampled.DumpProfile(p)
	want := `total 26 (listed 16), time 0 ns, max depth 2, depth limited false, truncated false, created ""
unlisted 10: under cutoff
note: --max-depth 2 is below the profiler's own depth limit (5 frames): the stacks it cut may miss outer frames too
`
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
	want = `4 frames
sample trace 1 thread 0 count 3: p.R; p.A
sample trace 2 thread 0 count 2: p.R; p.A
sample trace 3 thread 0 count 5: p.M; p.A
sample trace 4 thread 0 count 4: p.R; p.B
sample trace 5 thread 1 count 1: p.R; p.A
sample trace 6 thread 0 count 1: <empty>
`
	if i := strings.Index(got, "4 frames"); i < 0 || got[i:] != want {
		t.Errorf("got\n%s\nwant it to end\n%s", got, want)
	}
}
