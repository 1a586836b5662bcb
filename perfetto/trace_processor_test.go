package perfetto_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stream"
)

// TestTraceProcessor imports the exporter's output with Perfetto's real
// trace processor (../shared/tools/trace_processor_shell, or the binary
// named by $ATRACE2_TRACE_PROCESSOR) and requires exactly the slices of the
// balanced event stream, every one with its times, depth, thread, name and
// args, and no import error or data loss. The expected slices are computed
// here from the events alone, following docs/outputs.md §2 and the
// package documentation, not the exporter's code. Without the tool the
// test skips, unless ATRACE2_TP=require (CI sets it) or ATRACE2_TP=all,
// which also imports the corpus traces larger than tpMaxCorpus.
func TestTraceProcessor(t *testing.T) {
	tp := traceProcessorShell(t)
	query := filepath.Join(t.TempDir(), "slices.sql")
	if err := os.WriteFile(query, []byte(tpQuery), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range tpCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkTraceProcessor(t, tp, query, c.name, c.data)
		})
	}
	t.Run("corpus", func(t *testing.T) {
		paths := testutil.CorpusTraces(t)
		if len(paths) == 0 {
			t.Skip("no corpus at ../shared/corpus: real traces not imported")
		}
		for _, p := range paths {
			t.Run(filepath.Base(p), func(t *testing.T) {
				t.Parallel()
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(data) > tpMaxCorpus && os.Getenv("ATRACE2_TP") != "all" {
					t.Skipf("%d bytes, more than %d: set ATRACE2_TP=all to import it too (TestCorpus checks it with tp_test.go's reader)", len(data), tpMaxCorpus)
				}
				checkTraceProcessor(t, tp, query, filepath.Base(p), data)
			})
		}
	})
}

// tpMaxCorpus is the largest corpus trace imported by default, which keeps
// the test to a few seconds.
const tpMaxCorpus = 1 << 20

// traceProcessorShell returns the trace processor to run, or skips (fails
// with ATRACE2_TP=require or all) when it is not there.
func traceProcessorShell(t *testing.T) string {
	path := os.Getenv("ATRACE2_TRACE_PROCESSOR")
	if path == "" {
		path = filepath.Join(testutil.RepoRoot(t), "..", "shared", "tools", "trace_processor_shell")
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("trace_processor_shell not found (%v): set ATRACE2_TRACE_PROCESSOR to a Perfetto trace_processor_shell binary", err)
		if v := os.Getenv("ATRACE2_TP"); v == "require" || v == "all" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// tpQuery lists every slice with its thread and process, and the import
// problems, as one table: a row of kind "slice" per slice in the order
// trace_processor created them, then a row of kind "stat" per nonzero
// error or data-loss counter. A slice's args are "key=value" lines, sorted,
// built once per arg set; they leave out source_location_iid, which
// trace_processor adds from the interning id (a detail of the encoding, not
// a value of ours).
const tpQuery = `
with a as (
  select arg_set_id, group_concat(key || '=' || display_value, char(10)) as args
  from (select arg_set_id, key, display_value from args where key != 'source_location_iid' order by arg_set_id, key)
  group by arg_set_id)
select 'slice' as kind, s.id as id, s.ts, s.dur, s.depth, s.thread_ts, s.thread_dur,
  t.tid, t.name as thread_name, p.pid, p.name as process_name, s.name, a.args
from slice s
left join a using (arg_set_id)
left join thread_track tt on s.track_id = tt.id
left join thread t on tt.utid = t.utid
left join process p on t.upid = p.upid
union all
select 'stat', idx, 0, 0, 0, 0, 0, 0, severity, 0, source, name, value
from stats where value != 0 and severity in ('error', 'data_loss')
order by kind, id;
`

// tpNull is how trace_processor_shell prints NULL.
const tpNull = "[NULL]"

// tpProcessName names the process track in these tests.
const tpProcessName = "atrace2 test"

// tpCase is a trace to import.
type tpCase struct {
	name string
	data []byte
}

// tpCases are the generated traces: the sample, the converter's policy
// cases (testdata/convert) and this package's (cases_test.go, with the
// recursion deeper than trace_processor's depth limit), and a streaming
// file and ART V2 files from tracegen.
func tpCases(t *testing.T) []tpCase {
	sample, err := os.ReadFile(testutil.SampleTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []tpCase{{"sample", sample}}
	fromText := func(name, src string) *tracegen.Trace {
		tr, err := tracegen.ParseText(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return tr
	}
	files, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(t), "testdata", "convert", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no testdata/convert/*.txtar cases")
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		for _, f := range ar.Files {
			if f.Name == "trace" {
				cases = append(cases, tpCase{"convert/" + name, fromText(name, string(f.Data)).Regular()})
			}
		}
	}
	for _, c := range policyCases {
		cases = append(cases, tpCase{"policy/" + c.name, fromText(c.name, c.src).Regular()})
	}
	cases = append(cases, tpCase{"streaming/policy-dual", fromText("policy-dual", policyDual).Streaming(tracegen.StreamOptions{})})
	gen := tracegen.Large(tracegen.LargeOptions{Bytes: 48 << 10, Threads: 4, Methods: 60, MaxDepth: 24, Seed: 5})
	cases = append(cases,
		tpCase{"streaming/generated", gen.Streaming(tracegen.StreamOptions{})},
		tpCase{"v2/V2c-streaming", gen.V2(tracegen.V2Options{Layout: tracegen.V2c, Streaming: true})},
		tpCase{"v2/V2b", gen.V2(tracegen.V2Options{Layout: tracegen.V2b})},
		// Times in ns that are not whole µs: the output's µs clock
		// truncates them.
		tpCase{"v2/V2d-ns", gen.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true, RawTimes: true})},
	)
	return cases
}

// checkTraceProcessor converts data with the exporter, imports the output
// with trace_processor and compares its slices with the ones the event
// stream calls for.
func checkTraceProcessor(t *testing.T, tp, query, name string, data []byte) {
	// The output, written the way the CLI writes a file: in one read, or
	// in two after taking back the first when the trace has orphan exits.
	var out bytes.Buffer
	exp := perfetto.New(&out, perfetto.Options{ProcessName: tpProcessName})
	rewind := func() error { out.Reset(); return nil }
	if _, err := convert.Run(openData(t, name, data), convert.Options{}, convert.Timeline(exp, rewind)); err != nil {
		t.Fatal(err)
	}
	// The events, from a separate run.
	log := &recording{}
	if _, err := convert.Run(openData(t, name, data), convert.Options{}, convert.Output{Exporter: log}); err != nil {
		t.Fatal(err)
	}
	want := expectSlices(log.t, log.events)

	file := filepath.Join(t.TempDir(), "out.perfetto-trace")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(tp, "-q", query, file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", tp, err, stderr.Bytes())
	}
	got, stats := parseTP(t, stdout.Bytes())
	for _, s := range stats {
		t.Errorf("trace_processor stat: %s", s)
	}
	compareSlices(t, got, want)
}

// openData opens a trace held in memory.
func openData(t testing.TB, name string, data []byte) *parser.File {
	t.Helper()
	f, err := parser.NewFile(name, bytes.NewReader(data), int64(len(data)), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// tpSliceRow is one slice as trace_processor_shell prints it.
type tpSliceRow struct {
	TS, Dur, Depth, ThreadTS, ThreadDur, Name, Args string
}

// tpThreadRows are the slices of one thread track, in the order they
// began, with the thread's and its process's identity.
type tpThreadRows struct {
	Name, PID, Process string
	Slices             []tpSliceRow
}

// parseTP reads the query's output: the slices by tid, and the stats.
func parseTP(t *testing.T, out []byte) (map[string]*tpThreadRows, []string) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(out))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatalf("reading trace_processor's output: %v\n%s", err, out)
	}
	const cols = 13
	if len(rows) == 0 || len(rows[0]) != cols || rows[0][0] != "kind" {
		t.Fatalf("trace_processor's output has no header row:\n%s", out)
	}
	threads := map[string]*tpThreadRows{}
	var stats []string
	for _, row := range rows[1:] {
		if len(row) != cols {
			t.Fatalf("trace_processor's output: row %q has %d columns, want %d", row, len(row), cols)
		}
		if row[0] == "stat" {
			stats = append(stats, fmt.Sprintf("%s[%s] = %s (%s, %s)", row[11], row[1], row[12], row[8], row[10]))
			continue
		}
		tid := row[7]
		if tid == tpNull {
			t.Errorf("slice %s (%s) is not on a thread track", row[1], row[11])
			continue
		}
		th := threads[tid]
		if th == nil {
			th = &tpThreadRows{Name: row[8], PID: row[9], Process: row[10]}
			threads[tid] = th
		}
		args := row[12]
		if args == tpNull {
			args = ""
		}
		th.Slices = append(th.Slices, tpSliceRow{TS: row[2], Dur: row[3], Depth: row[4],
			ThreadTS: row[5], ThreadDur: row[6], Name: row[11], Args: args})
	}
	return threads, stats
}

// Constants of the documented output, written here rather than taken from
// the exporter's code.
const (
	tpDepthLimit = 512     // trace_processor's nesting limit per track (docs/outputs.md §2.7)
	tpNoPID      = 1 << 22 // the pid of a trace without pid= (perfetto.NoPID)
)

// expectSlices computes, from the trace's tables and its balanced event
// stream, the slices trace_processor must show (docs/outputs.md §2, the
// package documentation):
//
//   - one thread track per stream thread, named after it, in a process
//     whose pid is the header's pid= (else tpNoPID);
//   - one slice per Begin/End pair, named pkg.Class.method, at the Begin's
//     depth; times are written in whole µs (clock 64), so ts is the header
//     start time plus the Begin's wall time cut to µs, on each thread's CPU
//     time instead when the trace has no wall clock, and dur is the
//     difference of the two cut times;
//   - with both clocks, thread_ts is the Begin's thread-CPU time and
//     thread_dur the CPU time to the End, both cut to µs; trace_processor
//     leaves thread_dur NULL when it is 0, so such a slice with a nonzero
//     dur carries debug.cpu_us = 0;
//   - frames at depth tpDepthLimit or deeper are not written; the slice at
//     depth tpDepthLimit-1 above them carries their number in
//     debug.folded_frames;
//   - a method of the table has the args source.file_name (its source
//     path), source.function_name (name and signature) and
//     source.line_number (trace_processor shows 0 when the trace has no
//     line);
//   - debug.synthetic says why the converter began or ended a frame, and
//     debug.exception = true marks a frame left by an exception.
func expectSlices(tr *stream.Trace, evs []stream.Event) map[string]*tpThreadRows {
	base := int64(tr.Process.StartMicros) * 1000
	cpuTimeline := !tr.HasWall && tr.HasCPU
	dual := tr.HasWall && tr.HasCPU
	pid := tr.Process.PID
	if pid <= 0 || pid > math.MaxInt32 {
		pid = tpNoPID
	}
	type open struct {
		slice   int
		us, cpu int64 // µs: begin time, thread CPU time
		off     int64 // µs: wall − CPU of the stretches when the slice was on top
	}
	type state struct {
		rows            *tpThreadRows
		args            []map[string]string
		stack           []open
		folded          int64
		lastUS, lastCPU int64 // µs: the thread's previous written event
	}
	threads := make([]state, len(tr.Threads))
	for i, th := range tr.Threads {
		threads[i].rows = &tpThreadRows{Name: th.Name, PID: strconv.Itoa(pid), Process: tpProcessName}
	}
	for k := range evs {
		ev := &evs[k]
		th := &threads[ev.Thread]
		if ev.Depth >= tpDepthLimit {
			if ev.Kind == stream.Begin {
				th.folded++
			}
			continue
		}
		us, cpu := ev.Wall/1000, ev.CPU/1000
		if cpuTimeline {
			us = cpu
		}
		// Each stretch between two events goes to the slice on top: its
		// exclusive off-CPU time, summed independently of the exporter's
		// inclusive-minus-children.
		if k := len(th.stack); k > 0 {
			th.stack[k-1].off += (us - th.lastUS) - (cpu - th.lastCPU)
		}
		th.lastUS, th.lastCPU = us, cpu
		if ev.Kind == stream.Begin {
			fr := &tr.Frames[ev.Frame]
			row := tpSliceRow{TS: strconv.FormatInt(base+us*1000, 10), Dur: "-1",
				Depth: strconv.Itoa(int(ev.Depth)), ThreadTS: tpNull, ThreadDur: tpNull, Name: fr.Name}
			if dual {
				row.ThreadTS = strconv.FormatInt(cpu*1000, 10)
			}
			args := map[string]string{}
			if fr.Listed {
				args["source.file_name"] = fr.File
				args["source.function_name"] = fr.Method + fr.Signature
				line := 0
				if fr.HasLine && fr.Line > 0 {
					line = fr.Line
				}
				args["source.line_number"] = strconv.Itoa(line)
			}
			if ev.Flags&stream.Synthetic != 0 {
				args["debug.synthetic"] = perfetto.SyntheticBegin
			}
			th.stack = append(th.stack, open{slice: len(th.rows.Slices), us: us, cpu: cpu})
			th.rows.Slices = append(th.rows.Slices, row)
			th.args = append(th.args, args)
			continue
		}
		o := th.stack[len(th.stack)-1]
		th.stack = th.stack[:len(th.stack)-1]
		row, args := &th.rows.Slices[o.slice], th.args[o.slice]
		dur := (us - o.us) * 1000
		row.Dur = strconv.FormatInt(dur, 10)
		if dual && cpu != o.cpu {
			row.ThreadDur = strconv.FormatInt((cpu-o.cpu)*1000, 10)
		}
		if dual && cpu == o.cpu && dur > 0 {
			args["debug.cpu_us"] = "0"
		}
		if dual && o.off > 0 {
			args["debug.offcpu_us"] = strconv.FormatInt(o.off, 10)
		}
		switch {
		case ev.Flags&stream.Synthetic != 0:
			args["debug.synthetic"] = perfetto.SyntheticEnd
		case ev.Flags&stream.Implicit != 0:
			args["debug.synthetic"] = perfetto.SyntheticImplied
		}
		if ev.Flags&stream.Unwound != 0 {
			args["debug.exception"] = "true"
		}
		if ev.Depth == tpDepthLimit-1 && th.folded > 0 {
			args["debug.folded_frames"] = strconv.FormatInt(th.folded, 10)
			th.folded = 0
		}
	}
	out := map[string]*tpThreadRows{}
	for i, th := range tr.Threads {
		st := &threads[i]
		for j := range st.rows.Slices {
			st.rows.Slices[j].Args = joinArgs(st.args[j])
		}
		out[strconv.FormatInt(int64(th.ID), 10)] = st.rows
	}
	return out
}

// joinArgs writes args as the query does: sorted "key=value" lines.
func joinArgs(args map[string]string) string {
	lines := make([]string, 0, len(args))
	for k, v := range args {
		lines = append(lines, k+"="+v)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// compareSlices requires got to hold exactly want's threads and slices.
func compareSlices(t *testing.T, got, want map[string]*tpThreadRows) {
	t.Helper()
	tids := make([]string, 0, len(want))
	for tid := range want {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	for tid := range got {
		if want[tid] == nil {
			t.Errorf("trace_processor has slices on tid %s %q, a thread the stream does not have", tid, got[tid].Name)
		}
	}
	for _, tid := range tids {
		w, g := want[tid], got[tid]
		if g == nil {
			t.Errorf("tid %s %q: no slices in trace_processor, want %d", tid, w.Name, len(w.Slices))
			continue
		}
		if g.Name != w.Name || g.PID != w.PID || g.Process != w.Process {
			t.Errorf("tid %s is thread %q of pid %s %q, want %q of pid %s %q", tid, g.Name, g.PID, g.Process, w.Name, w.PID, w.Process)
		}
		if len(g.Slices) != len(w.Slices) {
			t.Errorf("tid %s %q: %d slices, want %d", tid, w.Name, len(g.Slices), len(w.Slices))
		}
		bad := 0
		for i := range min(len(g.Slices), len(w.Slices)) {
			if g.Slices[i] == w.Slices[i] {
				continue
			}
			if bad++; bad <= 3 {
				t.Errorf("tid %s %q slice %d (%s at %s, depth %s): %s", tid, w.Name, i, w.Slices[i].Name, w.Slices[i].TS, w.Slices[i].Depth, diffRow(g.Slices[i], w.Slices[i]))
			}
		}
		if bad > 3 {
			t.Errorf("tid %s %q: %d slices differ in all", tid, w.Name, bad)
		}
	}
}

// diffRow names the fields in which got differs from want.
func diffRow(got, want tpSliceRow) string {
	var d []string
	for _, f := range []struct{ name, got, want string }{
		{"ts", got.TS, want.TS}, {"dur", got.Dur, want.Dur}, {"depth", got.Depth, want.Depth},
		{"thread_ts", got.ThreadTS, want.ThreadTS}, {"thread_dur", got.ThreadDur, want.ThreadDur},
		{"name", got.Name, want.Name}, {"args", got.Args, want.Args},
	} {
		if f.got != f.want {
			d = append(d, fmt.Sprintf("%s %q, want %q", f.name, f.got, f.want))
		}
	}
	return strings.Join(d, "; ")
}
