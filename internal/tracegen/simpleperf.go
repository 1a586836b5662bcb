package tracegen

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// SimpleperfProfile describes a simpleperf protobuf file (`simpleperf
// report-sample --protobuf`, docs/formats.md §21) of the device newWorld
// builds, recorded system-wide on cpu-clock: the "SIMPLEPERF" magic and
// version 1, then length-prefixed Records: the MetaInfo, the samples (call
// chains leaf first, of file and symbol ids), then the files with their
// symbol tables and the threads, and a record size of 0.
type SimpleperfProfile struct {
	Seed            uint64
	Samples         int // cpu-clock samples
	StacksPerThread int // 0 means 40
	Hz              int // 0 means 4000, simpleperf's default
	// OffCPU records with --trace-offcpu: sched:sched_switch samples and
	// context switches between the cpu-clock ones.
	OffCPU bool
	Lost   int // samples the LostSituation says were lost
	// UnknownFiles samples have a frame in a file the file never lists.
	UnknownFiles int
	Gzip         bool
}

// demangled is what c++filt prints for the world's mangled symbols:
// simpleperf's File.symbol holds these, File.mangled_symbol the mangled.
var demangled = map[string]string{
	"_ZL15__pthread_startPv":                                                        "__pthread_start(void*)",
	"_ZN3art6Thread14CreateCallbackEPv":                                             "art::Thread::CreateCallback(void*)",
	"_ZN3art9ArtMethod6InvokeEPNS_6ThreadEPjjPNS_6JValueEPKc":                       "art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, char const*)",
	"_ZN7android14AndroidRuntime5startEPKcRKNS_6VectorINS_7String8EEEb":             "android::AndroidRuntime::start(char const*, android::Vector<android::String8> const&, bool)",
	"_ZN3art2gc4Heap22CollectGarbageInternalENS0_9collector6GcTypeENS0_7GcCauseEbj": "art::gc::Heap::CollectGarbageInternal(art::gc::collector::GcType, art::gc::GcCause, bool, unsigned int)",
	"_ZN7android10uirenderer12renderthread12RenderThread10threadLoopEv":             "android::uirenderer::renderthread::RenderThread::threadLoop()",
	"_ZN7android10uirenderer12renderthread13DrawFrameTask3runEv":                    "android::uirenderer::renderthread::DrawFrameTask::run()",
	"_ZN7android14SurfaceFlinger4initEv":                                            "android::SurfaceFlinger::init()",
}

// displayName is the name a simpleperf reader shows for f: the demangled
// symbol, or "<file>+0x<vaddr>" without one.
func displayName(f *worldFrame, path string) string {
	if f.fn == "" {
		return fmt.Sprintf("%s+0x%x", path[strings.LastIndexByte(path, '/')+1:], f.pc)
	}
	if d, ok := demangled[f.fn]; ok {
		return d
	}
	if n, ok := strings.CutPrefix(f.fn, "_ZN7android14SurfaceFlinger"); ok {
		n = strings.TrimSuffix(n, "Ev")
		n = strings.TrimLeft(n, "0123456789")
		return "android::SurfaceFlinger::" + n + "()"
	}
	return f.fn
}

// simpleperfPath is the path simpleperf gives a mapping.
func simpleperfPath(m *worldMapping) string {
	switch {
	case strings.Contains(m.path, "jit"):
		return "[JIT app cache]"
	case m.path == "/kernel":
		return "[kernel.kallsyms]"
	}
	return m.path
}

// Simpleperf writes the file and what a reader must make of it: Counts
// and Samples keyed by display names (simpleperf's demangled symbols),
// times on CLOCK_MONOTONIC.
func (sp SimpleperfProfile) Simpleperf() ([]byte, *StackExpect) {
	rng := rand.New(rand.NewPCG(sp.Seed, 0x51e))
	w := newWorld(rng, cmpOr(sp.StacksPerThread, 40), false)
	hz := int64(cmpOr(sp.Hz, 4000))
	period := 1_000_000_000 / hz
	exp := &StackExpect{Counts: map[StackCount]int64{}, Processes: map[int64]ExpectProcess{},
		Threads: map[int64]string{}, Skipped: map[int64]int64{}, PeriodNs: period, FirstNs: -1}
	for _, p := range w.procs {
		// simpleperf names a process by its main thread (comm), the app
		// by its package.
		exp.Processes[p.pid] = ExpectProcess{Name: p.threads[0].name}
		for _, t := range p.threads {
			exp.Threads[t.tid] = t.name
		}
	}

	var out bytes.Buffer
	out.WriteString("SIMPLEPERF")
	out.Write([]byte{1, 0})
	record := func(num int, m pb) {
		r := pb(nil).msg(num, m)
		out.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(r))))
		out.Write(r)
	}
	meta := pb(nil).str(1, "cpu-clock")
	if sp.OffCPU {
		meta = meta.str(1, "sched:sched_switch")
	}
	meta = meta.str(2, "com.example.app").str(3, "debuggable").str(4, "34").str(5, "user")
	if sp.OffCPU {
		meta = meta.varint(6, 1)
	}
	record(5, meta)

	// Files are numbered in order of first use, symbols per file likewise.
	type fileState struct {
		id      uint32
		path    string
		symbols []string
		mangled []string
		index   map[string]int
	}
	files := map[string]*fileState{}
	var order []*fileState
	fileOf := func(f *worldFrame) *fileState {
		path := simpleperfPath(f.m)
		fs, ok := files[path]
		if !ok {
			fs = &fileState{id: uint32(len(order)), path: path, index: map[string]int{}}
			files[path] = fs
			order = append(order, fs)
		}
		return fs
	}
	mono := int64(genMonoStart)
	unknownLeft := sp.UnknownFiles
	for i := 0; i < sp.Samples; i++ {
		mono += period/2 + rng.Int64N(period)
		t, stack := w.pick(rng)
		s := pb(nil).varint(1, uint64(mono)).varint(2, uint64(t.tid))
		names := make([]string, len(stack))
		for j := len(stack) - 1; j >= 0; j-- { // leaf first
			f := stack[j]
			fs := fileOf(f)
			names[j] = displayName(f, fs.path)
			e := pb(nil).varint(1, f.pc).varint(2, uint64(fs.id))
			if f.fn == "" {
				e = e.varint(3, uint64(1<<64-1)) // symbol_id −1
			} else {
				k, ok := fs.index[f.fn]
				if !ok {
					k = len(fs.symbols)
					fs.index[f.fn] = k
					fs.symbols = append(fs.symbols, displayName(f, fs.path))
					fs.mangled = append(fs.mangled, f.fn)
				}
				e = e.varint(3, uint64(k))
			}
			switch {
			case strings.Contains(fs.path, "JIT"):
				e = e.varint(4, 2)
			case strings.HasSuffix(fs.path, ".vdex"):
				e = e.varint(4, 1)
			case strings.HasSuffix(fs.path, "libart.so") && j > 0 && stack[j-1].java:
				e = e.varint(4, 3)
			}
			s = s.msg(3, e)
		}
		if unknownLeft > 0 && rng.IntN(20) == 0 {
			unknownLeft--
			// A leaf in a file the file never lists.
			s = pb(nil).varint(1, uint64(mono)).varint(2, uint64(t.tid)).
				msg(3, pb(nil).varint(1, 0x1234).varint(2, 999).varint(3, 0))
			for j := len(stack) - 1; j >= 0; j-- {
				f := stack[j]
				fs := fileOf(f)
				if f.fn == "" {
					s = s.msg(3, pb(nil).varint(1, f.pc).varint(2, uint64(fs.id)).varint(3, uint64(1<<64-1)))
					continue
				}
				k, ok := fs.index[f.fn]
				if !ok {
					k = len(fs.symbols)
					fs.index[f.fn] = k
					fs.symbols = append(fs.symbols, displayName(f, fs.path))
					fs.mangled = append(fs.mangled, f.fn)
				}
				s = s.msg(3, pb(nil).varint(1, f.pc).varint(2, uint64(fs.id)).varint(3, uint64(k)))
			}
			names = append(names, "[unknown file 999]")
			exp.Unknown++
		}
		s = s.varint(4, uint64(period)).varint(5, 0)
		record(1, s)
		key := strings.Join(names, ";")
		exp.record(t, key, mono, false)
		if sp.OffCPU && rng.IntN(3) == 0 {
			record(6, pb(nil).varint(1, 0).varint(2, uint64(mono+1000)).varint(3, uint64(t.tid)))
			record(1, pb(nil).varint(1, uint64(mono+1000)).varint(2, uint64(t.tid)).
				msg(3, pb(nil).varint(1, stack[0].pc).varint(2, uint64(fileOf(stack[0]).id)).varint(3, uint64(1<<64-1))).
				varint(4, 1).varint(5, 1))
		}
	}
	if sp.Lost > 0 {
		record(2, pb(nil).varint(1, uint64(sp.Samples+sp.Lost)).varint(2, uint64(sp.Lost)))
	}
	for _, fs := range order {
		f := pb(nil).varint(1, uint64(fs.id)).str(2, fs.path)
		for _, s := range fs.symbols {
			f = f.str(3, s)
		}
		for _, s := range fs.mangled {
			f = f.str(4, s)
		}
		record(3, f)
	}
	var tids []int64
	byTID := map[int64]*worldThread{}
	for _, t := range w.threads {
		tids = append(tids, t.tid)
		byTID[t.tid] = t
	}
	slices.Sort(tids)
	for _, tid := range tids {
		t := byTID[tid]
		name := t.name
		if t.tid == t.pid && len(name) > 15 {
			name = name[len(name)-15:] // comm: the last 15 bytes of the package
		}
		record(4, pb(nil).varint(1, uint64(t.tid)).varint(2, uint64(t.pid)).str(3, name))
	}
	out.Write([]byte{0, 0, 0, 0})
	data := out.Bytes()
	if sp.Gzip {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	return data, exp
}
