package main

import (
	"fmt"
	"io"

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
		Tree: func(w io.Writer, t *stacks.Tree, o *outputs.Options) error {
			return pprofout.Write(w, t, pprofout.Options{Version: versionString(), Value: o.Value})
		}},
	{Name: "perfetto", What: "Perfetto", Binary: true, Large: true, Open: &openview.Perfetto, Suffix: ".perfetto-trace",
		Terminal: "refusing to write binary Perfetto data to a terminal: use -o %s or redirect stdout",
		Need:     "Perfetto needs a method trace",
		Export: func(f *outfile.File, o *outputs.Options) outputs.Exporter {
			exp := perfetto.New(f, perfetto.Options{ProcessName: o.ProcessName, Value: o.Value})
			return outputs.Exporter{Out: outputs.PerfettoTimeline(exp, f), Warnings: exp.Warnings}
		}},
	{Name: "speedscope", What: "speedscope", Large: true, Open: &openview.Speedscope, Suffix: ".speedscope.json",
		Terminal: "refusing to write a speedscope profile (one long line of JSON) to a terminal: use -o app.speedscope.json (then open it at https://www.speedscope.app), --open, redirect stdout, or pipe it to speedscope -",
		Refuse:   speedscope.Refuse,
		Export: func(f *outfile.File, o *outputs.Options) outputs.Exporter {
			exp := speedscope.New(f, speedscope.Options{Exporter: "atrace2@" + versionString(), Value: o.Value})
			return outputs.Exporter{Out: convert.Aggregate(exp), Close: exp.Close}
		},
		Tree: func(w io.Writer, t *stacks.Tree, o *outputs.Options) error {
			return speedscope.WriteTree(w, t, speedscope.Options{Exporter: "atrace2@" + versionString(), Value: o.Value})
		}},
	{Name: "folded", What: "folded", TermMax: 64 << 10,
		Terminal: "refusing to write more than %d KiB of folded stacks to a terminal: use -o app.folded, or pipe them to flamegraph.pl > app.svg, inferno-flamegraph > app.svg or less",
		Tree: func(w io.Writer, t *stacks.Tree, o *outputs.Options) error {
			if err := folded.Write(w, t, folded.Options{NoThread: o.NoThread, Value: o.Value}); err != nil {
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

// writeOne is the command of one format: it reads one input into the
// output at path (outputs.Writer.WriteOne).
func (e *env) writeOne(f *outputs.Format, args []string, path string, of *openFlags, o *outputs.Options) error {
	in, err := e.oneInput(args, f.Name)
	if err != nil {
		return err
	}
	var v outputs.View
	if of != nil {
		v = outputs.View{Open: of.Open, NoBrowser: of.NoBrowser, Addr: openAddr, Ready: openReady}
	}
	return e.out().WriteOne(in, f, path, o, &v)
}
