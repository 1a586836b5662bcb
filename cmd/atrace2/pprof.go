package main

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/stacks"
)

// PprofCmd converts traces into one pprof profile, or serves pprof's web UI
// for it.
type PprofCmd struct {
	Output    string   `short:"o" placeholder:"FILE" help:"Write the gzipped profile to FILE (- for standard output). By default it goes to standard output, which must not be a terminal; app.pb.gz is a good name."`
	HTTP      string   `name:"http" placeholder:"ADDR" help:"Serve pprof's web UI (flame graph, graph, top, peek, source) for the profile at ADDR, such as :0 for any free port on localhost or 127.0.0.1:8080, until interrupted. Nothing is written unless -o is given too."`
	NoBrowser bool     `name:"no-browser" help:"With --http, do not open a browser; open the printed URL yourself."`
	Trace     []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file, or a sampled profile (hprof text, Android 5.x ART profile). Several traces merge into one profile, in which threads of the same name add up; sampled profiles merge only with sampled profiles of the same kind."`
}

// Run converts the traces, then writes the profile, serves it, or both.
func (c *PprofCmd) Run(g *Globals) error {
	ins, err := g.outputInputs(c.Trace)
	if err != nil {
		return err
	}
	if c.NoBrowser && c.HTTP == "" {
		return usagef("--no-browser only makes sense with --http")
	}
	write := c.Output != "" || c.HTTP == ""
	if err := g.checkOutput(c.Output, "pprof"); err != nil { // before converting
		return err
	}
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
	conv, err := g.pprofProfile(ins)
	if err != nil {
		return err
	}
	if srv == nil {
		return g.writeProfile(c.Output, conv.write)
	}
	p, err := conv.profile()
	if err != nil {
		return err
	}
	if write {
		if err := g.writeProfile(c.Output, func(w io.Writer) error { return pprofout.Write(w, p) }); err != nil {
			return err
		}
	}
	return srv.serve(p, c.NoBrowser, g)
}

// converted is what pprofProfile made: a builder of method traces' calls,
// which writes its profile without holding a profile.Sample per sample, or
// the profile of sampled profiles.
type converted struct {
	b *pprofout.Builder
	p *profile.Profile
}

// profile builds the profile; call it once.
func (c converted) profile() (*profile.Profile, error) {
	if c.p != nil {
		return c.p, nil
	}
	return c.b.Profile()
}

// write writes the profile gzipped; call it once.
func (c converted) write(w io.Writer) error {
	if c.p != nil {
		return pprofout.Write(w, c.p)
	}
	return c.b.Write(w)
}

// pprofProfile converts each input into its call tree and merges them.
// Each tree is released once its samples are in the builder.
func (g *Globals) pprofProfile(ins []input) (converted, error) {
	sampled, err := g.allSampled(ins)
	if err != nil {
		return converted{}, err
	}
	if sampled {
		p, err := g.sampledProfile(ins)
		return converted{p: p}, err
	}
	b := pprofout.New(versionString())
	for _, in := range ins {
		a := stacks.New()
		if _, err := g.convert(in, convert.Aggregate(a)); err != nil {
			return converted{}, err
		}
		if err := b.Add(a); err != nil {
			return converted{}, err
		}
	}
	return converted{b: b}, nil
}

// writeProfile writes a profile with write to path, or to stdout for ""
// and "-".
func (g *Globals) writeProfile(path string, write func(io.Writer) error) error {
	out, err := g.createOutput(path, true, "pprof")
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := write(out); err != nil {
		return err
	}
	return out.Close()
}

// allSampled reports whether the inputs are sampled profiles, refusing a
// mix of sampled profiles and method traces: samples count stacks, method
// traces time calls, and no sample type measures both.
func (g *Globals) allSampled(ins []input) (bool, error) {
	var traced, sampled *input
	for i := range ins {
		_, _, ok, err := g.sniff(ins[i])
		if err != nil {
			return false, err
		}
		if ok && sampled == nil {
			sampled = &ins[i]
		}
		if !ok && traced == nil {
			traced = &ins[i]
		}
	}
	if traced != nil && sampled != nil {
		return false, usagef("%s is a sampled profile and %s a method trace: one pprof profile cannot hold counted samples and timed calls; convert them separately",
			sampled.name(), traced.name())
	}
	return sampled != nil, nil
}

// sampledProfile reads sampled profiles and merges them.
func (g *Globals) sampledProfile(ins []input) (*profile.Profile, error) {
	b := pprofout.NewSampled(versionString())
	var first *stacks.Sampled
	for _, in := range ins {
		s, _, err := g.sampled(in)
		if err != nil {
			return nil, err
		}
		if s == nil { // it changed since it was sniffed
			return nil, fmt.Errorf("%s: no longer a sampled profile", in.name())
		}
		if first == nil {
			first = s
		} else if s.Timed() != first.Timed() {
			return nil, usagef("%s (%s) and %s (%s) cannot merge: one counts samples, the other calls and CPU time",
				ins[0].name(), first.Source().Format, in.name(), s.Source().Format)
		}
		if err := b.Add(s); err != nil {
			return nil, err
		}
	}
	return b.Profile()
}
