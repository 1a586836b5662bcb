package openview

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/atrace2/atrace2/internal/outfile"
)

// Session is an --open in progress: the address, listened on before the
// conversion so that a busy one fails at once, and the temporary folder of
// an output the command line did not name.
type Session struct {
	l      *Listener
	path   string // the file served
	remove func() // removes the temporary folder; nil for a named output
}

// Start listens on addr and, when *output is empty, sets it to a file
// called name in a temporary folder, which Close removes.
func Start(addr string, output *string, name string) (*Session, error) {
	l, err := Listen(addr)
	if err != nil {
		return nil, err
	}
	s := &Session{l: l}
	if *output == "" {
		dir, remove, err := outfile.TempDir("atrace2-open-")
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("--open: %w", err)
		}
		*output, s.remove = filepath.Join(dir, name), remove
	}
	s.path = *output
	return s, nil
}

// Close releases the address and removes a temporary output; it is safe
// on nil and after Serve.
func (s *Session) Close() {
	if s == nil {
		return
	}
	s.l.Close()
	if s.remove != nil {
		s.remove()
		s.remove = nil
	}
}

// ServeOptions configure Session.Serve.
type ServeOptions struct {
	Stderr    io.Writer // where the URL is said
	Quiet     bool      // say it only with NoBrowser
	NoBrowser bool      // print the viewer's URL instead of opening a browser
	// Ready, when set (by tests), is told the viewer's URL once the file
	// is served.
	Ready func(viewerURL string)
}

// Serve serves the output, complete, to viewer until it has fetched it,
// opening the viewer in the browser unless o.NoBrowser.
func (s *Session) Serve(viewer Viewer, o ServeOptions) error {
	defer s.Close()
	ready := func(u string) {
		if o.NoBrowser || !o.Quiet {
			fmt.Fprintf(o.Stderr, "atrace2: serving %s on %s for %s until it has been fetched once (interrupt to stop): %s\n",
				filepath.Base(s.path), s.l.Addr(), viewer.Name, u)
		}
		if o.Ready != nil {
			o.Ready(u)
		}
		if o.NoBrowser {
			return
		}
		if err := OpenBrowser(u); err != nil {
			fmt.Fprintf(o.Stderr, "atrace2: --open: %v; open %s yourself\n", err, u)
		}
	}
	return Serve(context.Background(), s.l, s.path, Options{Viewer: viewer, Ready: ready})
}
