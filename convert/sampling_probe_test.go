package convert

import (
	"testing"

	"github.com/atrace2/atrace2/stream"
)

// TestSamplingProbeBusiestThread: a main thread that changes stack at
// every 3 ms sample, and ten idle threads that change every 21 ms: the
// interval is the main thread's step, not the median over all steps.
func TestSamplingProbeBusiestThread(t *testing.T) {
	var p samplingProbe
	for i := range int64(300) {
		for th := stream.ThreadIndex(1); th <= 10 && i < 60; th++ {
			p.add(th, i*21_000_000, 0)
		}
		p.add(0, i*3_000_000, 0)
		p.add(0, i*3_000_000, 0) // an exit and an enter at the same sample
	}
	got := p.result()
	if !got.Likely || got.Interval != 3_000_000 || got.Thread != 0 {
		t.Errorf("got %+v, want likely, 3 ms, thread 0", got)
	}
	if p.deltas[len(p.deltas)/2] != 21_000_000 {
		t.Errorf("the median over every thread is %d: the case does not test the busiest thread", p.deltas[len(p.deltas)/2])
	}
}
