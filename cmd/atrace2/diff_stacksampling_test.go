package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/internal/units"
)

// TestDiffBenchmarkStackSampling: a Jetpack benchmark whose only profiler
// outputs are StackSamplingTrace files (simpleperf's protobuf, as
// Microbenchmark writes them) compares them as its runs: three result
// folders a side, each run a simpleperf profile of its own seed. The
// total on each side is the median of the runs' sample counts of the
// process with the most samples, computed from the generator's
// expectations, not by atrace2.
func TestDiffBenchmarkStackSampling(t *testing.T) {
	dir := t.TempDir()
	totals := map[string][]int64{}
	for side, seeds := range map[string][]uint64{"old": {61, 62, 63}, "new": {71, 72, 73}} {
		for i, seed := range seeds {
			data, exp := tracegen.SimpleperfProfile{Seed: seed, Samples: 900 + 100*i}.Simpleperf()
			run := filepath.Join(dir, side, fmt.Sprintf("run-%d", i))
			if err := os.MkdirAll(run, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(run, "C_bind.simpleperf.trace"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			result := `{"context":{"build":{"device":"d","fingerprint":"f"},"cpuLocked":true,"compilationMode":"speed-profile"},
"benchmarks":[{"name":"bind","params":{},"className":"com.example.C","totalRunTimeNs":1,
"metrics":{"timeNs":{"minimum":1,"maximum":1,"median":1,"runs":[1]}},"sampledMetrics":{},
"warmupIterations":1,"repeatIterations":1,"thermalThrottleSleepSeconds":0,
"profilerOutputs":[{"type":"StackSamplingTrace","label":"Stack Sampling Trace","filename":"C_bind.simpleperf.trace"}]}]}`
			if err := os.WriteFile(filepath.Join(run, "p-benchmarkData.json"), []byte(result), 0o644); err != nil {
				t.Fatal(err)
			}
			best := mostSamples(exp)
			var n int64
			for k, c := range exp.Counts {
				if k.PID == best {
					n += c
				}
			}
			totals[side] = append(totals[side], n)
		}
	}
	median := func(v []int64) int64 { v = slices.Clone(v); slices.Sort(v); return v[1] }

	code, out, errOut := runCLI(t, nil, "diff", "-q", "--old", filepath.Join(dir, "old"), "--new", filepath.Join(dir, "new"), "-n", "0")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"methods of 3 old and 3 new traces:",
		fmt.Sprintf("3 old runs → 3 new runs: total samples %s → %s", units.Count(median(totals["old"])), units.Count(median(totals["new"]))),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%.1500s", want, out)
		}
	}

	code, out, errOut = runCLI(t, nil, "diff", "-q", "--old", filepath.Join(dir, "old"), "--new", filepath.Join(dir, "new"), "--format", "json")
	if code != exitOK {
		t.Fatalf("json: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Benchmarks []struct {
			Benchmark string `json:"benchmark"`
			OldTraces int    `json:"old_traces"`
			NewTraces int    `json:"new_traces"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 1 || rep.Benchmarks[0].OldTraces != 3 || rep.Benchmarks[0].NewTraces != 3 {
		t.Errorf("benchmarks %+v, want com.example.C#bind with 3 and 3 traces", rep.Benchmarks)
	}
}
