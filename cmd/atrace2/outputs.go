package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/folded"
	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/outputs"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/speedscope"
	"github.com/atrace2/atrace2/stacks"
)

// formats is the output table (outputs.Format): the formats atrace2
// writes, what their files are and how they are made. It drives convert
// and the commands that write one format (pprof, perfetto, speedscope,
// folded).
var formats = []*outputs.Format{
	{Name: "pprof", What: "pprof", Binary: true,
		Terminal: "refusing to write a binary pprof profile to a terminal: use -o app.pb.gz (then go tool pprof -http :0 app.pb.gz), redirect stdout, or view it at once with --http :0",
		Tree: func(w io.Writer, t *stacks.Tree, _ *outputs.Options) error {
			return pprofout.Write(w, t, pprofout.Options{Version: versionString()})
		}},
	{Name: "perfetto", What: "Perfetto", Binary: true, Open: &openview.Perfetto, Suffix: ".perfetto-trace",
		Terminal: "refusing to write binary Perfetto data to a terminal: use -o %s or redirect stdout",
		Need:     "Perfetto needs a method trace",
		Export: func(f *outfile.File, o *outputs.Options) outputs.Exporter {
			exp := perfetto.New(f, perfetto.Options{ProcessName: o.ProcessName})
			return outputs.Exporter{Out: outputs.PerfettoTimeline(exp, f), Warnings: exp.Warnings}
		}},
	{Name: "speedscope", What: "speedscope", Open: &openview.Speedscope, Suffix: ".speedscope.json",
		Terminal: "refusing to write a speedscope profile (one long line of JSON) to a terminal: use -o app.speedscope.json (then open it at https://www.speedscope.app), --open, redirect stdout, or pipe it to speedscope -",
		Export: func(f *outfile.File, _ *outputs.Options) outputs.Exporter {
			exp := speedscope.New(f, speedscope.Options{Exporter: "atrace2@" + versionString()})
			return outputs.Exporter{Out: convert.Aggregate(exp), Close: exp.Close}
		},
		Tree: func(w io.Writer, t *stacks.Tree, _ *outputs.Options) error {
			return speedscope.WriteTree(w, t, speedscope.Options{Exporter: "atrace2@" + versionString()})
		}},
	{Name: "folded", What: "folded", TermMax: 64 << 10,
		Terminal: "refusing to write more than %d KiB of folded stacks to a terminal: use -o app.folded, or pipe them to flamegraph.pl > app.svg, inferno-flamegraph > app.svg or less",
		Tree: func(w io.Writer, t *stacks.Tree, o *outputs.Options) error {
			if err := folded.Write(w, t, folded.Options{NoThread: o.NoThread, OffCPU: o.OffCPU}); err != nil {
				return fmt.Errorf("%s: %w", o.Input, err)
			}
			return nil
		}},
}

// formatNamed returns the row of the table for a format.
func formatNamed(name string) *outputs.Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	panic("invariant violation: no output format " + name)
}

// outputs writes the outputs of the run's reads (outputs.Writer).
func (e *env) outputs() *outputs.Writer {
	return &outputs.Writer{Create: e.createOutput, Terminal: outfile.IsTerminal(e.stdout)}
}

// writeOne is the command of one format: it reads one input into the
// output at path, refusing a terminal as the format's row says, and with
// --open serves it to its viewer.
func (e *env) writeOne(f *outputs.Format, args []string, path string, of *openFlags, o *outputs.Options) error {
	in, err := e.oneInput(args, f.Name)
	if err != nil {
		return err
	}
	if err := in.Timeline(); err != nil && f.Tree == nil {
		return needTimeline(err, f.Need)
	}
	o.Input = in.Name()
	name := perfetto.DefaultProcessName(in.Path()) + f.Suffix
	var view *openview.Session
	if f.Open != nil {
		if view, err = of.start(&path, name); err != nil {
			return err
		}
		defer view.Close()
	}
	if outputs.IsStdout(path) && outfile.IsTerminal(e.stdout) && f.TermMax == 0 {
		return usagef("%s", strings.ReplaceAll(f.Terminal, "%s", name))
	}
	warnings, err := e.outputs().Write(in, []outputs.Request{{Format: f, Path: path}}, o)
	if err != nil {
		return err
	}
	if !e.opt.Flags.Quiet {
		for _, w := range warnings {
			fmt.Fprintf(e.stderr, "atrace2: %s: warning: %s\n", in.Name(), w)
		}
	}
	if view == nil {
		return nil
	}
	return view.Serve(*f.Open, openview.ServeOptions{Stderr: e.stderr, Quiet: e.opt.Flags.Quiet, NoBrowser: of.NoBrowser, Ready: openReady})
}
