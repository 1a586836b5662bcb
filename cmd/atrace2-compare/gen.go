package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples/samplegen"
	"golang.org/x/tools/txtar"
)

// kind says what an input is, which decides the commands run on it.
type kind uint8

const (
	kindTrace   kind = iota // a method trace: every command
	kindSampled             // a sampled profile: no timeline
	kindBad                 // not readable: every command must fail alike
)

// input is one file (or split pair) under -dir/in.
type input struct {
	name  string   // the path argument, relative to in/
	kind  kind     // what the file is
	rich  bool     // run every option on it, not only the main commands
	big   bool     // a few MB: the main commands only
	v2    bool     // an ART V2 trace (--time-unit matters)
	extra []string // arguments that follow the trace, such as its .sec file
	// more, when set, gives commands run besides those of its kind: the
	// ones that use the files generated beside the input.
	more func(input) []command
}

// file is one generated input file and its contents.
type file struct {
	name string
	data []byte
}

// prepareInputs writes the inputs into dir and returns them: the corpus
// files, the sample, and the generated traces and profiles (root, the
// checkout, may be "": its txtar cases are then left out). Generation is
// deterministic (fixed seeds), so a file is rewritten only when missing,
// changed, or regen is set.
func prepareInputs(dir, root, corpus, sample string, regen bool) ([]input, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []file
	var inputs []input
	add := func(in input, fs ...file) {
		inputs = append(inputs, in)
		files = append(files, fs...)
	}

	// The corpus: every file but the manifest. The ones named here also
	// get every option.
	richCorpus := map[string]bool{
		"JetBrains-adt-tools-base__basic.trace":                   true,
		"JetBrains-adt-tools-base__basic-api10.trace":             true,
		"zhkl0228-TraceReader__test1.trace":                       true,
		"Flank-mirror-goog-studio-main__streaming.trace":          true,
		"firefox-devtools-profiler__art-trace-regular.trace.gz":   true,
		"pjstadig-deque-clojure__java.hprof.txt":                  true,
		"Flank-mirror-goog-studio-main__basic-special_char.trace": true,
	}
	ents, err := os.ReadDir(corpus)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir() || e.Name() == "MANIFEST.tsv" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(corpus, e.Name()))
		if err != nil {
			return nil, err
		}
		k := kindTrace
		if strings.Contains(e.Name(), "hprof") {
			k = kindSampled
		}
		add(input{name: e.Name(), kind: k, rich: richCorpus[e.Name()], big: len(b) > 2<<20}, file{e.Name(), b})
	}
	b, err := os.ReadFile(sample)
	if err != nil {
		return nil, err
	}
	add(input{name: "sample.trace", kind: kindTrace, rich: true}, file{"sample.trace", b})

	gen, err := generated(root)
	if err != nil {
		return nil, err
	}
	for _, g := range gen {
		add(g.input, g.files...)
	}

	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if !regen {
			if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, f.data) {
				continue
			}
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// genInput is a generated input and the files it consists of.
type genInput struct {
	input
	files []file
}

// generated returns the generated inputs. root is the checkout, whose
// testdata/convert/*.txtar cases become traces too.
func generated(root string) ([]genInput, error) {
	var out []genInput
	one := func(in input, data []byte) {
		out = append(out, genInput{in, []file{{in.name, data}}})
	}
	trace := func(name string, rich bool, data []byte) {
		one(input{name: name, kind: kindTrace, rich: rich}, data)
	}

	// Regular traces: every version and clock, both method-line styles.
	v3 := richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 81_734_201_455,
		Options: []tracegen.Option{{Key: "pid", Value: "4821"}}}, 1)
	trace("g-v1-cpu-dalvik.trace", true, richTrace(tracegen.Trace{Version: 1, Clock: "thread-cpu", VM: "dalvik", Start: 1_300_000_000_000_000}, 2).Regular())
	trace("g-v1-wall-dalvik.trace", false, richTrace(tracegen.Trace{Version: 1, Clock: "wall", VM: "dalvik", Start: 1_300_000_000_000_000}, 3).Regular())
	trace("g-v2-cpu-art.trace", true, richTrace(tracegen.Trace{Version: 2, Clock: "thread-cpu", VM: "art"}, 4).Regular())
	trace("g-v2-wall-art.trace", true, richTrace(tracegen.Trace{Version: 2, Clock: "wall", VM: "art", Start: 5_000_000}, 5).Regular())
	trace("g-v2-noclock.trace", false, richTrace(tracegen.Trace{Version: 2}, 6).Regular())
	trace("g-v3-dual-art.trace", true, v3.Regular())
	trace("g-v3-dual-dalvik.trace", true, richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "dalvik", Start: 1_300_000_000_000_000}, 7).Regular())
	pad := richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", RecordSize: 18, DataOffset: 40}, 8)
	trace("g-v3-padded.trace", false, pad.Regular())
	bare := richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", BareKey: true}, 9)
	trace("g-v3-barekey.trace", false, bare.Regular())
	trace("g-v3-dual-art.trace.gz", true, tracegen.Gzip(v3.Regular()))
	trace("g-v1-cpu-dalvik.trace.gz", false, tracegen.Gzip(richTrace(tracegen.Trace{Version: 1, Clock: "thread-cpu", VM: "dalvik"}, 2).Regular()))
	empty := tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Threads: []tracegen.Thread{{ID: 1, Name: "main"}},
		Methods: []tracegen.Method{{ID: 4, Class: "a.A", Name: "run", Signature: "()V", Source: "A.java"}}}
	trace("g-v3-norecords.trace", false, empty.Regular())

	// Streaming traces: with and without summary, one clock and two, the
	// .sec side file found by name and given as an argument, definitions
	// after use and unnamed threads.
	trace("g-stream-v3.trace", true, v3.Streaming(tracegen.StreamOptions{}))
	trace("g-stream-v3-sumthreads.trace", false, v3.Streaming(tracegen.StreamOptions{SummaryThreads: true}))
	trace("g-stream-v3-nosum.trace", true, v3.Streaming(tracegen.StreamOptions{NoSummary: true}))
	trace("g-stream-v3-nosum.trace.gz", false, tracegen.Gzip(v3.Streaming(tracegen.StreamOptions{NoSummary: true})))
	wall2 := richTrace(tracegen.Trace{Version: 2, Clock: "wall", VM: "art"}, 10)
	trace("g-stream-v2-wall.trace", false, wall2.Streaming(tracegen.StreamOptions{}))
	trace("g-stream-v2-nosum.trace", true, wall2.Streaming(tracegen.StreamOptions{NoSummary: true}))
	trace("g-stream-v3-defafter.trace", false, v3.Streaming(tracegen.StreamOptions{DefineAfterUse: true,
		SkipThreadNames: map[uint32]bool{3: true}}))
	out = append(out, genInput{input{name: "g-stream-sec.trace", kind: kindTrace, rich: true}, []file{
		{"g-stream-sec.trace", wall2.Streaming(tracegen.StreamOptions{NoSummary: true})},
		{"g-stream-sec.trace.sec", wall2.Key()},
	}})
	out = append(out, genInput{input{name: "g-stream-sec-arg.trace", kind: kindTrace, extra: []string{"in/g-stream-keyfile.sec"}}, []file{
		{"g-stream-sec-arg.trace", v3.Streaming(tracegen.StreamOptions{NoSummary: true})},
		{"g-stream-keyfile.sec", v3.Key()},
	}})

	// The pre-1.0 split pair, given as NAME.key, NAME.data and NAME.
	key, data := richTrace(tracegen.Trace{Version: 1, Clock: "thread-cpu", VM: "dalvik"}, 11).Split()
	out = append(out, genInput{input{name: "g-split.key", kind: kindTrace, rich: true}, []file{{"g-split.key", key}, {"g-split.data", data}}})
	out = append(out, genInput{input{name: "g-split.data", kind: kindTrace}, nil})
	out = append(out, genInput{input{name: "g-split", kind: kindTrace}, nil})

	// ART V2: every layout, streaming or not, with and without summary.
	v2 := func(name string, rich bool, t *tracegen.Trace, o tracegen.V2Options) {
		one(input{name: name, kind: kindTrace, rich: rich, v2: true}, t.V2(o))
	}
	v2t := richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 81_734_201_455}, 12)
	v2("g-v2c.trace", true, v2t, tracegen.V2Options{Layout: tracegen.V2c})
	v2("g-v2c-stream.trace", false, v2t, tracegen.V2Options{Layout: tracegen.V2c, Streaming: true})
	v2("g-v2c-nosum.trace", true, v2t, tracegen.V2Options{Layout: tracegen.V2c, NoSummary: true})
	v2("g-v2d.trace", false, v2t, tracegen.V2Options{Layout: tracegen.V2d})
	v2("g-v2d-stream.trace", true, v2t, tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	v2("g-v2d-stream-nosum.trace", true, v2t, tracegen.V2Options{Layout: tracegen.V2d, Streaming: true, NoSummary: true})
	v2("g-v2d-split.trace", false, v2t, tracegen.V2Options{Layout: tracegen.V2d, Streaming: true, FlushRecords: 9,
		SplitRecords: 4, RepeatMethods: true, ExtraMethods: 5, SkipThreadNames: map[uint32]bool{3: true}})
	v2("g-v2b.trace", false, v2t, tracegen.V2Options{Layout: tracegen.V2b})
	v2("g-v2b-stream.trace", false, v2t, tracegen.V2Options{Layout: tracegen.V2b, Streaming: true})
	v2("g-v2b-hybrid.trace", true, v2t, tracegen.V2Options{Layout: tracegen.V2b, Hybrid: true})
	v2("g-v2d-wall.trace", false, richTrace(tracegen.Trace{Version: 3, Clock: "wall", VM: "art"}, 13), tracegen.V2Options{Layout: tracegen.V2d})
	v2("g-v2c-cpu.trace", false, richTrace(tracegen.Trace{Version: 3, Clock: "thread-cpu", VM: "art"}, 14), tracegen.V2Options{Layout: tracegen.V2c, Streaming: true})
	out = append(out, genInput{input{name: "g-v2d-stream.trace.gz", kind: kindTrace, v2: true},
		[]file{{"g-v2d-stream.trace.gz", tracegen.Gzip(v2t.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true}))}}})

	// Every repair: orphan, deeper and unknown exits, action 3, unknown
	// methods and threads, clocks going back and wrapping, unwinds,
	// recursion and frames open at the end; in every container.
	for _, vm := range []string{"art", "dalvik"} {
		an := anomalies(tracegen.Trace{Version: 3, Clock: "dual", VM: vm, Start: 81_734_201_455})
		trace("g-anomalies-v3-"+vm+".trace", true, an.Regular())
	}
	an := anomalies(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", Start: 81_734_201_455})
	trace("g-anomalies-stream.trace", true, an.Streaming(tracegen.StreamOptions{}))
	trace("g-anomalies-stream-nosum.trace", false, an.Streaming(tracegen.StreamOptions{NoSummary: true}))
	v2("g-anomalies-v2d.trace", true, an, tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	v2("g-anomalies-v2c.trace", false, an, tracegen.V2Options{Layout: tracegen.V2c})
	trace("g-anomalies-v1.trace", false, anomalies(tracegen.Trace{Version: 1, Clock: "thread-cpu", VM: "dalvik"}).Regular())
	trace("g-anomalies-v2-wall.trace", false, anomalies(tracegen.Trace{Version: 2, Clock: "wall", VM: "art"}).Regular())
	trace("g-deep-recursion.trace", true, deep(600).Regular())

	// The converter's txtar cases, as regular traces.
	cases, _ := filepath.Glob(filepath.Join(root, "testdata", "convert", "*.txtar"))
	slices.Sort(cases)
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			return nil, err
		}
		for _, f := range ar.Files {
			if f.Name != "trace" {
				continue
			}
			t, err := tracegen.ParseText(string(f.Data))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", c, err)
			}
			trace("t-"+strings.TrimSuffix(filepath.Base(c), ".txtar")+".trace", false, t.Regular())
		}
	}

	// A medium trace: a few MB, many threads, so that batching, the
	// pipeline and the fast loops run.
	large := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 24, Methods: 600, MaxDepth: 40, Seed: 20})
	one(input{name: "g-medium.trace", kind: kindTrace, big: true}, large.Regular())
	one(input{name: "g-medium-stream.trace", kind: kindTrace, big: true}, large.Streaming(tracegen.StreamOptions{}))
	one(input{name: "g-medium-v2d.trace", kind: kindTrace, big: true, v2: true},
		large.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true, FlushRecords: 500}))
	one(input{name: "g-medium.trace.gz", kind: kindTrace, big: true}, tracegen.Gzip(large.Regular()))

	// Sampled profiles.
	sampled := func(name string, rich bool, data []byte) {
		one(input{name: name, kind: kindSampled, rich: rich}, data)
	}
	fx := samplegen.Fixture()
	sampled("s-dalvik.hprof.txt", true, fx.Dalvik())
	sampled("s-jvm-samples.hprof.txt", true, fx.JVM(samplegen.JVMOptions{}))
	sampled("s-jvm-times.hprof.txt", true, fx.JVM(samplegen.JVMOptions{Times: true}))
	sampled("s-dalvik.hprof.txt.gz", false, tracegen.Gzip(fx.Dalvik()))
	rng := rand.New(rand.NewPCG(30, 31))
	sampled("s-random-dalvik.hprof.txt", false, samplegen.RandomHprof(rng, true).Dalvik())
	sampled("s-random-jvm.hprof.txt", false, samplegen.RandomHprof(rng, false).JVM(samplegen.JVMOptions{Dumps: 2, Cutoff: 1, Others: true}))
	sampled("s-random-jvm-times.hprof.txt", false, samplegen.RandomHprof(rng, false).JVM(samplegen.JVMOptions{Times: true}))
	sampled("s-art-method.prof", true, samplegen.RandomART(rng, false).Text())
	sampled("s-art-bounded.prof", true, samplegen.RandomART(rng, true).Text())

	// Files that are not traces, or broken ones.
	bad := func(name string, data []byte) { one(input{name: name, kind: kindBad}, data) }
	full := v3.Regular()
	bad("b-text.txt", []byte("hello, world\n"))
	bad("b-empty.trace", nil)
	bad("b-png.png", append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...))
	bad("b-json.json", []byte(`{"traceEvents": []}`+"\n"))
	bad("b-zstd.zst", append([]byte{0x28, 0xb5, 0x2f, 0xfd}, make([]byte, 32)...))
	bad("b-truncated.trace", full[:len(full)-7])
	bad("b-truncated-key.trace", full[:100])
	bad("b-truncated-header.trace", full[:bytes.Index(full, []byte("SLOW"))+20])
	bad("b-truncated.trace.gz", tracegen.Gzip(full)[:len(tracegen.Gzip(full))/2])
	st := v3.Streaming(tracegen.StreamOptions{})
	bad("b-truncated-stream.trace", st[:len(st)*2/3])
	v2b := v2t.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true})
	bad("b-truncated-v2d.trace", v2b[:len(v2b)/2])
	badsize := richTrace(tracegen.Trace{Version: 3, Clock: "dual", VM: "art", RecordSize: 7}, 15)
	bad("b-recordsize.trace", badsize.Regular())
	garbage := append([]byte(nil), full...)
	for i := bytes.Index(garbage, []byte("SLOW")) + 40; i < len(garbage); i += 97 {
		garbage[i] ^= 0x5a
	}
	bad("b-garbled.trace", garbage)
	out = append(out, genInput{input{name: "b-missing.trace", kind: kindBad}, nil})

	more, err := optionInputs()
	if err != nil {
		return nil, err
	}
	out = append(out, more...)
	stacks, err := stackInputs(root)
	if err != nil {
		return nil, err
	}
	return append(out, stacks...), nil
}

// richTrace lays out a few threads' call trees on base: a looper with
// handlers, recursion, a method that throws, obfuscated and long names,
// interleaved threads, idle time, and frames left open at the end. Only
// the first 255 thread ids fit a v1 record, so ids stay small.
func richTrace(base tracegen.Trace, seed uint64) *tracegen.Trace {
	rng := rand.New(rand.NewPCG(seed, 0xc0ffee))
	b := tracegen.NewBuilder(base)
	line := 10
	m := func(class, name, sig string) uint32 {
		line += 7
		src := class[strings.LastIndexByte(class, '.')+1:] + ".java"
		return b.MethodLine(class, name, sig, src, line)
	}
	mainM := m("android.app.ActivityThread", "main", "([Ljava/lang/String;)V")
	loop := m("android.os.Looper", "loop", "()V")
	dispatch := m("android.os.Handler", "dispatchMessage", "(Landroid/os/Message;)V")
	onCreate := m("com.example.shop.MainActivity", "onCreate", "(Landroid/os/Bundle;)V")
	fib := m("com.example.shop.Fib", "fib", "(I)I")
	parse := m("com.example.shop.json.Parser", "parse", "(Ljava/lang/String;)Ljava/lang/Object;")
	obf := m("a.b.ˊ", "ˎ", "(I)V")
	long := m("com.example.shop.feed.ui.adapters.viewholders.FeedAdapterViewHolderFactory", "bindViewHolderWithPayloadsAndAnimations", "(Lcom/example/shop/feed/ui/adapters/viewholders/FeedItem;Ljava/util/List;)V")
	semi := m("com.example.shop.Semi", "odd;name", "()V")
	poll := m("android.os.MessageQueue", "nativePollOnce", "(JI)V")
	draw := m("android.view.ThreadedRenderer", "draw", "()V")
	exec := m("android.os.Binder", "execTransact", "(IJJI)Z")
	run := m("java.util.concurrent.ThreadPoolExecutor$Worker", "run", "()V")
	load := m("com.example.shop.net.ImageLoader", "load", "(Ljava/lang/String;)V")

	j := func(n int) uint32 { return uint32(n/2 + rng.IntN(n)) }
	mainT := b.Thread(1, "main")
	render := b.Thread(2, "RenderThread")
	binder := b.Thread(3, "Binder:4821_2")
	worker := b.Thread(4, "pool-1-thread-1 ünïcödé")

	var fibCall func(t *tracegen.ThreadBuilder, n int)
	fibCall = func(t *tracegen.ThreadBuilder, n int) {
		t.Call(fib, j(4), j(3), func() {
			if n > 1 {
				fibCall(t, n-1)
				fibCall(t, n-2)
			}
		})
	}
	mainT.Enter(mainM)
	mainT.Advance(j(40), j(30))
	for round := range 5 {
		mainT.Call(loop, j(20), j(15), func() {
			for range 2 {
				mainT.Call(dispatch, j(30), j(20), func() {
					mainT.Call(onCreate, j(100), j(80), func() {
						fibCall(mainT, 3+round%2)
						mainT.CallUnwind(parse, j(50), j(40), func() { mainT.Call(obf, j(5), j(5), nil) })
						mainT.Call(long, j(70), j(20), func() { mainT.Call(semi, j(3), j(3), nil) })
					})
				})
			}
		})
		render.Call(draw, j(300), j(250), func() { render.Call(obf, j(10), j(10), nil) })
		render.Idle(j(200))
		binder.Call(exec, j(80), j(10), func() { binder.Call(parse, j(20), j(15), nil) })
		worker.Call(run, j(10), j(5), func() {
			for range 3 {
				worker.Call(load, j(400), j(60), nil)
			}
		})
		worker.Idle(j(500))
		mainT.Idle(j(100))
	}
	mainT.Enter(loop)
	mainT.Enter(poll)
	mainT.Advance(j(50), 1)
	worker.Enter(run)
	return b.Trace()
}

// anomalies has every repair the converter makes (README "How traces are
// repaired") on a few threads.
func anomalies(base tracegen.Trace) *tracegen.Trace {
	b := tracegen.NewBuilder(base)
	m := func(class, name string) uint32 { return b.MethodLine(class, name, "()V", "X.java", 12) }
	a, bb, c, d, e, rec := m("a.A", "a"), m("a.B", "b"), m("a.C", "c"), m("a.D", "d"), m("a.E", "e"), m("a.R", "rec")
	const unknownMethod = 0x3ff0
	t1, t2, t3 := b.Thread(1, "main"), b.Thread(2, "worker"), b.Thread(3, "wrapper")
	// Orphan exits: A, then B, were running when tracing began.
	t1.Advance(10, 5)
	t1.Call(c, 20, 10, nil)
	t1.Exit(a)
	t1.Advance(5, 5)
	t1.Exit(bb)
	// Recursion, and unwinds through it.
	var r func(n int)
	r = func(n int) {
		if n == 0 {
			t1.CallUnwind(e, 7, 5, nil)
			return
		}
		t1.CallUnwind(rec, 3, 2, func() { r(n - 1) })
	}
	t1.Call(rec, 4, 3, func() { r(4) })
	// A deeper exit: A's exit ends C and B above it.
	t2.Enter(a)
	t2.Advance(5, 3)
	t2.Enter(bb)
	t2.Advance(5, 3)
	t2.Enter(c)
	t2.Advance(5, 3)
	t2.Exit(a)
	// An unknown exit (D is not on the stack), action 3, an unknown method.
	t2.Enter(e)
	t2.Advance(4, 2)
	t2.Exit(d)
	t2.Emit(tracegen.BadAction, c)
	t2.Call(unknownMethod, 6, 4, nil)
	t2.Exit(e)
	// An unknown thread.
	b.On(9).Call(a, 30, 20, func() { b.On(9).Call(d, 5, 5, nil) })
	// Time going backwards on both clocks.
	cpu, wall := t2.Clocks()
	t2.Enter(d)
	t2.SetClocks(cpu-2, wall-10)
	t2.Call(e, 6, 4, nil)
	t2.Exit(d)
	// 32-bit wrap of both clocks.
	t3.SetClocks(4_294_967_000, 4_294_966_000)
	t3.Call(a, 2000, 1000, func() { t3.Call(bb, 500, 400, nil) })
	t3.Call(c, 100, 100, nil)
	// Frames still open at the end.
	t1.Enter(a)
	t1.Advance(10, 5)
	t1.Enter(d)
	t2.Enter(bb)
	return b.Trace()
}

// deep is a recursion n frames deep, past Perfetto's 512 levels.
func deep(n int) *tracegen.Trace {
	b := tracegen.NewBuilder(tracegen.Trace{Version: 3, Clock: "dual", VM: "art"})
	f := b.Method("a.Deep", "down", "(I)V", "Deep.java")
	g := b.Method("a.Deep", "leaf", "()V", "Deep.java")
	t := b.Thread(1, "main")
	var r func(k int)
	r = func(k int) {
		t.Call(f, 2, 1, func() {
			if k > 0 {
				r(k - 1)
			} else {
				t.Call(g, 5, 5, nil)
			}
		})
	}
	r(n)
	r(n / 2)
	return b.Trace()
}
