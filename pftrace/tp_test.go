package pftrace_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples"
)

// tpSamples lists, for trace_processor, the samples of each table the
// readers' packets land in (perf_sample for PerfSample, cpu_profile_stack_sample
// for StreamingProfilePacket, and for StackSample v58's stack_sample, whose
// other rows those two views list) with
// their process and thread, then each call site's frames (name, mapping,
// rel_pc), depth 0 (the root) first; then process and thread names.
const tpSamples = `
with s as (
  select 'perf' as src, ps.callsite_id, t.tid, p.pid from perf_sample ps
    left join thread t using (utid) left join process p on p.upid = t.upid
  union all
  select 'streaming', cs.callsite_id, t.tid, p.pid from cpu_profile_stack_sample cs
    left join thread t using (utid) left join process p on p.upid = t.upid
  union all
  select 'stack_sample', ss.callsite_id, t.tid, p.pid from stack_sample ss
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
select 'sample' as kind, src, coalesce(pid, 0), coalesce(tid, 0), coalesce(callsite_id, -1), count(*), '', ''
  from s group by 1, 2, 3, 4, 5
union all
select 'frame', chain.leaf, chain.depth, f.rel_pc, 0, 0, coalesce(f.name, ''), m.name
  from chain join stack_profile_frame f on f.id = chain.frame_id
  join stack_profile_mapping m on m.id = f.mapping
union all
select 'process', pid, 0, 0, 0, 0, coalesce(name, ''), '' from process
union all
select 'thread', tid, 0, 0, 0, 0, coalesce(name, ''), '' from thread
order by 1, 2, 3;
`

// tpResult is what trace_processor made of a trace.
type tpResult struct {
	counts    map[tracegen.StackCount]int64 // "<null>" for samples without a call site
	processes map[int64]string
	threads   map[int64]string
}

// importTP imports data with trace_processor_shell.
func importTP(t *testing.T, tp string, data []byte) tpResult {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.pftrace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rows := testutil.TPQuery(t, tp, path, tpSamples)
	type fr struct {
		depth int
		name  string
	}
	frames := map[string][]fr{}
	r := tpResult{counts: map[tracegen.StackCount]int64{}, processes: map[int64]string{}, threads: map[int64]string{}}
	type smp struct {
		pid, tid int64
		cs       string
		n        int64
	}
	var ss []smp
	for _, row := range rows {
		atoi := func(i int) int64 {
			v, err := strconv.ParseInt(row[i], 10, 64)
			if err != nil {
				t.Fatalf("row %q: %v", row, err)
			}
			return v
		}
		switch row[0] {
		case "sample":
			ss = append(ss, smp{atoi(2), atoi(3), row[4], atoi(5)})
		case "frame":
			name := row[6]
			if name == "" { // no symbol: named as the readers name it
				name = filepath.Base(row[7]) + "+0x" + strconv.FormatUint(uint64(atoi(3)), 16) // an int64 in trace_processor
			}
			frames[row[1]] = append(frames[row[1]], fr{int(atoi(2)), name})
		case "process":
			if row[6] != "" {
				r.processes[atoi(1)] = row[6]
			}
		case "thread":
			if row[6] != "" {
				r.threads[atoi(1)] = row[6]
			}
		}
	}
	for _, s := range ss {
		stack := "<null>"
		if fs, ok := frames[s.cs]; ok {
			names := make([]string, len(fs))
			for _, f := range fs {
				names[f.depth] = f.name
			}
			stack = strings.Join(names, ";")
		}
		r.counts[tracegen.StackCount{PID: s.pid, TID: s.tid, Stack: stack}] += s.n
	}
	return r
}

// ours keys the profiles as importTP does: a stack with a frame that was
// never interned, or with no frame, is "<null>", as trace_processor drops
// the call site of such a PerfSample; the samples traced_perf skipped (no call stack),
// which trace_processor lists with no call site too, are added per
// process from the profiles' unlisted counts under tid -1.
func ours(ps []*samples.Profile, streaming bool) map[tracegen.StackCount]int64 {
	out := map[tracegen.StackCount]int64{}
	for _, p := range ps {
		for i := range p.Samples {
			s := &p.Samples[i]
			th := p.Threads[s.Thread]
			key := tracegen.StackCount{PID: th.PID, TID: th.TID, Stack: stackString(p, s)}
			if len(s.Stack) == 0 {
				key.Stack = "<null>"
			}
			for _, f := range s.Stack {
				if p.Frames[f].Kind == samples.UnknownFrame {
					key.Stack = "<null>"
					if streaming {
						key.Stack = "" // trace_processor drops these samples
					}
				}
			}
			if key.Stack != "" {
				out[key] += s.Count
			}
		}
		for _, u := range p.Unlisted {
			out[tracegen.StackCount{PID: p.Processes[p.Process].PID, TID: -1, Stack: "<null>"}] += u.Count
		}
	}
	return out
}

// TestTraceProcessor imports every generated variant with Perfetto's
// trace processor and requires, per process, thread and call stack, the
// sample counts of our reader, and the same process and thread names.
// Without the tool the test skips, unless ATRACE2_TP=require (CI).
func TestTraceProcessor(t *testing.T) {
	tp := testutil.TraceProcessor(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			data, _ := v.sp.Perfetto()
			got := importTP(t, tp, data)
			ps := readAll(t, data, samples.Select{})
			want := ours(ps, v.sp.Kind == tracegen.StreamingSamples)
			// trace_processor's samples without a call site carry their
			// thread; ours of traced_perf's skipped ones do not: compare
			// those per process.
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
			for _, p := range ps {
				proc := p.Processes[p.Process]
				if got.processes[proc.PID] != proc.Name {
					t.Errorf("process %d: named %q, trace_processor %q", proc.PID, proc.Name, got.processes[proc.PID])
				}
				for _, th := range p.Threads {
					if got.threads[th.TID] != th.Name {
						t.Errorf("thread %d: named %q, trace_processor %q", th.TID, th.Name, got.threads[th.TID])
					}
				}
			}
		})
	}
}
