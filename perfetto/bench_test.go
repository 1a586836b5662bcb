package perfetto_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

var (
	largeOnce sync.Once
	largeData []byte
)

// large is a generated dual-clock v3 trace of about 100 MB, made once per
// test binary.
func large() []byte {
	largeOnce.Do(func() {
		largeData = tracegen.Large(tracegen.LargeOptions{Bytes: 100 << 20, Seed: 1}).Regular()
	})
	return largeData
}

// countWriter discards what it is given and counts it.
type countWriter struct{ n int64 }

func (w *countWriter) Write(b []byte) (int, error) { w.n += int64(len(b)); return len(b), nil }

// BenchmarkPerfetto converts a generated 100 MB trace end to end (the
// converter and the Perfetto writer, output discarded) as the perfetto
// command does into a file: in one read, as the trace has no orphan exit.
// MB/s is of the input; bytes/event is the output size per slice begin or
// end.
func BenchmarkPerfetto(b *testing.B) {
	benchPerfetto(b, true)
}

// BenchmarkPerfettoTwoPasses is BenchmarkPerfetto in two passes, as for a
// trace with orphan exits or an output that cannot be taken back.
func BenchmarkPerfettoTwoPasses(b *testing.B) {
	benchPerfetto(b, false)
}

// benchPerfetto runs the benchmark with an output that can be taken back
// (rewind) or not.
func benchPerfetto(b *testing.B, rewind bool) {
	data := large()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var e *perfetto.Exporter
	for b.Loop() {
		w := &countWriter{}
		e = perfetto.New(w, perfetto.Options{})
		out := convert.Timeline(e, nil)
		if rewind {
			out.Restart = func() error { w.n = 0; return nil }
		}
		run(b, data, out)
	}
	b.ReportMetric(float64(e.Written())/float64(e.EventCount()), "bytes/event")
	b.ReportMetric(float64(e.EventCount()), "events")
}

// BenchmarkConvertOnly is BenchmarkPerfetto without an exporter doing any
// work: the share of the time that is the parser's and the converter's.
func BenchmarkConvertOnly(b *testing.B) {
	data := large()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		run(b, data, convert.Aggregate(nopExporter{}))
	}
}

type nopExporter struct{}

func (nopExporter) Begin(*stream.Trace) error  { return nil }
func (nopExporter) event(*stream.Event) error  { return nil }
func (nopExporter) Finish(*stream.Trace) error { return nil }

func run(tb testing.TB, data []byte, out convert.Output) {
	f, err := parser.NewFile("large.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := convert.Run(f, convert.Options{}, out); err != nil {
		tb.Fatal(err)
	}
}

// recording is a stream.Exporter that keeps the whole event stream, for
// replaying it into an exporter alone.
type recording struct {
	t      *stream.Trace
	events []stream.Event
}

// Begin forgets the events of an earlier read, as every exporter does.
func (r *recording) Begin(t *stream.Trace) error { r.t, r.events = t, r.events[:0]; return nil }

func (r *recording) Events(batch *stream.Batch) error {
	evs := batch.Events
	r.events = append(r.events, evs...)
	return nil
}

func (r *recording) Finish(*stream.Trace) error { return nil }

// BenchmarkExporterOnly replays the 100 MB trace's recorded event stream
// into the Perfetto exporter: the writer's own cost, without the parser
// and the converter. MB/s is still of the input trace.
func BenchmarkExporterOnly(b *testing.B) {
	data := large()
	rec := &recording{}
	run(b, data, convert.Output{Exporter: rec})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var e *perfetto.Exporter
	for b.Loop() {
		e = perfetto.New(&countWriter{}, perfetto.Options{})
		if err := e.Begin(rec.t); err != nil {
			b.Fatal(err)
		}
		// In batches, as the converter hands them over.
		for evs := rec.events; len(evs) > 0; {
			n := min(len(evs), 1024)
			if err := e.Events(&stream.Batch{Events: evs[:n], Threads: rec.t.Threads, Frames: rec.t.Frames}); err != nil {
				b.Fatal(err)
			}
			evs = evs[n:]
		}
		if err := e.Finish(rec.t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rec.events)), "ns/event")
}

func (x nopExporter) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
