//go:build unix

package e2e

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPprofHTTPSignalRemovesMirror: SIGTERM to `pprof --http --source-path`
// removes the private copy of the source files that the source view reads.
func TestPprofHTTPSignalRemovesMirror(t *testing.T) {
	tmp, src := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "android/app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "android/app/Activity.java"), []byte("package android.app;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), "pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", "--source-path", src, sampleTrace(t))
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, url, ok := strings.Cut(sc.Text(), "web UI on "); ok {
				urls <- strings.TrimSuffix(url, " (interrupt to stop)")
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not start within 2 minutes")
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Get(url + "source?f=Activity")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "package android.app;") {
		t.Fatalf("/ui/source: %s, without the source line", resp.Status)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Fatalf("TMPDIR holds %v, want the mirror", entries)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v, want death by SIGTERM", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
