package profbuild

import (
	"errors"
	"testing"

	"github.com/atrace2/atrace2/samples"
)

// TestClassify: mappings as Android's unwinders name them.
func TestClassify(t *testing.T) {
	for path, want := range map[string]Code{
		"/apex/com.android.art/lib64/libart.so":               CodeLibart,
		"/apex/com.android.runtime/lib64/bionic/libc.so":      CodeNative,
		"/system/bin/app_process64":                           CodeNative,
		"/system/framework/arm64/boot-framework.oat":          CodeArtAOT,
		"/data/app/~~a==/com.example-b==/oat/arm64/base.odex": CodeArtAOT,
		"/data/app/~~a==/com.example-b==/oat/arm64/base.vdex": CodeArtInterp,
		"/data/app/~~a==/com.example-b==/base.apk":            CodeArtInterp,
		"/system/framework/framework.jar":                     CodeArtInterp,
		"/[anon_shmem:dalvik-jit-code-cache]":                 CodeArtJIT,
		"/memfd:jit-cache (deleted)":                          CodeArtJIT,
		"/memfd:jit-zygote-cache (deleted)":                   CodeArtJIT,
		"[JIT app cache]":                                     CodeArtJIT,
		"/kernel":                                             CodeKernel,
		"[kernel.kallsyms]":                                   CodeKernel,
		"":                                                    CodeOther,
		"/dev/ashmem/something":                               CodeOther,
		"/data/app/~~a==/com.example-b==/base.apk!/lib/arm64-v8a/libapp.so": CodeNative,
	} {
		if got := Classify(path); got != want {
			t.Errorf("%q: %d, want %d", path, got, want)
		}
	}
}

// TestMakeFrame: Java, native, kernel and other frames.
func TestMakeFrame(t *testing.T) {
	id := "\x01\x02\x03\xff"
	for _, c := range []struct {
		fn, lib string
		java    bool
		want    samples.Frame
	}{
		{"com.example.Foo$Bar.lambda$run$0", "/data/app/x/base.odex", false, samples.Frame{Name: "com.example.Foo$Bar.lambda$run$0", Class: "com.example.Foo$Bar", Method: "lambda$run$0", Kind: samples.JavaFrame, Library: "/data/app/x/base.odex", BuildID: "010203ff"}},
		{"void com.example.Foo.run(int) [DEDUPED]", "/memfd:jit-cache", false, samples.Frame{Name: "com.example.Foo.run", Class: "com.example.Foo", Method: "run", Signature: "(I)V", Kind: samples.JavaFrame, Library: "/memfd:jit-cache", BuildID: "010203ff"}},
		{"art_quick_invoke_stub", "/system/framework/arm64/boot.oat", false, samples.Frame{Name: "art_quick_invoke_stub", Kind: samples.NativeFrame, Library: "/system/framework/arm64/boot.oat", BuildID: "010203ff"}},
		{"com.example.Foo.run", "[JIT app cache]", true, samples.Frame{Name: "com.example.Foo.run", Class: "com.example.Foo", Method: "run", Kind: samples.JavaFrame, Library: "[JIT app cache]", BuildID: "010203ff"}},
		{"_ZN3art6Thread14CreateCallbackEPv", "/apex/com.android.art/lib64/libart.so", false, samples.Frame{Name: "art::Thread::CreateCallback(void*)", Symbol: "_ZN3art6Thread14CreateCallbackEPv", Kind: samples.NativeFrame, Library: "/apex/com.android.art/lib64/libart.so", BuildID: "010203ff"}},
		{"", "/system/lib64/libhwui.so", false, samples.Frame{Name: "libhwui.so+0x1a0", Kind: samples.NativeFrame, Library: "/system/lib64/libhwui.so", BuildID: "010203ff"}},
		{"do_epoll_wait", "/kernel", false, samples.Frame{Name: "do_epoll_wait", Kind: samples.KernelFrame, Library: "/kernel", BuildID: "010203ff"}},
		{"python.main", "", false, samples.Frame{Name: "python.main", Kind: samples.OtherFrame}},
	} {
		b := id
		if c.lib == "" {
			b = ""
		}
		if got := MakeFrame(c.fn, c.lib, b, 0x1a0, c.java); got != c.want {
			t.Errorf("%q in %q:\n got %+v\nwant %+v", c.fn, c.lib, got, c.want)
		}
	}
	if got := BuildID("0123456789abcdef0123"); got != "0123456789abcdef0123" {
		t.Errorf("a hex build id became %q", got)
	}
}

// TestBuilder: counts per thread and stack, process choice, late frame
// names and pids, and the window.
func TestBuilder(t *testing.T) {
	b := New(samples.PerfettoTrace, samples.Select{Windowed: true, From: 10, To: 20})
	f := []int32{b.Frame(samples.Frame{Name: "0", Kind: samples.UnknownFrame}), b.Frame(samples.Frame{Name: "1", Kind: samples.UnknownFrame}), b.Frame(samples.Frame{Name: "2", Kind: samples.UnknownFrame})}
	ab := b.Stack([]int32{f[0], f[1]})
	ac := b.Stack([]int32{f[0], f[2]})
	t1, t2 := b.Thread(0, 11), b.Thread(0, 12)
	b.Add(t1, ab, 100, 0) // the start
	b.Add(t1, ab, 105, 0) // before the window
	b.Add(t1, ab, 110, 0)
	b.Add(t1, ac, 115, 0)
	b.Add(t2, ac, 120, 0)
	b.Add(t2, ac, 121, 0) // after it
	b.SetPIDs(func(tid int64) (int64, bool) { return 7, true })
	// Frames 1 and 2 become the same frame: stacks ab and ac merge.
	b.MapFrames(func(old samples.Frame) samples.Frame {
		if old.Name == "0" {
			return samples.Frame{Name: "main"}
		}
		return samples.Frame{Name: "work"}
	})
	p, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if len(p.Processes) != 1 || p.Processes[0].PID != 7 || p.Processes[0].Samples != 6 || p.StartNanos != 100 || p.EndNanos != 121 {
		t.Fatalf("processes %+v, from %d to %d", p.Processes, p.StartNanos, p.EndNanos)
	}
	if len(p.Samples) != 2 || p.Samples[0].Count != 2 || p.Samples[1].Count != 1 || len(p.Frames) != 2 {
		t.Fatalf("samples %+v, frames %+v; want 2 of thread 11 and 1 of 12 in main;work", p.Samples, p.Frames)
	}
	_, err = New(samples.PerfettoTrace, samples.Select{Process: "nope"}).finishWith(t)
	var pe *ProcessError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a ProcessError", err)
	}
}

// finishWith adds one sample and finishes.
func (b *Builder) finishWith(t *testing.T) (*samples.Profile, error) {
	b.Add(b.Thread(1, 1), b.Stack([]int32{b.Frame(samples.Frame{Name: "x"})}), 0, 0)
	return b.Finish()
}
