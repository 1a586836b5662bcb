package main

import (
	"io"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/pprofweb"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
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
func (c *PprofCmd) Run(g *Globals) error {
	ins, err := parseInputsForWriting(g.env, c.Trace)
	if err != nil {
		return err
	}
	if c.NoBrowser && c.HTTP == "" {
		return usagef("--no-browser only makes sense with --http")
	}
	if c.SourcePath != "" && c.HTTP == "" {
		return usagef("--source-path only makes sense with --http")
	}
	write := c.Output != "" || c.HTTP == ""
	if write && (c.Output == "" || c.Output == "-") && outfile.IsTerminal(g.env.stdout) {
		return usagef("refusing to write a binary pprof profile to a terminal: use -o app.pb.gz (then go tool pprof -http :0 app.pb.gz), redirect stdout, or view it at once with --http :0")
	}
	var out *outfile.File
	if write {
		// Before converting: a missing folder, a directory or an input
		// named as the output fails at once.
		if out, err = g.env.createOutput(c.Output, true, "pprof"); err != nil {
			return err
		}
		defer out.Abort()
	}
	var srv *pprofweb.Listener
	if c.HTTP != "" {
		// Listen before converting: a busy port fails at once.
		if srv, err = listen(c.HTTP); err != nil {
			return err
		}
		defer srv.Close()
	}
	conv, err := pprofProfile(g, ins)
	if err != nil {
		return err
	}
	if srv == nil {
		return writeProfile(out, conv.write)
	}
	p, err := conv.profile()
	if err != nil {
		return err
	}
	if write {
		if err := writeProfile(out, func(w io.Writer) error { return pprofout.WriteProfile(w, p) }); err != nil {
			return err
		}
	}
	return serveWeb(srv, p, c.NoBrowser, c.SourcePath, g.env, g.Quiet)
}

// pprofResult is what pprofProfile made: a builder of method traces' calls,
// which writes its profile without holding a profile.Sample per sample, or
// the profile of sampled profiles.
type pprofResult struct {
	b *pprofout.Builder
	p *profile.Profile
}

// profile builds the profile; call it once.
func (c pprofResult) profile() (*profile.Profile, error) {
	if c.p != nil {
		return c.p, nil
	}
	return c.b.Profile()
}

// write writes the profile gzipped; call it once.
func (c pprofResult) write(w io.Writer) error {
	if c.p != nil {
		return pprofout.WriteProfile(w, c.p)
	}
	return c.b.Write(w)
}

// pprofProfile converts each input into its call tree and merges them.
// Each tree is released once its samples are in the builder.
func pprofProfile(g *Globals, ins []input.Arg) (pprofResult, error) {
	srcs, sampled, err := identifyAll(g.env.opener, ins)
	if err != nil {
		return pprofResult{}, err
	}
	b := pprofout.New(versionString())
	if sampled {
		return pprofResult{b: b}, sampledProfile(g, b, srcs)
	}
	for _, src := range srcs {
		tb := stacks.New()
		if _, err := convertTrace(g, src, convert.Aggregate(tb).Inlined()); err != nil {
			return pprofResult{}, err
		}
		if err := b.Add(tb.Tree()); err != nil {
			return pprofResult{}, err
		}
	}
	return pprofResult{b: b}, nil
}

// writeProfile writes a profile with write to out and keeps it.
func writeProfile(out *outfile.File, write func(io.Writer) error) error {
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}

// identifyAll identifies the inputs and reports whether they are sampled
// profiles, refusing a mix of sampled profiles and method traces: samples
// count stacks, method traces time calls, and no sample type measures both.
func identifyAll(o *input.Opener, ins []input.Arg) ([]*input.Source, bool, error) {
	var traced, sampled *input.Source
	srcs := make([]*input.Source, len(ins))
	for i := range ins {
		src, err := o.Identify(ins[i])
		if err != nil {
			return nil, false, err
		}
		srcs[i] = src
		if src.Sampled && sampled == nil {
			sampled = src
		}
		if !src.Sampled && traced == nil {
			traced = src
		}
	}
	if traced != nil && sampled != nil {
		return nil, false, usagef("%s is a sampled profile and %s a method trace: one pprof profile cannot hold counted samples and timed calls; convert them separately",
			sampled.Name(), traced.Name())
	}
	return srcs, sampled != nil, nil
}

// sampledProfile reads sampled profiles and merges them.
func sampledProfile(g *Globals, b *pprofout.Builder, srcs []*input.Source) error {
	var first *stacks.Tree
	for _, src := range srcs {
		s, err := readSampled(g, src)
		if err != nil {
			return err
		}
		if first == nil {
			first = s
		} else if s.Values().Kind != first.Values().Kind {
			return usagef("%s (%s) and %s (%s) cannot merge: one counts samples, the other calls and CPU time",
				srcs[0].Name(), first.Source().Format, src.Name(), s.Source().Format)
		}
		if err := b.Add(s); err != nil {
			return err
		}
	}
	return nil
}
