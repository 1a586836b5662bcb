// Package memlimit sets atrace2's defaults for the Go garbage collector: a
// GOGC of gcPercent, and a soft memory limit that follows the live heap
// (SetDefaults). The environment's GOGC and GOMEMLIMIT override them.
//
// Without a limit the collector lets the heap grow to gcPercent more than
// what is live. A floor of floorLimit bounds that for conversions whose
// live heap stays under half of it (every benchmark trace,
// docs/performance.md), at no cost in time. A fixed limit, though, makes
// the collector run almost without pause once the live heap passes it (2-4
// times the CPU on a 5-million-method table or a 400,000-line ART profile):
// so after each collection the limit is raised to limitPerLive times the
// live heap, which then collects as GOGC=100 would.
package memlimit

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// floorLimit is the lowest soft limit of the Go heap.
const floorLimit = 100 << 20

// limitPerLive keeps the soft limit at this many times the live heap once
// that passes floorLimit/limitPerLive.
const limitPerLive = 2

// gcPercent is the default GOGC. The call trees grow by doubling, and Go's
// default of 100 collects after every doubling; 400 collects less often,
// while the soft limit still bounds the heap. atrace2-bench's pprof runs on
// the 100 MB and 1 GB traces guard the choice (docs/performance.md).
const gcPercent = 400

// SetDefaults applies the defaults the environment does not override:
// GOGC, and a soft limit that follows the live heap (GOMEMLIMIT set turns
// that off: the user's limit stays fixed).
func SetDefaults() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(floorLimit)
		followLiveHeap()
	}
}

// limitFor returns the soft limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	return int64(max(floorLimit, min(live, 1<<61)*limitPerLive))
}

// gcCycle is a sentinel whose finalizer runs after each collection that
// found it unreachable: once per GC cycle. Its pointer keeps it out of the
// tiny allocator, whose blocks can delay a finalizer.
type gcCycle struct{ _ *byte }

// followLiveHeap sets the soft limit to limitFor(the live heap) after
// every garbage collection, from the finalizer goroutine, until stop is
// called (tests): each cycle's finalizer arms the next.
func followLiveHeap() (stop func()) {
	var stopped atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(limitFor(sample[0].Value.Uint64()))
			}
			arm()
		})
	}
	arm()
	return func() { stopped.Store(true) }
}
