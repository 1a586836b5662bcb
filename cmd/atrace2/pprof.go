package main

import (
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/outputs"
)

// PprofCmd converts traces into one pprof profile, or serves pprof's web UI
// for it.
type PprofCmd struct {
	Output     string   `short:"o" placeholder:"FILE" help:"Write the gzipped profile to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.pb.gz is a good name."`
	HTTP       string   `name:"http" placeholder:"ADDR" help:"Serve pprof's web UI (flame graph, graph, top, peek; source with --source-path) for the profile at ADDR, such as :0 for any free port on localhost or 127.0.0.1:8080, until interrupted. On an address that is not loopback, such as 0.0.0.0:8080, anyone on the network can read the profile. Nothing is written unless -o is given too."`
	NoBrowser  bool     `name:"no-browser" help:"With --http, do not open a browser; open the printed URL yourself."`
	SourcePath string   `name:"source-path" type:"existingdir" placeholder:"DIR" help:"With --http, show in the source view the files under DIR that the profile names (relative to DIR, such as android/app/Activity.java). Without it the web UI reads no file: the names come from the trace."`
	Trace      []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (a Perfetto trace or simpleperf profile of CPU stack samples, hprof text, an Android 5.x ART profile). Several traces merge into one profile, in which threads of the same name add up; sampled profiles merge only with sampled profiles of the same kind."`
}

// Run converts the traces, then writes the profile, serves it, or both
// (outputs.Writer.Pprof).
func (c *PprofCmd) Run(e *env) error {
	ins, err := driver.Args(c.Trace)
	e.out().Protect(ins) // no output may overwrite one
	if err != nil {
		return err
	}
	if c.NoBrowser && c.HTTP == "" {
		return usagef("--no-browser only makes sense with --http")
	}
	if c.SourcePath != "" && c.HTTP == "" {
		return usagef("--source-path only makes sense with --http")
	}
	web := outputs.Web{Addr: c.HTTP, NoBrowser: c.NoBrowser, SourcePath: c.SourcePath, Started: pprofServed}
	return e.out().Pprof(e.d, ins, formatNamed("pprof"), c.Output, &web, versionString())
}

// pprofServed, when set (by tests), is told the web UI's URL and how to
// stop its server (outputs.Web.Started).
var pprofServed func(url string, stop func())
