package folded

import (
	"bytes"
	"io"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
)

// BenchmarkFolded writes the folded stacks of a generated 32 MB trace's
// call tree, on the line tree (fast) and on the reference path (sorted
// lines), with allocations: the memory the line tree saves and the time
// the merge-free case saves are what it guards.
func BenchmarkFolded(b *testing.B) {
	data := tracegen.Large(tracegen.LargeOptions{Bytes: 32 << 20, Seed: 1}).Regular()
	f, err := parser.NewFile("big.trace", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a)); err != nil {
		b.Fatal(err)
	}
	tree := a.Tree()
	for _, c := range []struct {
		name  string
		write func() error
	}{
		{"linetree", func() error { return newLineTree(tree, Options{}).write(io.Discard, roundMicros) }},
		{"reference", func() error { return writeSorted(io.Discard, lines(tree, Options{}), roundMicros) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.write(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
