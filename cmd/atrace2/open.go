package main

import "github.com/atrace2/atrace2/internal/openview"

// openFlags are the flags of the commands whose output a web viewer opens
// (perfetto, speedscope).
type openFlags struct {
	Open      bool `help:"Open the result in its web viewer (perfetto: ui.perfetto.dev, speedscope: www.speedscope.app): serve the file on http://127.0.0.1:9001 (loopback only; the address ui.perfetto.dev accepts), open the viewer in the browser ($BROWSER, else the system's) and exit once it has fetched the file, or on interrupt. Without -o the file is temporary and removed at exit; with -o FILE it is written there and kept."`
	NoBrowser bool `name:"no-browser" help:"With --open, print the viewer's URL instead of opening a browser."`
}

// openAddr is where --open serves, and openReady, when set, is told the
// viewer's URL once the file is served: tests serve on a free port.
var (
	openAddr  = openview.Addr
	openReady func(viewerURL string)
)
