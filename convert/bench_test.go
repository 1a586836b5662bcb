package convert_test

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

type discard struct{ n int64 }

func (d *discard) Begin(*stream.Trace) error    { return nil }
func (d *discard) event(ev *stream.Event) error { d.n++; return nil }
func (d *discard) Finish(*stream.Trace) error   { return nil }

// BenchmarkConvert measures both passes of the stack policy over a 100 MB
// v3 trace of each shape (tracegen.BenchShapes), with an exporter that only
// counts events, on the pipeline's second goroutine and on the caller's.
func BenchmarkConvert(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run("pipeline/"+sh.Name, func(b *testing.B) { benchConvert(b, sh.LargeOptions, false) })
		b.Run("serial/"+sh.Name, func(b *testing.B) { benchConvert(b, sh.LargeOptions, true) })
	}
}

func benchConvert(b *testing.B, o tracegen.LargeOptions, serial bool) {
	data := tracegen.LargeRegular(o)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer testutil.PerRecord(b, o.Records())()
	for b.Loop() {
		f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		d := &discard{}
		if _, err := convert.Run(f, convert.Serial(convert.Options{}, serial), output(d)); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkAnalyze measures the first pass alone (what info runs), on
// each shape.
func BenchmarkAnalyze(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			data := tracegen.LargeRegular(sh.LargeOptions)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			defer testutil.PerRecord(b, sh.LargeOptions.Records())()
			for b.Loop() {
				f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := convert.Analyze(f, convert.Options{}); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

// BenchmarkAnalyzeStreaming measures the first pass over a 100 MB streaming
// trace, scanned for its definitions at Open (the parser's default) and
// read once (parser.Options.SkipStreamingScan, as the command line opens
// files).
func BenchmarkAnalyzeStreaming(b *testing.B) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 100 << 20, Seed: 1}).Streaming(tracegen.StreamOptions{})
	for _, c := range []struct {
		name string
		skip bool
	}{{"scanned", false}, {"read-once", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{SkipStreamingScan: c.skip})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := convert.Analyze(f, convert.Options{}); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

func (x *discard) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
