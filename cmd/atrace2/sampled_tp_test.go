package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/simpleperf"
)

// The outputs of sampled profiles against the real consumer: Perfetto's
// trace_processor imports the same file, and per process, thread and call
// stack the sample counts of atrace2's pprof profiles (one per process,
// --process) must equal its own. The frames are named on both sides as
// the readers name them (profbuild.MakeFrame: Java frames as
// <class>.<method>, native ones demangled, "<file>+0x<pc>" without a
// symbol), from trace_processor's function names (its deobfuscated ones
// when the trace carries a mapping), mappings and pcs.

// tpStackSamples lists every stack sample trace_processor imports (the
// tables of PerfSample, StreamingProfilePacket and simpleperf's samples,
// and StackSample's other rows) with its process, thread and time, then
// each call site's frames (function, mapping, pc), the root at depth 0.
const tpStackSamples = `
with s as (
  select ps.ts, ps.callsite_id, t.tid, p.pid from perf_sample ps
    left join thread t using (utid) left join process p on p.upid = t.upid
  union all
  select cs.ts, cs.callsite_id, t.tid, p.pid from cpu_profile_stack_sample cs
    left join thread t using (utid) left join process p on p.upid = t.upid
  union all
  select ss.ts, ss.callsite_id, t.tid, p.pid from stack_sample ss
    left join stack_sample_task_context c on c.id = ss.task_context_id
    left join thread t on t.utid = c.utid
    left join process p on p.upid = coalesce(c.upid, t.upid)
    where coalesce(ss.source, '') not in ('linux.perf', 'chrome', 'legacy_v8', 'gecko', 'simpleperf', 'perf_text')
),
chain(leaf, id, parent_id, frame_id, depth) as (
  select c.id, c.id, c.parent_id, c.frame_id, c.depth from stack_profile_callsite c
    where c.id in (select callsite_id from s)
  union all
  select chain.leaf, p.id, p.parent_id, p.frame_id, p.depth
    from chain join stack_profile_callsite p on p.id = chain.parent_id
)
select 'sample', coalesce(pid, 0), coalesce(tid, 0), coalesce(callsite_id, -1), ts, '', '', ''
  from s
union all
select 'frame', chain.leaf, chain.depth, f.rel_pc, 0, coalesce(f.deobfuscated_name, f.name, ''), coalesce(m.name, ''), coalesce(m.build_id, '')
  from chain join stack_profile_frame f on f.id = chain.frame_id
  left join stack_profile_mapping m on m.id = f.mapping;
`

// stackKey is a sample's process, thread and stack (frame names root
// first, joined by ";"; "<null>" for a sample trace_processor keeps
// without a call site).
type stackKey struct {
	pid, tid int64
	stack    string
}

// tpStacks imports path with trace_processor and counts its samples per
// process, thread and stack; keep, when set, chooses the samples by
// thread and time (the events atrace2 reads of a simpleperf file).
func tpStacks(t *testing.T, tp, path string, keep func(tid, ts int64) bool) map[stackKey]int64 {
	t.Helper()
	rows := testutil.TPQuery(t, tp, path, tpStackSamples)
	type frame struct {
		depth int
		name  string
	}
	frames := map[string][]frame{}
	atoi := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("trace_processor row: %v", err)
		}
		return v
	}
	for _, row := range rows {
		if row[0] != "frame" {
			continue
		}
		// trace_processor keeps rel_pc as an int64; the readers name a
		// frame without a symbol by the unsigned pc.
		f := profbuild.MakeFrame(row[5], row[6], row[7], uint64(atoi(row[3])), false)
		frames[row[1]] = append(frames[row[1]], frame{int(atoi(row[2])), f.Name})
	}
	out := map[stackKey]int64{}
	for _, row := range rows {
		if row[0] != "sample" {
			continue
		}
		k := stackKey{pid: atoi(row[1]), tid: atoi(row[2]), stack: "<null>"}
		if keep != nil && !keep(k.tid, atoi(row[4])) {
			continue
		}
		if fs, ok := frames[row[3]]; ok {
			names := make([]string, len(fs))
			for _, f := range fs {
				names[f.depth] = f.name
			}
			k.stack = strings.Join(names, ";")
		}
		out[k]++
	}
	return out
}

// sampledInfo is what info --format json says of a sampled profile's
// processes and its samples without a stack.
type sampledInfo struct {
	Processes []struct {
		PID int64 `json:"pid"`
	} `json:"processes"`
	Unlisted []struct {
		Count int64 `json:"count"`
	} `json:"unlisted"`
}

// pprofStacks runs atrace2 pprof on path once per process that info lists
// (--process PID) and counts each profile's samples per process, thread
// and stack, as tpStacks keys them: a stack with a frame the file never
// defines, and an empty one, is "<null>" (the former dropped, with dropUnknown, as trace_processor drops
// such streaming samples), and with unlisted the samples without a stack
// (info's unlisted: those traced_perf skipped, which trace_processor
// lists without a call site) are "<null>" of the process's thread -1.
func pprofStacks(t *testing.T, path string, dropUnknown, unlisted bool) map[stackKey]int64 {
	t.Helper()
	code, stdout, stderr := runCLI(t, nil, "info", "-q", "--format", "json", path)
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	var all sampledInfo
	if err := json.Unmarshal([]byte(stdout), &all); err != nil {
		t.Fatal(err)
	}
	out := map[stackKey]int64{}
	for _, proc := range all.Processes {
		pid := strconv.FormatInt(proc.PID, 10)
		file := filepath.Join(t.TempDir(), "p.pb.gz")
		if code, _, stderr := runCLI(t, nil, "pprof", "-q", "--process", pid, "-o", file, path); code != 0 {
			t.Fatalf("pprof --process %s: exit %d: %s", pid, code, stderr)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.SampleType) != 1 || p.SampleType[0].Type != "samples" {
			t.Fatalf("process %s: sample types %v, want samples alone", pid, p.SampleType)
		}
		for _, s := range p.Sample {
			// pprof drops a number label of 0 (pid or tid 0, the idle
			// task and hand-written traces): it is absent then.
			tid := int64(0)
			if tids := s.NumLabel["tid"]; len(tids) == 1 {
				tid = tids[0]
			}
			if pids := s.NumLabel["pid"]; len(pids) != 1 && proc.PID != 0 || len(pids) == 1 && pids[0] != proc.PID || len(s.Label["thread"]) != 1 {
				t.Fatalf("process %s: a sample's labels %v %v", pid, s.Label, s.NumLabel)
			}
			names := make([]string, len(s.Location))
			unknown := false
			for i, loc := range s.Location {
				name := loc.Line[0].Function.Name
				names[len(names)-1-i] = name
				unknown = unknown || name == "[unknown call stack]" || name == "[unknown frame]"
			}
			k := stackKey{pid: proc.PID, tid: tid, stack: strings.Join(names, ";")}
			if unknown {
				if dropUnknown {
					continue
				}
				k.stack = "<null>"
			}
			if k.stack == samples.EmptyTimedStackName {
				k.stack = "<null>" // an empty call stack: trace_processor's sample has no call site
			}
			out[k] += s.Value[0]
		}
		if !unlisted {
			continue
		}
		code, stdout, stderr = runCLI(t, nil, "info", "-q", "--format", "json", "--process", pid, path)
		if code != 0 {
			t.Fatalf("info --process %s: exit %d: %s", pid, code, stderr)
		}
		var one sampledInfo
		if err := json.Unmarshal([]byte(stdout), &one); err != nil {
			t.Fatal(err)
		}
		for _, u := range one.Unlisted {
			out[stackKey{pid: proc.PID, tid: -1, stack: "<null>"}] += u.Count
		}
	}
	return out
}

// nullsByProcess moves the samples without a call site to their process's
// thread -1: trace_processor keeps traced_perf's skipped samples with
// their thread, the readers count them per process.
func nullsByProcess(m map[stackKey]int64) {
	for k, n := range m {
		if k.stack == "<null>" && k.tid != -1 {
			delete(m, k)
			k.tid = -1
			m[k] += n
		}
	}
}

// diffStacks reports the first differences of two counts.
func diffStacks(t *testing.T, ours, theirs map[stackKey]int64) {
	t.Helper()
	n := 0
	report := func(k stackKey, o, th int64) {
		if n++; n <= 6 {
			s := k.stack
			if len(s) > 200 {
				s = "…" + s[len(s)-200:]
			}
			t.Errorf("pid %d tid %d %s: atrace2 %d samples, trace_processor %d", k.pid, k.tid, s, o, th)
		}
	}
	for k, o := range ours {
		if theirs[k] != o {
			report(k, o, theirs[k])
		}
	}
	for k, th := range theirs {
		if _, ok := ours[k]; !ok {
			report(k, 0, th)
		}
	}
	if n == 0 && len(ours) == 0 {
		t.Error("no samples at all")
	}
}

// TestSampledOutputsTraceProcessor compares, per process, thread and call
// stack, the sample counts of atrace2's pprof profiles of generated
// Perfetto traces (traced_perf's shape: several sequences, resets, interned
// data split across packets, compressed packets, gzip, lost packets,
// skipped samples and never-interned call stacks; Chrome's streaming
// packets; StackSample packets; the trace's own deobfuscation), Perfetto's
// own diff-test traces and generated and real simpleperf profiles, with
// trace_processor's import of the same file. Without trace_processor it
// skips, unless ATRACE2_TP=require (CI).
func TestSampledOutputsTraceProcessor(t *testing.T) {
	tp := testutil.TraceProcessor(t)
	type input struct {
		name      string
		data      []byte
		streaming bool
		keep      func(tid, ts int64) bool
	}
	var ins []input
	for _, v := range []struct {
		name string
		sp   tracegen.StackProfile
	}{
		{"perf-sequences", tracegen.StackProfile{Seed: 2, Samples: 2000, Sequences: 3, ClearEvery: 250, SplitInterned: true}},
		{"perf-repairs", tracegen.StackProfile{Seed: 4, Samples: 2000, Sequences: 2, ClearEvery: 300, UnknownStacks: 5, Skipped: 6, LoseAfter: 150}},
		{"perf-compressed-gzip", tracegen.StackProfile{Seed: 5, Samples: 1500, Sequences: 2, ClearEvery: 500, CompressEvery: 40, Gzip: true, SuspendNs: 5e9}},
		{"perf-obfuscated", tracegen.StackProfile{Seed: 7, Samples: 1500, Obfuscate: true}},
		{"streaming", tracegen.StackProfile{Seed: 8, Samples: 1500, Kind: tracegen.StreamingSamples, ClearEvery: 200}},
		{"stacksample", tracegen.StackProfile{Seed: 9, Samples: 1500, Kind: tracegen.StackSampleSamples, Sequences: 2, ClearEvery: 400, SplitInterned: true}},
	} {
		data, _ := v.sp.Perfetto()
		ins = append(ins, input{name: v.name, data: data, streaming: v.sp.Kind == tracegen.StreamingSamples})
	}
	sp, _ := tracegen.SimpleperfProfile{Seed: 3, Samples: 2000, Lost: 4}.Simpleperf()
	ins = append(ins, input{name: "simpleperf", data: sp})
	// The real files: Perfetto's diff tests with stack samples, and
	// Firefox Profiler's simpleperf recordings, whose other event's
	// samples (sched_switch) trace_processor imports too: atrace2 reads
	// the first event's, which the reader says by their times.
	textprotos, _ := filepath.Glob("../../pftrace/testdata/perfetto/*.textproto")
	for _, path := range textprotos {
		ins = append(ins, input{name: strings.TrimSuffix(filepath.Base(path), ".textproto"), data: testutil.EncodeTextproto(t, path)})
	}
	for _, name := range []string{"simpleperf-cpu-clock.trace.gz", "simpleperf-task-clock.trace.gz"} {
		data, err := os.ReadFile(filepath.Join("../../simpleperf/testdata/firefox", name))
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{name: name, data: data, keep: firstEvent(t, data)})
	}
	for _, in := range ins {
		t.Run(in.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in")
			if err := os.WriteFile(path, in.data, 0o644); err != nil {
				t.Fatal(err)
			}
			theirs := tpStacks(t, tp, path, in.keep)
			if code, _, stderr := runCLI(t, nil, "info", "-q", path); code != 0 {
				if !strings.Contains(stderr, "no CPU stack samples") {
					t.Fatalf("info: exit %d: %s", code, stderr)
				}
				// The counter-only diff tests: trace_processor must find
				// no sample with a call stack either (their samples
				// count counters only).
				for k, n := range theirs {
					if k.stack != "<null>" {
						t.Errorf("atrace2 finds no stack samples (%s); trace_processor %d of pid %d tid %d with a stack: %s", strings.TrimSpace(stderr), n, k.pid, k.tid, k.stack)
					}
				}
				return
			}
			ours := pprofStacks(t, path, in.streaming, in.keep == nil && in.name != "simpleperf")
			nullsByProcess(theirs)
			nullsByProcess(ours)
			diffStacks(t, ours, theirs)
		})
	}
}

// firstEvent reads the times of a simpleperf file's samples of its first
// event, which atrace2 reads, for choosing trace_processor's samples of
// that event (it imports every event's into one table).
func firstEvent(t *testing.T, data []byte) func(tid, ts int64) bool {
	t.Helper()
	p, err := simpleperf.Read(bytes.NewReader(data), simpleperf.Options{Select: samples.Select{Timeline: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Processes) != 1 {
		t.Fatalf("%d processes: read every one's times", len(p.Processes))
	}
	type at struct{ tid, ts int64 }
	var times []at
	it := p.Timeline.Iter()
	for s, ok := it.Next(); ok; s, ok = it.Next() {
		times = append(times, at{p.Threads[s.Thread].TID, p.StartNanos + s.Time})
	}
	slices.SortFunc(times, func(a, b at) int {
		if a.tid != b.tid {
			return int(a.tid - b.tid)
		}
		return int(a.ts - b.ts)
	})
	return func(tid, ts int64) bool {
		_, found := slices.BinarySearchFunc(times, at{tid, ts}, func(a, b at) int {
			if a.tid != b.tid {
				return int(a.tid - b.tid)
			}
			if a.ts < b.ts {
				return -1
			}
			if a.ts > b.ts {
				return 1
			}
			return 0
		})
		return found
	}
}
