package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// pipePath returns a path that opens a pipe carrying data, as bash's
// <(cat file) does (/dev/fd/63): /proc/self/fd/N of the pipe's read end.
func pipePath(t *testing.T, data []byte) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	path := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	if _, err := os.Stat(path); err != nil {
		w.Close()
		t.Skipf("no /proc/self/fd here: %v", err)
	}
	go func() {
		w.Write(data) // fails early if the reader is closed: the test reports it
		w.Close()
	}()
	return path
}

// TestInputFromNamedPipe: a trace named by a path that is a pipe reads like
// the file itself. Its size is unknown and it can be read once only: it was
// taken for an empty file, and the sniff for sampled profiles consumed its
// first 4 KiB before the parser opened it again.
func TestInputFromNamedPipe(t *testing.T) {
	trace, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	_, f := sampledFiles(t)
	hprof, err := os.ReadFile(f["app.hprof"])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		file string
		data []byte
	}{
		{"method trace", []string{"info"}, sample, trace},
		{"gzip method trace", []string{"top"}, sample, tracegen.Gzip(trace)},
		{"sampled profile", []string{"top"}, f["app.hprof"], hprof},
		{"folded", []string{"folded"}, sample, trace},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := c.file
			wantCode, want, wantErr := runCLI(t, nil, append(c.args, file)...)
			if wantCode != exitOK {
				t.Fatalf("from %s: exit %d: %s", file, wantCode, wantErr)
			}
			pipe := pipePath(t, c.data)
			code, got, errOut := runCLI(t, nil, append(c.args, pipe)...)
			got, errOut = strings.ReplaceAll(got, pipe, file), strings.ReplaceAll(errOut, pipe, file)
			if code != exitOK || got != want || errOut != wantErr {
				t.Errorf("from a pipe: exit %d\nstderr %q\nwant   %q\nstdout (%d bytes):\n%.2000s\nwant (%d bytes):\n%.2000s",
					code, errOut, wantErr, len(got), got, len(want), want)
			}
		})
	}
}

// TestDiffOfOnePipe: diff refuses OLD and NEW that read the same pipe,
// which the first would consume whole ("empty file" for the second).
func TestDiffOfOnePipe(t *testing.T) {
	trace, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	pipe := pipePath(t, trace)
	code, _, errOut := runCLI(t, nil, "diff", pipe, pipe)
	if want := "atrace2: OLD and NEW name the same pipe, which can be read only once\n"; code != exitUsage || errOut != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut, exitUsage, want)
	}
	// Two pipes are fine.
	if code, _, errOut := runCLI(t, nil, "diff", "-q", pipePath(t, trace), pipePath(t, trace)); code != exitOK {
		t.Errorf("two pipes: exit %d: %s", code, errOut)
	}
}
