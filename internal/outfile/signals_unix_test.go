//go:build unix

package outfile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalHooks: while a command takes Ctrl-C (Interrupts), the signal
// reaches it and the process goes on; after release, Ctrl-C removes the
// outputs, runs the OnSignal clean-ups and ends the process by the signal.
// The process is the test binary run again (signalHelper).
func TestSignalHooks(t *testing.T) {
	if dir := os.Getenv("OUTFILE_SIGNAL_HELPER"); dir != "" {
		signalHelper(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHooks$")
	cmd.Env = append(os.Environ(), "OUTFILE_SIGNAL_HELPER="+dir)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("helper: %v, want death by SIGINT\n%s", err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("helper: %v, want death by SIGINT\n%s", err, out)
	}
	for _, name := range []string{"interrupted", "cleaned"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
	// The output's temporary file (.out.tmp-N) is gone.
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left in the folder: %v", entries)
	}
}

func signalHelper(dir string) {
	HandleSignals()
	c := make(chan os.Signal, 1)
	release := Interrupts(c)
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-c:
		os.WriteFile(filepath.Join(dir, "interrupted"), nil, 0o644)
	case <-time.After(10 * time.Second):
		os.Exit(3)
	}
	release()
	OnSignal(func() { os.WriteFile(filepath.Join(dir, "cleaned"), nil, 0o644) })
	out, err := Create(filepath.Join(dir, "out"), Options{})
	if err != nil {
		os.Exit(4)
	}
	out.Write([]byte("half"))
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(10 * time.Second)
	os.Exit(5) // not killed
}
