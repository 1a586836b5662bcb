// Package pprofweb serves pprof's own web UI (flame graph, graph, top,
// peek, source) for a profile held in memory, by running
// github.com/google/pprof/driver in process with a fetcher that hands it
// the profile (docs/outputs.md §1.7). It is what `atrace2 pprof --http`
// runs; Report runs one of the driver's text reports, for tests.
package pprofweb

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"
)

// Listener is where the web UI will be served, opened before the
// conversion so that a bad or busy address fails at once.
type Listener struct {
	ln   net.Listener
	host string
}

// AddrError is an address that is not HOST:PORT, a mistake in the
// command line.
type AddrError struct{ msg string }

func (e *AddrError) Error() string { return e.msg }

// Listen opens addr the way pprof's -http reads it: an empty host means
// localhost (not every interface), and port 0 picks a free port.
func Listen(addr string) (*Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &AddrError{fmt.Sprintf("--http %s: want HOST:PORT, such as :0 or 127.0.0.1:8080: %v", addr, err)}
	}
	if host == "" {
		host = "localhost"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	return &Listener{ln: ln, host: host}, nil
}

// Close releases the listener when serving never started or has ended.
func (l *Listener) Close() error { return l.ln.Close() }

// ServeOptions configure [Serve].
type ServeOptions struct {
	// NoBrowser skips opening a browser, like pprof's -no_browser.
	NoBrowser bool
	// Stderr gets the URL line and pprof's own messages.
	Stderr io.Writer
	// Quiet drops pprof's informational messages; errors and the URL stay.
	Quiet bool
	// Started, when set, is called once the server is about to serve, with
	// the UI's URL and a function that stops the server (Serve then returns
	// nil). Tests use it; the command serves until it is killed.
	Started func(url string, stop func())
}

// Serve runs pprof's own web UI (flame graph, graph, top, peek, source) for
// p on l, in process: github.com/google/pprof/driver with a fetcher that
// hands it p, so no profile file and no Go toolchain are needed
// (docs/outputs.md §1.7). The URL names l's host; a local host also makes
// the server refuse remote clients, as pprof's own server does. It returns
// when the server stops.
func Serve(p *profile.Profile, l *Listener, o ServeOptions) error {
	if l == nil || l.ln == nil {
		return errors.New("pprof: serving: no listener")
	}
	tcp, ok := l.ln.Addr().(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("pprof: serving: %s is not a TCP address", l.ln.Addr())
	}
	host := l.host
	if host == "" {
		host = "localhost"
	}
	hostport := net.JoinHostPort(host, fmt.Sprint(tcp.Port))
	args := []string{"-http", hostport}
	if o.NoBrowser {
		args = append(args, "-no_browser")
	}
	d := newDriver(p, args, o.Stderr, o.Quiet)
	d.ui.browser = !o.NoBrowser
	d.opt.HTTPServer = func(a *driver.HTTPServerArgs) error {
		return serveHTTP(a, l.ln, o)
	}
	return d.run()
}

// serveHTTP is pprof's default web server (internal/driver/webui.go,
// defaultWebServer) on a listener we own: the UI lives under /ui/, and a
// server on a local host answers local clients only.
func serveHTTP(a *driver.HTTPServerArgs, ln net.Listener, o ServeOptions) error {
	local := isLocalhost(a.Host)
	ui := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if local {
			host, _, err := net.SplitHostPort(req.RemoteAddr)
			if err != nil || !isLoopback(host) {
				http.Error(w, "permission denied", http.StatusForbidden)
				return
			}
		}
		h := a.Handlers[req.URL.Path]
		if h == nil {
			http.NotFound(w, req)
			return
		}
		h.ServeHTTP(w, req)
	})
	mux := http.NewServeMux()
	mux.Handle("/ui/", http.StripPrefix("/ui", ui))
	mux.Handle("/", http.RedirectHandler("/ui/", http.StatusTemporaryRedirect))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	u := (&url.URL{Scheme: "http", Host: a.Hostport, Path: "/ui/"}).String()
	if o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "atrace2: serving pprof's web UI on %s (interrupt to stop)\n", u)
	}
	if o.Started != nil {
		o.Started(u, func() { srv.Close() })
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("pprof: serving on %s: %w", a.Hostport, err)
	}
	return nil
}

func isLocalhost(host string) bool {
	switch host {
	case "localhost", "127.0.0.1", "::1", "[::1]":
		return true
	}
	return false
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// embedded is one in-process run of pprof's driver over a ready profile.
type embedded struct {
	opt *driver.Options
	ui  *driverUI
}

// source is the one profile "source" the driver is given; the fetcher
// ignores it and returns the converted profile.
const source = "atrace2"

// newDriver prepares a driver run with pprof's command line args (flags
// only: the profile source is added here).
func newDriver(p *profile.Profile, args []string, stderr io.Writer, quiet bool) *embedded {
	ui := &driverUI{w: stderr, quiet: quiet}
	return &embedded{ui: ui, opt: &driver.Options{
		Flagset: newFlagSet(append(args, source)),
		Fetch:   fetcher{p},
		UI:      ui,
	}}
}

func (d *embedded) run() error {
	if err := driver.PProf(d.opt); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	return nil
}

// fetcher hands the driver the converted profile. An empty source URL marks
// it local, so the driver does not save a copy under ~/pprof.
type fetcher struct{ p *profile.Profile }

func (f fetcher) Fetch(string, time.Duration, time.Duration) (*profile.Profile, string, error) {
	return f.p, "", nil
}

// driverUI is the driver's terminal: no interactive commands, messages to
// stderr.
type driverUI struct {
	w       io.Writer
	quiet   bool
	browser bool
}

func (u *driverUI) ReadLine(string) (string, error) { return "", io.EOF }

// Print shows pprof's informational messages, except its "Serving web UI
// on" line, which serveHTTP replaces with one naming the real URL.
func (u *driverUI) Print(args ...any) {
	msg := fmt.Sprint(args...)
	if u.quiet || u.w == nil || strings.HasPrefix(msg, "Serving web UI on") {
		return
	}
	fmt.Fprintln(u.w, "pprof:", strings.TrimRight(msg, "\n"))
}

func (u *driverUI) PrintErr(args ...any) {
	if u.w != nil {
		fmt.Fprintln(u.w, "pprof:", strings.TrimRight(fmt.Sprint(args...), "\n"))
	}
}

func (u *driverUI) IsTerminal() bool                    { return false }
func (u *driverUI) WantBrowser() bool                   { return u.browser }
func (u *driverUI) SetAutoComplete(func(string) string) {}

// flagSet is driver.FlagSet over a fixed argument list, on a private
// flag.FlagSet (pprof's GoFlags uses the process's global one).
type flagSet struct {
	fs    *flag.FlagSet
	args  []string
	extra []string
}

func newFlagSet(args []string) *flagSet {
	fs := flag.NewFlagSet("pprof", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{fs: fs, args: args}
}

func (f *flagSet) Bool(n string, d bool, u string) *bool          { return f.fs.Bool(n, d, u) }
func (f *flagSet) Int(n string, d int, u string) *int             { return f.fs.Int(n, d, u) }
func (f *flagSet) Float64(n string, d float64, u string) *float64 { return f.fs.Float64(n, d, u) }
func (f *flagSet) String(n, d, u string) *string                  { return f.fs.String(n, d, u) }

// StringList takes one value, as pprof's GoFlags does.
func (f *flagSet) StringList(n, d, u string) *[]*string { return &[]*string{f.fs.String(n, d, u)} }
func (f *flagSet) ExtraUsage() string                   { return strings.Join(f.extra, "\n") }
func (f *flagSet) AddExtraUsage(eu string)              { f.extra = append(f.extra, eu) }

// Parse parses the fixed arguments; on a bad flag it shows the usage and
// returns nil, which the driver reports as "no profile source specified".
func (f *flagSet) Parse(usage func()) []string {
	if err := f.fs.Parse(f.args); err != nil {
		usage()
		return nil
	}
	return f.fs.Args()
}
