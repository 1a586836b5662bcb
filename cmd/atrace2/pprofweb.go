package main

import (
	"errors"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/internal/pprofweb"
)

// pprofServed, when set (by tests), is told the web UI's URL and how to
// stop its server; without it the server runs until the process is killed.
var pprofServed func(url string, stop func())

// listen opens the address of `pprof --http` before the conversion, so
// that a bad or busy address fails at once; a malformed one is a usage
// error.
func listen(addr string) (*pprofweb.Listener, error) {
	l, err := pprofweb.Listen(addr)
	if ae := (*pprofweb.AddrError)(nil); errors.As(err, &ae) {
		return nil, usagef("%v", err)
	}
	return l, err
}

// serveWeb runs pprof's web UI for p until the server stops; the source
// view shows the files under sourcePath, or is off.
func serveWeb(l *pprofweb.Listener, p *profile.Profile, noBrowser bool, sourcePath string, e *env, quiet bool) error {
	return pprofweb.Serve(p, l, pprofweb.ServeOptions{
		NoBrowser:  noBrowser,
		SourcePath: sourcePath,
		Stderr:     e.stderr,
		Quiet:      quiet,
		Started:    pprofServed,
	})
}
