package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// runCLI runs atrace2 in-process and returns its exit code and output.
func runCLI(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// golden compares got with testdata/golden/cli/name, or rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "golden", "cli", name), []byte(got))
}

const sample = "../../testdata/sample.trace"

func TestGolden(t *testing.T) {
	v1 := writeCase(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"info-sample.txt", []string{"info", sample}},
		{"info-sample.json", []string{"info", "--format", "json", sample}},
		{"dump-sample.txt", []string{"dump", sample}},
		{"info-v1-dalvik.txt", []string{"info", "-q", v1}},
		{"dump-v1-dalvik.txt", []string{"dump", "-q", v1}},
	} {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		out = strings.ReplaceAll(out, filepath.Dir(v1), "TMP")
		if lines := strings.SplitAfter(out, "\n"); len(lines) > 300 {
			out = strings.Join(lines[:300], "") // enough of a long dump to review
		}
		golden(t, c.golden, out)
	}
}

// writeCase writes a small generated Dalvik v1 trace and returns its path.
func writeCase(t *testing.T) string {
	tr, err := tracegen.ParseText(`version 1
clock thread-cpu
vm dalvik
start 1370000000000000
thread 1 main
method 0x6287d960 android.os.Debug startMethodTracing (Ljava/lang/String;)V Debug.java -1
method 0x6287d9d0 com.example.App onCreate (Landroid/os/Bundle;)V App.java 42
1 exit 0x6287d960 4
1 enter 0x6287d9d0 10
1 exit 0x6287d9d0 25
`)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v1-dalvik.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(bad, []byte("*version\n3\n*end\nSLOW\x07\x00"), 0o644)
	for _, c := range []struct {
		name   string
		args   []string
		stdin  []byte
		code   int
		stderr string // regexp
	}{
		{"no command", nil, nil, exitUsage, `expected one of`},
		{"unknown flag", []string{"info", "--frobnicate", sample}, nil, exitUsage, `unknown flag --frobnicate`},
		{"bad enum", []string{"info", "--format", "xml", sample}, nil, exitUsage, `--format must be one of`},
		{"missing file", []string{"info", "nope.trace"}, nil, exitError, `^atrace2: nope.trace: open nope.trace: no such file or directory\n$`},
		{"bad input", []string{"info", bad}, nil, exitError, `^atrace2: .*bad.trace: offset 16 \(0x10\): the SLOW data header is cut short: 6 of 32 bytes\n$`},
		{"not a trace", []string{"info", "-"}, []byte("\x89PNG\r\n"), exitError, `^atrace2: <stdin>: not an Android method trace: a PNG image\n$`},
		{"empty stdin", []string{"dump", "-"}, []byte{}, exitError, `empty file`},
		{"strict", []string{"info", "--strict", sample}, nil, exitError, `strict mode: the trace needed repairs: 1 orphan exit, 25 frames open at the end`},
		{"clock not in trace", []string{"info", "--clock", "dual", writeCase(t)}, nil, exitUsage, `--clock dual: the trace records the thread-cpu clock`},
		{"sec without trace", []string{"info", "x.sec"}, nil, exitUsage, `must follow the streaming trace`},
		{"version", []string{"--version"}, nil, exitOK, `^$`},
		{"help", []string{"info", "-h"}, nil, exitOK, `^$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, errOut)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("stderr %q does not match %q", errOut, c.stderr)
			}
		})
	}
}

func TestStdinAndQuiet(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	code, fromStdin, errOut := runCLI(t, tracegen.Gzip(data), "info", "-q", "-")
	_, fromFile, _ := runCLI(t, nil, "info", "-q", sample)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	// The same report but for the file name and the gzip mark.
	fromStdin = strings.Replace(fromStdin, "<stdin>", sample, 1)
	fromStdin = strings.Replace(fromStdin, ", gzip", "", 1)
	if fromStdin != fromFile {
		t.Errorf("gzip on stdin:\n%s\nfile:\n%s", fromStdin, fromFile)
	}
	_, _, errOut = runCLI(t, nil, "info", sample)
	if want := "atrace2: " + sample + ": repaired: 1 orphan exit, 25 frames open at the end\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

func TestHelpNamesEveryFlag(t *testing.T) {
	code, out, _ := runCLI(t, nil, "info", "--help")
	for _, flag := range []string{"--format", "--quiet", "--strict", "--clock", "--time-unit", "--version"} {
		if !strings.Contains(out, flag) {
			t.Errorf("info --help does not mention %s (exit %d)", flag, code)
		}
	}
}

// TestCPUProfileFile: --cpu-profile is an output like the others: it used
// to be created before anything was read, so naming the trace destroyed
// it; now a trace (also on standard input) is refused, an output may not
// replace it, and the file appears complete at the end.
func TestCPUProfileFile(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "app.trace")
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(trace, data, 0o644)
	prof := filepath.Join(dir, "cpu.pprof")
	stdin, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	for _, c := range []struct {
		args  []string
		stdin *os.File
		want  string
	}{
		{[]string{"--cpu-profile", trace, "info", trace}, nil, "refusing to write the CPU profile output over the input " + trace},
		{[]string{"--cpu-profile", trace, "diff", sample, trace}, nil, "refusing to write the CPU profile output over the input " + trace},
		{[]string{"--cpu-profile", trace, "top", "-"}, stdin, "refusing to write the CPU profile output over the input on standard input"},
		{[]string{"--cpu-profile", "-", "info", trace}, nil, "--cpu-profile: name a file"},
		{[]string{"--cpu-profile", prof, "folded", "-o", prof, trace}, nil, "refusing to write the folded output over the --cpu-profile file " + prof},
		{[]string{"--cpu-profile", prof, "pprof", "-o", prof, trace}, nil, "refusing to write the pprof output over the --cpu-profile file " + prof},
		{[]string{"--cpu-profile", prof, "convert", "--folded", "-", "--speedscope", filepath.Join(dir, ".", "cpu.pprof"), trace}, nil,
			"refusing to write the speedscope output over the --cpu-profile file " + prof},
	} {
		e := &env{stdin: bytes.NewReader(nil), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		if c.stdin != nil {
			e.stdin = c.stdin
		}
		code := run(append([]string{"-q"}, c.args...), e)
		if errOut := e.stderr.(*bytes.Buffer).String(); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
		if b, err := os.ReadFile(trace); err != nil || !bytes.Equal(b, data) {
			t.Fatalf("%v: the trace was changed (%d bytes, %v)", c.args, len(b), err)
		}
		// Refused before anything is written: no profile either.
		if _, err := os.Stat(prof); err == nil || e.stdout.(*bytes.Buffer).Len() > 0 {
			t.Errorf("%v: wrote %s or standard output", c.args, prof)
		}
		os.Remove(prof)
	}
	if code, _, errOut := runCLI(t, nil, "-q", "--cpu-profile", prof, "info", trace); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the CPU profile holds %d bytes (%v), want a gzipped profile", len(b), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files in %s: %v, want the trace and the profile", dir, entries)
	}
}

// TestUsageErrorsLeaveStdout checks that a usage error found by the
// parser writes nothing on standard output, which may be the user's output
// file (`> out.folded`, `>> keep.folded`): the error and a pointer to the
// command's help go to standard error, and the exit is 80. --help still
// prints the help on standard output.
func TestUsageErrorsLeaveStdout(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.out")
	const before = "previous\n"
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"bad value", []string{"folded", "--max-depth", "x", sample},
			"atrace2: error: --max-depth: expected a valid 64 bit int but got \"x\"\nTry 'atrace2 folded --help' for more information.\n"},
		{"missing argument", []string{"folded"},
			"atrace2: error: expected \"<TRACE> ...\"\nTry 'atrace2 folded --help' for more information.\n"},
		{"unknown flag", []string{"top", "--frobnicate", sample},
			"atrace2: error: unknown flag --frobnicate\nTry 'atrace2 top --help' for more information.\n"},
		{"no command", nil,
			"atrace2: error: expected one of \"info\", \"dump\", \"pprof\", \"perfetto\", \"speedscope\", ...\nTry 'atrace2 --help' for more information.\n"},
		{"convert without output", []string{"convert", sample},
			"atrace2: error: convert: name at least one output: --pprof, --perfetto, --speedscope or --folded\nTry 'atrace2 convert --help' for more information.\n"},
		{"convert, two to stdout", []string{"convert", "--pprof", "-", "--folded", "-", sample},
			"atrace2: error: convert: at most one output can go to standard output (-)\nTry 'atrace2 convert --help' for more information.\n"},
		{"convert, one file twice", []string{"convert", "--pprof", same, "--folded", same, sample},
			"atrace2: error: convert: --pprof and --folded name the same file " + same + ": one output would replace the other\nTry 'atrace2 convert --help' for more information.\n"},
	} {
		for _, mode := range []struct {
			name string
			flag int
			old  string
		}{{">", os.O_WRONLY | os.O_TRUNC, ""}, {">>", os.O_WRONLY | os.O_APPEND, before}} {
			name := filepath.Join(dir, "stdout")
			if err := os.WriteFile(name, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(name, mode.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			var errb bytes.Buffer
			code := run(c.args, &env{stdin: bytes.NewReader(nil), stdout: f, stderr: &errb})
			f.Close()
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if code != exitUsage || string(got) != mode.old || errb.String() != c.stderr {
				t.Errorf("%s, stdout %s: exit %d, stdout file %q, stderr %q; want exit %d, %q and %q",
					c.name, mode.name, code, got, errb.String(), exitUsage, mode.old, c.stderr)
			}
		}
	}
	if _, err := os.Stat(same); err == nil {
		t.Errorf("convert wrote %s", same)
	}
	code, out, errOut := runCLI(t, nil, "folded", "--help")
	if code != exitOK || !strings.HasPrefix(out, "Usage: atrace2 folded <TRACE> ... [flags]\n") || errOut != "" {
		t.Errorf("folded --help: exit %d, stdout %.40q, stderr %q; want 0, the help and nothing", code, out, errOut)
	}
}
