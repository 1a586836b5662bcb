package driver

import (
	"fmt"

	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/stacks"
)

// The stack budget. The views that write each stack whole — pprof (a
// sample lists a location per frame), folded stacks (a line per stack,
// holding the name of each of its frames) and speedscope's sampled
// profiles — write as much as the tree's stacks hold: the sum of every
// stack's depth in frames, and for folded stacks the sum of every stack's
// names in bytes. The depth limit (--max-depth) bounds each stack, not
// those sums: a thread that nests a frame at every level holds about
// limit²/2 frames, and a damaged trace whose orphan exits nest thousands
// deep on each of many threads held hundreds of millions, gigabytes of
// output from 3.8 MB of input; two methods with names 1,000 bytes long
// nesting 2,000 deep make 4 GB of folded stacks from 88 KB. The budget
// keeps both sums in proportion to the input; a tree over it is refused
// before any view writes a frame, in one line that names the depth limit
// that would keep it within the budget. The outputs of the event stream
// (Perfetto, speedscope's evented profiles, dump) write a frame per event
// and need no budget.

const (
	// stackFloor is the frame budget of any input, whatever its size: a
	// recursion as deep as the default limit on two threads (2 × 2,048²/2
	// frames) fits.
	stackFloor = 1 << 22
	// stackPerByte is the frame budget per byte of input. Real traces
	// hold 0.01 to 0.35 frames a byte (the corpus); a stack as deep as
	// the limit on every thread of a small trace holds thousands.
	stackPerByte = 1
	// nameFloor is the name budget of any input, in bytes: the frame
	// floor at 64 bytes a frame, about the longest names real traces
	// have on average.
	nameFloor = 64 * stackFloor
	// namePerByte is the name budget per byte of input: the frame budget
	// per byte at 64 bytes a frame.
	namePerByte = 64 * stackPerByte
)

// StackBudget is the number of frames the stacks of a tree read from size
// bytes of input may hold in all, for a view that writes each stack whole.
func StackBudget(size int64) int64 { return stackFloor + stackPerByte*size }

// NameBudget is the number of bytes the names of the stacks of a tree read
// from size bytes of input may take in all (stackCost), for a view that
// writes each stack whole.
func NameBudget(size int64) int64 { return nameFloor + namePerByte*size }

// CheckStacks refuses a tree whose stacks hold more frames in all than
// StackBudget allows its input, or whose names take more bytes in all
// than NameBudget allows, before a view writes them whole: a data error
// naming the depth limit (--max-depth) under which they would fit. A tree
// whose input's size is unknown (Trace.Size 0) is not checked.
func (in *Input) CheckStacks(t *stacks.Tree) error {
	size := t.Trace().Size
	if size <= 0 {
		return nil
	}
	frameBudget, nameBudget := StackBudget(size), NameBudget(size)
	frames, names := stackCost(t, nil, nil, nil)
	if frames <= frameBudget && names <= nameBudget {
		return nil
	}
	deepest := int32(0)
	for _, n := range t.Nodes() {
		deepest = max(deepest, n.Depth)
	}
	fix := "--thread or --root can narrow them"
	if d := fittingDepth(t, frameBudget, nameBudget); d > 0 {
		fix = fmt.Sprintf("--max-depth %d keeps them within it", d)
	}
	if frames > frameBudget {
		also := ""
		if names > nameBudget {
			also = fmt.Sprintf(", and their names take %s bytes, more than the %s allowed", units.Count(names), units.Count(nameBudget))
		}
		return fmt.Errorf("%s: the stacks hold %s frames in all (up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded)%s; %s",
			in.Name(), units.Count(frames), deepest, units.Count(frameBudget), units.Count(size), also, fix)
	}
	return fmt.Errorf("%s: the names of the stacks take %s bytes in all (up to %d deep), more than the %s that %s bytes of input allow a view that writes each stack whole (pprof, folded); %s",
		in.Name(), units.Count(names), deepest, units.Count(nameBudget), units.Count(size), fix)
}

// stackCost sums, over the stacks the views write of t — the nodes that
// hold a value (calls, time or samples: pprof's samples, folded's lines)
// — the frames of each that kept (by node index) keeps, and the bytes of
// their names: a byte for the separator after each name, and the
// thread's name with its own. That is what folded stacks write of a
// stack's line, but for its value. Under a depth limit (fittingDepth),
// a node whose frame goes and is no orphan frame is folded into its
// parent, as every node below it is, and adds nothing; the node it is
// folded into (folds) then holds a value if any node of its subtree does
// (held). A node below an orphan frame that goes keeps its stack without
// that frame. With kept nil, every frame stays.
func stackCost(t *stacks.Tree, kept, folds func(i int) bool, held []bool) (frames, names int64) {
	nodes := t.Nodes()
	tr := t.Trace()
	path := make([]int64, len(nodes)) // the bytes of the names of each node's kept stack
	depth := make([]int32, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if n.IsRoot() {
			if th := int(n.Thread); th >= 0 && th < len(tr.Threads) {
				path[i] = int64(len(tr.Threads[th].Name)) + 1
			}
			continue
		}
		path[i], depth[i] = path[n.Parent], depth[n.Parent]
		switch {
		case kept == nil || kept(i):
			depth[i]++
			if f := int(n.Frame); f >= 0 && f < len(tr.Frames) {
				path[i] += int64(len(tr.Frames[f].Name))
			}
			path[i]++
		case !n.Orphan:
			continue
		}
		if holdsValue(t, i) || kept != nil && held[i] && folds(i) {
			frames += int64(depth[i])
			names += path[i]
		}
	}
	return frames, names
}

// holdsValue reports whether node i of t holds a value of its own, a
// stack the views write (pprofout's samples).
func holdsValue(t *stacks.Tree, i int) bool {
	n := &t.Nodes()[i]
	return n.Calls != 0 || n.Wall != 0 || n.CPU != 0 || t.Samples(stacks.NodeID(i)) != 0
}

// fittingDepth is the largest depth limit at which the stacks of t would
// hold at most frameBudget frames and their names at most nameBudget
// bytes, 0 when none would. A read at limit d keeps the other frames of
// a stack to d (package convert, rule 6; the sampled stacks alike), and
// the first d of a thread's orphan exits: of a thread's n orphan frames
// (the outermost of its stacks, the last to exit outermost), the one at
// place p (1 outermost) stays when p > n − d. A frame that is no orphan
// stays when it is at most d deep among those, and the frames below it
// fold into it. Frames only go and nodes only merge, so the sums over the
// nodes of what stays (stackCost) bound what the views write. Under --root, whose stacks start inside the
// orphan frames, an orphan frame at place p of its stack stays when p ≤ d,
// a bound.
func fittingDepth(t *stacks.Tree, frameBudget, nameBudget int64) int {
	nodes := t.Nodes()
	threads := t.Trace().Threads
	rooted := t.Trace().Focus.Root != ""
	// place is an orphan frame's place among its thread's orphan frames,
	// counting from the outermost, or among its stack's under --root; a
	// frame that is no orphan has its depth among those, negated.
	place := make([]int32, len(nodes))
	orphans := make([]int32, len(nodes)) // the orphan frames on the node's stack
	outside := make([]int32, len(nodes)) // the thread's orphan frames not on it
	deepest := int32(0)
	for i := range nodes {
		n := &nodes[i]
		if n.IsRoot() {
			continue
		}
		o := orphans[n.Parent]
		if n.Orphan {
			o++
		}
		orphans[i] = o
		if th := int(n.Thread); !rooted && th < len(threads) {
			outside[i] = max(0, int32(threads[th].Orphans)-o)
		}
		if n.Orphan {
			place[i] = o
		} else {
			place[i] = -(n.Depth - o)
		}
		deepest = max(deepest, n.Depth)
	}
	held := make([]bool, len(nodes)) // a node of the subtree holds a value
	for i := len(nodes) - 1; i >= 0; i-- {
		held[i] = held[i] || holdsValue(t, i)
		if p := nodes[i].Parent; held[i] && p != stacks.NoNode {
			held[p] = true
		}
	}
	fits := func(d int32) bool {
		kept := func(i int) bool {
			p := place[i]
			switch {
			case p < 0:
				return -p <= d
			case rooted:
				return p <= d
			}
			return p > orphans[i]+outside[i]-d
		}
		folds := func(i int) bool { return place[i] == -d } // its children are deeper than d
		frames, names := stackCost(t, kept, folds, held)
		return frames <= frameBudget && names <= nameBudget
	}
	// What stays does not decrease with d: the largest d that fits.
	lo, hi := int32(0), deepest // lo fits (nothing stays at 0); hi does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int(lo)
}
