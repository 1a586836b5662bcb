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
