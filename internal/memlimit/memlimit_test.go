package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	for live, want := range map[uint64]int64{0: floorLimit, 40 << 20: floorLimit, 50 << 20: floorLimit, 60 << 20: 120 << 20, 3 << 30: 6 << 30, math.MaxUint64: 1 << 62} {
		if got := limitFor(live); got != want {
			t.Errorf("limitFor(%d) = %d, want %d", live, got, want)
		}
	}
}

// TestFollowLiveHeap: once the live heap passes half of floorLimit, the
// soft limit rises to twice it after a collection, instead of staying
// below it (where the collector runs almost without pause).
func TestFollowLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(floorLimit))
	defer followLiveHeap()()
	live := make([]byte, 120<<20)
	for i := range live {
		live[i] = 1 // touched, so really live
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 240<<20 {
		if time.Now().After(deadline) {
			t.Fatalf("soft limit %d with 120 MiB live, want at least 240 MiB", debug.SetMemoryLimit(-1))
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}
