package simpleperf_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/simpleperf"
)

// variants are generated files of every shape the reader must handle.
var variants = []struct {
	name string
	sp   tracegen.SimpleperfProfile
}{
	{"plain", tracegen.SimpleperfProfile{Seed: 1, Samples: 3000}},
	{"offcpu-lost", tracegen.SimpleperfProfile{Seed: 2, Samples: 2000, OffCPU: true, Lost: 17}},
	{"unknown-files", tracegen.SimpleperfProfile{Seed: 3, Samples: 2000, UnknownFiles: 4}},
	{"gzip", tracegen.SimpleperfProfile{Seed: 4, Samples: 1000, Gzip: true, Hz: 1000}},
}

func read(t *testing.T, data []byte, opt simpleperf.Options) *samples.Profile {
	t.Helper()
	p, err := simpleperf.Read(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

// counts keys a profile's samples by pid, tid and frame names (as
// simpleperf's symbol tables give them, demangled).
func counts(p *samples.Profile) map[tracegen.StackCount]int64 {
	out := map[tracegen.StackCount]int64{}
	for i := range p.Samples {
		s := &p.Samples[i]
		th := p.Threads[s.Thread]
		names := make([]string, len(s.Stack))
		for j, f := range s.Stack {
			names[j] = p.Frames[f].Name
		}
		out[tracegen.StackCount{PID: th.PID, TID: th.TID, Stack: strings.Join(names, ";")}] += s.Count
	}
	return out
}

// readAll reads every process's profile.
func readAll(t *testing.T, data []byte, opt simpleperf.Options) []*samples.Profile {
	t.Helper()
	var out []*samples.Profile
	for _, proc := range read(t, data, opt).Processes {
		o := opt
		o.Process = strconv.FormatInt(proc.PID, 10)
		out = append(out, read(t, data, o))
	}
	return out
}

func diffCounts(t *testing.T, what string, got, want map[tracegen.StackCount]int64) {
	t.Helper()
	n := 0
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: pid %d tid %d stack …%s: %d samples, want %d", what, k.PID, k.TID, tail(k.Stack), g, w)
			if n++; n > 5 {
				t.FailNow()
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: pid %d tid %d stack …%s: %d samples, want none", what, k.PID, k.TID, tail(k.Stack), g)
			if n++; n > 5 {
				t.FailNow()
			}
		}
	}
}

func tail(s string) string { return s[max(0, len(s)-150):] }

// TestGenerated reads every variant and requires what the generator
// wrote: counts per process, thread and stack, names, weights, period,
// repairs and lost samples, and the timeline's times.
func TestGenerated(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			data, exp := v.sp.Simpleperf()
			ps := readAll(t, data, simpleperf.Options{})
			got := map[tracegen.StackCount]int64{}
			var repaired int64
			for _, p := range ps {
				for k, n := range counts(p) {
					got[k] += n
				}
				for _, r := range p.Repairs {
					repaired += r.Count
				}
				for _, th := range p.Threads {
					if th.Name != exp.Threads[th.TID] {
						t.Errorf("thread %d: %q, want %q", th.TID, th.Name, exp.Threads[th.TID])
					}
				}
				for _, s := range p.Samples {
					if s.WeightNanos != s.Count*exp.PeriodNs {
						t.Fatalf("weight %d ns for %d samples, want %d", s.WeightNanos, s.Count, s.Count*exp.PeriodNs)
					}
				}
				var lost int64
				for _, u := range p.Unlisted {
					lost += u.Count
				}
				if lost != int64(v.sp.Lost) {
					t.Errorf("%d lost samples, want %d", lost, v.sp.Lost)
				}
			}
			diffCounts(t, "counts", got, exp.Counts)
			if repaired != exp.Unknown {
				t.Errorf("%d repaired samples, want %d", repaired, exp.Unknown)
			}
			p := read(t, data, simpleperf.Options{Select: samples.Select{Timeline: true}})
			for _, proc := range p.Processes {
				if w := exp.Processes[proc.PID]; proc.Name != w.Name || proc.Samples != w.Samples {
					t.Errorf("process %+v, want %+v", proc, w)
				}
			}
			if p.Processes[p.Process].Name != "com.example.app" || p.PeriodNanos != exp.PeriodNs || p.StartNanos != exp.FirstNs {
				t.Errorf("process %q, period %d, start %d; want the app, %d, %d", p.Processes[p.Process].Name, p.PeriodNanos, p.StartNanos, exp.PeriodNs, exp.FirstNs)
			}
			var times, want []int64
			it := p.Timeline.Iter()
			for s, ok := it.Next(); ok; s, ok = it.Next() {
				times = append(times, s.Time)
			}
			for _, s := range exp.Samples {
				if s.PID == 4321 {
					want = append(want, s.Time-exp.FirstNs)
				}
			}
			slices.Sort(times)
			slices.Sort(want)
			if !slices.Equal(times, want) {
				t.Errorf("timeline of %d samples, want %d", len(times), len(want))
			}
		})
	}
}

// TestFirefoxFixtures reads Firefox Profiler's two real simpleperf files
// (testdata/firefox): their samples per event, counted independently of
// this reader by walking the records (python, in the commit that added
// them): 927 cpu-clock and 307 sched:sched_switch samples; 1484
// task-clock and 626 sched:sched_switch; one app process; 250 µs events.
func TestFirefoxFixtures(t *testing.T) {
	for _, c := range []struct {
		file               string
		event              string
		samples, allEvents int64
		pid                int64
	}{
		{"simpleperf-cpu-clock.trace.gz", "cpu-clock", 927, 1234, 7657},
		{"simpleperf-task-clock.trace.gz", "task-clock", 1484, 2110, 2994},
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "firefox", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if !simpleperf.Sniff(data) {
				t.Fatal("not sniffed")
			}
			p := read(t, data, simpleperf.Options{})
			if len(p.Processes) != 1 || p.Processes[0].PID != c.pid || p.Processes[0].Samples != c.samples ||
				p.Processes[0].Name != "com.example.sampleapplication" {
				t.Fatalf("processes %+v", p.Processes)
			}
			if p.PeriodNanos != 250_000 || !strings.Contains(p.Period, c.event) {
				t.Errorf("period %d (%s)", p.PeriodNanos, p.Period)
			}
			java := 0
			for _, f := range p.Frames {
				if f.Kind == samples.JavaFrame && f.Class != "" && f.Method != "" {
					java++
				}
			}
			if java == 0 {
				t.Error("no Java frame")
			}
			all := read(t, data, simpleperf.Options{AllEvents: true})
			if all.Processes[0].Samples != c.allEvents {
				t.Errorf("%d samples of all events, want %d", all.Processes[0].Samples, c.allEvents)
			}
			checkTraceProcessor(t, data)
		})
	}
}

// TestTraceProcessor imports the generated files with Perfetto's trace
// processor, which reads simpleperf's protobuf, and requires our samples
// of every event (trace_processor does not tell events apart) per
// process, thread and stack. Without the tool the test skips, unless
// ATRACE2_TP=require (CI).
func TestTraceProcessor(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			data, _ := v.sp.Simpleperf()
			checkTraceProcessor(t, data)
		})
	}
}

// tpQuery lists trace_processor's samples of a simpleperf file (source
// "simpleperf" of cpu_profile_stack_sample) with their thread's pid and
// tid and their call sites' frames.
const tpQuery = `
with s as (
  select cs.callsite_id, cs.ts, t.tid, p.pid from cpu_profile_stack_sample cs
    left join thread t using (utid) left join process p on p.upid = t.upid
),
chain(leaf, id, parent_id, frame_id, depth) as (
  select c.id, c.id, c.parent_id, c.frame_id, c.depth from stack_profile_callsite c
    where c.id in (select callsite_id from s)
  union all
  select chain.leaf, p.id, p.parent_id, p.frame_id, p.depth
    from chain join stack_profile_callsite p on p.id = chain.parent_id
)
select 'sample', coalesce(pid, 0), coalesce(tid, 0), callsite_id, ts, '', '' from s
union all
select 'frame', chain.leaf, chain.depth, f.rel_pc, 0, coalesce(f.name, ''), m.name
  from chain join stack_profile_frame f on f.id = chain.frame_id
  join stack_profile_mapping m on m.id = f.mapping;
`

func checkTraceProcessor(t *testing.T, data []byte) {
	t.Helper()
	tp := testutil.TraceProcessor(t)
	path := filepath.Join(t.TempDir(), "perf.trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	type fr struct {
		depth int
		name  string
	}
	frames := map[string][]fr{}
	type smp struct{ pid, tid, cs, ts string }
	var ss []smp
	for _, row := range testutil.TPQuery(t, tp, path, tpQuery) {
		switch row[0] {
		case "sample":
			ss = append(ss, smp{row[1], row[2], row[3], row[4]})
		case "frame":
			d, _ := strconv.Atoi(row[2])
			name := row[5]
			if name == "" {
				pc, _ := strconv.ParseInt(row[3], 10, 64) // an int64 in trace_processor
				name = filepath.Base(row[6]) + "+0x" + strconv.FormatUint(uint64(pc), 16)
			}
			frames[row[1]] = append(frames[row[1]], fr{d, name})
		}
	}
	got := map[tracegen.StackCount]int64{}
	var gotTimes []string
	for _, s := range ss {
		fs := frames[s.cs]
		names := make([]string, len(fs))
		for _, f := range fs {
			names[f.depth] = f.name
		}
		pid, _ := strconv.ParseInt(s.pid, 10, 64)
		tid, _ := strconv.ParseInt(s.tid, 10, 64)
		got[tracegen.StackCount{PID: pid, TID: tid, Stack: strings.Join(names, ";")}]++
		gotTimes = append(gotTimes, s.tid+"@"+s.ts)
	}
	// Ours, every event; trace_processor drops samples with a frame in an
	// unlisted file.
	want := map[tracegen.StackCount]int64{}
	var wantTimes []string
	for _, p := range readAll(t, data, simpleperf.Options{AllEvents: true, Select: samples.Select{Timeline: true}}) {
		for k, n := range counts(p) {
			if !strings.Contains(k.Stack, "[unknown file") {
				want[k] += n
			}
		}
		it := p.Timeline.Iter()
		for s, ok := it.Next(); ok; s, ok = it.Next() {
			sm := &p.Samples[s.Sample]
			if p.Frames[sm.Stack[len(sm.Stack)-1]].Kind != samples.UnknownFrame {
				wantTimes = append(wantTimes, strconv.FormatInt(p.Threads[s.Thread].TID, 10)+"@"+strconv.FormatInt(p.StartNanos+s.Time, 10))
			}
		}
	}
	diffCounts(t, "trace_processor vs ours", want, got)
	slices.Sort(gotTimes)
	slices.Sort(wantTimes)
	if !slices.Equal(gotTimes, wantTimes) {
		t.Errorf("trace_processor has %d sample times, we %d, or they differ", len(gotTimes), len(wantTimes))
	}
}

// TestErrors: other formats, a cut file, a bad version, no samples.
func TestErrors(t *testing.T) {
	for name, data := range map[string][]byte{"empty": nil, "text": []byte("hello"), "perfetto": {0x0a, 0x02, 0x40, 0x01}} {
		if simpleperf.Sniff(data) {
			t.Errorf("%s: sniffed", name)
		}
		if _, err := simpleperf.Read(bytes.NewReader(data), simpleperf.Options{}); !errors.Is(err, simpleperf.ErrNotSimpleperf) {
			t.Errorf("%s: error %v, want ErrNotSimpleperf", name, err)
		}
	}
	_, err := simpleperf.Read(strings.NewReader("SIMPLEPERF\x02\x00\x00\x00\x00\x00"), simpleperf.Options{})
	if err == nil || err.Error() != "offset 10 (0xa): version 2; this reader knows version 1" {
		t.Errorf("version 2: %v", err)
	}
	_, err = simpleperf.Read(strings.NewReader("SIMPLEPERF\x01\x00\x00\x00\x00\x00"), simpleperf.Options{})
	var ns *simpleperf.NoSamplesError
	if !errors.As(err, &ns) || err.Error() != "no samples: the file holds 0 records" {
		t.Errorf("no records: %v", err)
	}
	data, _ := tracegen.SimpleperfProfile{Seed: 9, Samples: 40, StacksPerThread: 2, OffCPU: true}.Simpleperf()
	full := read(t, data, simpleperf.Options{AllEvents: true})
	var total int64
	for _, p := range full.Processes {
		total += p.Samples
	}
	for n := 12; n < len(data); n += 3 {
		p, err := simpleperf.Read(bytes.NewReader(data[:n]), simpleperf.Options{AllEvents: true})
		if errors.As(err, &ns) {
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if err := p.Check(); err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if !p.Truncated {
			t.Fatalf("cut at %d: not truncated", n)
		}
		var got int64
		for _, proc := range p.Processes {
			got += proc.Samples
		}
		if got > total {
			t.Fatalf("cut at %d: %d samples, more than %d", n, got, total)
		}
	}
}

// TestReferenceEqualsFast: the cache of call chains changes nothing.
func TestReferenceEqualsFast(t *testing.T) {
	for _, v := range variants {
		data, _ := v.sp.Simpleperf()
		for _, opt := range []simpleperf.Options{{}, {AllEvents: true, Select: samples.Select{Timeline: true}}} {
			fast, err1 := simpleperf.Read(bytes.NewReader(data), opt)
			ref, err2 := simpleperf.ReadReference(bytes.NewReader(data), opt)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !reflect.DeepEqual(fast, ref) {
				t.Fatalf("%s: the fast path's profile differs from the reference path's", v.name)
			}
		}
	}
}

// TestNoSamplesCounts: the error's counts agree with their nouns and have
// thousands separators.
func TestNoSamplesCounts(t *testing.T) {
	for _, c := range []struct {
		e    simpleperf.NoSamplesError
		want string
	}{
		{simpleperf.NoSamplesError{Records: 1}, "no samples: the file holds 1 record"},
		{simpleperf.NoSamplesError{Records: 26785, Events: []string{"sched:sched_switch (3)"}}, "no CPU samples: the file holds 26,785 records, with samples of sched:sched_switch (3) only"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
