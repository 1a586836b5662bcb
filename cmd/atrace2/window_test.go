package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// windowTrace has, per thread, an orphan frame and a frame open at the
// end; times are µs, CPU then wall. The frames: main B 0–10 (orphan), A
// 12–40, C 18–22 inside A, C 45–50 (open at the end); worker B 0–48
// (orphan), A 50–50.
const windowTrace = tracegen.FocusText

// writeText writes a trace given in tracegen's text form.
func writeText(t *testing.T, name, src string) string {
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

// TestWindowByHand checks folded and top in the window [15, 30] µs of
// windowTrace against numbers worked out by hand. On main, A straddles
// from: its exclusive wall is 15–18 and 22–30 (11 µs), C 18–22 (4 µs);
// the stretches cut by a boundary count no CPU time, so A has none and C
// its 2 µs. On worker, the orphan B spans the window: 15 µs, no CPU time.
func TestWindowByHand(t *testing.T) {
	path := writeText(t, "window.trace", windowTrace)
	code, out, errOut := runCLI(t, nil, "folded", "-q", "--from", "15us", "--to", "30us", path)
	if code != exitOK {
		t.Fatalf("folded: exit %d: %s", code, errOut)
	}
	want := "main (tid 1);a.A.run 11\nmain (tid 1);a.A.run;a.C.run 4\nworker (tid 2);a.B.run 15\n"
	if out != want {
		t.Errorf("folded:\n%s\nwant:\n%s", out, want)
	}
	// --clock cpu reads the window on the wall clock and shows thread CPU
	// time: only C has some (stacks with none are left out).
	code, out, errOut = runCLI(t, nil, "folded", "-q", "--clock", "cpu", "--from", "15us", "--to", "30us", path)
	if code != exitOK {
		t.Fatalf("folded --clock cpu: exit %d: %s", code, errOut)
	}
	if want := "main (tid 1);a.A.run;a.C.run 2\n"; out != want {
		t.Errorf("folded --clock cpu:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = runCLI(t, nil, "top", "-q", "--format", "csv", "--from", "15us", "--to", "30us", path)
	if code != exitOK {
		t.Fatalf("top: exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("top csv: %v, %d rows:\n%s", err, len(rows), out)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		got[r[col["method"]]] = fmt.Sprintf("calls %s, wall %s/%s, cpu %s/%s", r[col["calls"]],
			r[col["excl_wall_ns"]], r[col["incl_wall_ns"]], r[col["excl_cpu_ns"]], r[col["incl_cpu_ns"]])
	}
	for m, w := range map[string]string{
		"a.A.run": "calls 1, wall 11000/15000, cpu 0/2000",
		"a.B.run": "calls 1, wall 15000/15000, cpu 0/0",
		"a.C.run": "calls 1, wall 4000/4000, cpu 2000/2000",
	} {
		if got[m] != w {
			t.Errorf("top %s: %s, want %s", m, got[m], w)
		}
	}
}

// TestWindowErrors: a window needs times (a method trace with a wall clock,
// or stack samples), and durations in order.
func TestWindowErrors(t *testing.T) {
	_, f := sampledFiles(t)
	cpuOnly := writeCase(t)
	dual := writeText(t, "window.trace", windowTrace)
	wallOnly := writeText(t, "wall.trace", strings.Replace(windowTrace, "clock dual", "clock wall", 1))
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // regexp
	}{
		{"from after to", []string{"top", "--from", "2ms", "--to", "1ms", dual}, exitUsage, `^atrace2: --from 2ms is after --to 1ms\n$`},
		{"from after the trace end", []string{"folded", "--from", "51us", dual}, exitError, `^atrace2: .*window.trace: --from 51us is past the trace, which spans 0 to 50 µs: nothing to keep\n$`},
		{"not a duration", []string{"folded", "--to", "10", dual}, exitUsage, `^atrace2: --to "10": give a duration since the trace start`},
		{"clock cpu on a wall-only trace", []string{"folded", "--clock", "cpu", "--from", "1us", wallOnly}, exitUsage, `^atrace2: .*wall.trace: --clock cpu: the trace records the wall clock; it has no thread-cpu times to read\n$`},
		{"thread-CPU-only trace", []string{"top", "--to", "1ms", cpuOnly}, exitError, `^atrace2: .*v1-dalvik.trace: --from/--to: the trace has thread-CPU times only, and a window is on the wall clock\n$`},
		{"sampled profile", []string{"folded", "--from", "1ms", f["app.hprof"]}, exitUsage, `^atrace2: .*app.hprof: --from/--to: .* has no timestamps \(a window applies to method traces, and to Perfetto and simpleperf stack samples\)\n$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("stderr %q does not match %q", errOut, c.stderr)
			}
		})
	}
}

// windowLarge writes a generated trace of about 1 MB with orphan exits
// (its first records are left out) and frames open at the end.
func windowLarge(t *testing.T) string {
	t.Helper()
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 1 << 20, Threads: 5, Methods: 200, Seed: 9})
	tr.Records = tr.Records[500:]
	path := filepath.Join(t.TempDir(), "large.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWindowFromZero: --from 0 without --to is no window: every output is
// byte for byte what it is without one, on both clocks (--clock cpu with a
// window reads both and shows one). (The repair summary on stderr may add
// the focus line.)
func TestWindowFromZero(t *testing.T) {
	path := windowLarge(t)
	dir := t.TempDir()
	for _, c := range [][]string{
		{"folded"}, {"top", "--format", "csv"}, {"calls", path, "Class1"}, {"dump"},
		{"perfetto", "-o", "OUT"}, {"speedscope", "-o", "OUT"}, {"pprof", "-o", "OUT"},
		{"--clock", "cpu", "folded"}, {"--clock", "cpu", "dump"}, {"--clock", "cpu", "top", "--format", "csv"},
		{"--clock", "cpu", "perfetto", "-o", "OUT"}, {"--clock", "cpu", "speedscope", "-o", "OUT"}, {"--clock", "cpu", "pprof", "-o", "OUT"},
	} {
		var outs [2]string
		for i, window := range [][]string{nil, {"--from", "0"}} {
			args := append([]string{"-q"}, c...)
			file := ""
			if args[len(args)-1] == "OUT" {
				file = filepath.Join(dir, fmt.Sprintf("%s-%d", strings.Join(c, ""), i))
				args[len(args)-1] = file
			}
			args = append(args, window...)
			if c[0] != "calls" {
				args = append(args, path)
			}
			code, out, errOut := runCLI(t, nil, args...)
			if code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, errOut)
			}
			if file != "" {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				out = string(data)
			}
			outs[i] = out
		}
		if outs[0] != outs[1] || len(outs[0]) == 0 {
			t.Errorf("%v: --from 0 changed the output (%d bytes, %d without)", c, len(outs[1]), len(outs[0]))
		}
	}
}

// TestWindowSplit: the wall times of [a, b] and [b, c] add up exactly to
// those of [a, c], stack by stack (folded, in µs: the trace's times are
// whole µs).
func TestWindowSplit(t *testing.T) {
	path := windowLarge(t)
	folded := func(from, to string) map[string]int64 {
		t.Helper()
		code, out, errOut := runCLI(t, nil, "folded", "-q", "--from", from, "--to", to, path)
		if code != exitOK {
			t.Fatalf("folded: exit %d: %s", code, errOut)
		}
		m := map[string]int64{}
		for _, line := range strings.Split(out, "\n") {
			if line == "" {
				continue
			}
			i := strings.LastIndexByte(line, ' ')
			v, err := strconv.ParseInt(line[i+1:], 10, 64)
			if err != nil {
				t.Fatalf("folded line %q", line)
			}
			m[line[:i]] += v
		}
		return m
	}
	whole := folded("10ms", "40ms")
	for _, mid := range []string{"10ms", "23457us", "31ms", "40ms"} {
		sum := folded("10ms", mid)
		for k, v := range folded(mid, "40ms") {
			sum[k] += v
		}
		var total int64
		for k, v := range whole {
			total += v
			if sum[k] != v {
				t.Errorf("split at %s: %s: %d µs, whole window %d µs", mid, k, sum[k], v)
			}
			delete(sum, k)
		}
		for k, v := range sum {
			if v != 0 {
				t.Errorf("split at %s: %s: %d µs, not in the whole window", mid, k, v)
			}
		}
		if total == 0 {
			t.Fatalf("the window [10ms, 40ms] holds nothing")
		}
	}
}

// TestWindowPastEnd: a window that ends past the trace's end warns, in
// one line naming the trace's span and what the window keeps, and the
// outputs are those of the window cut at the end.
func TestWindowPastEnd(t *testing.T) {
	dual := writeText(t, "window.trace", windowTrace)
	code, out, errOut := runCLI(t, nil, "folded", "--from", "15us", "--to", "60us", dual)
	_, want, _ := runCLI(t, nil, "folded", "--from", "15us", "--to", "50us", dual)
	if code != exitOK || out != want {
		t.Errorf("exit %d, folded:\n%s\nwant the window to 50 µs:\n%s", code, out, want)
	}
	if w := "window.trace: warning: --to 60us is past the trace, which spans 0 to 50 µs: the window keeps 15 µs to 50 µs\n"; !strings.Contains(errOut, w) {
		t.Errorf("stderr %q, want %q", errOut, w)
	}
	// The focus line shows the window as kept, not as asked.
	if w := "window.trace: focus: window 15 µs to 50 µs: "; !strings.Contains(errOut, w) {
		t.Errorf("stderr %q, want %q", errOut, w)
	}
	if _, _, errOut := runCLI(t, nil, "folded", "--from", "15us", "--to", "50us", dual); strings.Contains(errOut, "past the trace") {
		t.Errorf("a window inside the trace warns: %q", errOut)
	}
}

// TestInfoNamesClock: info describes every clock of the trace whatever
// --clock says, and with --clock it says so, naming the clock a window is
// on; without --clock the row is the trace's clock alone.
func TestInfoNamesClock(t *testing.T) {
	code, out, errOut := runCLI(t, nil, "info", "-q", "--clock", "cpu", "--from", "100ms", sample)
	if want := "\nclock       dual (from the key text); --clock cpu: info shows every clock the trace has, and the window is on the wall clock\n"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d (%s), output:\n%s\nwant %q", code, errOut, out, want)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--clock", "wall", sample)
	if want := "\nclock       dual (from the key text); --clock wall: info shows every clock the trace has\n"; !strings.Contains(out, want) {
		t.Errorf("--clock wall, no window: output:\n%s\nwant %q", out, want)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--format", "json", "--clock", "offcpu", sample)
	if !strings.Contains(out, `"clock_flag": "offcpu"`) {
		t.Errorf("json: no clock_flag offcpu:\n%.600s", out)
	}
	if _, out, _ = runCLI(t, nil, "info", "-q", sample); !strings.Contains(out, "\nclock       dual (from the key text)\n") {
		t.Errorf("without --clock:\n%s", out)
	}
}
