//go:build unix

package e2e

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/tracegen"
)

var (
	bigOnce  sync.Once
	bigTrace string
	bigErr   error
)

// big writes, once per test run, a trace whose dump takes long enough
// (seconds) to be interrupted in the middle. It lives beside the binary,
// which TestMain removes.
func big(t *testing.T) string {
	bin := binary(t)
	bigOnce.Do(func() {
		bigTrace = filepath.Join(filepath.Dir(bin), "big.trace")
		bigErr = os.WriteFile(bigTrace, tracegen.LargeRegular(tracegen.LargeOptions{Bytes: 24 << 20, Seed: 1}), 0o644)
	})
	if bigErr != nil {
		t.Fatal(bigErr)
	}
	return bigTrace
}

// diedOf checks that the process ended as a shell expects after sig:
// killed by it, or for SIGQUIT, Go's goroutine dump and exit status 2.
func diedOf(t *testing.T, err error, sig syscall.Signal) {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v, want death by %v", err, sig)
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		t.Errorf("exit: %v", err)
	case sig == syscall.SIGQUIT && (!ws.Exited() || ws.ExitStatus() != 2):
		t.Errorf("exit: %v, want Go's exit status 2 after SIGQUIT", err)
	case sig != syscall.SIGQUIT && (!ws.Signaled() || ws.Signal() != sig):
		t.Errorf("exit: %v, want death by %v", err, sig)
	}
}

var fatalSignals = []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// TestSignalEmptiesStdoutFile: standard output redirected to a file
// (> FILE) is emptied by a signal in the middle of the output, as it is by
// an error: it was left half-written. A file appended to (>> FILE) is cut
// back to what it held.
func TestSignalEmptiesStdoutFile(t *testing.T) {
	trace := big(t)
	for _, before := range []string{"", "kept\n"} {
		for _, sig := range fatalSignals {
			t.Run(fmt.Sprintf("%v/%d bytes before", sig, len(before)), func(t *testing.T) {
				name := filepath.Join(t.TempDir(), "out.txt")
				if err := os.WriteFile(name, []byte(before), 0o644); err != nil {
					t.Fatal(err)
				}
				flag := os.O_WRONLY | os.O_TRUNC // > FILE
				if before != "" {
					flag = os.O_WRONLY | os.O_APPEND // >> FILE
				}
				stdout, err := os.OpenFile(name, flag, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer stdout.Close()
				cmd := exec.Command(binary(t), "dump", "-q", trace)
				cmd.Stdout = stdout
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if !waitFor(func() bool { st, err := os.Stat(name); return err == nil && st.Size() > int64(len(before)) }) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("nothing was written")
				}
				cmd.Process.Signal(sig)
				err = cmd.Wait()
				if err == nil {
					// A skip here would pass CI without testing anything; the
					// dump takes far longer than the millisecond the signal
					// needs, so an early end is a failure to look at.
					t.Fatal("the dump ended before the signal came: the trace is too small to interrupt")
				}
				diedOf(t, err, sig)
				if got, err := os.ReadFile(name); err != nil || string(got) != before {
					t.Errorf("standard output's file holds %d bytes (%v), want %q", len(got), err, before)
				}
			})
		}
	}
}

// TestSignalRemovesOutputs: every signal that ends the process in the
// middle of a conversion, SIGQUIT included, removes the temporary outputs.
func TestSignalRemovesOutputs(t *testing.T) {
	trace := big(t)
	for _, sig := range fatalSignals {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary(t), "convert", "-q", "--perfetto", filepath.Join(dir, "out.perfetto-trace"),
				"--folded", filepath.Join(dir, "out.folded"), trace)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(func() bool { entries, _ := os.ReadDir(dir); return len(entries) > 0 }) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("no temporary output appeared")
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Fatal("the conversion ended before the signal came: the trace is too small to interrupt")
			}
			diedOf(t, err, sig)
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestBrokenPipe: when standard output's reader goes away, the other
// outputs are removed (a 263 MB temporary Perfetto file was left), and the
// process dies of SIGPIPE quietly, as it did before atrace2 caught it.
func TestBrokenPipe(t *testing.T) {
	trace := big(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"stdout only", []string{"dump", "-q", trace}},
		{"stdout and a file", []string{"convert", "-q", "--folded", "-", "--perfetto", "OUT", trace}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, a := range c.args {
				if a == "OUT" {
					c.args[i] = filepath.Join(dir, "out.perfetto-trace")
				}
			}
			cmd := exec.Command(binary(t), c.args...)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdout = w
			var stderr limitedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			io.ReadFull(r, make([]byte, 10)) // head -c 10
			r.Close()
			err = cmd.Wait()
			diedOf(t, err, syscall.SIGPIPE)
			if stderr.b != nil {
				t.Errorf("stderr: %q, want nothing", stderr.b)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if len(l.b) < 4096 {
		l.b = append(l.b, p[:min(len(p), 4096-len(l.b))]...)
	}
	return len(p), nil
}

// waitFor polls cond for up to a minute.
func waitFor(cond func() bool) bool {
	for range 60000 {
		if cond() {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}
