package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
)

// openFlags are the flags of the commands whose output a web viewer opens
// (perfetto, speedscope).
type openFlags struct {
	Open      bool `help:"Open the result in its web viewer (perfetto: ui.perfetto.dev, speedscope: www.speedscope.app): serve the file on http://127.0.0.1:9001 (loopback only; the address ui.perfetto.dev accepts), open the viewer in the browser ($BROWSER, else the system's) and exit once it has fetched the file, or on interrupt. Without -o the file is temporary and removed at exit; with -o FILE it is written there and kept."`
	NoBrowser bool `name:"no-browser" help:"With --open, print the viewer's URL instead of opening a browser."`
}

// openAddr is where --open serves; tests serve on a free port.
var openAddr = openview.Addr

// viewing is an --open in progress: the address, opened before the
// conversion, and the temporary folder of an output without -o.
type viewing struct {
	l      *openview.Listener
	path   string // the file served
	remove func() // removes the temporary folder; nil with -o
}

// start checks the --open flags and, with --open, listens on openAddr and
// sets *output to a file in a temporary folder when it is empty; name is
// the temporary file's name. It returns nil without --open.
func (f *openFlags) start(output *string, name string) (*viewing, error) {
	if !f.Open {
		if f.NoBrowser {
			return nil, usagef("--no-browser only makes sense with --open")
		}
		return nil, nil
	}
	if *output == "-" {
		return nil, usagef("--open serves a file: give -o FILE to keep it, or no -o for a temporary one")
	}
	l, err := openview.Listen(openAddr)
	if err != nil {
		return nil, err
	}
	v := &viewing{l: l}
	if *output == "" {
		dir, remove, err := outfile.TempDir("atrace2-open-")
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("--open: %w", err)
		}
		*output, v.remove = filepath.Join(dir, name), remove
	}
	v.path = *output
	return v, nil
}

// close releases the address and removes a temporary output; it is safe
// on nil and after serve.
func (v *viewing) close() {
	if v == nil {
		return
	}
	v.l.Close()
	if v.remove != nil {
		v.remove()
		v.remove = nil
	}
}

// serve serves the committed output to viewer until it has fetched it,
// opening the viewer in the browser unless --no-browser. Nothing to do
// without --open (v nil).
func (v *viewing) serve(e *env, f *openFlags, viewer openview.Viewer) error {
	if v == nil {
		return nil
	}
	defer v.close()
	ready := func(u string) {
		if f.NoBrowser || !e.opt.Flags.Quiet {
			fmt.Fprintf(e.stderr, "atrace2: serving %s on %s for %s until it has been fetched once (interrupt to stop): %s\n",
				filepath.Base(v.path), v.l.Addr(), viewer.Name, u)
		}
		if openReady != nil {
			openReady(u)
		}
		if f.NoBrowser {
			return
		}
		if err := openview.OpenBrowser(u); err != nil {
			fmt.Fprintf(e.stderr, "atrace2: --open: %v; open %s yourself\n", err, u)
		}
	}
	return openview.Serve(context.Background(), v.l, v.path, openview.Options{Viewer: viewer, Ready: ready})
}

// openReady, when set (by tests), is told the viewer's URL once the file
// is served.
var openReady func(viewerURL string)
