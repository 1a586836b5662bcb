package report

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// bigTrace generates a v3 dual-clock trace of about mb megabytes: 8
// threads walking a fixed call graph of 4,000 methods (each calls one of
// three callees, or itself now and then), so that stacks repeat as in a
// real startup trace while the tree still grows to about a million nodes.
func bigTrace(mb int) []byte {
	const threads, methods, maxDepth = 8, 4000, 40
	tr := &tracegen.Trace{Version: 3, Clock: "dual", VM: "art"}
	for i := range methods {
		tr.Methods = append(tr.Methods, tracegen.Method{
			ID: uint32(i) << 2, Class: fmt.Sprintf("com.example.feature%d.ui.Screen%dViewModel", i%40, i%400),
			Name: fmt.Sprintf("method%d", i), Signature: "()V", Source: "Screen.kt",
		})
	}
	for t := range threads {
		tr.Threads = append(tr.Threads, tracegen.Thread{ID: uint32(t + 1), Name: fmt.Sprintf("thread-%d", t)})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tr.Records = make([]tracegen.Record, 0, mb<<20/14)
	stacks := make([][]uint32, threads)
	var cpu, wall [threads]uint32
	for len(tr.Records) < cap(tr.Records) {
		t := rng.IntN(threads)
		st := stacks[t]
		cpu[t] += uint32(rng.IntN(5))
		wall[t] += uint32(rng.IntN(8))
		rec := tracegen.Record{Thread: uint32(t + 1), CPU: cpu[t], Wall: wall[t]}
		if len(st) > 0 && rng.IntN(maxDepth) < len(st)*2 {
			rec.Method, rec.Action = st[len(st)-1]<<2, tracegen.Exit
			stacks[t] = st[:len(st)-1]
		} else {
			m := uint32(rng.IntN(threads)) // thread entry points
			if len(st) > 0 {
				m = callee(st[len(st)-1], rng, methods)
			}
			rec.Method, rec.Action = m<<2, tracegen.Enter
			stacks[t] = append(st, m)
		}
		tr.Records = append(tr.Records, rec)
	}
	return tr.Regular()
}

// callee picks what caller calls: itself one time in 20 (recursion),
// otherwise one of its three fixed callees.
func callee(caller uint32, rng *rand.Rand, methods int) uint32 {
	if rng.IntN(20) == 0 {
		return caller
	}
	return (caller*31 + uint32(rng.IntN(3))*17 + 1) % uint32(methods)
}

// BenchmarkTop measures the whole top command on a 100 MB trace: parsing,
// the stack policy, aggregation, the per-method profile and the text.
func BenchmarkTop(b *testing.B) {
	data := bigTrace(100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		top(b, loadBytes(b, "big.trace", data))
	}
}

// BenchmarkTopReport measures this package's share of BenchmarkTop: the
// per-method profile and the text, from an aggregated tree (MB/s of the
// same trace).
func BenchmarkTopReport(b *testing.B) {
	data := bigTrace(100)
	a := aggregate(b, "big.trace", data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := NewProfile(a)
		if err != nil {
			b.Fatal(err)
		}
		top(b, p)
	}
	b.ReportMetric(float64(len(a.Nodes())), "nodes")
}

func top(b *testing.B, p *Profile) {
	r, err := p.Top(TopOptions{Limit: 50})
	if err != nil {
		b.Fatal(err)
	}
	if err := r.WriteText(io.Discard, TextOptions{Width: 160}); err != nil {
		b.Fatal(err)
	}
}
