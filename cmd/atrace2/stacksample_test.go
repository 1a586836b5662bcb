package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/profbuild"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/internal/units"
)

// The commands on Perfetto stack-sample traces and simpleperf profiles,
// against what the generator wrote (tracegen.StackExpect): the process
// chosen and named, the counts per thread and stack of folded, the
// timelines of speedscope and perfetto, the deobfuscation and its
// ambiguities, the runs of diff, and the refusals.

// writeFile writes data to a new file name in a temporary folder.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// threeApps is a traced_perf trace of three processes (the app has the
// most samples) in three sequences with resets and interned data split
// across packets; the device sleeps 3 s in the middle, so that the
// samples' monotonic times reach the trace's clock through the second
// clock snapshot (timestamp_clock_id), not one offset.
var threeApps = tracegen.StackProfile{Seed: 2, Samples: 2000, Sequences: 3, ClearEvery: 250, SplitInterned: true, SuspendNs: 3e9}

// shown is a stack of the generator (its raw frame names, root first) as
// atrace2 shows it: native symbols demangled.
func shown(stack string) string {
	names := strings.Split(stack, ";")
	for i, n := range names {
		names[i] = profbuild.Demangle(n)
	}
	return strings.Join(names, ";")
}

// mostSamples is the pid of the process with the most samples.
func mostSamples(exp *tracegen.StackExpect) int64 {
	best := int64(-1)
	for _, pid := range slices.Sorted(maps.Keys(exp.Processes)) {
		if best < 0 || exp.Processes[pid].Samples > exp.Processes[best].Samples {
			best = pid
		}
	}
	return best
}

// foldedCounts parses folded output: "<thread> (tid N);<stack> <count>".
func foldedCounts(t *testing.T, out string) map[tracegen.StackCount]int64 {
	t.Helper()
	re := regexp.MustCompile(`^(.*) \(tid (\d+)\);(.*) (\d+)$`)
	got := map[tracegen.StackCount]int64{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("folded line %q", line)
		}
		tid, _ := strconv.ParseInt(m[2], 10, 64)
		n, _ := strconv.ParseInt(m[4], 10, 64)
		got[tracegen.StackCount{TID: tid, Stack: m[3]}] += n
	}
	return got
}

// wantCounts is exp's counts of process pid as foldedCounts keys them.
func wantCounts(exp *tracegen.StackExpect, pid int64) map[tracegen.StackCount]int64 {
	want := map[tracegen.StackCount]int64{}
	for k, n := range exp.Counts {
		if k.PID == pid {
			want[tracegen.StackCount{TID: k.TID, Stack: shown(k.Stack)}] += n
		}
	}
	return want
}

func diffCounts(t *testing.T, what string, got, want map[tracegen.StackCount]int64) {
	t.Helper()
	bad := 0
	for k, n := range want {
		if got[k] != n {
			if bad++; bad <= 5 {
				t.Errorf("%s: tid %d %s: %d samples, want %d", what, k.TID, k.Stack, got[k], n)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d stacks, want %d", what, len(got), len(want))
	}
}

// TestStackSampleProcess: info lists every process with its samples; by
// default the commands read the process with the most samples and say so
// in one note; --process picks another by name or pid, and folded then
// has exactly that process's samples per thread and stack; a process the
// trace lacks is one line naming those it has.
func TestStackSampleProcess(t *testing.T) {
	for _, in := range stackInputs(2000) {
		t.Run(in.name, func(t *testing.T) { testStackSampleProcess(t, in.data, in.exp) })
	}
}

// stackInput is a generated file of stack samples and what it holds.
type stackInput struct {
	name string
	data []byte
	exp  *tracegen.StackExpect
}

// stackInputs are threeApps and a simpleperf profile of the same world,
// of n samples each.
func stackInputs(n int) []stackInput {
	sp := threeApps
	sp.Samples = n
	pf, pexp := sp.Perfetto()
	spf, sexp := tracegen.SimpleperfProfile{Seed: 3, Samples: n, Hz: 100}.Simpleperf()
	return []stackInput{{"perfetto", pf, pexp}, {"simpleperf", spf, sexp}}
}

func testStackSampleProcess(t *testing.T, data []byte, exp *tracegen.StackExpect) {
	path := writeFile(t, "app.trace", data)
	best := mostSamples(exp)

	code, out, errOut := runCLI(t, nil, "info", "-q", "--format", "json", path)
	var procs struct {
		Processes []struct {
			PID      int64  `json:"pid"`
			Name     string `json:"name"`
			Samples  int64  `json:"samples"`
			Selected bool   `json:"selected"`
		} `json:"processes"`
		PeriodNanos int64 `json:"period_ns"`
		Count       int64 `json:"count"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &procs) != nil {
		t.Fatalf("info: exit %d %s\n%s", code, errOut, out)
	}
	if len(procs.Processes) != len(exp.Processes) || procs.PeriodNanos != exp.PeriodNs || procs.Count != exp.Processes[best].Samples {
		t.Errorf("info: %d processes, period %d, count %d; want %d, %d, %d", len(procs.Processes), procs.PeriodNanos, procs.Count,
			len(exp.Processes), exp.PeriodNs, exp.Processes[best].Samples)
	}
	all := int64(0)
	for _, p := range procs.Processes {
		e := exp.Processes[p.PID]
		all += e.Samples
		if p.Name != e.Name || p.Samples != e.Samples || p.Selected != (p.PID == best) {
			t.Errorf("info: process %+v, want %+v (selected %v)", p, e, p.PID == best)
		}
	}

	_, out, errOut = runCLI(t, nil, "folded", path)
	note := fmt.Sprintf("atrace2: %s: note: process %s (pid %d): %s of the file's %s stack samples, the most of its 3 processes (--process NAME|PID for another; info lists them)\n",
		path, exp.Processes[best].Name, best, units.Count(exp.Processes[best].Samples), units.Count(all))
	if errOut != note {
		t.Errorf("stderr %q\nwant %q", errOut, note)
	}
	diffCounts(t, "default", foldedCounts(t, out), wantCounts(exp, best))

	for pid, p := range exp.Processes {
		for _, sel := range []string{p.Name, strconv.FormatInt(pid, 10)} {
			code, out, errOut := runCLI(t, nil, "folded", "--process", sel, path)
			if code != 0 || errOut != "" {
				t.Fatalf("--process %s: exit %d %q", sel, code, errOut)
			}
			diffCounts(t, "--process "+sel, foldedCounts(t, out), wantCounts(exp, pid))
		}
	}

	code, _, errOut = runCLI(t, nil, "top", "--process", "com.example.other", path)
	if code != exitError || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, `no stack samples of process "com.example.other"; the file has samples of `) ||
		!strings.Contains(errOut, fmt.Sprintf("%s (pid %d, %d samples)", exp.Processes[best].Name, best, exp.Processes[best].Samples)) {
		t.Errorf("other process: exit %d %q", code, errOut)
	}
}

// TestStackSampleWindow: --thread and --from/--to choose samples by
// thread and time (from the trace's first sample), as the generator's
// times say.
func TestStackSampleWindow(t *testing.T) {
	data, exp := threeApps.Perfetto()
	path := writeFile(t, "app.perfetto-trace", data)
	best := mostSamples(exp)
	from, to := int64(500_000_000), int64(1_500_000_000)
	tid := int64(-1)
	want := map[tracegen.StackCount]int64{}
	for _, s := range exp.Samples {
		if s.PID != best {
			continue
		}
		if tid < 0 {
			tid = s.TID
		}
		if d := s.Time - exp.FirstNs; s.TID == tid && d >= from && d <= to {
			want[tracegen.StackCount{TID: s.TID, Stack: shown(s.Stack)}]++
		}
	}
	code, out, errOut := runCLI(t, nil, "folded", "-q", "--thread", strconv.FormatInt(tid, 10), "--from", "500ms", "--to", "1.5s", path)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	diffCounts(t, "window", foldedCounts(t, out), want)
}

// TestStackSampleMainThread: --thread main keeps the app's main thread,
// the one whose tid is the pid, although the app named it after its
// package (as Android does), and the focus line says why; folded then has
// exactly that thread's samples. An app thread with "main" in its name
// would match the pattern too: the generated app has none.
func TestStackSampleMainThread(t *testing.T) {
	data, exp := threeApps.Perfetto()
	path := writeFile(t, "app.perfetto-trace", data)
	best := mostSamples(exp)
	want := map[tracegen.StackCount]int64{}
	for k, n := range exp.Counts {
		if k.PID == best && k.TID == best {
			want[tracegen.StackCount{TID: k.TID, Stack: shown(k.Stack)}] += n
		}
	}
	if len(want) == 0 {
		t.Fatalf("the generator's app (pid %d) has no samples on its main thread", best)
	}
	code, out, errOut := runCLI(t, nil, "folded", "--thread", "main", path)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	diffCounts(t, "--thread main", foldedCounts(t, out), want)
	threads := map[int64]bool{}
	for k := range exp.Counts {
		if k.PID == best {
			threads[k.TID] = true
		}
	}
	if line := fmt.Sprintf("focus: 1 of %d threads (--thread main; %q is the main thread: its tid is the pid)", len(threads), exp.Threads[best]); !strings.Contains(errOut, line) {
		t.Errorf("stderr lacks %q:\n%s", line, errOut)
	}
}

// timelineExpect is what a thread's samples make of a timeline: the
// times at which its stack changes (a sample whose stack differs from
// the one before it, or that follows an idle gap longer than the period;
// the end of a sample followed by such a gap, or by nothing), the frames
// that begin, and the time its samples cover (each lasts the period, or
// until the next sample when that comes sooner).
type timelineExpect struct {
	times  map[int64]bool
	begins int
	cover  int64
}

func expectTimelines(exp *tracegen.StackExpect, pid int64) map[int64]*timelineExpect {
	per := map[int64][]tracegen.ExpectSample{}
	for _, s := range exp.Samples {
		if s.PID == pid {
			per[s.TID] = append(per[s.TID], s)
		}
	}
	out := map[int64]*timelineExpect{}
	p := exp.PeriodNs
	for tid, ss := range per {
		slices.SortStableFunc(ss, func(a, b tracegen.ExpectSample) int { return int(a.Time - b.Time) })
		e := &timelineExpect{times: map[int64]bool{}}
		var prev []string
		for i, s := range ss {
			t := s.Time - exp.FirstNs
			stack := strings.Split(shown(s.Stack), ";")
			if i > 0 && ss[i-1].Time+p < s.Time {
				prev = nil // idle since the end of the previous sample
			}
			common := 0
			for common < len(prev) && common < len(stack) && prev[common] == stack[common] {
				common++
			}
			if common != len(prev) || common != len(stack) {
				e.times[t] = true
				e.begins += len(stack) - common
			}
			d := p
			if i+1 < len(ss) && ss[i+1].Time-s.Time < p {
				d = ss[i+1].Time - s.Time
			} else if i+1 == len(ss) || ss[i+1].Time-s.Time > p {
				e.times[t+p] = true
			}
			e.cover += d
			prev = stack
		}
		out[tid] = e
	}
	return out
}

// TestStackSampleTimelines: speedscope has an evented profile per thread
// of the process, and perfetto a slice track per thread, whose stacks
// change exactly at the sample times the generator wrote (expectTimelines),
// with one frame begun per new frame of a stack, and whose outermost
// frames cover the samples' time. trace_processor reads the Perfetto
// output (skipped without it unless ATRACE2_TP=require).
func TestStackSampleTimelines(t *testing.T) {
	for _, in := range stackInputs(600) {
		t.Run(in.name, func(t *testing.T) { testStackSampleTimelines(t, in.data, in.exp) })
	}
}

func testStackSampleTimelines(t *testing.T, data []byte, exp *tracegen.StackExpect) {
	path := writeFile(t, "app.trace", data)
	want := expectTimelines(exp, mostSamples(exp))
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, nil, "convert", "-q", "--speedscope", filepath.Join(dir, "s.json"), "--perfetto", filepath.Join(dir, "p.pftrace"), path); code != 0 {
		t.Fatalf("convert: exit %d %s", code, errOut)
	}
	var ss struct {
		Profiles []struct {
			Type, Name, Unit string
			Events           []struct {
				Type  string
				At    int64
				Frame int
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "s.json"))
	if err != nil || json.Unmarshal(raw, &ss) != nil {
		t.Fatalf("speedscope: %v", err)
	}
	if len(ss.Profiles) != len(want) {
		t.Fatalf("%d speedscope profiles, want one per thread: %d", len(ss.Profiles), len(want))
	}
	tidOf := regexp.MustCompile(`\(tid (\d+)\)$`)
	for _, p := range ss.Profiles {
		m := tidOf.FindStringSubmatch(p.Name)
		if m == nil || p.Type != "evented" || p.Unit != "nanoseconds" {
			t.Fatalf("profile %q %s %s", p.Name, p.Type, p.Unit)
		}
		tid, _ := strconv.ParseInt(m[1], 10, 64)
		w := want[tid]
		if w == nil {
			t.Fatalf("profile %q: no such thread", p.Name)
		}
		times := map[int64]bool{}
		begins, depth, cover, since := 0, 0, int64(0), int64(0)
		for _, ev := range p.Events {
			times[ev.At] = true
			switch ev.Type {
			case "O":
				if depth == 0 {
					since = ev.At
				}
				depth++
				begins++
			case "C":
				if depth--; depth == 0 {
					cover += ev.At - since
				}
			}
		}
		if !maps.Equal(times, w.times) || begins != w.begins || cover != w.cover || depth != 0 {
			t.Errorf("%s: %d event times, %d frames begun, %d ns covered; want %d, %d, %d", p.Name, len(times), begins, cover, len(w.times), w.begins, w.cover)
		}
	}

	// The Perfetto output has the times of the stream, in whole
	// microseconds: a slice's duration is within 1 µs of the samples'.
	tp := testutil.TraceProcessor(t)
	rows := testutil.TPQuery(t, tp, filepath.Join(dir, "p.pftrace"),
		`select t.tid, count(*), sum(case when s.depth = 0 then s.dur else 0 end), sum(s.depth = 0) from slice s join thread_track tt on tt.id = s.track_id join thread t using (utid) group by t.tid;`)
	if len(rows) != len(want) {
		t.Fatalf("trace_processor: %d threads with slices, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		tid, _ := strconv.ParseInt(r[0], 10, 64)
		cover, _ := strconv.ParseInt(r[2], 10, 64)
		roots, _ := strconv.ParseInt(r[3], 10, 64)
		w := want[tid]
		if w == nil {
			t.Fatalf("trace_processor: tid %s: no such thread", r[0])
		}
		if r[1] != strconv.Itoa(w.begins) || max(cover-w.cover, w.cover-cover) >= 1000*roots {
			t.Errorf("trace_processor: tid %s: %s slices covering %d ns; want %d covering %d ns", r[0], r[1], cover, w.begins, w.cover)
		}
	}
}

// r8Map is an R8 mapping.txt of the generator's renaming (exp.Deobf:
// obfuscated class.method to readable), with a second method of class oa
// also named "a", which makes oa.a ambiguous.
func r8Map(exp *tracegen.StackExpect) string {
	classes := map[string]string{}
	methods := map[string][]string{}
	for obf, readable := range exp.Deobf {
		dot, odot := strings.LastIndexByte(readable, '.'), strings.LastIndexByte(obf, '.')
		classes[obf[:odot]] = readable[:dot]
		methods[obf[:odot]] = append(methods[obf[:odot]], fmt.Sprintf("    void %s() -> %s\n", readable[dot+1:], obf[odot+1:]))
	}
	var m strings.Builder
	m.WriteString("# compiler: R8\n")
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		fmt.Fprintf(&m, "%s -> %s:\n", classes[c], c)
		slices.Sort(methods[c])
		for _, l := range methods[c] {
			m.WriteString(l)
		}
		if c == "oa" {
			m.WriteString("    void overload() -> a\n")
		}
	}
	return m.String()
}

// TestStackSampleMapping: the Java frames of an obfuscated app's trace
// are renamed by --mapping by name, per method (folded's stacks are the
// readable ones the generator names), a name two methods share is
// counted and left as both names, and --strict fails on it; a trace that
// carries its own deobfuscation is readable without --mapping.
func TestStackSampleMapping(t *testing.T) {
	sp := tracegen.StackProfile{Seed: 13, Samples: 1500, Obfuscate: true, OmitMapping: true}
	data, exp := sp.Perfetto()
	path := writeFile(t, "app.trace", data)
	mp := writeFile(t, "mapping.txt", []byte(r8Map(exp)))
	best := mostSamples(exp)
	readable := func(stack string) string {
		names := strings.Split(shown(stack), ";")
		for i, n := range names {
			switch {
			case n == "oa.a":
				names[i] = "com.example.app.feed.FeedAdapter.onBindViewHolder | com.example.app.feed.FeedAdapter.overload"
			case exp.Deobf[n] != "":
				names[i] = exp.Deobf[n]
			}
		}
		return strings.Join(names, ";")
	}
	if _, ok := exp.Deobf["oa.a"]; !ok {
		t.Fatalf("the generator no longer names oa.a: %v", exp.Deobf)
	}
	want, ambiguous := map[tracegen.StackCount]int64{}, false
	for k, n := range exp.Counts {
		if k.PID == best {
			want[tracegen.StackCount{TID: k.TID, Stack: readable(k.Stack)}] += n
			ambiguous = ambiguous || slices.Contains(strings.Split(k.Stack, ";"), "oa.a")
		}
	}
	if !ambiguous {
		t.Fatal("no sample of the app has oa.a")
	}
	code, out, errOut := runCLI(t, nil, "folded", "--mapping", mp, path)
	if code != 0 {
		t.Fatalf("--mapping: exit %d %s", code, errOut)
	}
	diffCounts(t, "--mapping", foldedCounts(t, out), want)
	if !regexp.MustCompile(`: \d+ methods mapped, .*, 1 ambiguous, `).MatchString(errOut) {
		t.Errorf("--mapping: stderr does not count the ambiguous name:\n%s", errOut)
	}
	code, _, errOut = runCLI(t, nil, "top", "--strict", "--mapping", mp, path)
	if code != exitError || !strings.Contains(errOut, "strict mode") || !strings.Contains(errOut, "ambiguous") {
		t.Errorf("--strict: exit %d %q", code, errOut)
	}

	// The same trace with its own DeobfuscationMapping packets.
	sp.OmitMapping = false
	data, exp = sp.Perfetto()
	path = writeFile(t, "own.trace", data)
	want = map[tracegen.StackCount]int64{}
	for k, n := range exp.Counts {
		if k.PID == best {
			names := strings.Split(shown(k.Stack), ";")
			for i, n := range names {
				if r := exp.Deobf[n]; r != "" {
					names[i] = r
				}
			}
			want[tracegen.StackCount{TID: k.TID, Stack: strings.Join(names, ";")}] += n
		}
	}
	code, out, errOut = runCLI(t, nil, "folded", "-q", path)
	if code != 0 {
		t.Fatalf("own mapping: exit %d %s", code, errOut)
	}
	diffCounts(t, "own mapping", foldedCounts(t, out), want)
}

// TestStackSampleRefusals: a capture without a sample (a ProfilingManager
// outcome) is one line saying what the trace holds, exit 1 and no output
// file, for every command; so is a trace cut inside a packet under
// --strict (without it, a note); a perf.data file names the command that
// converts it into what atrace2 reads.
func TestStackSampleRefusals(t *testing.T) {
	empty, _ := tracegen.StackProfile{Seed: 2}.Perfetto()
	emptyPath := writeFile(t, "empty.perfetto-trace", empty)
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"info", "IN"}, {"top", "IN"}, {"calls", "IN", "."}, {"pprof", "-o", out, "IN"}, {"folded", "-o", out, "IN"},
		{"speedscope", "-o", out, "IN"}, {"perfetto", "-o", out, "IN"}, {"convert", "--pprof", out, "IN"}, {"diff", "IN", "IN"},
	} {
		for i := range args {
			if args[i] == "IN" {
				args[i] = emptyPath
			}
		}
		code, _, errOut := runCLI(t, nil, args...)
		want := "atrace2: " + emptyPath + ": no CPU stack samples: the trace holds 5 packets (2 packets of sequence state only (interned data, defaults), 1 clock snapshot, 1 packages list, 1 process tree); ui.perfetto.dev opens it\n"
		if code != exitError || errOut != want {
			t.Errorf("%v: exit %d %q\nwant %q", args, code, errOut, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: left %s", args, out)
		}
	}

	data, _ := threeApps.Perfetto()
	cut := writeFile(t, "cut.perfetto-trace", data[:30000])
	code, _, errOut := runCLI(t, nil, "top", "-q", "--strict", cut)
	if code != exitError || errOut != "atrace2: "+cut+": strict mode: the file is cut short: its last record is incomplete\n" {
		t.Errorf("--strict on a cut trace: exit %d %q", code, errOut)
	}
	if code, _, errOut = runCLI(t, nil, "top", cut); code != 0 || !strings.Contains(errOut, ": note: the trace ends inside a packet: its last ") {
		t.Errorf("a cut trace: exit %d %q", code, errOut)
	}

	perf := writeFile(t, "perf.data", append([]byte("PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00\x88\x00"), make([]byte, 200)...))
	code, _, errOut = runCLI(t, nil, "top", perf)
	if code != exitError || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "simpleperf report-sample --protobuf --show-callchain -i perf.data -o perf.trace, which atrace2 reads") {
		t.Errorf("perf.data: exit %d %q", code, errOut)
	}
}

// TestStackSampleTables: top and calls say that the profile is sampled
// and give each method its samples and the CPU time they stand for
// (samples × the period), the totals the generator's.
func TestStackSampleTables(t *testing.T) {
	data, exp := threeApps.Perfetto()
	path := writeFile(t, "app.trace", data)
	best := mostSamples(exp)
	incl := map[string]int64{} // per method, the samples it is on the stack of
	for k, n := range exp.Counts {
		if k.PID != best {
			continue
		}
		seen := map[string]bool{}
		for _, f := range strings.Split(shown(k.Stack), ";") {
			if !seen[f] {
				seen[f] = true
				incl[f] += n
			}
		}
	}
	var top struct {
		Clocks []string `json:"clocks"`
		Notes  []string `json:"notes"`
		Tables []struct {
			Total []int64 `json:"total_ns"` // samples, then ns
			Rows  []struct {
				Method string  `json:"method"`
				Incl   []int64 `json:"incl_ns"`
			} `json:"rows"`
		} `json:"tables"`
	}
	code, out, errOut := runCLI(t, nil, "top", "-q", "--limit", "0", "--format", "json", path)
	if code != 0 || json.Unmarshal([]byte(out), &top) != nil || len(top.Tables) != 1 {
		t.Fatalf("top: exit %d %s\n%.2000s", code, errOut, out)
	}
	total := exp.Processes[best].Samples
	if !slices.Equal(top.Clocks, []string{"samples", "cpu"}) || !slices.Equal(top.Tables[0].Total, []int64{total, total * exp.PeriodNs}) ||
		!slices.ContainsFunc(top.Notes, func(n string) bool { return strings.HasPrefix(n, "sampled: a sample stands for 10 ms of CPU time") }) {
		t.Errorf("top: clocks %v, total %v (want %d samples), notes %q", top.Clocks, top.Tables[0].Total, total, top.Notes)
	}
	if len(top.Tables[0].Rows) != len(incl) {
		t.Errorf("top: %d methods, want %d", len(top.Tables[0].Rows), len(incl))
	}
	for _, r := range top.Tables[0].Rows {
		if n := incl[r.Method]; !slices.Equal(r.Incl, []int64{n, n * exp.PeriodNs}) {
			t.Errorf("top: %s inclusive %v, want %d samples", r.Method, r.Incl, n)
		}
	}

	code, out, errOut = runCLI(t, nil, "calls", "-q", path, `^java\.lang\.Thread\.run$`)
	n := incl["java.lang.Thread.run"]
	want := fmt.Sprintf("java.lang.Thread.run: inclusive samples %s (%.1f%% of the total), cpu %s", units.Count(n), 100*float64(n)/float64(total), units.Duration(n*exp.PeriodNs))
	if code != 0 || n == 0 || !strings.Contains(out, want) || !strings.Contains(out, "note: sampled: a sample stands for 10 ms of CPU time") {
		t.Errorf("calls: exit %d %s\n%s\nwant a line %q", code, errOut, out, want)
	}
}

// TestStackSampleRuns: diff and the gate over runs, each run one trace:
// the totals are the medians of the runs' samples of their chosen process,
// and a rule on a method compares the medians of its inclusive samples,
// which the generator's counts give; 4 runs a side whose every new run
// has more of it than every old one regress it (p 0.029).
func TestStackSampleRuns(t *testing.T) {
	dir := t.TempDir()
	var olds, news []string
	var oldN, newN, oldRun, newRun []float64
	for i := range 8 {
		sp := threeApps
		sp.Seed, sp.Samples = uint64(40+i), 300+20*i
		if i >= 4 {
			sp.Samples += 600
		}
		data, exp := sp.Perfetto()
		path := filepath.Join(dir, fmt.Sprintf("run%d.perfetto-trace", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		best := mostSamples(exp)
		run := 0.0 // the samples with java.lang.Thread.run on their stack
		for k, n := range exp.Counts {
			if k.PID == best && slices.Contains(strings.Split(k.Stack, ";"), "java.lang.Thread.run") {
				run += float64(n)
			}
		}
		if i < 4 {
			olds, oldN, oldRun = append(olds, path), append(oldN, float64(exp.Processes[best].Samples)), append(oldRun, run)
		} else {
			news, newN, newRun = append(news, path), append(newN, float64(exp.Processes[best].Samples)), append(newRun, run)
		}
	}
	median := func(v []float64) string {
		v = slices.Clone(v)
		slices.Sort(v)
		return strconv.FormatFloat((v[1]+v[2])/2, 'f', -1, 64)
	}
	if slices.Max(oldRun) >= slices.Min(newRun) {
		t.Fatalf("runs %v and %v overlap: the rule cannot regress", oldRun, newRun)
	}
	args := append(append(append([]string{"diff", "-q", "--fail-on", `java\.lang\.Thread\.run$:incl>+10%`, "--old"}, olds...), "--new"), news...)
	code, out, errOut := runCLI(t, nil, args...)
	total := fmt.Sprintf("4 old runs → 4 new runs: total samples %s → %s", median(oldN), median(newN))
	row := regexp.MustCompile(`(?m)^regressed +\S+ +incl samples +` + regexp.QuoteMeta(median(oldRun)) + ` +` + regexp.QuoteMeta(median(newRun)) + ` .* 0\.0286 +java\.lang\.Thread\.run$`)
	if code != 3 || !strings.HasPrefix(out, total) || !row.MatchString(out) {
		t.Errorf("diff: exit %d %s\n%.1500s\nwant %q and a row regressed %s → %s", code, errOut, out, total, median(oldRun), median(newRun))
	}
}

// TestStackSampleWindowPastEnd: on stack samples (Perfetto, simpleperf) as
// on method traces, a window that ends past the trace's last sample warns
// in one line naming the trace's span and keeps the samples to the end,
// and its focus line shows the window as kept; one that starts past it is
// refused, naming the span.
func TestStackSampleWindowPastEnd(t *testing.T) {
	pf, pexp := threeApps.Perfetto()
	sp, sexp := tracegen.SimpleperfProfile{Seed: 3, Samples: 2000, Hz: 100}.Simpleperf()
	for _, c := range []struct {
		name string
		data []byte
		exp  *tracegen.StackExpect
	}{{"app.perfetto-trace", pf, pexp}, {"app.simpleperf.trace", sp, sexp}} {
		path := writeFile(t, c.name, c.data)
		var end int64 // the span: from the file's first sample to its last, of any process
		for _, s := range c.exp.Samples {
			end = max(end, s.Time-c.exp.FirstNs)
		}
		if end < 1_000_000_000 {
			t.Fatalf("%s: the generated samples span %d ns, want a second or more", c.name, end)
		}
		from := end / 2 / 1000 // µs
		span := units.Duration(end)
		code, out, errOut := runCLI(t, nil, "folded", "--from", fmt.Sprintf("%dus", from), "--to", "1h", path)
		_, want, _ := runCLI(t, nil, "folded", "-q", "--from", fmt.Sprintf("%dus", from), path)
		if code != exitOK || out != want || want == "" {
			t.Errorf("%s: exit %d, folded of %d bytes; want 0 and the %d bytes of the window to the end", c.name, code, len(out), len(want))
		}
		warn := fmt.Sprintf("%s: warning: --to 1h is past the trace, which spans 0 to %s: the window keeps %s to %s\n",
			c.name, span, units.Duration(from*1000), span)
		if !strings.Contains(errOut, warn) || !strings.Contains(errOut, fmt.Sprintf("focus: window %s to %s: ", units.Duration(from*1000), span)) {
			t.Errorf("%s: stderr %q, want %q and the window as kept in the focus line", c.name, errOut, warn)
		}
		if _, _, errOut := runCLI(t, nil, "folded", "--from", fmt.Sprintf("%dus", from), path); strings.Contains(errOut, "past the trace") {
			t.Errorf("%s: a window inside the trace warns: %q", c.name, errOut)
		}
		code, out, errOut = runCLI(t, nil, "folded", "--from", "1h", path)
		if want := fmt.Sprintf("atrace2: %s: --from 1h is past the trace, which spans 0 to %s: nothing to keep\n", path, span); code != exitError || out != "" || errOut != want {
			t.Errorf("%s: --from 1h: exit %d, stdout %d bytes, stderr %q; want %d, nothing and %q", c.name, code, len(out), errOut, exitError, want)
		}
	}
}

// TestStackSampleDiffWithMethodTrace: diff refuses to compare a method
// trace's measured thread CPU time with the CPU time stack samples stand
// for, in both its forms (OLD NEW, --old/--new), as it refuses traces with
// no clock in common; two profiles of stack samples compare.
func TestStackSampleDiffWithMethodTrace(t *testing.T) {
	data, _ := threeApps.Perfetto()
	pf := writeFile(t, "app.perfetto-trace", data)
	for _, c := range []struct {
		args     []string
		old, cur string
	}{
		{[]string{"diff", "-q", sample, pf}, sample, pf},
		{[]string{"diff", "-q", "--old", sample, "--new", pf}, sample, pf},
		{[]string{"diff", "-q", "--old", pf, pf, "--new", sample, sample}, pf, sample},
	} {
		args, old, cur := c.args, c.old, c.cur
		kind := map[string]string{sample: "measured cpu times", pf: "cpu times estimated from its samples"}
		want := fmt.Sprintf("atrace2: %s has %s and %s %s: no clock in common to compare\n", old, kind[old], cur, kind[cur])
		if code, out, errOut := runCLI(t, nil, args...); code != exitError || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want %d, nothing and %q", args, code, len(out), errOut, exitError, want)
		}
	}
	if code, out, errOut := runCLI(t, nil, "diff", "-q", pf, pf); code != exitOK || !strings.Contains(out, "total samples") {
		t.Errorf("diff of two stack-sample profiles: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}
