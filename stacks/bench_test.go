package stacks

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// BenchmarkAggregate converts a 100 MB v3 trace of each shape
// (tracegen.BenchShapes) into per-thread call trees: decoding, the stack
// policy and the tree, declared Inline as the commands declare it, so all
// on the caller's goroutine whatever the CPUs (convert.Output.Inline; its
// cpu-ns/record at -cpu 2 against a run without Inlined shows why).
// BenchmarkTree times the tree stage alone.
func BenchmarkAggregate(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			o := sh.LargeOptions
			data := tracegen.LargeRegular(o)
			defer testutil.PerRecord(b, o.Records())()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
				if err != nil {
					b.Fatal(err)
				}
				a := New()
				if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a).Inlined()); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(a.Nodes())), "nodes")
				f.Close()
			}
		})
	}
}

// BenchmarkTree times the tree stage alone: the event stream of the
// 100 MB trace of each shape, recorded once as convert hands it over in
// one read (in its batches), replayed into a fresh TreeBuilder from Begin
// to Finish. It reports ns/event and ns/record (each record of these
// traces is one event, and the frames open at the end add a few).
func BenchmarkTree(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			o := sh.LargeOptions
			r := record(b, tracegen.LargeRegular(o), convert.Options{}, true)
			defer func() {
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(per/float64(len(r.evs)), "ns/event")
				b.ReportMetric(per/float64(o.Records()), "ns/record")
			}()
			b.ReportAllocs()
			for b.Loop() {
				a := New()
				if err := r.replay(a, nil); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(a.Nodes())), "nodes")
			}
		})
	}
}
