package openview

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// served is a file served by Serve in the background.
type served struct {
	fileURL, viewerURL string
	addr               string
	done               chan error
	cancel             context.CancelFunc
}

// serveFile serves content as name for v on a free loopback port.
func serveFile(t *testing.T, v Viewer, name, content string) *served {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen on loopback here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{addr: l.Addr(), done: make(chan error, 1), cancel: cancel}
	ready := make(chan string, 1)
	go func() { s.done <- Serve(ctx, l, path, Options{Viewer: v, Ready: func(u string) { ready <- u }}) }()
	select {
	case s.viewerURL = <-ready:
	case <-time.After(time.Minute):
		t.Fatal("not ready within a minute")
	}
	s.fileURL = "http://" + s.addr + "/" + url.PathEscape(name)
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(time.Minute):
			t.Error("Serve did not return within a minute of its cancel")
		}
	})
	return s
}

func request(t *testing.T, method, u string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// stillServing reports whether Serve has not returned yet.
func (s *served) stillServing(t *testing.T) bool {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return false
	case <-time.After(200 * time.Millisecond):
		return true
	}
}

func (s *served) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return within a minute of the fetch")
		return nil
	}
}

// TestViewerURLs: the URLs that open a served file in each viewer.
func TestViewerURLs(t *testing.T) {
	const f = "http://127.0.0.1:9001/app.perfetto-trace"
	if got, want := Perfetto.Link(f), "https://ui.perfetto.dev/#!/?url=http://127.0.0.1:9001/app.perfetto-trace"; got != want {
		t.Errorf("Perfetto: %s, want %s", got, want)
	}
	if got, want := Speedscope.Link("http://127.0.0.1:9001/app.speedscope.json"), "https://www.speedscope.app/#profileURL=http%3A%2F%2F127.0.0.1%3A9001%2Fapp.speedscope.json"; got != want {
		t.Errorf("speedscope: %s, want %s", got, want)
	}
}

// TestServeOnce: the file is served with the viewer's CORS headers; a
// HEAD, a preflight and another path leave the server running; the first
// complete GET ends it. (An aborted GET: TestServeAbortedGET; a small
// file's whole body fits in the socket's buffers.)
func TestServeOnce(t *testing.T) {
	const body = "trace bytes"
	s := serveFile(t, Perfetto, "app.perfetto-trace", body)
	if want := "https://ui.perfetto.dev/#!/?url=" + s.fileURL; s.viewerURL != want {
		t.Errorf("viewer URL %s, want %s", s.viewerURL, want)
	}
	origin := map[string]string{"Origin": Perfetto.Origin}

	resp, got := request(t, "HEAD", s.fileURL, origin)
	if resp.StatusCode != http.StatusOK || got != "" || resp.Header.Get("Access-Control-Allow-Origin") != Perfetto.Origin {
		t.Errorf("HEAD: %s %q, headers %v", resp.Status, got, resp.Header)
	}
	resp, _ = request(t, "OPTIONS", s.fileURL, map[string]string{
		"Origin": Perfetto.Origin, "Access-Control-Request-Method": "GET",
		"Access-Control-Request-Headers": "range", "Access-Control-Request-Private-Network": "true",
	})
	for k, v := range map[string]string{
		"Access-Control-Allow-Origin":          Perfetto.Origin,
		"Access-Control-Allow-Methods":         "GET, HEAD, OPTIONS",
		"Access-Control-Allow-Headers":         "range",
		"Access-Control-Allow-Private-Network": "true",
	} {
		if resp.Header.Get(k) != v {
			t.Errorf("preflight: %s: %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("preflight: %s", resp.Status)
	}
	for _, p := range []string{"/", "/other", "/app.perfetto-trace/x", "/../app.perfetto-trace"} {
		if resp, _ := request(t, "GET", "http://"+s.addr+p, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", p, resp.Status)
		}
	}
	if resp, _ := request(t, "POST", s.fileURL, nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}
	if resp, _ := request(t, "GET", s.fileURL, map[string]string{"Host": "rebound.example:9001"}); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("GET with another Host: %s", resp.Status)
	}
	if !s.stillServing(t) {
		t.Fatal("the server stopped before a GET")
	}

	resp, got = request(t, "GET", s.fileURL, origin)
	if resp.StatusCode != http.StatusOK || got != body {
		t.Errorf("GET: %s %q, want %q", resp.Status, got, body)
	}
	for k, v := range map[string]string{
		"Access-Control-Allow-Origin": Perfetto.Origin,
		"Content-Type":                "application/octet-stream",
		"Cache-Control":               "no-cache",
	} {
		if resp.Header.Get(k) != v {
			t.Errorf("GET: %s: %q, want %q", k, resp.Header.Get(k), v)
		}
	}
	if err := s.wait(t); err != nil {
		t.Errorf("Serve after the fetch: %v", err)
	}
	if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		c.Close()
		t.Error("still listening after the fetch")
	}
}

// abortedGET reads the headers and a few bytes of a large file's GET, then
// hangs up.
func abortedGET(t *testing.T, s *served) {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.fileURL)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.Path, s.addr)
	line, err := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if err != nil || !strings.Contains(line, "200") {
		t.Fatalf("aborted GET: %q %v", line, err)
	}
}

// TestServeAbortedGET: a GET cut off before the end of a large file does
// not count as the fetch.
func TestServeAbortedGET(t *testing.T) {
	s := serveFile(t, Speedscope, "big.speedscope.json", strings.Repeat("x", 16<<20))
	abortedGET(t, s)
	if !s.stillServing(t) {
		t.Fatal("an aborted GET ended the server")
	}
	resp, got := request(t, "GET", s.fileURL, nil)
	if resp.StatusCode != http.StatusOK || len(got) != 16<<20 || resp.Header.Get("Access-Control-Allow-Origin") != Speedscope.Origin {
		t.Errorf("GET: %s, %d bytes, headers %v", resp.Status, len(got), resp.Header)
	}
	if err := s.wait(t); err != nil {
		t.Error(err)
	}
}

// TestServeCancel: an interrupt (the context's end) stops the server
// before any fetch.
func TestServeCancel(t *testing.T) {
	s := serveFile(t, Perfetto, "a.perfetto-trace", "x")
	s.cancel()
	if err := s.wait(t); !errors.Is(err, context.Canceled) {
		t.Errorf("Serve: %v, want context.Canceled", err)
	}
}

// TestListenLoopbackOnly: only a loopback IP address is listened on, and
// a busy port is a BusyError naming it.
func TestListenLoopbackOnly(t *testing.T) {
	for _, a := range []string{":0", "0.0.0.0:0", "localhost:0", "[::]:0"} {
		if l, err := Listen(a); err == nil {
			l.Close()
			t.Errorf("Listen(%s) listened", a)
		}
	}
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen on loopback here: %v", err)
	}
	defer l.Close()
	if ip := net.ParseIP(strings.Split(l.Addr(), ":")[0]); !ip.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("listening on %s", l.Addr())
	}
	_, err = Listen(l.Addr())
	var be *BusyError
	_, port, _ := net.SplitHostPort(l.Addr())
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "port "+port+" on 127.0.0.1 is in use") {
		t.Errorf("Listen on a busy port: %v", err)
	}
}

// TestBrowsers: $BROWSER comes first, then the system's opener.
func TestBrowsers(t *testing.T) {
	if got := browsersFor("linux", "my-browser --new", true); got[0] != "my-browser --new" || got[len(got)-1] != "xdg-open" {
		t.Errorf("linux: %q", got)
	}
	if got := browsersFor("darwin", "", false); len(got) != 1 || got[0] != "/usr/bin/open" {
		t.Errorf("darwin: %q", got)
	}
	if got := browsersFor("linux", "", false); got[len(got)-1] == "xdg-open" {
		t.Errorf("linux without a display: %q", got)
	}
}

// TestFileName: the served name needs no escaping in a URL.
func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/x/app.perfetto-trace": "app.perfetto-trace",
		`C:\x\my trace.json`:        "my_trace.json",
		"dir/é?#.json":              "____.json",
		"..":                        "trace",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}
