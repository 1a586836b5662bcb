package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// memoryLimit is the floor of atrace2's soft limit of the Go heap. Without
// a limit the collector lets the heap grow to gcPercent more than what is
// live; with it, a conversion whose live heap stays under half of it (every
// benchmark trace, docs/performance.md) peaks much lower at no cost in time.
const memoryLimit = 100 << 20

// limitPerLive keeps the soft limit at this many times the live heap once
// that passes memoryLimit/limitPerLive. A fixed limit below the live heap
// makes the collector run almost without pause (2-4 times the CPU on a
// 5-million-method table or a 400,000-line ART profile); a limit that
// rises with the live heap collects as GOGC=100 would there, and as
// gcPercent does below it.
const limitPerLive = 2

// gcPercent is the default GOGC (the environment's overrides it). The call
// trees grow by doubling, and Go's default of 100 collects after every
// doubling; 400 collects less often, while the soft limit still bounds the
// heap. atrace2-bench's pprof runs on the 100 MB and 1 GB traces guard the
// choice (docs/performance.md).
const gcPercent = 400

// setMemoryDefaults applies the defaults the environment does not
// override: GOGC, and a soft limit that follows the live heap (GOMEMLIMIT
// set turns that off: the user's limit stays fixed).
func setMemoryDefaults() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
		followLiveHeap()
	}
}

// limitFor returns the soft limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	return int64(max(memoryLimit, min(live, 1<<61)*limitPerLive))
}

// gcCycle is a sentinel whose finalizer runs after each collection that
// found it unreachable: once per GC cycle. Its pointer keeps it out of the
// tiny allocator, whose blocks can delay a finalizer.
type gcCycle struct{ _ *byte }

// stopFollowing ends followLiveHeap's chain at the next cycle (tests).
var stopFollowing atomic.Bool

// followLiveHeap sets the soft limit to limitFor(the live heap) after
// every garbage collection, from the finalizer goroutine.
func followLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) {
			if stopFollowing.Load() {
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
}
