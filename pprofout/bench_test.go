package pprofout_test

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// BenchmarkPprof converts the 100 MB v3 dual-clock trace of each shape
// (tracegen.BenchShapes, the harness's traces) end to end, as `atrace2
// pprof -o` does: open, the converter's one pass, the call tree, the
// profile, and the gzipped write (to io.Discard).
func BenchmarkPprof(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			data := tracegen.LargeRegular(sh.LargeOptions)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var n int
			defer testutil.PerRecord(b, sh.Records())()
			for b.Loop() {
				a := shapeTree(b, data)
				if err := pprofout.Write(io.Discard, a, pprofout.Options{Version: "bench"}); err != nil {
					b.Fatal(err)
				}
				n = stackCount(a)
			}
			b.ReportMetric(float64(n), "stacks")
		})
	}
}

// shapeTree is the call tree of a trace in memory, made as the command
// line makes it.
func shapeTree(tb testing.TB, data []byte) *stacks.Tree {
	f, err := parser.NewFile("large", bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Aggregate(a).Inlined()); err != nil {
		tb.Fatal(err)
	}
	return a.Tree()
}

// stackCount counts the call tree's distinct stacks (the profile's samples,
// but for stacks whose frames share a function).
func stackCount(a *stacks.Tree) int {
	n := 0
	for _, nd := range a.Nodes() {
		if !nd.IsRoot() {
			n++
		}
	}
	return n
}

// BenchmarkPprofBuild is the serial end of BenchmarkPprof, what follows the
// converter's pass, on the call tree of each shape's 100 MB trace: "add"
// builds the profile's tables (Builder.Add), "add+write" also encodes and
// gzips it (Builder.Write, to io.Discard), as the command does. It grows
// with the distinct stacks, not with the trace's length: it reports
// ns/stack, and ns/record (per record of the trace) to set it beside the
// per-record stages of the convert and stacks benchmarks.
//
// "add+write/cold" starts each iteration, as the command does, on memory
// the process has not touched yet: the heap is returned to the system
// between iterations (fresh, below). A first write to a page costs a page
// fault, which on this project's virtual machines made the end of a real
// run several times slower than a loop that reuses its heap.
func BenchmarkPprofBuild(b *testing.B) {
	for _, sh := range tracegen.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			a := shapeTree(b, tracegen.LargeRegular(sh.LargeOptions))
			n := stackCount(a)
			run := func(name string, cold, write bool) {
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if cold {
							fresh(b)
						}
						bld := pprofout.New(pprofout.Options{Version: "bench"})
						if err := bld.Add(a); err != nil {
							b.Fatal(err)
						}
						if !write {
							continue
						}
						if err := bld.Write(io.Discard); err != nil {
							b.Fatal(err)
						}
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(ns/float64(n), "ns/stack")
					b.ReportMetric(ns/float64(sh.Records()), "ns/record")
					b.ReportMetric(float64(n), "stacks")
				})
			}
			run("add", false, false)
			run("add+write", false, true)
			run("add+write/cold", true, true)
		})
	}
}

// fresh returns the heap's free memory to the system, outside the timer, so
// that the next allocations take new pages as they do in a process that
// runs once.
func fresh(b *testing.B) {
	b.StopTimer()
	runtime.GC()
	debug.FreeOSMemory()
	b.StartTimer()
}
