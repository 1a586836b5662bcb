// Command gensample writes a realistic sample method trace: the cold start
// of a small shopping app, recorded the way `am start --start-profiler`
// records it on an ART device (v3, dual clock, vm=art, pid, OS tids).
//
// Usage:
//
//	go run ./internal/tracegen/cmd/gensample -o testdata/sample.trace
//	go run ./internal/tracegen/cmd/gensample -format streaming -o sample-stream.trace
//
// The output is deterministic: the timing jitter comes from a fixed seed.
// Like real traces it has one orphan exit (a Binder transaction that was
// running when tracing began) and frames left open at the end (the main
// looper waiting in nativePollOnce, idle worker threads parked), see
// docs/formats.md §12 items 1 and 2.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/atrace2/atrace2/internal/tracegen"
)

func main() {
	out := flag.String("o", "", "write the trace to this file (required)")
	format := flag.String("format", "regular", "output layout: regular, streaming or text")
	gz := flag.Bool("gzip", false, "compress the output with gzip")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gensample [-format regular|streaming|text] [-gzip] -o FILE")
		os.Exit(80)
	}
	tr := startup()
	var data []byte
	switch *format {
	case "regular":
		data = tr.Regular()
	case "streaming":
		// The sample uses OS tids, as ART did before 2023, and that ART
		// also listed every thread in the summary (docs/formats.md §7, §8.2).
		data = tr.Streaming(tracegen.StreamOptions{SummaryThreads: true})
	case "text":
		data = []byte(tr.Text())
	default:
		fmt.Fprintf(os.Stderr, "gensample: unknown format %q\n", *format)
		os.Exit(80)
	}
	if *gz {
		data = tracegen.Gzip(data)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "gensample: %v\n", err)
		os.Exit(1)
	}
}

// sim wraps a Builder with realistic timing: self times jitter by ±15 %, and
// thread-CPU time is a fraction of wall time that depends on whether the
// method computes or waits.
type sim struct {
	b   *tracegen.Builder
	rng *rand.Rand
}

func newSim(base tracegen.Trace, seed uint64) *sim {
	return &sim{b: tracegen.NewBuilder(base), rng: rand.New(rand.NewPCG(seed, 0x5eed))}
}

// id returns the method id of a "pkg.Class.name(sig)ret" descriptor.
func (s *sim) id(desc string) uint32 {
	paren := strings.IndexByte(desc, '(')
	dot := strings.LastIndexByte(desc[:max(paren, 0)], '.')
	if dot < 0 {
		panic("invariant violation: bad method descriptor " + desc)
	}
	class := desc[:dot]
	return s.b.Method(class, desc[dot+1:paren], desc[paren:], sourceFile(class))
}

// sourceFile guesses the source file the dex would name: the outer class's
// simple name, .kt for Kotlin libraries and the app.
func sourceFile(class string) string {
	simple := class[strings.LastIndexByte(class, '.')+1:]
	simple, _, _ = strings.Cut(simple, "$")
	for _, p := range []string{"com.example.", "kotlin.", "kotlinx.", "okhttp3.", "androidx.lifecycle."} {
		if strings.HasPrefix(class, p) {
			return strings.TrimSuffix(simple, "Kt") + ".kt"
		}
	}
	return simple + ".java"
}

// jitter returns us ±15 %, at least 1.
func (s *sim) jitter(us uint32) uint32 {
	return max(1, us*uint32(85+s.rng.IntN(31))/100)
}

// run calls a computing method: about us µs of self time, 70-95 % of it on
// the CPU.
func (s *sim) run(t *tracegen.ThreadBuilder, desc string, us uint32, body func()) {
	wall := s.jitter(us)
	t.Call(s.id(desc), wall, wall*uint32(70+s.rng.IntN(26))/100, body)
}

// wait calls a blocking method (I/O, locks): about us µs of wall time and
// almost no CPU.
func (s *sim) wait(t *tracegen.ThreadBuilder, desc string, us uint32) {
	wall := s.jitter(us)
	t.Call(s.id(desc), wall, wall*uint32(2+s.rng.IntN(5))/100, nil)
}

// leaves calls each method in turn as a computing leaf of about us µs.
func (s *sim) leaves(t *tracegen.ThreadBuilder, us uint32, descs ...string) {
	for _, d := range descs {
		s.run(t, d, us, nil)
	}
}

// chain calls descs nested, outermost first, each with about us µs of self
// time, and runs body in the innermost one.
func (s *sim) chain(t *tracegen.ThreadBuilder, us uint32, body func(), descs ...string) {
	if len(descs) == 0 {
		if body != nil {
			body()
		}
		return
	}
	s.run(t, descs[0], us, func() { s.chain(t, us, body, descs[1:]...) })
}

// blockUntil enters desc, lets the wall clock run to wall µs and exits.
func (s *sim) blockUntil(t *tracegen.ThreadBuilder, desc string, wall uint32) {
	m := s.id(desc)
	t.Enter(m)
	t.Until(wall)
	t.Advance(s.jitter(20), s.jitter(5))
	t.Exit(m)
}

// Realistic descriptors used in several places.
const (
	looperLoop     = "android.os.Looper.loop()V"
	queueNext      = "android.os.MessageQueue.next()Landroid/os/Message;"
	pollOnce       = "android.os.MessageQueue.nativePollOnce(JI)V"
	dispatch       = "android.os.Handler.dispatchMessage(Landroid/os/Message;)V"
	enqueueMessage = "android.os.MessageQueue.enqueueMessage(Landroid/os/Message;J)Z"
	workerRun      = "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.run()V"
	runWorker      = "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.runWorker()V"
	parkNanos      = "java.util.concurrent.locks.LockSupport.parkNanos(Ljava/lang/Object;J)V"
	threadRun      = "java.lang.Thread.run()V"
	runPoolWorker  = "java.util.concurrent.ThreadPoolExecutor.runWorker(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V"
	getTask        = "java.util.concurrent.ThreadPoolExecutor.getTask()Ljava/lang/Runnable;"
	dispatchedRun  = "kotlinx.coroutines.DispatchedTask.run()V"
	resumeWith     = "kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(Ljava/lang/Object;)V"
	inflate        = "android.view.LayoutInflater.inflate(ILandroid/view/ViewGroup;Z)Landroid/view/View;"
	createView     = "android.view.LayoutInflater.createViewFromTag(Landroid/view/View;Ljava/lang/String;Landroid/content/Context;Landroid/util/AttributeSet;Z)Landroid/view/View;"
	setText        = "android.widget.TextView.setText(Ljava/lang/CharSequence;)V"
	requestLayout  = "android.view.View.requestLayout()V"
)

// loopMessage polls the main looper until wall µs, then dispatches one
// message through handler's handleMessage.
func (s *sim) loopMessage(main *tracegen.ThreadBuilder, wall uint32, handler string, body func()) {
	s.run(main, queueNext, 15, func() { s.blockUntil(main, pollOnce, wall) })
	s.run(main, dispatch, 8, func() { s.run(main, handler, 10, body) })
}

// open enters each method in turn and leaves them open: the thread is
// still inside them when tracing stops (docs/formats.md §12 item 2).
func (s *sim) open(t *tracegen.ThreadBuilder, descs ...string) {
	for _, d := range descs {
		t.Advance(s.jitter(6), s.jitter(4))
		t.Enter(s.id(d))
	}
}

// startWorker enters the frames of a coroutine worker's main loop.
func (s *sim) startWorker(w *tracegen.ThreadBuilder, at uint32) {
	w.Until(at)
	s.open(w, threadRun, workerRun, runWorker)
}

// parkWorker leaves an idle coroutine worker parked, waiting for work.
func (s *sim) parkWorker(w *tracegen.ThreadBuilder) {
	s.open(w, "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.tryPark()V",
		"kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.park()V", parkNanos)
}

// coroutine runs body as one resumed coroutine step on a worker.
func (s *sim) coroutine(w *tracegen.ThreadBuilder, step string, body func()) {
	s.chain(w, 4, body, "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.executeTask(Lkotlinx/coroutines/scheduling/Task;)V",
		dispatchedRun, resumeWith, step)
}
