package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/folded"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/speedscope"
	"github.com/atrace2/atrace2/stacks"
)

// format is a row of the output table: a format atrace2 writes, what its
// file is and how it is made. The table drives convert and the commands
// that write one format (pprof, perfetto, speedscope, folded).
type format struct {
	name   string // the command, and convert's flag without its dashes
	what   string // the output in messages
	binary bool   // binary data: never written to a terminal (outfile)
	// terminal is the format's command's refusal to write to a terminal,
	// %s the file name to suggest; "" for a format printed there when it
	// is short (termMax bytes at most, folded).
	terminal string
	termMax  int
	open     *openview.Viewer // the web viewer --open opens it in, if any
	suffix   string           // the file name suffix --open's temporary file takes
	// need says why an input without a timeline is refused, for a format
	// that only the event stream makes.
	need string
	// export declares, for a format made from the event stream, its
	// exporter over the output file; tree writes one made from the call
	// tree. A format with both takes the stream of an input with a
	// timeline and the tree of one without (speedscope).
	export func(f *outfile.File, o *outOptions) exporter
	tree   func(w io.Writer, t *stacks.Tree, o *outOptions) error
}

// exporter is an exporter of the event stream, declared to the converter.
type exporter struct {
	out      convert.Output
	close    func() error    // after the read, whatever its outcome (nil: nothing)
	warnings func() []string // what it had to say once done (nil: nothing)
}

// outOptions are the command's options that shape the outputs.
type outOptions struct {
	noThread    bool   // folded: no thread frame
	offCPU      bool   // folded: off-CPU time (--clock offcpu)
	processName string // perfetto: the process track's name
	input       string // the input's name, in folded's errors
}

// formats is the output table.
var formats = []*format{
	{name: "pprof", what: "pprof", binary: true,
		terminal: "refusing to write a binary pprof profile to a terminal: use -o app.pb.gz (then go tool pprof -http :0 app.pb.gz), redirect stdout, or view it at once with --http :0",
		tree: func(w io.Writer, t *stacks.Tree, _ *outOptions) error {
			return pprofout.Write(w, t, pprofout.Options{Version: versionString()})
		}},
	{name: "perfetto", what: "Perfetto", binary: true, open: &openview.Perfetto, suffix: ".perfetto-trace",
		terminal: "refusing to write binary Perfetto data to a terminal: use -o %s or redirect stdout",
		need:     "Perfetto needs a method trace",
		export: func(f *outfile.File, o *outOptions) exporter {
			exp := perfetto.New(f, perfetto.Options{ProcessName: o.processName})
			return exporter{out: perfettoOutput(exp, f), warnings: exp.Warnings}
		}},
	{name: "speedscope", what: "speedscope", open: &openview.Speedscope, suffix: ".speedscope.json",
		terminal: "refusing to write a speedscope profile (one long line of JSON) to a terminal: use -o app.speedscope.json (then open it at https://www.speedscope.app), --open, redirect stdout, or pipe it to speedscope -",
		export: func(f *outfile.File, _ *outOptions) exporter {
			exp := speedscope.New(f, speedscope.Options{Exporter: "atrace2@" + versionString()})
			return exporter{out: convert.Aggregate(exp), close: exp.Close}
		},
		tree: func(w io.Writer, t *stacks.Tree, _ *outOptions) error {
			return speedscope.WriteTree(w, t, speedscope.Options{Exporter: "atrace2@" + versionString()})
		}},
	{name: "folded", what: "folded", termMax: 64 << 10,
		terminal: "refusing to write more than %d KiB of folded stacks to a terminal: use -o app.folded, or pipe them to flamegraph.pl > app.svg, inferno-flamegraph > app.svg or less",
		tree: func(w io.Writer, t *stacks.Tree, o *outOptions) error {
			if err := folded.Write(w, t, folded.Options{NoThread: o.noThread, OffCPU: o.offCPU}); err != nil {
				return fmt.Errorf("%s: %w", o.input, err)
			}
			return nil
		}},
}

// formatNamed returns the row of the table for a format.
func formatNamed(name string) *format {
	for _, f := range formats {
		if f.name == name {
			return f
		}
	}
	panic("invariant violation: no output format " + name)
}

// request is an output a command was asked for: a format and its path
// ("" or "-" for standard output).
type request struct {
	f    *format
	path string
}

// write reads an input once into every requested output: each exporter of
// the event stream during the read, then each view of the call tree, in
// the reverse order of the requests (a failure to write both folded stacks
// and pprof reports the folded one, as when folded stacks were written at
// the end of the conversion). No output is kept unless all are complete.
// It returns what the exporters had to say.
func (e *env) write(in *driver.Input, reqs []request, o *outOptions) (warnings []string, err error) {
	var files []*outfile.File
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	timeline := in.Timeline() == nil
	var outs []convert.Output
	var views []func(*stacks.Tree) error
	var said []func() []string
	var short []*termBuffer
	for _, r := range reqs {
		f, err := e.createOutput(r.path, r.f.binary, r.f.what)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		var w io.Writer = f
		if r.f.termMax > 0 && isStdout(r.path) && outfile.IsTerminal(e.stdout) {
			// Printed on a terminal when short; refused when long.
			tb := &termBuffer{max: r.f.termMax, f: r.f, out: f}
			short, w = append(short, tb), tb
		}
		if r.f.export != nil && (timeline || r.f.tree == nil) {
			x := r.f.export(f, o)
			if x.close != nil {
				defer x.close()
			}
			if x.warnings != nil {
				said = append(said, x.warnings)
			}
			outs = append(outs, x.out)
			continue
		}
		tree := r.f.tree
		views = append(views, func(t *stacks.Tree) error { return tree(w, t, o) })
	}
	var tree *stacks.Tree
	if len(outs) == 0 {
		tree, err = e.tree(in)
	} else {
		tree, err = in.Run(len(views) > 0, outs...)
		e.diagnose(in)
	}
	if err != nil {
		return nil, err
	}
	for i := len(views) - 1; i >= 0; i-- {
		var long *tooLong
		if err := views[i](tree); errors.As(err, &long) {
			return nil, usagef(long.f.terminal, long.f.termMax>>10)
		} else if err != nil {
			return nil, err
		}
	}
	for _, tb := range short {
		if _, err := tb.out.Write(tb.buf.Bytes()); err != nil {
			return nil, err
		}
	}
	for _, s := range said {
		warnings = append(warnings, s()...)
	}
	return warnings, outfile.CommitAll(files)
}

// writeOne is the command of one format: it reads one input into the
// output at path, refusing a terminal as the format's row says, and with
// --open serves it to its viewer.
func (e *env) writeOne(f *format, args []string, path string, of *openFlags, o *outOptions) error {
	in, err := e.oneInput(args, f.name)
	if err != nil {
		return err
	}
	if err := in.Timeline(); err != nil && f.tree == nil {
		return needTimeline(err, f.need)
	}
	o.input = in.Name()
	name := perfetto.DefaultProcessName(in.Path()) + f.suffix
	var view *openview.Session
	if f.open != nil {
		if view, err = of.start(&path, name); err != nil {
			return err
		}
		defer view.Close()
	}
	if isStdout(path) && outfile.IsTerminal(e.stdout) && f.termMax == 0 {
		return usagef("%s", strings.ReplaceAll(f.terminal, "%s", name))
	}
	warnings, err := e.write(in, []request{{f, path}}, o)
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
	return view.Serve(*f.open, openview.ServeOptions{Stderr: e.stderr, Quiet: e.opt.Flags.Quiet, NoBrowser: of.NoBrowser, Ready: openReady})
}

func isStdout(path string) bool { return path == "" || path == "-" }

// termBuffer holds up to max bytes of an output bound for a terminal,
// for out once complete, and refuses a write beyond them as the format's
// row says.
type termBuffer struct {
	buf bytes.Buffer
	max int
	f   *format
	out *outfile.File
}

func (c *termBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, &tooLong{c.f}
	}
	return c.buf.Write(p)
}

// tooLong stops writing to a termBuffer.
type tooLong struct{ f *format }

func (e *tooLong) Error() string { return "too long for a terminal" }

// perfettoOutput declares the Perfetto exporter to convert: a timeline
// whose output o can take back when it is a file (see outfile.File.Rewinder).
func perfettoOutput(e *perfetto.Exporter, o *outfile.File) convert.Output {
	rewind := o.Rewinder()
	if rewind == nil {
		return convert.Timeline(e, nil)
	}
	return convert.Timeline(e, func() error {
		if err := rewind(); err != nil {
			return fmt.Errorf("perfetto: taking back the output: %w", err)
		}
		return nil
	})
}
