package samples_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// bigHprof describes n traces of 8 frames drawn from 2000 methods on 8
// threads, the shape of a long hprof run with depth=8.
func bigHprof(n int) *samplegen.Hprof {
	rng := rand.New(rand.NewPCG(7, 7))
	h := &samplegen.Hprof{Date: "Sun Jan 13 05:57:25 2013"}
	for i := range 8 {
		h.Threads = append(h.Threads, samplegen.Thread{ID: 200001 + int64(i), Obj: 0x50000000 + int64(i), Name: fmt.Sprintf("worker-%d", i), Group: "main"})
	}
	for i := range n {
		t := samplegen.Trace{ID: 300001 + int64(i), Thread: 200001 + rng.Int64N(8), Count: 1 + rng.Int64N(100), TimeMs: 1}
		for range 8 {
			m := rng.IntN(2000)
			t.Frames = append(t.Frames, samplegen.Frame{Class: fmt.Sprintf("com.example.pkg%d.Class%d", m%40, m), Method: fmt.Sprintf("method%d", m%17), File: fmt.Sprintf("Class%d.java", m), Line: m % 900})
		}
		h.Traces = append(h.Traces, t)
	}
	return h
}

// bigART is an ART bounded-stack profile of n methods with 4 chains each.
func bigART(n int) *samplegen.ART {
	rng := rand.New(rand.NewPCG(7, 8))
	ref := func(i int) samplegen.MethodRef {
		return samplegen.MethodRef{Class: fmt.Sprintf("com.example.Class%d", i), Name: "run", Params: []string{"I", "Ljava/lang/String;"}, Return: "V"}
	}
	a := &samplegen.ART{Bounded: true}
	for i := range n {
		m := samplegen.Method{MethodRef: ref(i)}
		for range 4 {
			c := samplegen.Chain{PC: uint32(rng.IntN(100)), Count: 1 + rng.Int64N(20)}
			for range 3 {
				c.Callers = append(c.Callers, samplegen.Caller{MethodRef: ref(rng.IntN(n)), PC: uint32(rng.IntN(100))})
			}
			m.Chains = append(m.Chains, c)
			m.Count += c.Count
		}
		a.Samples += m.Count
		a.Methods = append(a.Methods, m)
	}
	return a
}

func BenchmarkRead(b *testing.B) {
	h := bigHprof(20000)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"dalvik", h.Dalvik()},
		{"jvm-samples", h.JVM(samplegen.JVMOptions{})},
		{"art-bounded", bigART(5000).Text()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := samples.Read(bytes.NewReader(c.data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
