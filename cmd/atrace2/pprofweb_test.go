package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPprofHTTP starts `pprof --http 127.0.0.1:0 --no-browser -o FILE` in
// process, fetches pprof's pages from it on the loopback address, and stops
// it through the test hook. Every wait is bounded.
func TestPprofHTTP(t *testing.T) {
	type started struct {
		url  string
		stop func()
	}
	ready := make(chan started, 1)
	pprofServed = func(url string, stop func()) { ready <- started{url, stop} }
	defer func() { pprofServed = nil }()

	file := filepath.Join(t.TempDir(), "app.pb.gz")
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", "-o", file, sample},
			&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	}()
	var s started
	select {
	case s = <-ready:
	case code := <-done:
		t.Fatalf("exited %d before serving: %s", code, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not start within 2 minutes")
	}
	stopped := false
	defer func() {
		if !stopped {
			s.stop()
		}
	}()
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") || !strings.HasSuffix(s.url, "/ui/") {
		t.Errorf("url %q, want http://127.0.0.1:PORT/ui/", s.url)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for page, want := range map[string]string{
		"":                  "android.os.Looper.loop", // redirects to the flame graph
		"top?si=cpu":        "android.app.ActivityThread.handleBindApplication",
		"source?f=Activity": "android/app/Activity.java",
		"peek?f=Looper":     "android.os.MessageQueue.next",
	} {
		body := fetch(t, client, s.url+page)
		if !strings.Contains(body, want) {
			t.Errorf("/ui/%s does not mention %s:\n%.500s", page, want, body)
		}
	}
	s.stop()
	stopped = true
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not return within a minute of stopping")
	}
	if !strings.Contains(stderr.String(), "atrace2: serving pprof's web UI on "+s.url) {
		t.Errorf("stderr %q does not name the URL", stderr.String())
	}
	if st, err := os.Stat(file); err != nil || st.Size() == 0 || stdout.Len() != 0 {
		t.Errorf("-o with --http: file %v (%v), stdout %d bytes", st, err, stdout.Len())
	}
}

func fetch(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return string(b)
}
