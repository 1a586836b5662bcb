package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// offCPUTrace is a dual-clock trace (records: tid, action, method, thread
// CPU µs, wall µs) worked out by hand, exclusive times per stack:
//
//	main;App.main        wall 1000+1000 µs, CPU 1000+500: off-CPU 500
//	main;App.main;sleep  wall 10 ms, CPU 1 ms: off-CPU 9 ms
//	main;App.main;spin   wall 3 ms, CPU 4 ms: off-CPU 0 (−1 ms clamped)
//	worker;sleep         wall 2 ms, CPU 500 µs: off-CPU 1.5 ms
//
// Ranked by exclusive wall time: sleep, spin, main; by off-CPU time:
// sleep (10.5 ms), main, spin. offCPUTraceNew is the same run with main's
// sleep 5 ms shorter (off-CPU 4 ms).
const offCPUTrace = tracegen.OffCPUText

var offCPUTraceNew = strings.NewReplacer(
	"1 exit 0x8 2000 11000", "1 exit 0x8 2000 6000",
	"1 enter 0xc 2000 11000", "1 enter 0xc 2000 6000",
	"1 exit 0xc 6000 14000", "1 exit 0xc 6000 9000",
	"1 exit 0x4 6500 15000", "1 exit 0x4 6500 10000",
	"2 enter 0x8 0 15000", "2 enter 0x8 0 10000",
	"2 exit 0x8 500 17000", "2 exit 0x8 500 12000",
).Replace(offCPUTrace)

// writeTextTrace writes a text-form trace as a regular binary trace.
func writeTextTrace(t *testing.T, name, src string) string {
	t.Helper()
	tr, err := tracegen.ParseText(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOffCPUFolded(t *testing.T) {
	path := writeTextTrace(t, "offcpu.trace", offCPUTrace)
	code, out, errOut := runCLI(t, nil, "folded", "--clock", "offcpu", path)
	// spin's 0 µs line is left out, as every line that rounds to 0.
	want := "main (tid 1);a.App.main 500\nmain (tid 1);a.App.main;a.Io.sleep 9000\nworker (tid 2);a.Io.sleep 1500\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, got:\n%swant:\n%s%s", code, out, want, errOut)
	}
}

func TestOffCPUPprof(t *testing.T) {
	path := writeTextTrace(t, "offcpu.trace", offCPUTrace)
	code, out, errOut := runCLI(t, nil, "pprof", "-q", "-o", "-", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p := parseProfile(t, []byte(out))
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if strings.Join(types, " ") != "calls/count cpu/nanoseconds wall/nanoseconds offcpu/nanoseconds" || p.DefaultSampleType != "wall" {
		t.Errorf("sample types %v default %q", types, p.DefaultSampleType)
	}
	var got []string
	for _, s := range p.Sample {
		var stack []string
		for _, l := range s.Location {
			stack = append([]string{l.Line[0].Function.Name}, stack...)
		}
		got = append(got, fmt.Sprintf("%s %s %v", s.Label["thread"][0], strings.Join(stack, ";"), s.Value))
	}
	slices.Sort(got)
	want := []string{
		"main a.App.main [1 1500000 2000000 500000]",
		"main a.App.main;a.Calc.spin [1 4000000 3000000 0]",
		"main a.App.main;a.Io.sleep [1 1000000 10000000 9000000]",
		"worker a.Io.sleep [1 500000 2000000 1500000]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// topRows runs top with args and returns its clocks and, per row, the
// method and its exclusive and inclusive times on the first clock.
func topRows(t *testing.T, args ...string) (clocks, rows []string) {
	t.Helper()
	code, out, errOut := runCLI(t, nil, append([]string{"top", "-q", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	var r struct {
		Clocks []string `json:"clocks"`
		Sort   string   `json:"sort"`
		Tables []struct {
			Total []int64 `json:"total_ns"`
			Rows  []struct {
				Method string  `json:"method"`
				Excl   []int64 `json:"excl_ns"`
				Incl   []int64 `json:"incl_ns"`
			} `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	rows = append(rows, fmt.Sprintf("sort %s total %d", r.Sort, r.Tables[0].Total[0]))
	for _, row := range r.Tables[0].Rows {
		rows = append(rows, fmt.Sprintf("%s %d %d", row.Method, row.Excl[0], row.Incl[0]))
	}
	return r.Clocks, rows
}

func TestOffCPUTop(t *testing.T) {
	path := writeTextTrace(t, "offcpu.trace", offCPUTrace)
	clocks, rows := topRows(t, path)
	want := []string{"sort excl total 17000000", "a.Io.sleep 12000000 12000000", "a.Calc.spin 3000000 3000000", "a.App.main 2000000 15000000"}
	if !slices.Equal(clocks, []string{"wall", "cpu"}) || !slices.Equal(rows, want) {
		t.Errorf("top: clocks %v rows %q, want %q", clocks, rows, want)
	}
	// main's inclusive off-CPU time sums its stacks': 500 + 9000 + 0 µs.
	want = []string{"a.Io.sleep 10500000 10500000", "a.App.main 500000 9500000", "a.Calc.spin 0 0"}
	for _, args := range [][]string{{"--clock", "offcpu"}, {"--sort", "offcpu"}} {
		clocks, rows := topRows(t, append(args, path)...)
		sort := "excl"
		if args[0] == "--sort" {
			sort = "offcpu"
		}
		w := append([]string{"sort " + sort + " total 11000000"}, want...)
		if !slices.Equal(clocks, []string{"offcpu", "wall"}) || !slices.Equal(rows, w) {
			t.Errorf("top %v: clocks %v rows %q, want [offcpu wall] %q", args, clocks, rows, w)
		}
	}
	// --sort incl on the off-CPU clock: main (9.5 ms) before nothing else
	// changes but the first two.
	_, rows = topRows(t, "--clock", "offcpu", "--sort", "incl", path)
	if w := []string{"sort incl total 11000000", "a.Io.sleep 10500000 10500000", "a.App.main 500000 9500000", "a.Calc.spin 0 0"}; !slices.Equal(rows, w) {
		t.Errorf("top --clock offcpu --sort incl: %q, want %q", rows, w)
	}
	code, out, _ := runCLI(t, nil, "top", "-q", "--clock", "offcpu", path)
	if first := strings.SplitN(out, "\n", 2)[0]; code != 0 || !strings.HasSuffix(first, "; total offcpu 11 ms, wall 17 ms; 3 methods by exclusive offcpu time") {
		t.Errorf("exit %d, header %q", code, first)
	}
}

func TestOffCPUDiff(t *testing.T) {
	old := writeTextTrace(t, "old.trace", offCPUTrace)
	cur := writeTextTrace(t, "new.trace", offCPUTraceNew)
	code, out, errOut := runCLI(t, nil, "diff", "-q", "--clock", "offcpu", "--format", "json", old, cur)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Clocks []string `json:"clocks"`
		Total  []struct{ Old, New, Delta int64 }
		Rows   []struct {
			Method string
			Excl   []struct{ Old, New, Delta int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	got := []string{fmt.Sprintf("%v total %v", r.Clocks, r.Total[0])}
	for _, row := range r.Rows {
		got = append(got, fmt.Sprintf("%s %v", row.Method, row.Excl[0]))
	}
	want := []string{
		"[offcpu wall] total {11000000 6000000 -5000000}",
		"a.Io.sleep {10500000 5500000 -5000000}",
		"a.App.main {500000 500000 0}",
		"a.Calc.spin {0 0 0}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("diff --clock offcpu:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestOffCPUErrors: off-CPU time needs both clocks and a view that can
// show it; anything else is a usage error of one line, like --clock cpu on
// a wall-only trace.
func TestOffCPUErrors(t *testing.T) {
	dual := writeTextTrace(t, "dual.trace", offCPUTrace)
	wall := writeTextTrace(t, "wall.trace", strings.Replace(offCPUTrace, "clock dual", "clock wall", 1))
	ar, err := txtar.ParseFile("../../samples/testdata/cases/jvm-samples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	hprof := filepath.Join(t.TempDir(), "p.hprof.txt")
	if err := os.WriteFile(hprof, ar.Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"folded", "--clock", "offcpu", wall}, "--clock offcpu: the trace records the wall clock; off-CPU time needs both the wall and the thread-CPU clock"},
		{[]string{"top", "--clock", "offcpu", wall}, "--clock offcpu: the trace records the wall clock"},
		{[]string{"diff", "--clock", "offcpu", dual, wall}, "--clock offcpu: the trace records the wall clock"},
		{[]string{"top", "--sort", "offcpu", wall}, `sort order "offcpu": off-CPU time needs a trace with both the wall and the thread-CPU clock`},
		{[]string{"top", "--sort", "offcpu", hprof}, `sort order "offcpu": off-CPU time needs`},
		{[]string{"folded", "--clock", "offcpu", hprof}, "--clock offcpu: a sampled profile has no clocks to choose from"},
		// The views whose times are on one clock refuse it.
		{[]string{"speedscope", "--clock", "offcpu", "-o", filepath.Join(t.TempDir(), "x.speedscope.json"), dual}, "--clock offcpu: speedscope cannot show offcpu time: its timeline is on one clock"},
		{[]string{"dump", "--clock", "offcpu", dual}, "--clock offcpu: dump cannot show offcpu time"},
		{[]string{"convert", "--clock", "offcpu", "--speedscope", filepath.Join(t.TempDir(), "y.speedscope.json"), dual}, "--clock offcpu: speedscope cannot show offcpu time"},
	} {
		code, out, errOut := runCLI(t, nil, append([]string{"-q"}, c.args...)...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 80 and one line with %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestOffCPUEveryView: every view that shows a clock shows off-CPU time on
// a dual-clock trace. pprof keeps every sample type and makes offcpu the
// default (pprof's -sample_index); Perfetto writes what it writes of the
// trace by default, each slice's off-CPU time among it; calls puts offcpu
// first, as top does.
func TestOffCPUEveryView(t *testing.T) {
	path := writeTextTrace(t, "offcpu.trace", offCPUTrace)
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if code, _, errOut := runCLI(t, nil, append([]string{"-q"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	read := func(name string) []byte {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	run("pprof", "-o", filepath.Join(dir, "auto.pb.gz"), path)
	run("pprof", "--clock", "offcpu", "-o", filepath.Join(dir, "off.pb.gz"), path)
	auto, off := parseProfile(t, read("auto.pb.gz")), parseProfile(t, read("off.pb.gz"))
	var types []string
	for _, st := range off.SampleType {
		types = append(types, st.Type)
	}
	if want := []string{"calls", "cpu", "wall", "offcpu"}; !slices.Equal(types, want) || off.DefaultSampleType != "offcpu" || auto.DefaultSampleType != "wall" {
		t.Errorf("sample types %q, default %q (without --clock: %q); want %q, offcpu (wall)", types, off.DefaultSampleType, auto.DefaultSampleType, want)
	}
	if got, want := valuesByKey(off), valuesByKey(auto); !reflect.DeepEqual(got, want) {
		t.Errorf("values %v, want those without --clock %v", got, want)
	}
	// main's sleep: 9 ms of its 10 ms were off the CPU (offCPUTrace).
	if got := valuesByKey(off)["main  a.Io.sleep;a.App.main"]; len(got) != 4 || got[3] != 9_000_000 {
		t.Errorf("main's sleep: %v, want offcpu 9 ms", got)
	}

	run("perfetto", "-o", filepath.Join(dir, "auto.pftrace"), path)
	run("perfetto", "--clock", "offcpu", "-o", filepath.Join(dir, "off.pftrace"), path)
	if !bytes.Equal(read("auto.pftrace"), read("off.pftrace")) {
		t.Error("perfetto --clock offcpu differs from the output without --clock")
	}

	code, out, errOut := runCLI(t, nil, "calls", "-q", "--clock", "offcpu", path, "sleep")
	if code != 0 || !strings.Contains(out, "offcpu") {
		t.Errorf("calls --clock offcpu: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
