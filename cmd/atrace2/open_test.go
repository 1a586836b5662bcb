package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/openview"
)

// openRun runs atrace2 with args in the background, --open serving on a
// free loopback port, and returns the channel of its exit code and the
// lines of its stderr.
func openRun(t *testing.T, args ...string) (done chan int, lines chan string) {
	t.Helper()
	openAddr = "127.0.0.1:0"
	t.Cleanup(func() { openAddr = openview.Addr })
	pr, pw := io.Pipe()
	lines = make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done = make(chan int, 1)
	go func() {
		code := run(args, &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: pw})
		pw.Close()
		done <- code
	}()
	return done, lines
}

// viewerURL reads stderr's lines until the one naming the viewer's URL,
// and returns that URL.
func viewerURL(t *testing.T, done chan int, lines chan string) string {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("exited (%d) without printing the URL", <-done)
			}
			if strings.HasPrefix(l, "atrace2: serving ") {
				return l[strings.LastIndexByte(l, ' ')+1:]
			}
		case <-timeout:
			t.Fatal("no URL within 2 minutes")
		}
	}
}

// fileOf returns the served file's URL in a viewer's URL.
func fileOf(t *testing.T, viewer string) string {
	t.Helper()
	u, err := url.Parse(viewer)
	if err != nil {
		t.Fatal(err)
	}
	frag := u.Fragment
	switch {
	case strings.HasPrefix(viewer, "https://ui.perfetto.dev/#!/?url="):
		return strings.TrimPrefix(frag, "!/?url=")
	case strings.HasPrefix(viewer, "https://www.speedscope.app/#profileURL="):
		return strings.TrimPrefix(frag, "profileURL=")
	}
	t.Fatalf("viewer URL %s", viewer)
	return ""
}

func exitCode(t *testing.T, done chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(time.Minute):
		t.Fatal("did not exit within a minute of the fetch")
		return -1
	}
}

// TestOpenNoBrowser: perfetto --open --no-browser prints the viewer's URL,
// serves the trace at the URL in it once with the viewer's CORS header,
// exits 0 after the fetch and removes its temporary file; speedscope
// --open -o FILE keeps the file.
func TestOpenNoBrowser(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	kept := filepath.Join(t.TempDir(), "app.speedscope.json")
	for _, c := range []struct {
		args   []string
		origin string
		want   string // the start of the file
	}{
		{[]string{"perfetto", "--open", "--no-browser", sample}, "https://ui.perfetto.dev", "\x0a"},
		{[]string{"speedscope", "-q", "--open", "--no-browser", "-o", kept, sample}, "https://www.speedscope.app", `{"$schema"`},
	} {
		done, lines := openRun(t, c.args...)
		v := viewerURL(t, done, lines)
		f := fileOf(t, v)
		if !strings.HasPrefix(f, "http://127.0.0.1:") {
			t.Errorf("%v: file URL %s is not on 127.0.0.1", c.args, f)
		}
		resp, err := (&http.Client{Timeout: time.Minute}).Get(f)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), c.want) ||
			resp.Header.Get("Access-Control-Allow-Origin") != c.origin {
			t.Errorf("%v: GET %s: %s %v, %q..., headers %v", c.args, f, resp.Status, err, body[:min(len(body), 20)], resp.Header)
		}
		if code := exitCode(t, done); code != 0 {
			t.Errorf("%v: exit %d", c.args, code)
		}
		for range lines {
		}
		if _, err := net.DialTimeout("tcp", strings.TrimPrefix(f[:strings.LastIndexByte(f, '/')], "http://"), time.Second); err == nil {
			t.Errorf("%v: still listening after the exit", c.args)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in TMPDIR: %v", entries)
	}
	if st, err := os.Stat(kept); err != nil || st.Size() == 0 {
		t.Errorf("-o %s with --open: %v %v", kept, st, err)
	}
}

// TestOpenFlags: --no-browser needs --open, --open needs a file, and a busy
// port fails (exit 1) before converting, naming the port.
func TestOpenFlags(t *testing.T) {
	for _, args := range [][]string{
		{"perfetto", "--no-browser", "-o", filepath.Join(t.TempDir(), "a"), sample},
		{"speedscope", "--open", "-o", "-", sample},
	} {
		if code, _, errOut := runCLI(t, nil, args...); code != exitUsage || !strings.Contains(errOut, "--") {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, errOut)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen here: %v", err)
	}
	defer l.Close()
	openAddr = l.Addr().String()
	defer func() { openAddr = openview.Addr }()
	_, port, _ := net.SplitHostPort(openAddr)
	code, _, errOut := runCLI(t, nil, "perfetto", "--open", "--no-browser", sample)
	if code != exitError || !strings.Contains(errOut, "port "+port+" on 127.0.0.1 is in use") || strings.Contains(errOut, "repaired") {
		t.Errorf("busy port: exit %d, %q", code, errOut)
	}
}
