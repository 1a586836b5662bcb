package pftrace_test

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// variants are generated traces of every shape the reader must handle.
var variants = []struct {
	name string
	sp   tracegen.StackProfile
}{
	{"perf", tracegen.StackProfile{Seed: 1, Samples: 3000}},
	{"perf-sequences-clears", tracegen.StackProfile{Seed: 2, Samples: 4000, Sequences: 3, ClearEvery: 250, SplitInterned: true}},
	{"perf-suspend", tracegen.StackProfile{Seed: 3, Samples: 3000, Sequences: 2, SuspendNs: 7_000_000_000}},
	{"perf-repairs", tracegen.StackProfile{Seed: 4, Samples: 3000, Sequences: 2, ClearEvery: 600, UnknownStacks: 5, Skipped: 6, LoseAfter: 150}},
	{"perf-compressed", tracegen.StackProfile{Seed: 5, Samples: 3000, Sequences: 2, ClearEvery: 500, CompressEvery: 40}},
	{"perf-gzip", tracegen.StackProfile{Seed: 6, Samples: 2000, Gzip: true, CompressEvery: 7}},
	{"perf-obfuscated", tracegen.StackProfile{Seed: 7, Samples: 2000, Obfuscate: true}},
	{"streaming", tracegen.StackProfile{Seed: 8, Samples: 3000, Kind: tracegen.StreamingSamples, ClearEvery: 200, SuspendNs: 3_000_000_000}},
	{"stacksample", tracegen.StackProfile{Seed: 9, Samples: 3000, Kind: tracegen.StackSampleSamples, Sequences: 2, ClearEvery: 400, SplitInterned: true}},
}

// TestGenerated reads every variant and requires exactly what the
// generator says the trace holds: per process, thread and stack the
// sample counts; the processes with their names and counts; thread names;
// repairs and skipped samples; the period or weights.
func TestGenerated(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			data, exp := v.sp.Perfetto()
			ps := readAll(t, data, samples.Select{})
			diffCounts(t, "counts", allCounts(ps), exp.Counts)

			p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Processes) != len(exp.Processes) {
				t.Fatalf("%d processes, want %d", len(p.Processes), len(exp.Processes))
			}
			for _, proc := range p.Processes {
				want := exp.Processes[proc.PID]
				if proc.Name != want.Name || proc.Samples != want.Samples {
					t.Errorf("process %+v, want %+v", proc, want)
				}
			}
			var repaired, unlisted int64
			for _, q := range ps {
				for _, r := range q.Repairs {
					repaired += r.Count
				}
				pid := q.Processes[q.Process].PID
				var un int64
				for _, u := range q.Unlisted {
					un += u.Count
				}
				if un != exp.Skipped[pid] {
					t.Errorf("process %d: %d unlisted samples, want %d", pid, un, exp.Skipped[pid])
				}
				unlisted += un
				for _, th := range q.Threads {
					if th.Name != exp.Threads[th.TID] || th.ID != th.TID || th.PID != pid {
						t.Errorf("thread %+v, want name %q in process %d", th, exp.Threads[th.TID], pid)
					}
				}
				for i := range q.Samples {
					s := &q.Samples[i]
					wantW := int64(0)
					if v.sp.Kind == tracegen.StackSampleSamples {
						wantW = s.Count * 10_000_000
					}
					if s.WeightNanos != wantW {
						t.Fatalf("sample %d: weight %d ns, want %d", i, s.WeightNanos, wantW)
					}
				}
			}
			if repaired != exp.Unknown {
				t.Errorf("%d repaired samples, want %d", repaired, exp.Unknown)
			}
			if p.PeriodNanos != exp.PeriodNs {
				t.Errorf("period %d ns (%s), want %d", p.PeriodNanos, p.Period, exp.PeriodNs)
			}
			if got := p.Processes[p.Process].Name; got != "com.example.app" {
				t.Errorf("the default process is %q, want the app (most samples)", got)
			}
			if p.StartNanos != exp.FirstNs {
				t.Errorf("start %d, want the first sample's time %d", p.StartNanos, exp.FirstNs)
			}
			if v.sp.LoseAfter > 0 && !hasNote(p, "packet dropped") {
				t.Errorf("no note of the samples skipped after the lost packet: %q", p.Notes)
			}
			if v.sp.Obfuscate {
				checkDeobfuscated(t, p, exp)
			}
		})
	}
}

func hasNote(p *samples.Profile, s string) bool {
	return slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// checkDeobfuscated: every obfuscated app frame carries its readable name,
// class and method, and keeps the trace's name in Obfuscated.
func checkDeobfuscated(t *testing.T, p *samples.Profile, exp *tracegen.StackExpect) {
	t.Helper()
	renamed := 0
	for _, f := range p.Frames {
		want, ok := exp.Deobf[f.Obfuscated]
		if f.Obfuscated == "" {
			if _, obf := exp.Deobf[f.Name]; obf {
				t.Errorf("frame %q (%s) was not deobfuscated", f.Name, f.Library)
			}
			continue
		}
		if !ok || f.Name != want || f.Class+"."+f.Method != want || f.Kind != samples.JavaFrame {
			t.Errorf("frame %+v, want the name %q", f, want)
		}
		renamed++
	}
	if renamed == 0 {
		t.Error("no frame was deobfuscated")
	}
}

// TestTimeline: the timeline holds every sample of the process, per
// thread in time order, with the times the generator wrote (trace clock,
// from the first sample of the trace), and the window keeps exactly the
// samples inside it.
func TestTimeline(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			data, exp := v.sp.Perfetto()
			p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: samples.Select{Timeline: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			pid := p.Processes[p.Process].PID
			type ts struct {
				tid   int64
				stack string
				time  int64
			}
			var want, got []ts
			for _, s := range exp.Samples {
				if s.PID == pid {
					want = append(want, ts{s.TID, s.Stack, s.Time - exp.FirstNs})
				}
			}
			slices.SortStableFunc(want, func(a, b ts) int {
				if a.tid != b.tid {
					return int(a.tid - b.tid)
				}
				return int(a.time - b.time)
			})
			it := p.Timeline.Iter()
			for s, ok := it.Next(); ok; s, ok = it.Next() {
				got = append(got, ts{p.Threads[s.Thread].TID, stackString(p, &p.Samples[s.Sample]), s.Time})
			}
			if len(got) != len(want) {
				t.Fatalf("%d timeline samples, want %d", len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("timeline sample %d: tid %d at %d, want tid %d at %d (%s)", i, got[i].tid, got[i].time, want[i].tid, want[i].time, clip(want[i].stack))
				}
			}

			// A window over the middle third of the trace.
			span := p.EndNanos - p.StartNanos
			from, to := span/3, 2*span/3
			w, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: samples.Select{Windowed: true, From: from, To: to}})
			if err != nil {
				t.Fatal(err)
			}
			wantW := map[tracegen.StackCount]int64{}
			for _, s := range exp.Samples {
				if d := s.Time - exp.FirstNs; s.PID == pid && d >= from && d <= to {
					wantW[tracegen.StackCount{PID: s.PID, TID: s.TID, Stack: s.Stack}]++
				}
			}
			diffCounts(t, "window", counts(w), wantW)
		})
	}
}

// TestSelect picks processes by name, path base and pid, filters
// threads, and names the processes when the one asked for has no sample.
func TestSelect(t *testing.T) {
	data, exp := tracegen.StackProfile{Seed: 11, Samples: 1500, Sequences: 2}.Perfetto()
	read := func(sel samples.Select) (*samples.Profile, error) {
		return pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: sel})
	}
	for asked, pid := range map[string]int64{"surfaceflinger": 567, "/system/bin/surfaceflinger": 567, "system_server": 1234, "4321": 4321} {
		p, err := read(samples.Select{Process: asked})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Processes[p.Process].PID; got != pid {
			t.Errorf("process %q: got pid %d, want %d", asked, got, pid)
		}
		var n int64
		for _, s := range p.Samples {
			n += s.Count
		}
		if n != exp.Processes[pid].Samples {
			t.Errorf("process %q: %d samples, want %d", asked, n, exp.Processes[pid].Samples)
		}
	}
	p, err := read(samples.Select{Threads: func(th *samples.Thread) bool { return th.Name == "RenderThread" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 1 || p.Threads[0].TID != 4338 {
		t.Fatalf("threads %+v, want RenderThread alone", p.Threads)
	}
	want := map[tracegen.StackCount]int64{}
	for k, n := range exp.Counts {
		if k.TID == 4338 {
			want[k] = n
		}
	}
	diffCounts(t, "RenderThread", counts(p), want)

	_, err = read(samples.Select{Process: "com.example.other"})
	var pe *pftrace.ProcessError
	if !errors.As(err, &pe) || len(pe.Processes) != 3 || !strings.Contains(err.Error(), "com.example.app (pid 4321, "+strconv.FormatInt(exp.Processes[4321].Samples, 10)+" samples)") {
		t.Fatalf("error %v, want a ProcessError listing the 3 processes", err)
	}
}
