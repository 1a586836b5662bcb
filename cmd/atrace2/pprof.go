package main

import (
	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// PprofCmd converts traces into one pprof profile, or serves pprof's web UI
// for it.
type PprofCmd struct {
	Output    string   `short:"o" placeholder:"FILE" help:"Write the gzipped profile to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.pb.gz is a good name."`
	HTTP      string   `name:"http" placeholder:"ADDR" help:"Serve pprof's web UI (flame graph, graph, top, peek, source) for the profile at ADDR, such as :0 for any free port on localhost or 127.0.0.1:8080, until interrupted. Nothing is written unless -o is given too."`
	NoBrowser bool     `name:"no-browser" help:"With --http, do not open a browser; open the printed URL yourself."`
	Trace     []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file. Several traces merge into one profile, in which threads of the same name add up."`
}

// Run converts the traces, then writes the profile, serves it, or both.
func (c *PprofCmd) Run(g *Globals) error {
	ins, err := pairInputs(c.Trace)
	if err != nil {
		return err
	}
	if c.NoBrowser && c.HTTP == "" {
		return usagef("--no-browser only makes sense with --http")
	}
	write := c.Output != "" || c.HTTP == ""
	if write && (c.Output == "" || c.Output == "-") && isTerminal(g.env.stdout) {
		return usagef("refusing to write a binary pprof profile to a terminal: use -o app.pb.gz (then go tool pprof -http :0 app.pb.gz), redirect stdout, or view it at once with --http :0")
	}
	var srv *webServer
	if c.HTTP != "" {
		// Listen before converting: a busy port fails at once.
		if srv, err = listen(c.HTTP); err != nil {
			return err
		}
		defer srv.close()
	}
	p, err := g.pprofProfile(ins)
	if err != nil {
		return err
	}
	if write {
		if err := g.writeProfile(c.Output, p); err != nil {
			return err
		}
	}
	if srv == nil {
		return nil
	}
	return srv.serve(p, c.NoBrowser, g)
}

// pprofProfile converts each input into its call tree and merges them.
// Each tree is released once its samples are in the builder.
func (g *Globals) pprofProfile(ins []input) (*profile.Profile, error) {
	b := pprofout.New(versionString())
	for _, in := range ins {
		a := stacks.New()
		if _, err := g.convert(in, a); err != nil {
			return nil, err
		}
		if err := b.Add(a); err != nil {
			return nil, err
		}
	}
	return b.Profile()
}

// writeProfile writes p to path, or to stdout for "" and "-".
func (g *Globals) writeProfile(path string, p *profile.Profile) error {
	out, err := g.createOutput(path, true, "pprof")
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := pprofout.Write(out, p); err != nil {
		return err
	}
	return out.Close()
}
