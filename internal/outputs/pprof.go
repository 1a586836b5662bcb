package outputs

import (
	"errors"
	"io"

	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/pprofweb"
	"github.com/atrace2/atrace2/pprofout"
)

// Web is pprof's --http: the profile served in pprof's web UI.
type Web struct {
	Addr       string // where to listen; "" for no web UI
	NoBrowser  bool
	SourcePath string // the folder of the source view, "" for none
	// Started, when set (by tests), is told the web UI's URL and how to
	// stop its server; without it the server runs until the process is
	// killed.
	Started func(url string, stop func())
}

// Pprof is the pprof command: it merges the trees of the inputs into one
// profile (driver.Driver.Merge) and writes it to path (f is the table's
// pprof row), serves it in pprof's web UI, or both; without a web UI it
// writes it. The output is created, and the address listened on, before
// anything is read: a missing folder, a directory, an input named as the
// output or a busy or bad address fails at once.
func (wr *Writer) Pprof(d *driver.Driver, ins []input.Arg, f *Format, path string, web *Web, version string) error {
	write := path != "" || web.Addr == ""
	if write && IsStdout(path) && outfile.IsTerminal(wr.Stdout) {
		return driver.Usagef("%s", f.Terminal)
	}
	var out *outfile.File
	if write {
		var err error
		if out, err = wr.Create(path, f.Binary, f.What); err != nil {
			return err
		}
		defer out.Abort()
	}
	var srv *pprofweb.Listener
	if web.Addr != "" {
		var err error
		srv, err = pprofweb.Listen(web.Addr)
		if ae := (*pprofweb.AddrError)(nil); errors.As(err, &ae) {
			return driver.Usagef("%v", err)
		} else if err != nil {
			return err
		}
		defer srv.Close()
	}
	// Each tree is released once its samples are in the builder.
	b := pprofout.New(pprofout.Options{Version: version, Value: d.Options().Value})
	if err := d.Merge(ins, b.Add); err != nil {
		return err
	}
	if srv == nil {
		return commit(out, b.Write)
	}
	p, err := b.Profile()
	if err != nil {
		return err
	}
	if write {
		if err := commit(out, func(w io.Writer) error { return pprofout.WriteProfile(w, p) }); err != nil {
			return err
		}
	}
	return pprofweb.Serve(p, srv, pprofweb.ServeOptions{NoBrowser: web.NoBrowser, SourcePath: web.SourcePath,
		Stderr: wr.Stderr, Quiet: wr.Quiet, Started: web.Started})
}

// commit writes out with write and keeps it.
func commit(out *outfile.File, write func(io.Writer) error) error {
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}
