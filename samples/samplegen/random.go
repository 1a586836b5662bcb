package samplegen

import (
	"fmt"
	"math/rand/v2"
)

// Pools of names, chosen to include what readers trip on: nested and
// synthetic classes, <init>, names with quotes, commas and parentheses,
// and non-ASCII text.
var (
	packages    = []string{"com.example.app", "android.os", "java.util.concurrent", "kotlinx.coroutines", "a.b"}
	classes     = []string{"Main", "Looper", "Foo$Bar", "Foo$1", "ThreadPoolExecutor$Worker", "ˊ", "Util$$Lambda$3"}
	methods     = []string{"run", "<init>", "<clinit>", "loop", "lambda$run$0", "access$100", "ˎ", "parseLong"}
	files       = []string{"Main.java", "Looper.java", "Foo.kt", "ThreadPoolExecutor.java", "SourceFile"}
	threadNames = []string{"main", "Binder:1234_2", "pool-1-thread-1", `quoted "name"`, "comma, and paren)", "ünïcödé", ""}
	groups      = []string{"main", "system", ""}
	descriptors = []string{"I", "J", "Z", "Ljava/lang/String;", "[I", "[[Ljava/lang/Object;", "Lcom/foo/Bar$Inner;", "D"}
)

func pick[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

// RandomHprof makes a random hprof description. Dalvik ones give every
// trace a thread and at least one frame, as SamplingProfiler does; JVM
// ones also have traces without thread, phase or frames, and traces with
// no samples. Trace times (for cpu=times) add up to 10 000 ms, so every
// percentage hprof prints with two decimals is exact.
func RandomHprof(rng *rand.Rand, dalvik bool) *Hprof {
	h := &Hprof{Date: "Wed Jul 21 12:03:46 2010"}
	for i := range 1 + rng.IntN(5) {
		h.Threads = append(h.Threads, Thread{
			ID: 200001 + int64(i), Obj: rng.Int64N(1 << 31), End: rng.IntN(2) == 0,
			Name: pick(rng, threadNames), Group: pick(rng, groups),
		})
	}
	pool := make([]Frame, 1+rng.IntN(30))
	for i := range pool {
		pool[i] = randomFrame(rng)
	}
	ids := rng.Perm(1 + rng.IntN(40))
	for _, id := range ids {
		t := Trace{ID: 300001 + int64(id), Thread: pick(rng, h.Threads).ID, Count: 1 + rng.Int64N(1000)}
		for range 1 + rng.IntN(8) {
			t.Frames = append(t.Frames, pick(rng, pool))
		}
		if !dalvik {
			randomJVMTrace(rng, &t)
		}
		h.Traces = append(h.Traces, t)
	}
	h.Traces[0].Count = max(h.Traces[0].Count, 1)
	spreadTime(rng, h.Traces)
	return h
}

func randomFrame(rng *rand.Rand) Frame {
	f := Frame{Class: pick(rng, packages) + "." + pick(rng, classes), Method: pick(rng, methods), Line: -1}
	if rng.IntN(5) > 0 {
		f.File = pick(rng, files)
	}
	switch rng.IntN(10) {
	case 0:
		f.Native = true
	case 1:
		f.Compiled = true
	case 2, 3:
	default:
		f.Line = rng.IntN(5000)
	}
	return f
}

// randomJVMTrace adds what only the JVM writes.
func randomJVMTrace(rng *rand.Rand, t *Trace) {
	switch rng.IntN(8) {
	case 0:
		t.Frames = nil
	case 1:
		t.Count = 0
	case 2:
		t.Phase = pick(rng, []string{"init", "live"})
	}
	if rng.IntN(2) == 0 {
		t.Thread = 0
	}
}

// spreadTime gives the traces with samples times adding up to 10 000 ms.
func spreadTime(rng *rand.Rand, ts []Trace) {
	left, last := int64(10000), -1
	for i := range ts {
		if ts[i].Count > 0 {
			ts[i].TimeMs = rng.Int64N(left/2 + 1)
			left -= ts[i].TimeMs
			last = i
		}
	}
	if last >= 0 {
		ts[last].TimeMs += left
	}
}

// RandomART makes a random ART profile description: distinct methods and,
// in bounded-stack mode, call chains whose callers come from the same
// pool. Some lines count more than their chains (counts merged from a
// method-mode run).
func RandomART(rng *rand.Rand, bounded bool) *ART {
	a := &ART{Bounded: bounded, Null: rng.Int64N(3) * rng.Int64N(100), Boot: rng.Int64N(3) * rng.Int64N(100)}
	pool := make([]MethodRef, 2+rng.IntN(20))
	for i := range pool {
		pool[i] = MethodRef{
			Class: pick(rng, packages) + "." + pick(rng, classes), Name: fmt.Sprintf("%s%d", pick(rng, methods), i),
			Return: pick(rng, append(descriptors, "V")),
		}
		for range rng.IntN(4) {
			pool[i].Params = append(pool[i].Params, pick(rng, descriptors))
		}
	}
	for _, i := range rng.Perm(len(pool))[:1+rng.IntN(len(pool))] {
		m := Method{MethodRef: pool[i], Size: rng.Int64N(500)}
		if bounded {
			m.Chains = randomChains(rng, pool)
			for _, c := range m.Chains {
				m.Count += c.Count
			}
		}
		if !bounded || rng.IntN(4) == 0 {
			m.Count += 1 + rng.Int64N(100)
		}
		a.Samples += m.Count
		a.Methods = append(a.Methods, m)
	}
	return a
}

func randomChains(rng *rand.Rand, pool []MethodRef) []Chain {
	chains := make([]Chain, rng.IntN(5))
	for i := range chains {
		chains[i] = Chain{PC: uint32(rng.IntN(300)), Count: 1 + rng.Int64N(50)}
		for range rng.IntN(4) {
			chains[i].Callers = append(chains[i].Callers, Caller{MethodRef: pick(rng, pool), PC: uint32(rng.IntN(300))})
		}
	}
	return chains
}
