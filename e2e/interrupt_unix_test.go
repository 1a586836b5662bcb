//go:build unix

package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInterruptRemovesOutput: Ctrl-C, SIGTERM or SIGHUP in the middle of
// a conversion leaves no temporary output behind, and the process dies of
// the signal. The conversion is held mid-way by a stdin that stays open.
func TestInterruptRemovesOutput(t *testing.T) {
	data, err := os.ReadFile(sampleTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary(t), "perfetto", "-q", "-o", filepath.Join(dir, "out.perfetto-trace"), "-")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			// Enough for the format sniff, not the whole trace: the output
			// is created, then the copy of stdin waits for the rest.
			if _, err := stdin.Write(data[:len(data)/2]); err != nil {
				t.Fatal(err)
			}
			if !waitForFile(dir) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("no temporary output appeared")
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			// Killed by the signal, not exiting with a code: a shell loop
			// around atrace2 then stops as well.
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("exit: %v, want death by %v", err, sig)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("exit: %v, want death by %v", err, sig)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// waitForFile polls dir until a file appears, for up to a minute (a
// loaded CI machine may take long to start the process).
func waitForFile(dir string) bool {
	for range 6000 {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}
