package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestPprofHTTP starts `pprof --http 127.0.0.1:0 --no-browser --source-path
// DIR -o FILE` in process, fetches pprof's pages from it on the loopback address, and stops
// it through the test hook. Every wait is bounded.
func TestPprofHTTP(t *testing.T) {
	file := filepath.Join(t.TempDir(), "app.pb.gz")
	src := t.TempDir() // the source view shows files under --source-path only
	if err := os.MkdirAll(filepath.Join(src, "android/app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "android/app/Activity.java"), []byte("package android.app;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, done, stdout, stderr := serve(t, "pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", "--source-path", src, "-o", file, sample)
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
		"":                  "android.os.Looper.loop",                // redirects to the flame graph
		"flamegraph":        `"FullName":"main","FileName":"thread"`, // rooted by thread (-tagroot=thread)
		"top":               `"CumFormat":"345.42ms"`,                // -unit=auto, not 345415us
		"top?si=calls":      `"FlatFormat":"160",`,                   // counts stay bare
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

// hostileHprof is a Dalvik hprof text whose frames name /etc/passwd,
// ../../x and, relative to the root, a file outside any source folder.
func hostileHprof(t *testing.T, secret string) string {
	t.Helper()
	text := "THREAD START (obj=100, id = 1, name=\"main\", group=\"main\")\n" +
		"TRACE 300001: (thread=1)\n" +
		"\tevil.A.passwd(/etc/passwd:1)\n" +
		"\tevil.B.up(../../x:1)\n" +
		"\tevil.C.abs(" + secret + ":1)\n" +
		"\tevil.D.climb(" + strings.TrimPrefix(secret, "/") + ":1)\n" +
		"CPU SAMPLES BEGIN (total = 4) Sun Jan 13 05:57:25 2013\n" +
		"rank   self  accum   count trace method\n" +
		"   1 100.00% 100.00%       4  300001 evil.A.passwd\n" +
		"CPU SAMPLES END\n"
	path := filepath.Join(t.TempDir(), "evil.hprof")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPprofHTTPSourceFiles: the web UI shows no file a profile names unless
// it is under --source-path.
func TestPprofHTTPSourceFiles(t *testing.T) {
	const mark = "SECRET-91c2"
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte(mark+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	evil := hostileHprof(t, secret)
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "x"), []byte("UNDER-SOURCE-PATH\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, http.StatusNotFound, "--source-path"},
		{[]string{"--source-path", src}, http.StatusOK, "UNDER-SOURCE-PATH"}, // ../../x is x under it
	} {
		args := append(append([]string{"pprof", "-q", "--http", "127.0.0.1:0", "--no-browser"}, c.args...), evil)
		s, done, _, stderr := serve(t, args...)
		resp, err := client.Get(s.url + "source?f=evil")
		var body []byte
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		s.stop()
		if code := <-done; code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr.String())
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != c.code || !strings.Contains(string(body), c.want) {
			t.Errorf("%v: /ui/source: %s, want %d and %q", c.args, resp.Status, c.code, c.want)
		}
		if bytes.Contains(body, []byte(mark)) || bytes.Contains(body, []byte("root:x:0:0")) {
			t.Errorf("%v: /ui/source shows a file outside the source path", c.args)
		}
	}
}

// TestPprofHTTPFlags: --source-path needs --http, and an existing folder.
func TestPprofHTTPFlags(t *testing.T) {
	for _, args := range [][]string{
		{"pprof", "--source-path", t.TempDir(), "-o", filepath.Join(t.TempDir(), "a.pb.gz"), sample},
		{"pprof", "--http", "127.0.0.1:0", "--source-path", filepath.Join(t.TempDir(), "none"), sample},
	} {
		if code, _, errOut := runCLI(t, nil, args...); code != 80 || !strings.Contains(errOut, "source-path") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, errOut)
		}
	}
}

// TestPprofHTTPDotHint: without Graphviz's dot on PATH, --http says once at
// the start that the graph view needs it; with dot, or with -q, it does not.
func TestPprofHTTPDotHint(t *testing.T) {
	const hint = "atrace2: hint: the graph view needs Graphviz's dot"
	withDot := t.TempDir()
	if err := os.WriteFile(filepath.Join(withDot, "dot"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		quiet bool
		want  int
	}{
		{t.TempDir(), false, 1},
		{t.TempDir(), true, 0},
		{withDot, false, 0},
	} {
		if c.path == withDot && runtime.GOOS == "windows" {
			continue // dot.exe there
		}
		t.Setenv("PATH", c.path)
		args := []string{"pprof", "--http", "127.0.0.1:0", "--no-browser", sample}
		if c.quiet {
			args = append(args[:1], append([]string{"-q"}, args[1:]...)...)
		}
		s, done, _, stderr := serve(t, args...)
		s.stop()
		if code := <-done; code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if n := strings.Count(stderr.String(), hint); n != c.want {
			t.Errorf("PATH %s, quiet %v: the hint %d times, want %d:\n%s", c.path, c.quiet, n, c.want, stderr)
		}
	}
}
