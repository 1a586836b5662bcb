package speedscope

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// benchRecords makes a trace of 7.5 M records of 14 bytes: about 105 MB.
const benchRecords = 7_500_000

// counter is an io.Writer that only counts.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// nop is an exporter that does nothing: the cost of reading and balancing.
type nop struct{}

func (nop) Begin(*stream.Trace) error  { return nil }
func (nop) event(*stream.Event) error  { return nil }
func (nop) Finish(*stream.Trace) error { return nil }

// benchTrace writes the generated trace and opens it.
func benchTrace(b *testing.B) (*parser.File, int64) {
	path := tracegenTrace(b, genTrace(benchRecords, 8))
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return f, st.Size()
}

// events counts a trace's balanced events.
func events(t *stream.Trace) (n int64) {
	for _, th := range t.Threads {
		n += th.Events
	}
	return n
}

// BenchmarkSpeedscope converts a generated trace of over 100 MB end to
// end, as `atrace2 speedscope` does: the converter's one pass, the spool
// and the JSON (to a counting writer). MB/s is input bytes per
// second; B/event is output bytes per balanced event.
func BenchmarkSpeedscope(b *testing.B) {
	f, size := benchTrace(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var out counter
	var n int64
	for b.Loop() {
		out.n = 0
		t, err := convert.Run(f, convert.Options{}, convert.Aggregate(New(&out, Options{TempDir: b.TempDir()})))
		if err != nil {
			b.Fatal(err)
		}
		n = events(t)
	}
	b.ReportMetric(float64(out.n)/float64(n), "B/event")
}

// BenchmarkConvertOnly is the same pass with an exporter that does nothing:
// the parser's and the converter's share of BenchmarkSpeedscope.
func BenchmarkConvertOnly(b *testing.B) {
	f, size := benchTrace(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		// One read, as for the speedscope exporter.
		if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(nop{})); err != nil {
			b.Fatal(err)
		}
	}
}

// recording keeps the whole stream, to replay it into the exporter alone.
type recording struct {
	t   *stream.Trace
	evs []stream.Event
}

func (r *recording) Begin(t *stream.Trace) error  { r.t = t; return nil }
func (r *recording) event(ev *stream.Event) error { r.evs = append(r.evs, *ev); return nil }
func (r *recording) Finish(*stream.Trace) error   { return nil }

// BenchmarkExporterOnly replays the recorded stream of the same trace into
// the exporter: its own cost, with MB/s still counted in input bytes.
func BenchmarkExporterOnly(b *testing.B) {
	f, size := benchTrace(b)
	rec := &recording{}
	if _, err := convert.Run(f, convert.Options{}, convert.Output{Exporter: rec}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	var out counter
	for b.Loop() {
		out.n = 0
		e := New(&out, Options{TempDir: b.TempDir()})
		if err := e.Begin(rec.t); err != nil {
			b.Fatal(err)
		}
		for i := range rec.evs {
			if err := e.Events(&stream.Batch{Events: []stream.Event{rec.evs[i]}, Threads: rec.t.Threads, Frames: rec.t.Frames}); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Finish(rec.t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.n)/float64(len(rec.evs)), "B/event")
}

// TestWriteBenchTrace writes the benchmark's trace to $ATRACE2_BENCH_TRACE,
// for measuring the command itself (time, peak memory), with
// $ATRACE2_BENCH_RECORDS records if set; it does nothing otherwise.
func TestWriteBenchTrace(t *testing.T) {
	path := os.Getenv("ATRACE2_BENCH_TRACE")
	if path == "" {
		t.Skip("set ATRACE2_BENCH_TRACE=FILE to write the benchmark trace")
	}
	n := benchRecords
	if s := os.Getenv("ATRACE2_BENCH_RECORDS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ATRACE2_BENCH_RECORDS: %v", err)
		}
	}
	if err := os.WriteFile(path, genTrace(n, 8).Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDecoder writes the JSON of 1 M spooled events alone, as they
// come from a µs trace: frames among 3,000, steps of a few µs (99 % of
// them below 10 µs in the harness's traces), now and then of
// milliseconds. MB/s is output bytes per second.
func BenchmarkDecoder(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const events, frames = 1 << 20, 3000
	var enc []byte
	for range events {
		step := 1000 * rng.Int64N(6)
		if rng.IntN(100) == 0 {
			step = 1000 * rng.Int64N(10_000)
		}
		enc = appendSpooled(enc, rng.IntN(frames), rng.IntN(2), step, true)
	}
	sufs := frameSuffixes(frames)
	var out counter
	w := &writer{w: &out, buf: make([]byte, 0, flushAt+4096)}
	b.ReportAllocs()
	for b.Loop() {
		d := eventWriter{tails: sufs, micro: true, first: true}
		if err := d.events(w, enc); err != nil {
			b.Fatal(err)
		}
		w.flush()
	}
	b.SetBytes(out.n / int64(b.N))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/events, "ns/event")
}

func (x nop) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (x *recording) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
