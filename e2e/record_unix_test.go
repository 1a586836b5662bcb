//go:build unix

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atrace2/atrace2/record/fakeadb"
)

const (
	recPkg = "com.example.app"
	recOn  = "-s emulator-5554 "
)

// recordRun starts atrace2 record in a folder of its own with the fake
// adb (a healthy device serving the sample trace, rules first), its
// standard input a pipe kept open (no Enter), and returns the process,
// its folder, its stderr and the fake.
func recordRun(t *testing.T, rules ...fakeadb.Rule) (*exec.Cmd, string, *bytes.Buffer, *fakeadb.Fake) {
	t.Helper()
	f := fakeadb.Install(t, append(fakeadb.Script(rules), fakeadb.Healthy(t, fakeadb.Device{Package: recPkg, Trace: sampleTrace(t)})...))
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "record", "-o", "app.trace", recPkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.Env()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, dir, &stderr, f
}

// waitForLine waits until the fake has run a command line that starts
// with prefix.
func waitForLine(t *testing.T, f *fakeadb.Fake, prefix string) {
	t.Helper()
	for range 6000 {
		if slices.ContainsFunc(f.Lines(t), func(l string) bool { return strings.HasPrefix(l, prefix) }) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %q within a minute: %q", prefix, f.Lines(t))
}

// TestRecordCtrlCStops: Ctrl-C while recording stops the recording, and
// the trace is copied, removed from the device and written.
func TestRecordCtrlCStops(t *testing.T) {
	cmd, dir, stderr, f := recordRun(t)
	waitForLine(t, f, recOn+"shell am profile start ")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want, _ := os.ReadFile(sampleTrace(t))
	if got, _ := os.ReadFile(filepath.Join(dir, "app.trace")); !bytes.Equal(got, want) {
		t.Errorf("app.trace: %d bytes, want %d\n%s", len(got), len(want), stderr)
	}
	if !strings.Contains(stderr.String(), "atrace2: stopped (Ctrl-C): waiting for com.example.app to write the trace\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	l := f.Lines(t)
	if !strings.HasPrefix(l[len(l)-1], recOn+"shell rm -f /data/local/tmp/atrace2-com.example.app-") {
		t.Errorf("last command %q", l[len(l)-1])
	}
}

// TestRecordSIGTERMCleansUp: SIGTERM while recording stops the profiler
// and removes the file on the device, leaves no output, and the process
// dies of it.
func TestRecordSIGTERMCleansUp(t *testing.T) {
	cmd, dir, stderr, f := recordRun(t)
	waitForLine(t, f, recOn+"shell am profile start ")
	cmd.Process.Signal(syscall.SIGTERM)
	diedOf(t, cmd.Wait(), syscall.SIGTERM)
	l := f.Lines(t)
	n := len(l)
	if n < 2 || l[n-2] != recOn+"shell am profile stop "+recPkg || !strings.HasPrefix(l[n-1], recOn+"shell rm -f /data/local/tmp/atrace2-") {
		t.Errorf("commands:\n%s", strings.Join(l, "\n"))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	if !strings.Contains(stderr.String(), "atrace2: interrupted: stopping the profiler and removing /data/local/tmp/atrace2-") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestRecordSecondCtrlCAborts: the first Ctrl-C stops the recording; a
// second one while the trace is copied ends the run, removes the file on
// the device and the output here.
func TestRecordSecondCtrlCAborts(t *testing.T) {
	cmd, dir, stderr, f := recordRun(t, fakeadb.Rule{Match: recOn + "exec-out cat *", Replies: []fakeadb.Reply{{Delay: 5 * time.Second}}})
	waitForLine(t, f, recOn+"shell am profile start ")
	cmd.Process.Signal(syscall.SIGINT)
	waitForLine(t, f, recOn+"exec-out cat ")
	cmd.Process.Signal(syscall.SIGINT)
	diedOf(t, cmd.Wait(), syscall.SIGINT)
	l := f.Lines(t)
	if !strings.HasPrefix(l[len(l)-1], recOn+"shell rm -f /data/local/tmp/atrace2-") || strings.Count(strings.Join(l, "\n"), "am profile stop") != 1 {
		t.Errorf("commands:\n%s", strings.Join(l, "\n"))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v\n%s", entries, stderr)
	}
}
