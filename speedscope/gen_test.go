package speedscope

import (
	"fmt"
	"math/rand/v2"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// genTrace builds a deterministic dual-clock v3 trace of about n records.
// Each thread walks a fixed random call tree of 4000 nodes over 600
// methods (so at most 4000 distinct stacks per thread, as in a real app,
// however long the trace), and threads take turns in chunks of 64-255
// records, as a device's per-thread buffers interleave.
func genTrace(n, threads int) *tracegen.Trace {
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art",
		Options: []tracegen.Option{{Key: "pid", Value: "1000"}}})
	rng := rand.New(rand.NewPCG(uint64(n), uint64(threads)))
	ids := make([]uint32, 600)
	for i := range ids {
		ids[i] = b.Method(fmt.Sprintf("com.example.gen.C%d", i/8), fmt.Sprintf("m%d", i), "()V", fmt.Sprintf("C%d.java", i/8))
	}
	walks := make([]*walk, threads)
	for i := range walks {
		walks[i] = newWalk(rng, b.Thread(uint32(1000+i), fmt.Sprintf("worker-%d", i)), ids)
	}
	for written := 0; written < n; {
		w := walks[rng.IntN(threads)]
		for range 64 + rng.IntN(192) {
			w.step(rng)
			written++
		}
	}
	return b.Trace()
}

// walk is one thread's random walk over its call tree; node 0 is the idle
// root.
type walk struct {
	tb       *tracegen.ThreadBuilder
	method   []uint32
	parent   []int
	children [][]int
	at       int
}

func newWalk(rng *rand.Rand, tb *tracegen.ThreadBuilder, ids []uint32) *walk {
	w := &walk{tb: tb, method: []uint32{0}, parent: []int{-1}, children: [][]int{nil}}
	for i := 1; i < 4000; i++ {
		p := rng.IntN(i) // under a random earlier node: log-depth stacks
		w.method = append(w.method, ids[rng.IntN(len(ids))])
		w.parent = append(w.parent, p)
		w.children = append(w.children, nil)
		w.children[p] = append(w.children[p], i)
	}
	return w
}

// step enters a random child (a little more often than it exits, so
// stacks get deep) or exits to the parent, after 1-20 µs of wall time.
func (w *walk) step(rng *rand.Rand) {
	w.tb.Advance(uint32(1+rng.IntN(20)), uint32(rng.IntN(15)))
	kids := w.children[w.at]
	if w.at == 0 || (len(kids) > 0 && rng.IntN(100) < 52) {
		w.at = kids[rng.IntN(len(kids))]
		w.tb.Enter(w.method[w.at])
		return
	}
	w.tb.Exit(w.method[w.at])
	w.at = w.parent[w.at]
}
