package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputPathCheckedFirst: an output in a missing folder, or a
// directory named as the output, fails at once with one line, before the
// trace is read (no repair summary of the sample, which needs repairs).
func TestOutputPathCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "x.out")
	for _, args := range [][]string{
		{"pprof", "-o", "OUT", sample},
		{"pprof", "--http", "127.0.0.1:0", "--no-browser", "-o", "OUT", sample},
		{"perfetto", "-o", "OUT", sample},
		{"speedscope", "-o", "OUT", sample},
		{"folded", "-o", "OUT", sample},
		{"convert", "--pprof", "OUT", sample},
		{"convert", "--perfetto", "OUT", sample},
		{"convert", "--speedscope", "OUT", sample},
		{"convert", "--folded", "OUT", sample},
		{"convert", "--folded", filepath.Join(dir, "ok.folded"), "--pprof", "OUT", sample},
	} {
		for _, out := range []string{missing, dir} {
			a := make([]string, len(args))
			for i, s := range args {
				a[i] = strings.ReplaceAll(s, "OUT", out)
			}
			code, stdout, stderr := runCLI(t, nil, a...)
			want := "atrace2: creating " + missing + ": no such file or directory\n"
			if out == dir {
				want = "atrace2: creating " + dir + ": is a directory\n"
			}
			if code != exitError || stdout != "" || stderr != want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", a, code, stdout, stderr, exitError, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.folded")); err == nil {
		t.Error("convert kept an output although another could not be created")
	}
}

// TestCallsArgumentOrder: grep's order, PATTERN TRACE, gets the order to
// use rather than "no such file".
func TestCallsArgumentOrder(t *testing.T) {
	code, _, stderr := runCLI(t, nil, "calls", "onCreate$", sample)
	want := "atrace2: onCreate$ is no file but " + sample + " is: the trace comes first, as in atrace2 calls " + sample + " 'onCreate$'\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitUsage, want)
	}
	// A missing trace with a pattern that is no file stays a data error.
	code, _, stderr = runCLI(t, nil, "calls", "nothere.trace", "onCreate$")
	if code != exitError || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing trace: exit %d, stderr %q", code, stderr)
	}
}

// TestHelpAboutItself: each report command's help defines its own columns,
// points at docs/guide.md for the rest, and leaves out the others'.
func TestHelpAboutItself(t *testing.T) {
	for _, c := range []struct {
		cmd        string
		has, hasnt []string
	}{
		{"top", []string{"recursive:", "total:", "docs/guide.md"}, []string{"parent P of M", "child C of M"}},
		{"calls", []string{"parent P of M", "child C of M", "self:", "docs/guide.md"}, []string{"recursive:", "total:", "offcpu (--clock offcpu"}},
		{"diff", []string{"--threshold applies", "docs/guide.md"}, []string{"parent P of M", "recursive:", "total:"}},
	} {
		code, out, stderr := runCLI(t, nil, c.cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", c.cmd, code, stderr)
		}
		for _, s := range c.has {
			if !strings.Contains(out, s) {
				t.Errorf("%s --help lacks %q", c.cmd, s)
			}
		}
		for _, s := range c.hasnt {
			if strings.Contains(out, s) {
				t.Errorf("%s --help has %q, about another command", c.cmd, s)
			}
		}
	}
}
