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
	file := filepath.Join(t.TempDir(), "app.pb.gz")
	s, done, stdout, stderr := serve(t, "pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", "-o", file, sample)
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

// served is a running pprof web UI.
type served struct {
	url  string
	stop func()
}

// serve runs atrace2 with args in the background until it serves pprof's
// web UI, and returns the server, the channel of its exit code and its
// output. Every wait is bounded.
func serve(t *testing.T, args ...string) (s served, done chan int, stdout, stderr *bytes.Buffer) {
	t.Helper()
	ready := make(chan served, 1)
	pprofServed = func(url string, stop func()) { ready <- served{url, stop} }
	t.Cleanup(func() { pprofServed = nil })
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	done = make(chan int, 1)
	go func() {
		done <- run(args, &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr})
	}()
	select {
	case s = <-ready:
	case code := <-done:
		t.Fatalf("exited %d before serving: %s", code, stderr.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not start within 2 minutes")
	}
	return s, done, stdout, stderr
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
