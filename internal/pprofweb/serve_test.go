package pprofweb

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// hostile is a profile whose functions name the given source files, each
// at line 1, with one sample each.
func hostile(files ...string) *profile.Profile {
	m := &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Mapping:    []*profile.Mapping{m},
	}
	for i, f := range files {
		id := uint64(i + 1)
		fn := &profile.Function{ID: id, Name: "evil.F" + string(rune('a'+i)), SystemName: "evil.F" + string(rune('a'+i)), Filename: f, StartLine: 1}
		loc := &profile.Location{ID: id, Mapping: m, Line: []profile.Line{{Function: fn, Line: 1}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{1}})
	}
	return p
}

// server is a UI served in process by serveUI.
type server struct {
	url, port string
	stop      func()
	stderr    *syncBuffer
	done      chan error
}

// serveUI serves p on addr in the background until the test ends.
func serveUI(t *testing.T, p *profile.Profile, addr string, o ServeOptions) *server {
	t.Helper()
	l, err := Listen(addr)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	s := &server{stderr: &syncBuffer{}, done: make(chan error, 1)}
	type started struct {
		url  string
		stop func()
	}
	ready := make(chan started, 1)
	o.NoBrowser, o.Quiet, o.Stderr = true, true, s.stderr
	o.Started = func(url string, stop func()) { ready <- started{url, stop} }
	go func() {
		defer l.Close()
		s.done <- Serve(p, l, o)
	}()
	select {
	case r := <-ready:
		s.url, s.stop = r.url, r.stop
	case err := <-s.done:
		t.Fatalf("Serve returned before serving: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the server did not start within a minute")
	}
	s.port = s.url[strings.LastIndexByte(s.url[:len(s.url)-len("/ui/")], ':')+1 : len(s.url)-len("/ui/")]
	t.Cleanup(func() {
		s.stop()
		select {
		case err := <-s.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("Serve did not return within a minute of stopping")
		}
	})
	return s
}

// get requests path (under /ui/) with the given Host header ("" for the
// URL's) and method, and returns the status and body.
func (s *server) get(t *testing.T, method, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

const secretMark = "SECRET-3b1f0c"

// secret writes a file outside any source folder and returns the names a
// profile can use to reach it: absolute, through "..", and relative to the
// root, which pprof finds by climbing from its source path.
func secret(t *testing.T) (path string, names []string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(path, []byte(secretMark+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(path, "/")
	return path, []string{path, strings.Repeat("../", 30) + rel, rel, "../../" + rel}
}

// TestServeNoSourceView: without a source path the source view and the
// disassembly are off, and no page shows a file the profile names.
func TestServeNoSourceView(t *testing.T) {
	_, names := secret(t)
	s := serveUI(t, hostile(append(names, "/etc/passwd", "../../x")...), "127.0.0.1:0", ServeOptions{})
	for _, page := range []string{"source?f=.", "source?f=evil", "disasm?f=.", "peek?f=.", "top", "flamegraph", "graph"} {
		code, body := s.get(t, "GET", page, "")
		if i := strings.Index(body, secretMark); i >= 0 || strings.Contains(body, "root:x:0:0") {
			t.Errorf("/ui/%s shows a file the profile names: …%.300s", page, body[max(i-200, 0):])
		}
		if strings.HasPrefix(page, "source") && (code != http.StatusNotFound || !strings.Contains(body, "--source-path")) {
			t.Errorf("/ui/%s: %d %q, want 404 naming --source-path", page, code, body)
		}
	}
}

// TestServeSourcePath: with a source path the source view shows the files
// under it, and none outside, by any name or symlink.
func TestServeSourcePath(t *testing.T) {
	secretPath, names := secret(t)
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok/Inside.java", "INSIDE-LINE-1\n")
	write("etc/passwd", "INSIDE-PASSWD\n")
	write("deep/a/b/In.java", "INSIDE-DEEP\n")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	link(secretPath, "link.java")             // a file outside
	link(filepath.Dir(secretPath), "out")     // a folder outside
	link("ok", "ok2")                         // a folder inside
	link("../ok/Inside.java", "deep/Up.java") // a file inside, by ".."
	files := append(names, "ok/Inside.java", "/etc/passwd", "../../x", "link.java", "out/secret.txt",
		"ok2/Inside.java", "deep/Up.java", "deep/a/b/In.java", "deep/a", "deep", ".", "_renamed/0", "")
	p := hostile(files...)
	tmp := t.TempDir() // where the mirror goes
	t.Setenv("TMPDIR", tmp)
	s := serveUI(t, p, "127.0.0.1:0", ServeOptions{SourcePath: dir})
	code, body := s.get(t, "GET", "source?f=.", "")
	if code != http.StatusOK {
		t.Fatalf("/ui/source: %d %.500s", code, body)
	}
	if i := strings.Index(body, secretMark); i >= 0 || strings.Contains(body, "root:x:0:0") {
		t.Errorf("/ui/source shows a file outside the source path: …%.300s", body[max(i-200, 0):])
	}
	for _, want := range []string{"INSIDE-LINE-1", "INSIDE-PASSWD", "INSIDE-DEEP", "ok/Inside.java"} {
		if !strings.Contains(body, want) {
			t.Errorf("/ui/source does not show %s", want)
		}
	}
	if n := strings.Count(body, "INSIDE-LINE-1"); n < 3 { // ok/, ok2/ and deep/Up.java
		t.Errorf("/ui/source shows Inside.java %d times, want 3 (by its name and two links inside)", n)
	}
	// The mirror is removed when the server stops.
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("temporary folder %s holds %v, want the mirror", tmp, entries)
	}
	s.stop()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	s.done <- nil // for the cleanup
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("temporary folder %s holds %v after the server stopped", tmp, entries)
	}
}

// TestServedNames: the names pprof could resolve outside the mirror are
// cleaned or renamed, and the others kept.
func TestServedNames(t *testing.T) {
	p := hostile("a/B.java", "/etc/passwd", "../../x", "./c/D.java", "a", "a/B.java/x", "_renamed/1", "..", "", "a//E.java", strings.Repeat("y", 300))
	names, err := servedNames(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fn := range p.Function {
		got = append(got, fn.Filename)
	}
	// "a" and "a/B.java" are folders of "a/B.java/x": files in the mirror
	// cannot be.
	want := []string{"_renamed/7", "etc/passwd", "x", "c/D.java", "_renamed/5", "a/B.java/x", "_renamed/4", "_renamed/0", "", "a/E.java", "_renamed/9"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("served names\n got %q\nwant %q", got, want)
	}
	if _, ok := names["a/B.java/x"]; len(names) != 10 || !ok || names["a/B.java/x"] || !names["_renamed/0"] {
		t.Errorf("names %v", names)
	}
}

// TestServeHost: only a Host header that names the server is answered.
func TestServeHost(t *testing.T) {
	s := serveUI(t, hostile("A.java"), "localhost:0", ServeOptions{})
	for _, c := range []struct {
		host string
		code int
	}{
		{"", http.StatusOK},
		{"localhost:" + s.port, http.StatusOK},
		{"LocalHost:" + s.port, http.StatusOK},
		{"127.0.0.1:" + s.port, http.StatusOK},
		{"[::1]:" + s.port, http.StatusOK},
		{"evil.example:" + s.port, http.StatusMisdirectedRequest},
		{"localhost.evil.example:" + s.port, http.StatusMisdirectedRequest},
		{"localhost", http.StatusMisdirectedRequest},
		{"localhost:1", http.StatusMisdirectedRequest},
		{"10.1.2.3:" + s.port, http.StatusMisdirectedRequest},
	} {
		if code, body := s.get(t, "GET", "top", c.host); code != c.code {
			t.Errorf("Host %q: %d, want %d: %.200s", c.host, code, c.code, body)
		}
	}
}

// TestServeSettings: no request writes pprof's settings, and no request but
// GET and HEAD reaches pprof.
func TestServeSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	s := serveUI(t, hostile("A.java"), "127.0.0.1:0", ServeOptions{})
	for _, c := range []struct {
		method, page string
		code         int
	}{
		{"GET", "saveconfig?config=x", http.StatusForbidden},
		{"POST", "saveconfig?config=x", http.StatusMethodNotAllowed},
		{"GET", "deleteconfig?config=x", http.StatusForbidden},
		{"DELETE", "deleteconfig?config=x", http.StatusMethodNotAllowed},
		{"POST", "top", http.StatusMethodNotAllowed},
		{"HEAD", "top", http.StatusOK},
	} {
		if code, _ := s.get(t, c.method, c.page, ""); code != c.code {
			t.Errorf("%s /ui/%s: %d, want %d", c.method, c.page, code, c.code)
		}
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("home %s: %v %v, want nothing written", home, entries, err)
	}
}

// TestServeWarning: a server on an address that is not loopback warns that
// anyone on the network can read the profile; one on loopback does not.
func TestServeWarning(t *testing.T) {
	const warning = "is not a loopback address: anyone who can reach this machine over the network can read the profile"
	local := serveUI(t, hostile("A.java"), "127.0.0.1:0", ServeOptions{})
	if strings.Contains(local.stderr.String(), "warning") {
		t.Errorf("on 127.0.0.1: %q", local.stderr.String())
	}
	all := serveUI(t, hostile("A.java"), "0.0.0.0:0", ServeOptions{})
	lines := strings.Split(strings.TrimSpace(all.stderr.String()), "\n")
	if len(lines) != 2 || lines[0] != "atrace2: warning: --http 0.0.0.0:"+all.port+" "+warning {
		t.Errorf("on 0.0.0.0: stderr %q, want the warning line then the URL", all.stderr.String())
	}
	// Served on every interface, it answers its loopback address by IP.
	if code, _ := all.get(t, "GET", "top", "127.0.0.1:"+all.port); code != http.StatusOK {
		t.Errorf("on 0.0.0.0, Host 127.0.0.1: %d", code)
	}
	if code, _ := all.get(t, "GET", "top", "rebound.example:"+all.port); code != http.StatusMisdirectedRequest {
		t.Errorf("on 0.0.0.0, Host rebound.example: %d", code)
	}
}
