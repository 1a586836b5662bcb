package stacks_test

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
)

// BenchmarkAggregate converts a 100 MB v3 trace of each shape
// (tracegen.BenchShapes) into per-thread call trees, on the pipeline's
// goroutines and on one.
func BenchmarkAggregate(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run("pipeline/"+sh.Name, func(b *testing.B) { benchAggregate(b, sh.LargeOptions, false) })
		b.Run("serial/"+sh.Name, func(b *testing.B) { benchAggregate(b, sh.LargeOptions, true) })
	}
}

func benchAggregate(b *testing.B, o tracegen.LargeOptions, serial bool) {
	data := tracegen.LargeRegular(o)
	defer func() {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(o.Records()), "ns/record")
	}()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			b.Fatal(err)
		}
		a := stacks.New()
		if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a)); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(a.Nodes())), "nodes")
		f.Close()
	}
}
