package main

import (
	"os"
	"path/filepath"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// stackInputs are CPU stack samples: Perfetto traces of every packet kind
// and container, simpleperf's protobuf (generated and Firefox Profiler's
// real files, when root is the checkout), and broken ones.
func stackInputs(root string) ([]genInput, error) {
	var out []genInput
	perfetto := func(name string, rich bool, sp tracegen.StackProfile) {
		data, _ := sp.Perfetto()
		out = append(out, genInput{input{name: name, kind: kindSampled, rich: rich, more: stackCommands}, []file{{name, data}}})
	}
	perfetto("p-perf.perfetto-trace", true, tracegen.StackProfile{Seed: 41, Samples: 3000, Sequences: 2, ClearEvery: 1000, SuspendNs: 3e9})
	perfetto("p-perf-compressed.perfetto-trace.gz", false, tracegen.StackProfile{Seed: 42, Samples: 2000, CompressEvery: 50, Gzip: true, SplitInterned: true})
	perfetto("p-streaming.perfetto-trace", false, tracegen.StackProfile{Seed: 43, Samples: 1500, Kind: tracegen.StreamingSamples})
	perfetto("p-stacksample.perfetto-trace", false, tracegen.StackProfile{Seed: 44, Samples: 1500, Kind: tracegen.StackSampleSamples})
	perfetto("p-obfuscated.perfetto-trace", false, tracegen.StackProfile{Seed: 45, Samples: 1500, Obfuscate: true})
	perfetto("p-obfuscated-nomap.perfetto-trace", false, tracegen.StackProfile{Seed: 45, Samples: 1500, Obfuscate: true, OmitMapping: true})
	perfetto("p-repairs.perfetto-trace", false, tracegen.StackProfile{Seed: 46, Samples: 1500, UnknownStacks: 5, Skipped: 5, LoseAfter: 200, ClearEvery: 500})

	simpleperf := func(name string, rich bool, sp tracegen.SimpleperfProfile) {
		data, _ := sp.Simpleperf()
		out = append(out, genInput{input{name: name, kind: kindSampled, rich: rich, more: stackCommands}, []file{{name, data}}})
	}
	simpleperf("sp-cpu.simpleperf.trace", true, tracegen.SimpleperfProfile{Seed: 51, Samples: 3000})
	simpleperf("sp-offcpu.simpleperf.trace.gz", false, tracegen.SimpleperfProfile{Seed: 52, Samples: 1500, OffCPU: true, Lost: 7, UnknownFiles: 3, Gzip: true})
	if root != "" {
		for _, name := range []string{"simpleperf-cpu-clock.trace.gz", "simpleperf-task-clock.trace.gz"} {
			data, err := os.ReadFile(filepath.Join(root, "simpleperf", "testdata", "firefox", name))
			if err != nil {
				return nil, err
			}
			out = append(out, genInput{input{name: "ff-" + name, kind: kindSampled, more: stackCommands}, []file{{"ff-" + name, data}}})
		}
	}

	empty, _ := tracegen.StackProfile{Seed: 47}.Perfetto()
	full, _ := tracegen.StackProfile{Seed: 48, Samples: 500}.Perfetto()
	sp, _ := tracegen.SimpleperfProfile{Seed: 53, Samples: 500}.Simpleperf()
	for _, b := range []file{
		{"b-empty-capture.perfetto-trace", empty},
		{"b-truncated.perfetto-trace", full[:len(full)*2/3]},
		{"b-truncated.simpleperf.trace", sp[:len(sp)/2]},
	} {
		out = append(out, genInput{input{name: b.name, kind: kindBad}, []file{b}})
	}
	return out, nil
}

// stackCommands run what only stack samples have: processes, sample times
// (windows and timelines), and the trace's own deobfuscation.
func stackCommands(in input) []command {
	w := func(args ...string) command { return command{args: withInput(in, args...)} }
	return []command{
		w("--process", "com.example.app", "top", "-n", "0"),
		w("--process", "1234", "folded"),
		w("--process", "no.such.app", "info"),
		w("--from", "100ms", "--to", "2s", "top", "-n", "0"),
		w("--from", "100ms", "--to", "2s", "perfetto", "-o", "p.perfetto-trace"),
		w("--thread", "RenderThread", "speedscope", "-o", "s.speedscope.json"),
		w("--strict", "top"),
		w("--clock", "cpu", "top"),
		w("--mapping", "in/g-minified-r8.txt", "top", "-n", "5"),
		{args: append(withInput(in, "diff", "-n", "5"), "in/"+in.name)},
		{args: a("diff", "--old", "in/"+in.name, "in/"+in.name, "in/"+in.name, "--new", "in/"+in.name, "in/"+in.name, "in/"+in.name, "--fail-on", "incl>+10%")},
	}
}
