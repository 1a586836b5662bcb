package main

import (
	"errors"
	"io"

	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/outputs"
	"github.com/atrace2/atrace2/internal/pprofweb"
	"github.com/atrace2/atrace2/pprofout"
)

// PprofCmd converts traces into one pprof profile, or serves pprof's web UI
// for it.
type PprofCmd struct {
	Output     string   `short:"o" placeholder:"FILE" help:"Write the gzipped profile to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.pb.gz is a good name."`
	HTTP       string   `name:"http" placeholder:"ADDR" help:"Serve pprof's web UI (flame graph, graph, top, peek; source with --source-path) for the profile at ADDR, such as :0 for any free port on localhost or 127.0.0.1:8080, until interrupted. On an address that is not loopback, such as 0.0.0.0:8080, anyone on the network can read the profile. Nothing is written unless -o is given too."`
	NoBrowser  bool     `name:"no-browser" help:"With --http, do not open a browser; open the printed URL yourself."`
	SourcePath string   `name:"source-path" type:"existingdir" placeholder:"DIR" help:"With --http, show in the source view the files under DIR that the profile names (relative to DIR, such as android/app/Activity.java). Without it the web UI reads no file: the names come from the trace."`
	Trace      []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile). Several traces merge into one profile, in which threads of the same name add up; sampled profiles merge only with sampled profiles of the same kind."`
}

// Run converts the traces, then writes the profile, serves it, or both.
func (c *PprofCmd) Run(e *env) error {
	ins, err := e.inputsForWriting(c.Trace)
	if err != nil {
		return err
	}
	if c.NoBrowser && c.HTTP == "" {
		return usagef("--no-browser only makes sense with --http")
	}
	if c.SourcePath != "" && c.HTTP == "" {
		return usagef("--source-path only makes sense with --http")
	}
	f := formatNamed("pprof")
	write := c.Output != "" || c.HTTP == ""
	if write && outputs.IsStdout(c.Output) && outfile.IsTerminal(e.stdout) {
		return usagef("%s", f.Terminal)
	}
	var out *outfile.File
	if write {
		// Before converting: a missing folder, a directory or an input
		// named as the output fails at once.
		if out, err = e.createOutput(c.Output, f.Binary, f.What); err != nil {
			return err
		}
		defer out.Abort()
	}
	var srv *pprofweb.Listener
	if c.HTTP != "" {
		// Listen before converting: a busy or bad address fails at once.
		srv, err = pprofweb.Listen(c.HTTP)
		if ae := (*pprofweb.AddrError)(nil); errors.As(err, &ae) {
			return usagef("%v", err)
		} else if err != nil {
			return err
		}
		defer srv.Close()
	}
	// Each tree is released once its samples are in the builder.
	b := pprofout.New(versionString())
	if err := e.d.Merge(ins, b.Add); err != nil {
		return err
	}
	if srv == nil {
		return writeProfile(out, b.Write)
	}
	p, err := b.Profile()
	if err != nil {
		return err
	}
	if write {
		if err := writeProfile(out, func(w io.Writer) error { return pprofout.WriteProfile(w, p) }); err != nil {
			return err
		}
	}
	return pprofweb.Serve(p, srv, pprofweb.ServeOptions{NoBrowser: c.NoBrowser, SourcePath: c.SourcePath,
		Stderr: e.stderr, Quiet: e.opt.Flags.Quiet, Started: pprofServed})
}

// pprofServed, when set (by tests), is told the web UI's URL and how to
// stop its server; without it the server runs until the process is killed.
var pprofServed func(url string, stop func())

// writeProfile writes a profile with write to out and keeps it.
func writeProfile(out *outfile.File, write func(io.Writer) error) error {
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}
