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
	"os/exec"
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
	// SourcePath, when set, turns the source view on for the files under
	// this folder; without it the UI reads no file at all.
	SourcePath string
	// Stderr gets the URL line, warnings and pprof's own messages.
	Stderr io.Writer
	// Quiet drops pprof's informational messages; errors, warnings and the
	// URL stay.
	Quiet bool
	// Started, when set, is called once the server is about to serve, with
	// the UI's URL and a function that stops the server (Serve then returns
	// nil). Tests use it; the command serves until it is killed.
	Started func(url string, stop func())
}

// Serve runs pprof's own web UI (flame graph, graph, top, peek, source) for
// p on l, in process: github.com/google/pprof/driver with a fetcher that
// hands it p, so no profile file and no Go toolchain are needed
// (docs/outputs.md §1.7). It returns when the server stops.
//
// Profiles name files that come from untrusted input, so the UI reads no
// file because of them: no source view unless o.SourcePath is set (then
// only copies of the files under it; p's names that could lead elsewhere are
// renamed, in place), no disassembly, no object tools or symbolization. It
// answers only GET and HEAD requests whose Host header names the server (no
// DNS rebinding), only local clients on a loopback address, and does not
// save pprof settings. On another address it warns that anyone on the
// network can read the profile.
func Serve(p *profile.Profile, l *Listener, o ServeOptions) error {
	if l == nil || l.ln == nil {
		return errors.New("pprof: serving: no listener")
	}
	tcp, ok := l.ln.Addr().(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("pprof: serving: %s is not a TCP address", l.ln.Addr())
	}
	hostport := net.JoinHostPort(l.host, fmt.Sprint(tcp.Port))
	args := append([]string{"-http", hostport, "-source_path=", "-trim_path="}, viewFlags(p)...)
	var src *sourceMirror
	if o.SourcePath != "" {
		var err error
		if src, err = newSourceMirror(p, o.SourcePath); err != nil {
			return err
		}
		defer src.close()
		// A trim path that no relative name starts with also turns pprof's
		// guessing of one off.
		args = append(args, "-source_path="+src.dir, "-trim_path="+src.dir)
	}
	if o.NoBrowser {
		args = append(args, "-no_browser")
	}
	if !tcp.IP.IsLoopback() && o.Stderr != nil {
		fmt.Fprintf(o.Stderr, "atrace2: warning: --http %s is not a loopback address: anyone who can reach this machine over the network can read the profile\n", hostport)
	}
	if !o.Quiet && o.Stderr != nil && !haveDot() {
		fmt.Fprintln(o.Stderr, noDotHint)
	}
	d := newDriver(p, args, o.Stderr, o.Quiet)
	d.ui.browser = !o.NoBrowser
	hosts := newHostCheck(l.host, tcp)
	d.opt.HTTPServer = func(a *driver.HTTPServerArgs) error {
		return serveHTTP(a, l.ln, guard(handler(a.Handlers, src), hosts, tcp.IP.IsLoopback()), o)
	}
	return d.run()
}

// viewFlags are the driver's settings for every page of the UI (they are
// pprof's config, not URL parameters):
//
//   - -tagroot=thread roots the flame graph, graph and top by thread:
//     a pseudo frame "thread:NAME" per value of the thread label
//     (docs/outputs.md §1.2), so that each thread is a subtree rather than
//     every thread merged under the root. pprof has no URL parameter for
//     it, so it stays on for the whole session; the flame graph's pivot
//     merges a method's calls across threads. A profile with no thread
//     label (a sampled profile whose file records none) gets "-tagroot=",
//     which pprof would otherwise report on every page as matching no
//     sample.
//   - -unit=auto shows each time in the largest unit that keeps it at 1 or
//     more (475.83ms, 232us) instead of pprof's default, the smallest unit
//     of the profile (475832us). -unit=ms would label the calls sample
//     type's counts "160ms": pprof applies a unit it cannot convert to as
//     a mere suffix. The flame graph scales its numbers itself either way.
//
// Both are set explicitly, because the driver keeps its config in a
// package variable across runs in one process.
func viewFlags(p *profile.Profile) []string {
	root := "-tagroot="
	for _, s := range p.Sample {
		if len(s.Label[threadLabel]) > 0 {
			root += threadLabel
			break
		}
	}
	return []string{root, "-unit=auto"}
}

// threadLabel is the string label that names a sample's thread
// (docs/outputs.md §1.2).
const threadLabel = "thread"

// noDotHint is printed at the start when Graphviz's dot, which pprof runs
// for the graph view, is not on PATH.
const noDotHint = "atrace2: hint: the graph view needs Graphviz's dot, which is not on PATH: install Graphviz (apt install graphviz, brew install graphviz, winget install graphviz); the flame graph, top and peek work without it"

// haveDot reports whether pprof's graph view can run dot.
func haveDot() bool {
	_, err := exec.LookPath("dot")
	return err == nil
}

// handler serves pprof's pages (pages) under /ui/, and the source view when
// its mirror is ready.
func handler(h map[string]http.Handler, src *sourceMirror) http.Handler {
	ui := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p := req.URL.Path
		switch {
		case pages[p] && h[p] != nil:
			h[p].ServeHTTP(w, req)
		case p == "/source" && h[p] != nil:
			if src == nil {
				http.Error(w, noSourceView, http.StatusNotFound)
				return
			}
			if err := src.ready(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			h[p].ServeHTTP(w, req)
		case p == "/disasm":
			http.Error(w, noDisasm, http.StatusNotFound)
		case p == "/saveconfig" || p == "/deleteconfig":
			http.Error(w, noSettings, http.StatusForbidden)
		default:
			http.NotFound(w, req)
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/ui/", http.StripPrefix("/ui", ui))
	mux.Handle("/", http.RedirectHandler("/ui/", http.StatusTemporaryRedirect))
	return mux
}

// serveHTTP is pprof's default web server (internal/driver/webui.go,
// defaultWebServer) with handler on a listener we own.
func serveHTTP(a *driver.HTTPServerArgs, ln net.Listener, handler http.Handler, o ServeOptions) error {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
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
		Obj:     noObjTool{},
		Sym:     noSymbolizer{},
		UI:      ui,
	}}
}

// noObjTool stands for pprof's binutils, which would open, disassemble and
// run tools on the object files a profile's mappings name: a trace's
// methods have none, and the names are not to be opened.
type noObjTool struct{}

var errNoObj = errors.New("no object files in a method trace")

func (noObjTool) Open(string, uint64, uint64, uint64, string) (driver.ObjFile, error) {
	return nil, errNoObj
}

func (noObjTool) Disasm(string, uint64, uint64, bool) ([]driver.Inst, error) {
	return nil, errNoObj
}

// noSymbolizer stands for pprof's symbolizer: atrace2's profiles are
// symbolized, and pprof's would read local files or fetch remote ones.
type noSymbolizer struct{}

func (noSymbolizer) Symbolize(string, driver.MappingSources, *profile.Profile) error { return nil }

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
