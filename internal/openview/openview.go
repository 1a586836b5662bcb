// Package openview hands a converted file to a viewer that runs in the
// browser (ui.perfetto.dev, www.speedscope.app): it serves the file on the
// loopback address 127.0.0.1:9001, with the CORS headers the viewer's
// page needs to fetch it, opens the viewer with the file's URL, and stops
// once the file has been fetched completely. It is what `atrace2 perfetto
// --open` and `atrace2 speedscope --open` run.
//
// The address is fixed: ui.perfetto.dev's Content Security Policy lets it
// fetch from http://127.0.0.1:9001 (the port of trace_processor --httpd,
// which Perfetto's own tools/open_trace_in_ui also serves a file on) and
// from no other plain-HTTP address. The server answers GET, HEAD and the
// CORS preflight OPTIONS of the one file's path, only from loopback
// clients and only for a Host header that names it (no DNS rebinding);
// every other path is 404.
package openview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Viewer is a web viewer that can fetch a file by URL.
type Viewer struct {
	// Name names the viewer in messages.
	Name string
	// Origin is the viewer page's origin, which the server allows to read
	// the file (Access-Control-Allow-Origin).
	Origin string
	// ContentType is the served file's type.
	ContentType string
	// link is the viewer's URL that opens the file at fileURL.
	link func(fileURL string) string
}

// Link returns the viewer's URL that loads the file at fileURL.
func (v Viewer) Link(fileURL string) string { return v.link(fileURL) }

// The viewers. Perfetto reads the trace URL from the url parameter of its
// hash route, unescaped (docs: "Opening a trace via URL", in Deep linking
// to the Perfetto UI); speedscope reads a URL-encoded profileURL from the
// hash (its README, "#profileURL=[URL-encoded profile URL]").
var (
	Perfetto = Viewer{
		Name: "ui.perfetto.dev", Origin: "https://ui.perfetto.dev", ContentType: "application/octet-stream",
		link: func(u string) string { return "https://ui.perfetto.dev/#!/?url=" + u },
	}
	Speedscope = Viewer{
		Name: "speedscope", Origin: "https://www.speedscope.app", ContentType: "application/json",
		link: func(u string) string { return "https://www.speedscope.app/#profileURL=" + url.QueryEscape(u) },
	}
)

// Addr is where the file is served: the one plain-HTTP address
// ui.perfetto.dev may fetch a trace from.
const Addr = "127.0.0.1:9001"

// BusyError is a listening address that another program holds.
type BusyError struct {
	Addr string
	Err  error
}

func (e *BusyError) Error() string {
	_, port, _ := net.SplitHostPort(e.Addr)
	return fmt.Sprintf("--open: port %s on 127.0.0.1 is in use (%v): the viewer fetches from http://%s only; stop what listens there (such as trace_processor --httpd) and try again", port, e.Err, e.Addr)
}

func (e *BusyError) Unwrap() error { return e.Err }

// Listener is the server's address, opened before the conversion so that a
// busy port fails at once.
type Listener struct{ ln net.Listener }

// Listen opens addr, which must be a loopback IP address and port (Addr,
// or 127.0.0.1:0 in tests): nothing listens beyond loopback.
func Listen(addr string) (*Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("openview: %s is not a loopback IP address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, &BusyError{Addr: addr, Err: syscall.EADDRINUSE}
	}
	if err != nil {
		return nil, fmt.Errorf("--open: listening on %s: %w", addr, err)
	}
	return &Listener{ln: ln}, nil
}

// Close releases the address when serving never started.
func (l *Listener) Close() error { return l.ln.Close() }

// Addr is the address listened on.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Options configure Serve.
type Options struct {
	// Viewer is the viewer that will fetch the file.
	Viewer Viewer
	// Ready, when set, is called once the server answers, with the
	// viewer's URL that loads the file: the command opens it in the
	// browser or prints it.
	Ready func(viewerURL string)
}

// Serve serves the file at path under its base name (fileName) on l until it has
// been fetched once completely (a GET whose whole body was written: a HEAD
// or an aborted GET does not count) or ctx ends, then closes l. It returns
// nil after the fetch, ctx's error when it ended first.
func Serve(ctx context.Context, l *Listener, path string, o Options) error {
	name := fileName(path)
	fileURL := (&url.URL{Scheme: "http", Host: l.Addr(), Path: "/" + name}).String()
	h := &handler{path: path, name: name, viewer: o.Viewer, hosts: hostNames(l.Addr()), fetched: make(chan struct{})}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l.ln) }()
	if o.Ready != nil {
		o.Ready(o.Viewer.Link(fileURL))
	}
	var err error
	select {
	case <-h.fetched:
	case <-ctx.Done():
		err = ctx.Err()
	case err = <-errc:
		return fmt.Errorf("--open: serving on %s: %w", l.Addr(), err)
	}
	// The fetch's handler has returned; a viewer's second request (the
	// favicon of a browser pointed at the file) gets no answer.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := srv.Shutdown(sctx); serr != nil {
		srv.Close()
	}
	return err
}

// fileName is the name the file is served under: its base name, with
// every byte but ASCII letters, digits, '.', '-' and '_' replaced by '_',
// so that the URL needs no escaping (Perfetto takes it unescaped from its
// hash route).
func fileName(path string) string {
	base := []byte(path[strings.LastIndexAny(path, `/\`)+1:])
	for i, c := range base {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			base[i] = '_'
		}
	}
	if len(base) == 0 || strings.Trim(string(base), ".") == "" {
		return "trace"
	}
	return string(base)
}

// hostNames are the Host headers that name the server: 127.0.0.1 and
// localhost with its port.
func hostNames(addr string) map[string]bool {
	_, port, _ := net.SplitHostPort(addr)
	return map[string]bool{
		net.JoinHostPort("127.0.0.1", port): true,
		net.JoinHostPort("localhost", port): true,
		net.JoinHostPort("::1", port):       true,
	}
}

// handler serves the one file.
type handler struct {
	path, name string
	viewer     Viewer
	hosts      map[string]bool

	once    sync.Once
	fetched chan struct{} // closed after the first complete GET
}

func (h *handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		http.Error(w, "permission denied", http.StatusForbidden)
		return
	}
	if !h.hosts[strings.ToLower(req.Host)] {
		http.Error(w, "misdirected request: this server does not answer for host "+strconv.Quote(req.Host), http.StatusMisdirectedRequest)
		return
	}
	if req.URL.Path != "/"+h.name {
		http.NotFound(w, req)
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", h.viewer.Origin)
	hd.Set("Vary", "Origin")
	hd.Set("Cache-Control", "no-cache")
	switch req.Method {
	case http.MethodOptions:
		h.preflight(w, req)
	case http.MethodGet, http.MethodHead:
		h.serveFile(w, req)
	default:
		hd.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// preflight answers a CORS preflight: the viewer's origin may GET the file,
// with the headers it asks for, also across Chrome's private network
// boundary (a public page fetching from loopback).
func (h *handler) preflight(w http.ResponseWriter, req *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	if rh := req.Header.Get("Access-Control-Request-Headers"); rh != "" {
		hd.Set("Access-Control-Allow-Headers", rh)
	}
	if req.Header.Get("Access-Control-Request-Private-Network") == "true" {
		hd.Set("Access-Control-Allow-Private-Network", "true")
	}
	hd.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// serveFile sends the whole file (no ranges: a viewer reads all of it) and
// counts a GET whose body was written to the end.
func (h *handler) serveFile(w http.ResponseWriter, req *http.Request) {
	f, err := os.Open(h.path)
	if err != nil {
		http.Error(w, "cannot open the file", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, "cannot open the file", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", h.viewer.ContentType)
	hd.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
	w.WriteHeader(http.StatusOK)
	if req.Method == http.MethodHead {
		return
	}
	n, err := io.Copy(w, f)
	if err != nil || n != st.Size() {
		return
	}
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	h.once.Do(func() { close(h.fetched) })
}
