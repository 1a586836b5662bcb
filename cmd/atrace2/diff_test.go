package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// writeRun writes one run of a small two-thread app: on main, main (10 µs
// exclusive) calls work (w µs); on the worker, bg runs 50 µs. It returns
// the file's path.
func writeRun(t *testing.T, dir, name string, w int) string {
	t.Helper()
	end := 10 + w
	tr, err := tracegen.ParseText(fmt.Sprintf(`version 3
clock dual
thread 1 main
thread 2 worker
method 0x4 com.ex.App main ()V App.java
method 0x8 com.ex.App work ()V App.java
method 0xc com.ex.Bg bg ()V Bg.java
1 enter 0x4 0 0
2 enter 0xc 0 0
1 enter 0x8 10 10
1 exit 0x8 %d %d
1 exit 0x4 %d %d
2 exit 0xc 50 50
`, end, end, end, end))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runSets writes old runs where work takes 10..40 µs and new runs where it
// takes 60..90 µs: four runs per side, completely separated (exact
// two-sided p = 2/70 ≈ 0.029).
func runSets(t *testing.T) (olds, news []string) {
	dir := t.TempDir()
	for i := range 4 {
		olds = append(olds, writeRun(t, dir, fmt.Sprintf("a%d.trace", i+1), 10*(i+1)))
		news = append(news, writeRun(t, dir, fmt.Sprintf("b%d.trace", i+1), 60+10*i))
	}
	return olds, news
}

func diffArgs(olds, news []string, flags ...string) []string {
	args := append([]string{"diff", "-q"}, flags...)
	args = append(append(args, "--old"), olds...)
	return append(append(args, "--new"), news...)
}

// TestDiffRunsSyntax: --old A1 A2 … --new B1 B2 …, repeated flags and
// --old=A mix, and give the same report.
func TestDiffRunsSyntax(t *testing.T) {
	olds, news := runSets(t)
	code, want, errOut := runCLI(t, nil, diffArgs(olds, news, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		OldRuns []string `json:"old_runs"`
		NewRuns []string `json:"new_runs"`
	}
	if err := json.Unmarshal([]byte(want), &doc); err != nil || len(doc.OldRuns) != 4 || len(doc.NewRuns) != 4 {
		t.Fatalf("runs %q %q (%v)", doc.OldRuns, doc.NewRuns, err)
	}
	for _, args := range [][]string{
		{"diff", "-q", "--format", "json", "--old", olds[0], "--old", olds[1], olds[2], "--old=" + olds[3], "--new", news[0], news[1], news[2], news[3]},
		{"diff", "-q", "--new", news[0], news[1], news[2], news[3], "--format", "json", "--old", olds[0], olds[1], olds[2], olds[3]},
		{"diff", "-q", "--old", olds[0], olds[1], olds[2], olds[3], "--new", news[0], news[1], news[2], news[3], "--format=json"},
	} {
		code, got, errOut := runCLI(t, nil, args...)
		if code != 0 || got != want {
			t.Errorf("%q: exit %d, stderr %s; report differs: %v", args, code, errOut, got != want)
		}
	}
}

func TestDiffExitCodes(t *testing.T) {
	olds, news := runSets(t)
	bad := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(bad, []byte("*version\n3\n*end\nSLOW\x07\x00"), 0o644)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // regexp
		stderr string // regexp
	}{
		{"no rules", diffArgs(olds, news), exitOK, `4 old runs → 4 new runs`, `^$`},
		{"ok", diffArgs(olds, news, "--fail-on", "work:excl>+1ms"), exitOK, `gate: pass:`, `^$`},
		{"regressed", diffArgs(olds, news, "--fail-on", "work:excl>+20us"), exitRegressed,
			`(?s)gate: FAIL: .*regressed  work:excl>\+20us .*com\.ex\.App\.work\n.*METHOD\n`, `^atrace2: the gate failed: 1 check regressed\n$`},
		{"not significant at 0.01", diffArgs(olds, news, "--fail-on", "work:excl>+20us", "--alpha", "0.01"), exitOK, `inconclusive  work`, `^$`},
		{"inconclusive fails", diffArgs(olds, news, "--fail-on", "work:excl>+20us", "--alpha", "0.01", "--inconclusive=fail"), exitInconclusive,
			`gate: FAIL \(inconclusive\)`, `^atrace2: the gate failed: 1 check inconclusive and --inconclusive=fail\n$`},
		{"one run each", []string{"diff", "-q", "--fail-on", "work:excl>+20us", olds[0], news[3]}, exitOK, `inconclusive`, `^$`},
		{"one run each, inconclusive fails", []string{"diff", "-q", "--fail-on", "work:excl>+20us", "--inconclusive", "fail", olds[0], news[3]}, exitInconclusive, `inconclusive`, `inconclusive`},
		{"improved", diffArgs(news, olds, "--fail-on", "work:excl>+20us"), exitOK, `improved  work`, `^$`},
		{"bad run", diffArgs(append(olds[:1:1], bad), news, "--fail-on", "excl>+1ms"), exitError, `^$`, `bad.trace: offset 16`},
		{"bad rule", diffArgs(olds, news, "--fail-on", "excl>fast"), exitUsage, `^$`, `--fail-on`},
		{"rule matching nothing", diffArgs(olds, news, "--fail-on", "NoSuchMethod:excl>+1ms"), exitOK, `gate: pass: 1 rule, 0 checks`,
			`^atrace2: warning: --fail-on "NoSuchMethod:excl>\+1ms" checked nothing: its pattern matches no method of the runs\n$`},
		{"phase not recorded", diffArgs(olds, news, "--fail-on", "phase:first-frame:wall>+5%"), exitError, `^$`, `a1.trace: phase first-frame: not recorded \(not in the trace\)`},
		{"phase clock narrowed away", diffArgs(olds, news, "--fail-on", "phase:first-frame>+5%", "--clock", "cpu"), exitUsage, `^$`,
			`--clock cpu reads no wall time, which the rule compares: leave --clock out, or give the rule the clock \(phase:first-frame:cpu\)`},
		{"unknown phase", diffArgs(olds, news, "--fail-on", "phase:first-draw>+5%"), exitUsage, `^$`, `first-draw`},
		{"clock missing", diffArgs(olds, news, "--fail-on", "excl.cpu>+1ms", "--clock", "wall"), exitUsage, `^$`, `no cpu clock`},
		{"old without new", []string{"diff", "--old", olds[0], olds[1]}, exitUsage, `^$`, `--old and --new go together`},
		{"both forms", []string{"diff", "--old", olds[0], "--new", news[0], "--", olds[1], news[1]}, exitUsage, `^$`, `not both`},
		{"alpha", diffArgs(olds, news, "--alpha", "1.5"), exitUsage, `^$`, `--alpha 1.5`},
		{"two stdins", []string{"diff", "--old", "-", olds[0], "--new", "-"}, exitUsage, `^$`, `only one run can be standard input`},
		{"sec alone", []string{"diff", "--old", "x.sec", "--new", news[0]}, exitUsage, `^$`, `must follow the streaming trace`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if !regexp.MustCompile(c.stdout).MatchString(out) {
				t.Errorf("stdout does not match %q:\n%s", c.stdout, out)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("stderr %q does not match %q", errOut, c.stderr)
			}
		})
	}
}

// TestDiffFormats: every format is written in full before exit 3.
func TestDiffFormats(t *testing.T) {
	olds, news := runSets(t)
	for _, format := range []string{"text", "csv", "json", "junit", "markdown"} {
		code, out, errOut := runCLI(t, nil, diffArgs(olds, news, "--format", format, "--fail-on", "work:excl>+20us", "--fail-on", "calls>+1")...)
		if code != exitRegressed {
			t.Errorf("%s: exit %d: %s", format, code, errOut)
		}
		var err error
		switch format {
		case "json":
			var doc struct {
				Gate struct {
					Outcome  string
					Verdicts []struct{ Verdict, Subject string }
				}
			}
			err = json.Unmarshal([]byte(out), &doc)
			if doc.Gate.Outcome != "regressed" || len(doc.Gate.Verdicts) != 4 {
				t.Errorf("json gate %+v", doc.Gate)
			}
		case "junit":
			var doc struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
			}
			err = xml.Unmarshal([]byte(out), &doc)
			if doc.Tests != 4 || doc.Failures != 1 {
				t.Errorf("junit: %d tests, %d failures\n%s", doc.Tests, doc.Failures, out)
			}
		case "csv":
			if !strings.HasPrefix(out, "method,signature,status,excl_wall_old_ns,excl_wall_new_ns,excl_wall_delta_ns,excl_wall_delta_pct,excl_wall_p,") {
				t.Errorf("csv header: %s", out[:strings.IndexByte(out, '\n')])
			}
		case "markdown":
			if !strings.HasPrefix(out, "## atrace2 diff: FAIL\n") || !strings.Contains(out, "| regressed | `work:excl>+20us` |") {
				t.Errorf("markdown:\n%s", out)
			}
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", format, err, out)
		}
	}
}

// TestDiffFocusEveryRun: the focus options apply to every run of both
// sides: with --thread main, bg (on the worker) is in no run.
func TestDiffFocusEveryRun(t *testing.T) {
	olds, news := runSets(t)
	for _, c := range []struct {
		flags []string
		bg    bool
	}{{nil, true}, {[]string{"--thread", "main"}, false}, {[]string{"--root", "com.ex.App.main"}, false}} {
		code, out, errOut := runCLI(t, nil, diffArgs(olds, news, append(c.flags, "--format", "json", "--fail-on", "excl>+1ms")...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errOut)
		}
		if got := strings.Contains(out, "com.ex.Bg.bg"); got != c.bg {
			t.Errorf("%v: bg in the report = %v, want %v", c.flags, got, c.bg)
		}
	}
}

// TestDiffSampledRuns: sampled profiles as runs count samples: rules in
// time and on calls are refused, percentages work.
func TestDiffSampledRuns(t *testing.T) {
	h := filepath.Join("..", "..", "..", "shared", "corpus", "pjstadig-deque-clojure__java.hprof.txt")
	if _, err := os.Stat(h); err != nil {
		t.Skipf("corpus file absent (%v)", err)
	}
	runs := []string{h, h, h}
	for rule, want := range map[string]int{"excl>+1ms": exitUsage, "calls>+10%": exitUsage, "excl>+10%": exitOK, "incl.wall>+10%": exitUsage} {
		code, _, errOut := runCLI(t, nil, diffArgs(runs, runs, "--fail-on", rule)...)
		if code != want {
			t.Errorf("%s: exit %d, want %d: %s", rule, code, want, errOut)
		}
	}
}

// TestDiffCPUProfileNotOverRuns: --cpu-profile refuses to write over a run
// named by --old or --new.
func TestDiffCPUProfileNotOverRuns(t *testing.T) {
	olds, news := runSets(t)
	code, _, errOut := runCLI(t, nil, append([]string{"--cpu-profile", news[2]}, diffArgs(olds, news)...)...)
	if code != exitUsage || !strings.Contains(errOut, "refusing to write the CPU profile output over the input "+news[2]) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestDiffRunsMapping: --old-mapping and --new-mapping apply to every run
// of their side.
func TestDiffRunsMapping(t *testing.T) {
	f := mappingFiles(t)
	code, out, errOut := runCLI(t, nil, "diff", "-q", "--wide", "--format", "csv",
		"--old-mapping", f["mapping.txt"], "--new-mapping", f["new-mapping.txt"],
		"--old", f["app.trace"], f["app.trace"], f["app.trace"], "--new", f["new.trace"], f["new.trace"])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "com.example.Feed.bind") || strings.Contains(out, "a.b.") || strings.Contains(out, "c.d.") {
		t.Errorf("diff of two builds' runs:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if !strings.Contains(line, ",both,") {
			t.Errorf("a method only in one build: %s", line)
		}
	}
}
