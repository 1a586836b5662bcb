package main

import (
	"fmt"
	"net"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/pprofout"
)

// pprofServed, when set (by tests), is told the web UI's URL and how to
// stop its server; without it the server runs until the process is killed.
var pprofServed func(url string, stop func())

// webServer is the listener of `pprof --http`, opened before the
// conversion so that a bad or busy address fails at once.
type webServer struct {
	ln   net.Listener
	host string
}

// listen opens addr the way pprof's -http reads it: an empty host means
// localhost (not every interface), and port 0 picks a free port.
func listen(addr string) (*webServer, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usagef("--http %s: want HOST:PORT, such as :0 or 127.0.0.1:8080: %v", addr, err)
	}
	if host == "" {
		host = "localhost"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	return &webServer{ln: ln, host: host}, nil
}

// serve runs pprof's web UI for p until the server stops.
func (s *webServer) serve(p *profile.Profile, noBrowser bool, g *Globals) error {
	return pprofout.Serve(p, pprofout.ServeOptions{
		Listener:  s.ln,
		Host:      s.host,
		NoBrowser: noBrowser,
		Stderr:    g.env.stderr,
		Quiet:     g.Quiet,
		Started:   pprofServed,
	})
}

// close releases the listener when serving never started or has ended.
func (s *webServer) close() { s.ln.Close() }
