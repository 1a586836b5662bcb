package pftrace_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// encodeTextproto writes a Perfetto trace from its text form
// (testutil.EncodeTextproto).
func encodeTextproto(t *testing.T, path string) []byte { return testutil.EncodeTextproto(t, path) }

// diffTestChecks are what Perfetto's own diff tests say of their traces
// (the expected outputs beside them in test/trace_processor/diff_tests),
// checked on our profile of the default process.
var diffTestChecks = map[string]func(t *testing.T, p *samples.Profile, err error){
	// Interpreter frames: the managed frame in a .vdex is Java; the switch
	// interpreter's frames in libart are native, demangled as Perfetto's
	// demangle() prints them.
	"perf_sample_switch_interp": func(t *testing.T, p *samples.Profile, err error) {
		want := []struct {
			name string
			kind samples.FrameKind
			lib  string
		}{
			{"com.example.managed.frame", samples.JavaFrame, "/example.vdex"},
			{"ExecuteSwitchImplAsm", samples.NativeFrame, "/apex/com.android.art/lib64/libart.so"},
			{"void art::interpreter::ExecuteSwitchImplCpp<false>(art::interpreter::SwitchImplContext*)", samples.NativeFrame, "/apex/com.android.art/lib64/libart.so"},
			{"bool art::interpreter::DoCall<true>(art::ArtMethod*, art::Thread*, art::ShadowFrame&, art::Instruction const*, unsigned short, bool, art::JValue*)", samples.NativeFrame, "/apex/com.android.art/lib64/libart.so"},
			{"art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, char const*)", samples.NativeFrame, "/apex/com.android.art/lib64/libart.so"},
		}
		mustOne(t, p, err, 1000, 1000)
		s := p.Samples[0]
		if len(s.Stack) != len(want) {
			t.Fatalf("%d frames, want %d", len(s.Stack), len(want))
		}
		for i, w := range want {
			f := p.Frames[s.Stack[i]]
			if f.Name != w.name || f.Kind != w.kind || f.Library != w.lib {
				t.Errorf("frame %d: %q %v %q, want %q %v %q", i, f.Name, f.Kind, f.Library, w.name, w.kind, w.lib)
			}
		}
		if f := p.Frames[s.Stack[0]]; f.Class != "com.example.managed" || f.Method != "frame" {
			t.Errorf("Java frame %+v, want class com.example.managed, method frame", f)
		}
	},
	// Two sequences reuse iids 58-60 for different frames; the perf
	// sample's app is named by its uid in the packages list, so the
	// trace's mapping for com.google.android.prebuilt2 renames its frames
	// (deobfuscation_tests.py, test_profile_deobfuscation_default_package).
	"profile_unknown_package": func(t *testing.T, p *samples.Profile, err error) {
		mustOne(t, p, err, 26698, 26698)
		if name := p.Processes[p.Process].Name; name != "com.google.android.prebuilt2" {
			t.Errorf("process %q", name)
		}
		got := []string{}
		for _, f := range p.Samples[0].Stack {
			got = append(got, p.Frames[f].Obfuscated+"→"+p.Frames[f].Name)
		}
		if want := "hwe.a→com.google.classfour.foo;hye.a→com.google.classthree.foo"; strings.Join(got, ";") != want {
			t.Errorf("stack %s, want %s", strings.Join(got, ";"), want)
		}
	},
	// StackSample: inline and interned call stacks, task contexts inline,
	// async and absent; weights in ns from the sequence's defaults.
	"stack_sample": func(t *testing.T, p *samples.Profile, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Processes) != 2 || p.Processes[0].PID != 0 || p.Processes[1].Name != "myproc" || p.Processes[1].Samples != 3 || p.Process != 1 {
			t.Fatalf("processes %+v (kept %d), want pid 0 and myproc with 3 samples, kept", p.Processes, p.Process)
		}
		var total, weight int64
		stacks := map[string]bool{}
		for i := range p.Samples {
			total += p.Samples[i].Count
			weight += p.Samples[i].WeightNanos
			stacks[stackString(p, &p.Samples[i])] = true
		}
		if total != 3 || weight != 7_000_000 || !stacks["main;foo"] || !stacks["foo"] {
			t.Errorf("%d samples weighing %d ns, stacks %v; want 3, 7 ms, main;foo and foo", total, weight, stacks)
		}
		for _, f := range p.Frames {
			if f.Name == "main" && (f.File != "/src/main.py" || f.Line != 10 || !f.HasLine || f.Kind != samples.OtherFrame) {
				t.Errorf("inline frame %+v, want /src/main.py:10", f)
			}
		}
	},
	// A frame without a function name is named by its mapping and pc.
	"stacks_stack_profile_unknown_frame_name": func(t *testing.T, p *samples.Profile, err error) {
		mustOne(t, p, err, 123, 123)
		if got := stackString(p, &p.Samples[0]); got != "libc.so+0x7b;named_frame" {
			t.Errorf("stack %q", got)
		}
	},
	// A build id is raw bytes, shown in hex.
	"stacks_symbolization_candidates_perf_profile": func(t *testing.T, p *samples.Profile, err error) {
		mustOne(t, p, err, 123, 1234)
		if f := p.Frames[0]; f.BuildID != "6275696c642d6964" || f.Library != "/libc.so" || f.Name != "android::fn1" {
			t.Errorf("frame %+v, want build id 6275696c642d6964 (\"build-id\") in /libc.so", f)
		}
	},
	// Samples without a call stack are no CPU stack samples.
	"profiling_perf_sample_counter_only":                     noSamples,
	"profiling_perf_sample_timebase_count":                   noSamples,
	"profiling_cpu_profiling_samples_counter_only_excluded":  noSamples,
	"track_event_streaming_profile_timestamp_delta_overflow": noSamples,
}

func mustOne(t *testing.T, p *samples.Profile, err error, pid, tid int64) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Samples) != 1 || p.Samples[0].Count != 1 || p.Threads[0].PID != pid || p.Threads[0].TID != tid {
		t.Fatalf("samples %+v of threads %+v, want one of pid %d tid %d", p.Samples, p.Threads, pid, tid)
	}
}

func noSamples(t *testing.T, p *samples.Profile, err error) {
	var ns *pftrace.NoSamplesError
	if !errors.As(err, &ns) || !strings.HasSuffix(err.Error(), "ui.perfetto.dev opens it") {
		t.Fatalf("error %v, want a NoSamplesError", err)
	}
}

// TestDiffTests reads the traces of Perfetto's own diff tests
// (testdata/perfetto, encoded with protoc) and checks what those tests
// expect, then imports each with trace_processor and requires the same
// samples per process, thread and call stack. It needs protoc
// (ATRACE2_PROTOC=require in CI) and, for the second half,
// trace_processor_shell (ATRACE2_TP=require).
func TestDiffTests(t *testing.T) {
	files, _ := filepath.Glob("testdata/perfetto/*.textproto")
	if len(files) < 14 {
		t.Fatalf("%d diff-test traces in testdata/perfetto, want 14", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".textproto")
		t.Run(name, func(t *testing.T) {
			data := encodeTextproto(t, file)
			p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
			if err == nil {
				if err := p.Check(); err != nil {
					t.Fatal(err)
				}
			}
			if check, ok := diffTestChecks[name]; ok {
				check(t, p, err)
			} else if err != nil {
				t.Fatal(err)
			}
			var ns *pftrace.NoSamplesError
			if errors.As(err, &ns) {
				return
			}
			tp := testutil.TraceProcessor(t)
			got := importTP(t, tp, data)
			want := ours(readAll(t, data, samples.Select{}), false)
			for _, m := range []map[tracegen.StackCount]int64{want, got.counts} {
				for k, n := range m {
					if k.Stack == "<null>" && k.TID != -1 {
						delete(m, k)
						k.TID = -1
						m[k] += n
					}
				}
			}
			diffCounts(t, "trace_processor vs ours", want, got.counts)
		})
	}
}
