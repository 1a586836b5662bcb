package main

import (
	"bytes"
	"io"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// runOnTerminal runs atrace2 with stdout on a pseudo-terminal of the given
// width and returns what it printed there and on stderr, and its exit code.
func runOnTerminal(t *testing.T, cols int, args ...string) (string, string, int) {
	t.Helper()
	ptmx, tty := openPtyPair(t)
	ws := struct{ row, col, x, y uint16 }{40, uint16(cols), 0, 0}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Skipf("setting the terminal's size: %v", e)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, ptmx) // until the terminal side is closed (EIO)
		close(done)
	}()
	var errb strings.Builder
	code := run(args, &env{stdin: strings.NewReader(""), stdout: tty, stderr: &errb})
	tty.Close()
	<-done
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), errb.String(), code
}

// TestReportFitsTerminal: on a terminal, top and calls leave columns out to
// fit its width and say so; --wide keeps every column.
func TestReportFitsTerminal(t *testing.T) {
	for _, c := range []struct {
		cols   int
		args   []string
		header string // the table's header line
		more   bool   // a line says that columns were left out
	}{
		{80, []string{"top", "-n", "8", sample}, "EXCL WALL      %  INCL WALL      %  CALLS  METHOD", true},
		{120, []string{"top", "-n", "8", sample}, "EXCL WALL      %  INCL WALL      %  EXCL CPU  INCL CPU  CALLS  RECURSIVE  METHOD", true},
		{200, []string{"top", "-n", "8", sample}, "EXCL WALL      %  INCL WALL      %  EXCL CPU      %  INCL CPU      %  CALLS  RECURSIVE  EXCL WALL/CALL  METHOD", false},
		{80, []string{"top", "--wide", "-n", "8", sample}, "EXCL WALL      %  INCL WALL      %  EXCL CPU      %  INCL CPU      %  CALLS  RECURSIVE  EXCL WALL/CALL  METHOD", false},
		{80, []string{"calls", sample, `ProductAdapter\.onCreateViewHolder`}, "            WALL       %       CPU  CALLS  METHOD", true},
	} {
		out, errs, code := runOnTerminal(t, c.cols, c.args...)
		if code != 0 {
			t.Fatalf("%d columns, %q: exit %d, stderr %s", c.cols, c.args, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		found := false
		for _, l := range lines {
			if strings.HasSuffix(l, "METHOD") {
				found = true
				if l != c.header {
					t.Errorf("%d columns, %q: header\n%q, want\n%q", c.cols, c.args, l, c.header)
				}
			}
		}
		if !found {
			t.Errorf("%d columns, %q: no table header in\n%s", c.cols, c.args, out)
		}
		if got := strings.Contains(out, "left out to fit"); got != c.more {
			t.Errorf("%d columns, %q: a line on columns left out: %v, want %v\n%s", c.cols, c.args, got, c.more, out)
		}
		if slicesContains(c.args, "--wide") {
			continue
		}
		// The header lines above the table may be longer; the table's may not.
		table := false
		for _, l := range lines {
			table = table || strings.HasSuffix(l, "METHOD")
			if table && l != "" && utf8.RuneCountInString(l) > c.cols {
				t.Errorf("%d columns, %q: line of %d characters: %q", c.cols, c.args, utf8.RuneCountInString(l), l)
			}
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestTextOutputsOnTerminal: speedscope refuses a terminal before reading
// the trace, as pprof does; folded prints short stacks there and refuses
// long ones with the same kind of hint.
func TestTextOutputsOnTerminal(t *testing.T) {
	out, stderr, code := runOnTerminal(t, 80, "speedscope", sample)
	want := "atrace2: refusing to write a speedscope profile (one long line of JSON) to a terminal: use -o app.speedscope.json (then open it at https://www.speedscope.app), --open, redirect stdout, or pipe it to speedscope -\n"
	if code != exitUsage || out != "" || stderr != want {
		t.Errorf("speedscope: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runOnTerminal(t, 80, "folded", "-q", sample) // 137 KiB of stacks
	want = "atrace2: refusing to write more than 64 KiB of folded stacks to a terminal: use -o app.folded, or pipe them to flamegraph.pl > app.svg, inferno-flamegraph > app.svg or less\n"
	if code != exitUsage || out != "" || stderr != want {
		t.Errorf("folded: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = runOnTerminal(t, 80, "folded", "-q", "--thread", "^main$", "--root", "onCreate$", sample)
	if code != 0 || !strings.HasPrefix(out, "main (tid ") || stderr != "" {
		t.Errorf("short folded stacks: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// The same stacks on a pipe are whole.
	c, piped, _ := runCLI(t, nil, "folded", "-q", "--thread", "^main$", "--root", "onCreate$", sample)
	if c != 0 || piped != out {
		t.Errorf("folded on a terminal differs from folded on a pipe:\n%s\n%s", out, piped)
	}
}
