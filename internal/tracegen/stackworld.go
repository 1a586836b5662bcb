package tracegen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The world the stack-sample writers (Perfetto and simpleperf) sample: an
// Android device with an app, system_server and surfaceflinger, their
// threads, and call stacks that cross libc, ART's runtime, the boot image,
// the app's compiled, JIT-compiled and interpreted code, and the kernel,
// with the mappings and names Android's unwinders report for them
// (docs/formats.md §20.6).

// worldMapping is a memory mapping frames are in.
type worldMapping struct {
	path    string // as trace_processor joins it: "/" + elements
	elems   []string
	buildID string // raw bytes; "" for none
}

// worldFrame is a frame as the unwinder reports it.
type worldFrame struct {
	fn    string // the function name; "" when the unwinder had no symbol
	m     *worldMapping
	pc    uint64
	java  bool   // a Java method (in an ART mapping)
	deobf string // the readable name when fn is an obfuscated app method
	kind  uint64 // Frame.kind when set: 3 interpreted, 4 JIT
}

// rawName is the frame's name as a reader must report it before renaming:
// the function name, or "<mapping file>+0x<pc>" without one.
func (f *worldFrame) rawName() string {
	if f.fn == "" {
		base := f.m.path[strings.LastIndexByte(f.m.path, '/')+1:]
		return fmt.Sprintf("%s+0x%x", base, f.pc)
	}
	return f.fn
}

// worldThread is a thread and the stacks it is seen in.
type worldThread struct {
	pid, tid int64
	name     string
	stacks   [][]*worldFrame // root first
	weight   float64
}

type worldProcess struct {
	pid     int64
	cmdline []string
	uid     uint64
	threads []*worldThread
	weight  float64
}

type world struct {
	procs    []*worldProcess
	threads  []*worldThread // all, for picking
	cum      []float64      // cumulative weights of threads
	mappings []*worldMapping
	obf      map[string]string // obfuscated app class → readable class
	obfMeth  map[string]string // obfuscated "class.method" → readable method name
}

func newMapping(path string, id string) *worldMapping {
	m := &worldMapping{path: path, buildID: id}
	if strings.HasPrefix(path, "/") {
		m.elems = strings.Split(path[1:], "/")
	} else {
		m.elems = []string{path}
		m.path = "/" + path
	}
	return m
}

// buildID makes a 20-byte GNU build id from a name.
func buildID(name string) string {
	b := make([]byte, 20)
	h := uint64(1469598103934665603)
	for i := range b {
		for j := 0; j < len(name); j++ {
			h = (h ^ uint64(name[j])) * 1099511628211
		}
		h ^= uint64(i)
		b[i] = byte(h >> 32)
	}
	return string(b)
}

// newWorld builds the device. stacksPerThread bounds the distinct stacks
// of a thread; obfuscate renames the app's classes and methods as R8 does.
func newWorld(rng *rand.Rand, stacksPerThread int, obfuscate bool) *world {
	w := &world{obf: map[string]string{}, obfMeth: map[string]string{}}
	mk := func(path string, withID bool) *worldMapping {
		id := ""
		if withID {
			id = buildID(path)
		}
		m := newMapping(path, id)
		w.mappings = append(w.mappings, m)
		return m
	}
	libc := mk("/apex/com.android.runtime/lib64/bionic/libc.so", true)
	libart := mk("/apex/com.android.art/lib64/libart.so", true)
	appProcess := mk("/system/bin/app_process64", true)
	runtime := mk("/system/lib64/libandroid_runtime.so", true)
	hwui := mk("/system/lib64/libhwui.so", true)
	sf := mk("/system/bin/surfaceflinger", true)
	boot := mk("/system/framework/arm64/boot.oat", true)
	bootFw := mk("/system/framework/arm64/boot-framework.oat", true)
	services := mk("/system/framework/oat/arm64/services.odex", true)
	odex := mk("/data/app/~~kZ3vQw0tRk2pFqB1Xn9h6g==/com.example.app-6HxN0wQw8tXb2r1mVgK7sA==/oat/arm64/base.odex", true)
	vdex := mk("/data/app/~~kZ3vQw0tRk2pFqB1Xn9h6g==/com.example.app-6HxN0wQw8tXb2r1mVgK7sA==/oat/arm64/base.vdex", false)
	jitOld := mk("[anon_shmem:dalvik-jit-code-cache]", false)
	jit := mk("/memfd:jit-cache (deleted)", false)
	kernel := mk("/kernel", false)

	pcs := map[string]uint64{}
	frame := func(fn string, m *worldMapping) *worldFrame {
		pc, ok := pcs[fn+m.path]
		if !ok {
			pc = 0x1000 + uint64(rng.IntN(0x400000))&^3
			pcs[fn+m.path] = pc
		}
		return &worldFrame{fn: fn, m: m, pc: pc, java: m == boot || m == bootFw || m == services || m == odex || m == vdex || m == jit || m == jitOld}
	}
	native := func(m *worldMapping, fns ...string) []*worldFrame {
		var fs []*worldFrame
		for _, fn := range fns {
			fs = append(fs, frame(fn, m))
		}
		return fs
	}
	cat := func(parts ...[]*worldFrame) []*worldFrame {
		var out []*worldFrame
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	threadBase := cat(native(libc, "__start_thread", "_ZL15__pthread_startPv"),
		native(libart, "_ZN3art6Thread14CreateCallbackEPv", "_ZN3art9ArtMethod6InvokeEPNS_6ThreadEPjjPNS_6JValueEPKc", "art_quick_invoke_stub"),
		native(boot, "java.lang.Thread.run"))
	mainBase := cat(native(libc, "__libc_init"), native(appProcess, "main"),
		native(runtime, "_ZN7android14AndroidRuntime5startEPKcRKNS_6VectorINS_7String8EEEb"),
		native(libart, "art_quick_invoke_static_stub"),
		native(bootFw, "com.android.internal.os.ZygoteInit.main", "com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run"),
		native(boot, "java.lang.reflect.Method.invoke"), native(libart, "art_jni_trampoline"),
		native(bootFw, "android.app.ActivityThread.main", "android.os.Looper.loop", "android.os.Looper.loopOnce", "android.os.Handler.dispatchMessage"))

	// The app's code: readable names, obfuscated when asked.
	appClasses := []string{"com.example.app.feed.FeedAdapter", "com.example.app.feed.FeedAdapter$ViewHolder",
		"com.example.app.image.ImageLoader", "com.example.app.json.Parser", "com.example.app.json.Parser$1",
		"com.example.app.json.Lexer", "com.example.app.MainActivity", "com.example.app.net.Client$Call",
		"com.example.app.db.Dao_Impl", "com.example.app.util.Strings"}
	appMethods := []string{"onBindViewHolder", "bind", "decode", "parseObject", "invoke", "nextToken",
		"lambda$onCreate$0", "execute", "query", "trim", "render", "measure"}
	app := func(m *worldMapping, ci, mi int) *worldFrame {
		cls, meth := appClasses[ci%len(appClasses)], appMethods[mi%len(appMethods)]
		name := cls + "." + meth
		if !obfuscate {
			return frame(name, m)
		}
		oc := fmt.Sprintf("o%c", 'a'+ci%len(appClasses))
		om := string(rune('a' + mi%len(appMethods)))
		w.obf[oc] = cls
		w.obfMeth[oc+"."+om] = meth
		f := frame(oc+"."+om, m)
		f.deobf = name
		return f
	}
	// A random app call chain of depth d, in the compiled app, then maybe
	// JIT-compiled or interpreted code, then a leaf.
	appChain := func(d int) []*worldFrame {
		var fs []*worldFrame
		for i := 0; i < d; i++ {
			fs = append(fs, app(odex, rng.IntN(len(appClasses)), rng.IntN(len(appMethods))))
		}
		switch rng.IntN(4) {
		case 0:
			fs = append(fs, app(jit, rng.IntN(len(appClasses)), rng.IntN(len(appMethods))))
		case 1:
			fs = append(fs, app(jitOld, rng.IntN(len(appClasses)), rng.IntN(len(appMethods))))
		case 2:
			// Interpreted: the dex method, then nterp's frames in libart.
			f := app(vdex, rng.IntN(len(appClasses)), rng.IntN(len(appMethods)))
			fs = append(fs, f)
			fs = append(fs, native(libart, "nterp_helper", "ExecuteNterpImpl")[:1+rng.IntN(2)]...)
		}
		return fs
	}
	leaf := func() []*worldFrame {
		switch rng.IntN(6) {
		case 0:
			f := frame("memcpy", libc)
			g := *f
			g.pc += uint64(rng.IntN(16)) * 4 // samples land on different instructions
			return []*worldFrame{&g}
		case 1:
			return native(libart, "_ZN3art2gc4Heap22CollectGarbageInternalENS0_9collector6GcTypeENS0_7GcCauseEbj")
		case 2:
			return cat(native(libc, "__epoll_pwait"), native(kernel, "el0_svc", "do_epoll_wait"))
		case 3:
			return []*worldFrame{{fn: "", m: hwui, pc: 0x20000 + uint64(rng.IntN(8))*4}}
		}
		return nil
	}
	stacks := func(base []*worldFrame, n int, java bool) [][]*worldFrame {
		var out [][]*worldFrame
		for i := 0; i < n; i++ {
			s := append([]*worldFrame(nil), base...)
			if java {
				s = append(s, appChain(1+rng.IntN(8))...)
			} else {
				s = append(s, native(hwui, "_ZN7android10uirenderer12renderthread12RenderThread10threadLoopEv", "_ZN7android10uirenderer12renderthread13DrawFrameTask3runEv")[:1+rng.IntN(2)]...)
			}
			s = append(s, leaf()...)
			out = append(out, s)
		}
		return out
	}
	sysStacks := func(base []*worldFrame, n int) [][]*worldFrame {
		var out [][]*worldFrame
		for i := 0; i < n; i++ {
			s := append([]*worldFrame(nil), base...)
			for d := rng.IntN(5); d >= 0; d-- {
				s = append(s, frame(fmt.Sprintf("com.android.server.wm.WindowManagerService.m%d", rng.IntN(40)), services))
			}
			out = append(out, append(s, leaf()...))
		}
		return out
	}
	sfStacks := func(n int) [][]*worldFrame {
		var out [][]*worldFrame
		for i := 0; i < n; i++ {
			s := cat(native(libc, "__libc_init"), native(sf, "main", "_ZN7android14SurfaceFlinger4initEv"))
			for d := rng.IntN(4); d >= 0; d-- {
				name := fmt.Sprintf("composite%d", rng.IntN(30))
				s = append(s, frame(fmt.Sprintf("_ZN7android14SurfaceFlinger%d%sEv", len(name), name), sf))
			}
			out = append(out, append(s, leaf()...))
		}
		return out
	}
	n := max(stacksPerThread, 1)
	appMain := &worldThread{pid: 4321, tid: 4321, name: "com.example.app", weight: 6, stacks: stacks(mainBase, n, true)}
	w.procs = []*worldProcess{
		{pid: 4321, cmdline: []string{"com.example.app"}, uid: 10123, weight: 60, threads: []*worldThread{
			appMain,
			{pid: 4321, tid: 4338, name: "RenderThread", weight: 3, stacks: stacks(threadBase, n, false)},
			{pid: 4321, tid: 4342, name: "DefaultDispatch", weight: 2, stacks: stacks(threadBase, n, true)},
			{pid: 4321, tid: 4347, name: "OkHttp Dispatch", weight: 1, stacks: stacks(threadBase, n, true)},
		}},
		{pid: 1234, cmdline: []string{"system_server"}, uid: 1000, weight: 25, threads: []*worldThread{
			{pid: 1234, tid: 1234, name: "system_server", weight: 1, stacks: sysStacks(mainBase, n)},
			{pid: 1234, tid: 1288, name: "android.display", weight: 2, stacks: sysStacks(threadBase, n)},
		}},
		{pid: 567, cmdline: []string{"/system/bin/surfaceflinger"}, uid: 1000, weight: 15, threads: []*worldThread{
			{pid: 567, tid: 567, name: "surfaceflinger", weight: 1, stacks: sfStacks(n)},
		}},
	}
	var sum float64
	for _, p := range w.procs {
		var tw float64
		for _, t := range p.threads {
			tw += t.weight
		}
		for _, t := range p.threads {
			sum += p.weight * t.weight / tw
			w.threads = append(w.threads, t)
			w.cum = append(w.cum, sum)
		}
	}
	return w
}

// pick chooses a thread by weight and one of its stacks, the first ones
// more often (a few hot stacks, a long tail).
func (w *world) pick(rng *rand.Rand) (*worldThread, []*worldFrame) {
	x := rng.Float64() * w.cum[len(w.cum)-1]
	i := 0
	for i < len(w.cum)-1 && w.cum[i] < x {
		i++
	}
	t := w.threads[i]
	k := int(float64(len(t.stacks)) * rng.Float64() * rng.Float64())
	return t, t.stacks[k]
}

// stackKey joins raw frame names, root first, as StackExpect keys them.
func stackKey(fs []*worldFrame) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.rawName()
	}
	return strings.Join(names, ";")
}
