package perfetto_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

// TestWideTraceMemory checks that what the exporter keeps per thread does
// not grow with the frame ids the thread uses. The first thread of the
// traces calls 50,000 methods and each of 4,000 other threads calls one:
// the first method in one trace, the newest in the other. A record of
// which frames each thread interned sized by the largest frame id costs
// 4,000 × 50,000 bits (25 MB) more in the second; the limit allows it 512
// bytes a thread more.
func TestWideTraceMemory(t *testing.T) {
	const methods, threads = 50_000, 4_000
	first := exporterAllocs(t, tracegen.Wide(methods, threads, 0).Regular())
	newest := exporterAllocs(t, tracegen.Wide(methods, threads, methods-1).Regular())
	t.Logf("the exporter allocated %d bytes with the first method, %d with the newest", first, newest)
	if limit := first + 512*threads; newest > limit {
		t.Errorf("the exporter allocated %d bytes when %d threads call the newest of %d methods, %d when they call the first; want at most %d",
			newest, threads, methods, first, limit)
	}
}

// exporterAllocs returns the bytes the Perfetto exporter allocates to
// convert a trace's events, recorded beforehand.
func exporterAllocs(t *testing.T, data []byte) uint64 {
	t.Helper()
	rec := &recording{}
	run(t, data, convert.Output{Exporter: rec})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e := perfetto.New(io.Discard, perfetto.Options{})
	if err := e.Begin(rec.t); err != nil {
		t.Fatal(err)
	}
	for evs := rec.events; len(evs) > 0; {
		n := min(len(evs), 1024)
		if err := e.Events(&stream.Batch{Events: evs[:n], Threads: rec.t.Threads, Frames: rec.t.Frames}); err != nil {
			t.Fatal(err)
		}
		evs = evs[n:]
	}
	if err := e.Finish(rec.t); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if want := int64(len(rec.events)); e.EventCount() != want {
		t.Errorf("%d events written, want %d", e.EventCount(), want)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestWideTraceOutput checks a wide trace in the fast and the general
// encoders: the same bytes, decoded without problems.
func TestWideTraceOutput(t *testing.T) {
	data := tracegen.Wide(3_000, 300, 2_999).Regular()
	fast := export(t, openData(t, "wide.trace", data), perfetto.Options{})
	ref := export(t, openData(t, "wide.trace", data), perfetto.Reference(perfetto.Options{}))
	if !bytes.Equal(fast.out, ref.out) {
		t.Error("the fast and the general encoders differ")
	}
}
