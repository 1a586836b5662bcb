package driver

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stacks"
)

// The stack budget. The views that write each stack whole — pprof (a
// sample lists a location per frame), folded stacks (a line per stack)
// and speedscope's sampled profiles — write as many frames as the tree's
// stacks hold, the sum of every stack's depth. The depth limit
// (--max-depth) bounds each stack, not that sum: a thread that nests a
// frame at every level holds about limit²/2 frames, and a damaged trace
// whose orphan exits nest thousands deep on each of many threads held
// hundreds of millions, gigabytes of output from 3.8 MB of input. The
// budget keeps the sum in proportion to the input; a tree over it is
// refused before any view writes a frame, in one line that names the
// depth limit that would keep it within the budget. The outputs of the
// event stream (Perfetto, speedscope's evented profiles, dump) write a
// frame per event and need no budget.

const (
	// stackFloor is the budget of any input, whatever its size: a
	// recursion as deep as the default limit on two threads (2 × 2,048²/2
	// frames) fits.
	stackFloor = 1 << 22
	// stackPerByte is the budget per byte of input. Real traces hold
	// 0.01 to 0.35 frames a byte (the corpus); a stack as deep as the
	// limit on every thread of a small trace holds thousands. At one a
	// byte, folded stacks at the limit the refusal names write about 60
	// bytes a byte of input.
	stackPerByte = 1
)

// StackBudget is the number of frames the stacks of a tree read from size
// bytes of input may hold in all, for a view that writes each stack whole.
func StackBudget(size int64) int64 { return stackFloor + stackPerByte*size }

// CheckStacks refuses a tree whose stacks hold more frames in all than
// StackBudget allows its input, before a view writes them whole: a data
// error naming the depth limit (--max-depth) under which they would fit.
// A tree whose input's size is unknown (Trace.Size 0: a sampled profile,
// whose file lists each of its stacks whole) is not checked.
func (in *Input) CheckStacks(t *stacks.Tree) error {
	size := t.Trace().Size
	if size <= 0 {
		return nil
	}
	budget := StackBudget(size)
	nodes := t.Nodes()
	var frames int64
	deepest := int32(0)
	for i := range nodes {
		frames += int64(nodes[i].Depth)
		deepest = max(deepest, nodes[i].Depth)
	}
	if frames <= budget {
		return nil
	}
	fix := "--thread or --root can narrow them"
	if d := fittingDepth(t, budget); d > 0 {
		fix = fmt.Sprintf("--max-depth %d keeps them within it", d)
	}
	return fmt.Errorf("%s: the stacks hold %s frames in all (up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded); %s",
		in.Name(), units.Count(frames), deepest, units.Count(budget), units.Count(size), fix)
}

// fittingDepth is the largest depth limit at which the stacks of t would
// hold at most budget frames, 0 when none would. A read at limit d keeps
// the other frames of a stack to d (package convert, rule 6), and the
// first d of a thread's orphan exits: a node inside o of the thread's n
// orphan frames (the outermost of its stack, the last to exit outermost)
// is then inside o − (n − d) of them, none when that is not positive. A
// node with o orphan frames and r others on its stack so becomes one at
// most max(0, o − max(0, n − d)) + min(r, d) deep, and nodes only merge:
// the sum of that over the nodes bounds the frames. Under --root, whose
// stacks start inside the orphan frames, only min(o, d) bounds them.
func fittingDepth(t *stacks.Tree, budget int64) int {
	nodes := t.Nodes()
	threads := t.Trace().Threads
	rooted := t.Trace().Focus.Root != ""
	type shape struct{ orphans, others, outside int32 }
	shapes := make([]shape, len(nodes))
	deepest := int32(0)
	for i := range nodes {
		n := &nodes[i]
		if n.IsRoot() {
			continue
		}
		o := shapes[n.Parent].orphans
		if n.Orphan {
			o++
		}
		outside := int32(0) // the thread's orphan frames outside the node's stack
		if th := int(n.Thread); !rooted && th < len(threads) {
			outside = max(0, int32(threads[th].Orphans)-o)
		}
		shapes[i] = shape{o, n.Depth - o, outside}
		deepest = max(deepest, n.Depth)
	}
	frames := func(d int32) int64 {
		var sum int64
		for i := range nodes {
			s := &shapes[i]
			o := min(s.orphans, d)
			if !rooted {
				o = max(0, s.orphans-max(0, s.orphans+s.outside-d))
			}
			sum += int64(o + min(s.others, d))
		}
		return sum
	}
	// frames(d) does not decrease with d: the largest d that fits.
	lo, hi := int32(0), deepest // frames(lo) fits (0 for lo 0); frames(hi) does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if frames(mid) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int(lo)
}
