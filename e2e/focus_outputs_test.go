package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// This file reads every output of atrace2 back into folded stacks
// (thread frame first, as folded writes them), so that the focus tests
// can compare each with the oracle and with each other. Times are µs.

// run runs atrace2 and fails the test unless it exits 0.
func run(t *testing.T, args ...string) string {
	t.Helper()
	r := atrace2(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("atrace2 %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// tryRun runs atrace2 and reports an error unless it exits 0.
func tryRun(t *testing.T, args ...string) (string, bool) {
	t.Helper()
	r := atrace2(t, nil, args...)
	if r.code != 0 {
		t.Errorf("atrace2 %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout, r.code == 0
}

// parseFolded reads folded's lines into stacks, the value on clock.
func parseFolded(t *testing.T, out, clock string) map[string]*oStack {
	t.Helper()
	res := map[string]*oStack{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i < 0 || err != nil {
			t.Fatalf("folded: bad line %q", line)
		}
		s := res[line[:i]]
		if s == nil {
			s = &oStack{}
			res[line[:i]] = s
		}
		switch clock {
		case "wall":
			s.wall += v
		case "cpu":
			s.cpu += v
		default:
			t.Fatalf("clock %s", clock)
		}
	}
	return res
}

// us converts ns to µs, failing on a fraction (the generated traces
// count whole µs).
func us(t *testing.T, what string, ns int64) int64 {
	t.Helper()
	if ns%1000 != 0 {
		t.Errorf("%s: %d ns is not a whole number of µs", what, ns)
	}
	return ns / 1000
}

// pprofStacks reads a pprof profile: wall, cpu and calls per thread and
// stack, and the offcpu sample type's values when it has one.
func pprofStacks(t *testing.T, file string) (stacks map[string]*oStack, off map[string]int64, types []string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("pprof: %v", err)
	}
	idx := map[string]int{}
	for i, st := range p.SampleType {
		idx[st.Type] = i
		types = append(types, st.Type+"/"+st.Unit)
	}
	stacks, off = map[string]*oStack{}, map[string]int64{}
	for _, s := range p.Sample {
		names := []string{fmt.Sprintf("%s (tid %s)", strings.Join(s.Label["thread"], ","), fmt.Sprint(s.NumLabel["tid"][0]))}
		for i := len(s.Location) - 1; i >= 0; i-- {
			for j := len(s.Location[i].Line) - 1; j >= 0; j-- {
				names = append(names, s.Location[i].Line[j].Function.Name)
			}
		}
		k := strings.Join(names, ";")
		if stacks[k] == nil {
			stacks[k] = &oStack{}
		}
		if i, ok := idx["wall"]; ok {
			stacks[k].wall += us(t, "pprof wall", s.Value[i])
		}
		if i, ok := idx["cpu"]; ok {
			stacks[k].cpu += us(t, "pprof cpu", s.Value[i])
		}
		if i, ok := idx["calls"]; ok {
			stacks[k].calls += s.Value[i]
		}
		if i, ok := idx["offcpu"]; ok {
			off[k] += us(t, "pprof offcpu", s.Value[i])
		}
	}
	return stacks, off, types
}

// topJSON is the part of top --format json the tests read.
type topJSON struct {
	Clocks []string `json:"clocks"`
	Tables []struct {
		Threads int     `json:"threads"`
		Total   []int64 `json:"total_ns"`
		Rows    []struct {
			Method string  `json:"method"`
			Calls  int64   `json:"calls"`
			Excl   []int64 `json:"excl_ns"`
		} `json:"rows"`
	} `json:"tables"`
}

// topMethods runs top --format json with every row and returns the
// exclusive time and calls per method, and the totals, on the clocks it
// names.
func topMethods(t *testing.T, args ...string) (methods map[string]*oStack, total oStack) {
	t.Helper()
	var top topJSON
	out := run(t, append([]string{"top", "-q", "--format", "json", "-n", "0"}, args...)...)
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatalf("top json: %v\n%s", err, out)
	}
	if len(top.Tables) != 1 {
		t.Fatalf("top json: %d tables", len(top.Tables))
	}
	set := func(s *oStack, clock string, ns int64) {
		switch clock {
		case "wall":
			s.wall = us(t, "top wall", ns)
		case "cpu":
			s.cpu = us(t, "top cpu", ns)
		case "offcpu":
			// Read by the offcpu tests from the wall slot of a
			// --clock offcpu run.
			s.wall = us(t, "top offcpu", ns)
		}
	}
	for i, c := range top.Clocks {
		set(&total, c, top.Tables[0].Total[i])
	}
	methods = map[string]*oStack{}
	for _, r := range top.Tables[0].Rows {
		s := &oStack{calls: r.Calls}
		for i, c := range top.Clocks {
			set(s, c, r.Excl[i])
		}
		methods[r.Method] = s
	}
	return methods, total
}

// speedscopeStacks reads a speedscope file: per thread and stack, the
// time between consecutive events with that stack open on top (on the
// file's clock, stored in wall) and the opens (calls).
func speedscopeStacks(t *testing.T, data string) map[string]*oStack {
	t.Helper()
	var f struct {
		Shared struct {
			Frames []struct{ Name string } `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Name   string `json:"name"`
			Events []struct {
				Type  string  `json:"type"`
				At    float64 `json:"at"`
				Frame int     `json:"frame"`
			} `json:"events"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(data), &f); err != nil {
		t.Fatalf("speedscope: %v", err)
	}
	res := map[string]*oStack{}
	for _, p := range f.Profiles {
		stack := []string{p.Name}
		for i, e := range p.Events {
			name := f.Shared.Frames[e.Frame].Name
			if e.Type == "O" {
				stack = append(stack, name)
			} else {
				if stack[len(stack)-1] != name {
					t.Fatalf("speedscope %s: close of %s with %v open", p.Name, name, stack)
				}
			}
			k := strings.Join(stack, ";")
			if res[k] == nil {
				res[k] = &oStack{}
			}
			if e.Type == "O" {
				res[k].calls++
			} else {
				stack = stack[:len(stack)-1]
			}
			if i+1 < len(p.Events) && len(stack) > 1 {
				k := strings.Join(stack, ";")
				if res[k] == nil {
					res[k] = &oStack{}
				}
				d := p.Events[i+1].At - e.At
				if d != float64(int64(d)) {
					t.Errorf("speedscope %s: %v µs is not whole", k, d)
				}
				res[k].wall += int64(d)
			}
		}
		if len(stack) != 1 {
			t.Errorf("speedscope %s: %v left open", p.Name, stack)
		}
	}
	return res
}

// traceProcessor returns trace_processor_shell, or skips (fails with
// ATRACE2_TP=require or all, as perfetto/trace_processor_test.go does)
// when it is not there.
func traceProcessor(t *testing.T) string {
	t.Helper()
	path := os.Getenv("ATRACE2_TRACE_PROCESSOR")
	if path == "" {
		path = filepath.Join(repoRoot(t), "..", "shared", "tools", "trace_processor_shell")
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

// tpSlicesQuery lists every slice with its parent, times and thread, and
// its args, then the import errors.
const tpSlicesQuery = `
with a as (
  select arg_set_id, group_concat(key || '=' || display_value, ' ') as args
  from (select arg_set_id, key, display_value from args where key != 'source_location_iid' order by arg_set_id, key)
  group by arg_set_id)
select 'slice' as kind, s.id as id, s.parent_id as parent_id, s.dur, s.thread_dur, t.tid, t.name as thread, s.name, a.args
from slice s
left join a using (arg_set_id)
join thread_track tt on s.track_id = tt.id
join thread t using (utid)
union all
select 'stat', idx, 0, 0, 0, 0, severity, name, value from stats where value != 0 and severity in ('error', 'data_loss')
order by kind, id;
`

// tpSlice is one slice as trace_processor imported it.
type tpSlice struct {
	parent        string
	dur, threadNS int64
	key, args     string
}

// perfettoStacks imports a Perfetto trace with trace_processor and sums
// each slice's self time (its duration less its children's, on both
// clocks) and count by stack; slices gives each slice's self times and
// args.
func perfettoStacks(t *testing.T, tp, file string) (map[string]*oStack, []tpSlice) {
	t.Helper()
	query := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(query, []byte(tpSlicesQuery), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(tp, "-q", query, file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", tp, err, stderr.Bytes())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("trace_processor output: %v", err)
	}
	num := func(s string) int64 {
		if s == "[NULL]" {
			return 0
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("trace_processor: %q: %v", s, err)
		}
		return v
	}
	byID := map[string]*tpSlice{}
	var ids []string
	for _, r := range rows[1:] {
		if r[0] == "stat" {
			t.Errorf("trace_processor stat: %v", r)
			continue
		}
		s := &tpSlice{parent: r[2], dur: num(r[3]), threadNS: num(r[4]), args: r[8]}
		if r[2] == "[NULL]" {
			s.key = fmt.Sprintf("%s (tid %s);%s", r[6], r[5], r[7])
		} else {
			p := byID[r[2]]
			if p == nil {
				t.Fatalf("trace_processor: slice %s before its parent %s", r[1], r[2])
			}
			s.key = p.key + ";" + r[7]
		}
		byID[r[1]] = s
		ids = append(ids, r[1])
	}
	self := map[string]*tpSlice{}
	for _, id := range ids {
		c := *byID[id]
		self[id] = &c
	}
	for _, id := range ids {
		if p := self[byID[id].parent]; p != nil {
			p.dur -= byID[id].dur
			p.threadNS -= byID[id].threadNS
		}
	}
	res := map[string]*oStack{}
	var slices []tpSlice
	for _, id := range ids {
		s := self[id]
		if res[s.key] == nil {
			res[s.key] = &oStack{}
		}
		res[s.key].wall += us(t, "perfetto dur", s.dur)
		res[s.key].cpu += us(t, "perfetto thread_dur", s.threadNS)
		res[s.key].calls++
		slices = append(slices, *s)
	}
	return res, slices
}

// project keeps one clock of stacks (wall, cpu or calls), dropping the
// zeros, as a sorted text for readable diffs.
func project(stacks map[string]*oStack, clock string) string {
	var lines []string
	for k, s := range stacks {
		if v := clockValue(*s, clock); v != 0 {
			lines = append(lines, fmt.Sprintf("%s %d", k, v))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// checkPerfettoOffCPU requires every slice of a dual-clock trace to carry
// its exclusive off-CPU time, max(0, self wall − self thread time), as
// the arg debug.offcpu_us, left out when it is 0.
func checkPerfettoOffCPU(t *testing.T, slices []tpSlice) {
	t.Helper()
	for _, s := range slices {
		want := max(0, s.dur-s.threadNS) / 1000
		got := int64(0)
		for _, a := range strings.Fields(s.args) {
			if v, ok := strings.CutPrefix(a, "debug.offcpu_us="); ok {
				var err error
				if got, err = strconv.ParseInt(v, 10, 64); err != nil {
					t.Errorf("perfetto slice %s: %s", s.key, a)
				}
			}
		}
		if got != want {
			t.Errorf("perfetto slice %s: off-CPU %d µs (args %q), want %d", s.key, got, s.args, want)
			return
		}
	}
}
