package tracegen

import (
	"fmt"
	"math/rand/v2"
)

// Small is a small fixed trace of the given record version and clock: two
// threads, one with a tid above 65535, a method of the Android framework and
// an obfuscated one with Modified UTF-8 names, and four records including an
// unwind. vm selects the method-line style ("art", "dalvik" or "").
func Small(version int, clock, vm string) *Trace {
	return &Trace{
		Version: version, Clock: clock, VM: vm, Start: 1_370_000_000_000_000,
		Options: []Option{{Key: "pid", Value: "4242"}},
		Threads: []Thread{{ID: 1, Name: "main"}, {ID: 70000, Name: "Binder:4242_2"}},
		Methods: []Method{
			{ID: 0, Class: "android.os.Looper", Name: "loop", Signature: "()V", Source: "Looper.java", Line: 120},
			{ID: 4, Class: "com.example.ˊ", Name: "ˎ", Signature: "(I)V", Source: ""},
		},
		Records: []Record{
			{Thread: 1, Method: 0, Action: Enter, CPU: 1, Wall: 10},
			{Thread: 70000, Method: 4, Action: Enter, CPU: 0, Wall: 12},
			{Thread: 70000, Method: 4, Action: Unwind, CPU: 3, Wall: 15},
			{Thread: 1, Method: 0, Action: Exit, CPU: 9, Wall: 20},
		},
	}
}

// Random makes a trace with random threads, methods and records, balanced
// or not, with some method ids missing from the table: input for reader
// tests, which do not care about balance.
func Random(rng *rand.Rand, version int, clock string) *Trace {
	tr := &Trace{Version: version, Clock: clock, VM: "art", Start: rng.Uint64N(1 << 40)}
	nThreads, nMethods := 1+rng.IntN(5), 1+rng.IntN(20)
	for i := range nThreads {
		tr.Threads = append(tr.Threads, Thread{ID: uint32(1 + i*7), Name: fmt.Sprintf("thread-%d", i)})
	}
	for i := range nMethods {
		tr.Methods = append(tr.Methods, Method{ID: uint32(i << 2), Class: "com.example.C" + fmt.Sprint(i), Name: "m", Signature: "()V", Source: "C.java"})
	}
	for range rng.IntN(200) {
		tr.Records = append(tr.Records, Record{
			Thread: tr.Threads[rng.IntN(nThreads)].ID,
			Method: uint32(rng.IntN(nMethods+2) << 2), // some ids unknown
			Action: Action(rng.IntN(3)),
			CPU:    rng.Uint32(), Wall: rng.Uint32(),
		})
	}
	return tr
}

// mainAfterWorker starts the traces of Nested and Orphans: a short call on
// a worker thread, then the main thread, which the caller fills.
func mainAfterWorker() (*Builder, *ThreadBuilder) {
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_370_000_000_000_000,
		Options: []Option{{Key: "pid", Value: "4242"}}})
	other := b.Thread(2, "worker")
	other.Call(b.Method("com.example.Worker", "run", "()V", "Worker.java"), 5, 3, nil)
	return b, b.Thread(1, "main")
}

// Nested makes a trace with one thread that enters depth nested frames (a
// recursion through three methods, 1 µs apart on both clocks) and then
// exits them all, after a short call on a second thread: input for the
// tests and measurements of deep stacks.
func Nested(depth int) *Trace {
	b, main := mainAfterWorker()
	ms := []uint32{
		b.Method("com.example.Deep", "a", "(I)V", "Deep.java"),
		b.Method("com.example.Deep", "b", "(I)V", "Deep.java"),
		b.Method("com.example.Deep", "c", "(I)V", "Deep.java"),
	}
	for i := range depth {
		main.Enter(ms[i%3])
		main.Advance(1, 1)
	}
	for i := depth - 1; i >= 0; i-- {
		main.Exit(ms[i%3])
		main.Advance(1, 1)
	}
	return b.Trace()
}

// Orphans makes a trace with one thread that calls a leaf method and then
// exits a method it never entered, n times (a short call on a second thread
// first): n orphan exits in a row, each of which encloses everything its
// thread did before it, so that they nest n deep. Input for the tests and
// measurements of the orphan rule's depth.
func Orphans(n int) *Trace {
	b, main := mainAfterWorker()
	leaf := b.Method("com.example.Leaf", "work", "()V", "Leaf.java")
	ms := []uint32{
		b.Method("com.example.Outer", "a", "()V", "Outer.java"),
		b.Method("com.example.Outer", "b", "()V", "Outer.java"),
		b.Method("com.example.Outer", "c", "()V", "Outer.java"),
	}
	for i := range n {
		main.Call(leaf, 2, 2, nil)
		main.Exit(ms[i%3])
		main.Advance(1, 1)
	}
	return b.Trace()
}

// Runaway makes a trace with one thread that recurses depth frames deep
// through three methods, 1 µs apart on both clocks, and is still inside
// them all when tracing stops (a short call on a second thread first): a
// runaway recursion cut by the end of the trace, 14 bytes of input a
// level. Input for the tests of output amplification: every level is a
// distinct stack with time of its own.
func Runaway(depth int) *Trace {
	b, main := mainAfterWorker()
	ms := []uint32{
		b.Method("com.example.Runaway", "a", "(I)V", "Runaway.java"),
		b.Method("com.example.Runaway", "b", "(I)V", "Runaway.java"),
		b.Method("com.example.Runaway", "c", "(I)V", "Runaway.java"),
	}
	for i := range depth {
		main.Enter(ms[i%3])
		main.Advance(1, 1)
	}
	return b.Trace()
}

// OrphanNests makes a trace of threads threads (tids 100 up, besides the
// main thread's short call), on which orphans orphan exits in all are
// spread evenly, each thread's nesting as deep as its share: a call of a
// leaf method before five orphan exits of six, then the exit of a
// method never entered. Each orphan exit encloses everything its thread
// did before it, so the leaf calls sit at every depth of the nest: the
// shape of a damaged trace whose records went to threads that only exit
// (about 37 bytes of input an orphan exit). Input for the tests of output
// amplification.
func OrphanNests(threads, orphans int) *Trace {
	b, main := mainAfterWorker()
	main.Call(b.Method("com.example.Main", "run", "()V", "Main.java"), 4, 2, nil)
	leaf := b.Method("com.example.Leaf", "work", "()V", "Leaf.java")
	ms := []uint32{
		b.Method("com.example.Outer", "a", "()V", "Outer.java"),
		b.Method("com.example.Outer", "b", "()V", "Outer.java"),
		b.Method("com.example.Outer", "c", "()V", "Outer.java"),
	}
	for t := range threads {
		th := b.Thread(uint32(100+t), fmt.Sprintf("worker-%d", t))
		n := orphans / threads
		if t < orphans%threads {
			n++
		}
		for i := range n {
			if i%6 != 5 {
				th.Call(leaf, 2, 1, nil)
			}
			th.Exit(ms[i%3])
			th.Advance(1, 1)
		}
	}
	return b.Trace()
}
