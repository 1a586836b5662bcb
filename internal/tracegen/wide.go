package tracegen

import "fmt"

// Wide is a valid dual-clock v3 trace that is large in methods and threads
// at once: thread 1 calls methods distinct methods one after the other,
// then threads other threads (ids 2, 3, …; at most 65,534, the v3 limit)
// each call method number touched (0 the first, methods-1 the newest)
// once. With the newest, every frame id is in use on the first thread and
// the largest one on every other thread: the input that makes per-thread
// state sized by frame ids cost threads × methods.
func Wide(methods, threads, touched int) *Trace {
	if threads > 65534 {
		panic(fmt.Sprintf("tracegen.Wide: %d threads, the v3 limit is 65534", threads))
	}
	b := NewBuilder(Trace{Version: 3, Clock: "dual", VM: "art", Start: 1_370_000_000_000_000})
	main := b.Thread(1, "main")
	if touched < 0 || touched >= methods {
		panic(fmt.Sprintf("tracegen.Wide: method %d of %d", touched, methods))
	}
	ids := make([]uint32, methods)
	for i := range methods {
		ids[i] = b.Method(fmt.Sprintf("com.example.C%d", i/100), fmt.Sprintf("m%d", i%100), "()V", "C.java")
		main.Call(ids[i], 2, 2, nil)
	}
	for i := range threads {
		t := b.Thread(uint32(2+i), fmt.Sprintf("worker-%d", i))
		t.Call(ids[touched], 2, 2, nil)
	}
	return b.Trace()
}
