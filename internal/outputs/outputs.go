// Package outputs writes the outputs of a run of atrace2, as the CLI's
// output table describes them. A row of the table (Format) says what a
// format's file is (binary or not, whether a terminal may take it, the web
// viewer --open opens it in) and how it is made: by an exporter of the
// event stream during the read, or by a view of the call tree after it.
//
// A Writer holds what every output of the run must respect: no output
// replaces an input (Protect) or the CPU profile, each is written under a
// temporary name and kept only once complete (package outfile). Write
// reads an input once into every requested output and keeps them all, or
// none; WriteOne is a command of one format, --open included; Print
// writes a report to standard output.
package outputs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/openview"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/progress"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/stacks"
	"github.com/atrace2/atrace2/stream"
)

// Format is a row of the output table: a format atrace2 writes, what its
// file is and how it is made.
type Format struct {
	Name   string // the command, and convert's flag without its dashes
	What   string // the output in messages
	Binary bool   // binary data: never written to a terminal (outfile)
	// Terminal is the format's command's refusal to write to a terminal,
	// %s the file name to suggest; "" for a format printed there when it
	// is short (TermMax bytes at most, folded).
	Terminal string
	TermMax  int
	Open     *openview.Viewer // the web viewer --open opens it in, if any
	// Large is an output about as large as the trace (Perfetto,
	// speedscope), written from a goroutine of its own: that pays for such
	// outputs only (outfile.Options.WriteBehind).
	Large  bool
	Suffix string // the file name suffix --open's temporary file takes
	// Need says why an input without a timeline is refused, for a format
	// that only the event stream makes.
	Need string
	// Refuse is the view's own refusal of a value (--clock) that it
	// cannot show whatever the input (speedscope.Refuse), for a check
	// before anything is recorded; nil when what it shows depends on the
	// input's clocks alone. The view refuses it again when it writes.
	Refuse func(stream.Value) error
	// Export declares, for a format made from the event stream, its
	// exporter over the output file; Tree writes one made from the call
	// tree. A format with both takes the stream of an input with a
	// timeline and the tree of one without (speedscope).
	Export func(f *outfile.File, o *Options) Exporter
	Tree   func(w io.Writer, t *stacks.Tree, o *Options) error
}

// Exporter is an exporter of the event stream, declared to the converter.
type Exporter struct {
	Out      convert.Output
	Close    func() error    // after the read, whatever its outcome (nil: nothing)
	Warnings func() []string // what it had to say once done (nil: nothing)
}

// Options are the command's options that shape the outputs.
type Options struct {
	NoThread    bool         // folded: no thread frame
	Value       stream.Value // what every output shows of the input's values (--clock)
	ProcessName string       // perfetto: the process track's name
	Input       string       // the input's name, in folded's errors
}

// Request is an output a command was asked for: a format and its path
// ("" or "-" for standard output).
type Request struct {
	Format *Format
	Path   string
}

// Requests are the outputs asked for of the formats of table, in its
// order: those to which paths, by format name, gives a path.
func Requests(table []*Format, paths map[string]string) []Request {
	var reqs []Request
	for _, f := range table {
		if paths[f.Name] != "" {
			reqs = append(reqs, Request{Format: f, Path: paths[f.Name]})
		}
	}
	return reqs
}

// IsStdout reports whether path names standard output.
func IsStdout(path string) bool { return path == "" || path == "-" }

// Check refuses requests that would write two outputs to standard output,
// or two to the same file.
func Check(reqs []Request) error {
	stdout := 0
	for _, r := range reqs {
		if r.Path == "-" {
			stdout++
		}
	}
	if stdout > 1 {
		return fmt.Errorf("at most one output can go to standard output (-)")
	}
	for i, r := range reqs {
		for _, q := range reqs[:i] {
			if outfile.SamePath(q.Path, r.Path) {
				return fmt.Errorf("--%s and --%s name the same file %s: one output would replace the other", q.Format.Name, r.Format.Name, r.Path)
			}
		}
	}
	return nil
}

// Writer writes the outputs of a run.
type Writer struct {
	Stdout, Stderr io.Writer
	Inputs         *outfile.Inputs  // the inputs no output may overwrite
	CPUProfile     string           // --cpu-profile's file, which no output may replace
	Progress       *progress.Writes // the outputs' writing, shown on the progress line
	Quiet          bool             // no warnings on Stderr
}

// Protect records the files that input arguments read (a trace and the
// files beside it that parser.Sources names, its key file, standard
// input), so that no output of the run overwrites one.
func (wr *Writer) Protect(ins []input.Arg) {
	for _, in := range ins {
		wr.Inputs.Add(parser.Sources(in.Path)...)
		if in.Sec != "" {
			wr.Inputs.Add(in.Sec)
		}
		if in.Path == "-" {
			wr.Inputs.Add("-")
		}
	}
}

// Create opens an output of the run (outfile.Create): path "" or "-" is
// standard output, and no input may be written over.
func (wr *Writer) Create(path string, binary bool, what string) (*outfile.File, error) {
	return wr.create(path, outfile.Options{What: what, Binary: binary})
}

func (wr *Writer) create(path string, opt outfile.Options) (*outfile.File, error) {
	if outfile.SamePath(path, wr.CPUProfile) {
		return nil, driver.Usagef("refusing to write the %s output over the --cpu-profile file %s", opt.What, wr.CPUProfile)
	}
	opt.Stdout, opt.Inputs, opt.Progress = wr.Stdout, wr.Inputs, wr.Progress
	return outfile.Create(path, opt)
}

// Print writes a report to standard output with write, and keeps it.
func (wr *Writer) Print(write func(w io.Writer) error) error { return wr.print(false, write) }

// PrintLarge is Print for a report about as large as the trace (dump),
// written from a goroutine of its own as a Large format is.
func (wr *Writer) PrintLarge(write func(w io.Writer) error) error { return wr.print(true, write) }

func (wr *Writer) print(large bool, write func(w io.Writer) error) error {
	out, err := wr.create("-", outfile.Options{WriteBehind: large})
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := write(out); err != nil {
		return err
	}
	return out.Commit()
}

// View is --open: the result served once to its web viewer.
type View struct {
	Open, NoBrowser bool
	Addr            string                 // where to serve (openview.Addr; tests give a free port)
	Ready           func(viewerURL string) // told the viewer's URL once served (tests), if set
}

// WriteOne is a command of one format: it reads in into the output at
// path, refusing a terminal as the format's row says, says what the
// exporter had to say, and with --open (v) serves the file to its viewer.
func (wr *Writer) WriteOne(in *driver.Input, f *Format, path string, o *Options, v *View) error {
	if f.Tree == nil {
		if err := in.NeedTimeline(f.Need); err != nil {
			return err
		}
	}
	o.Input = in.Name()
	name := perfetto.DefaultProcessName(in.Path()) + f.Suffix
	var view *openview.Session
	if f.Open != nil {
		var err error
		if view, err = v.start(&path, name); err != nil {
			return err
		}
		defer view.Close()
	}
	if IsStdout(path) && outfile.IsTerminal(wr.Stdout) && f.TermMax == 0 {
		return driver.Usagef("%s", strings.ReplaceAll(f.Terminal, "%s", name))
	}
	warnings, err := wr.Write(in, []Request{{Format: f, Path: path}}, o)
	if err != nil {
		return err
	}
	if !wr.Quiet {
		for _, w := range warnings {
			fmt.Fprintf(wr.Stderr, "atrace2: %s: warning: %s\n", in.Name(), w)
		}
	}
	if view == nil {
		return nil
	}
	return view.Serve(*f.Open, openview.ServeOptions{Stderr: wr.Stderr, Quiet: wr.Quiet, NoBrowser: v.NoBrowser, Ready: v.Ready})
}

// start checks the --open flags and, with --open, listens on v.Addr and
// sets *output to a file in a temporary folder when it is empty; name is
// the temporary file's name. It returns nil without --open.
func (v *View) start(output *string, name string) (*openview.Session, error) {
	if !v.Open {
		if v.NoBrowser {
			return nil, driver.Usagef("--no-browser only makes sense with --open")
		}
		return nil, nil
	}
	if *output == "-" {
		return nil, driver.Usagef("--open serves a file: give -o FILE to keep it, or no -o for a temporary one")
	}
	return openview.Start(v.Addr, output, name)
}

// Write reads an input once into every requested output: each exporter of
// the event stream during the read, then each view of the call tree, in
// the reverse order of the requests (a failure to write both folded stacks
// and pprof reports the folded one, as when folded stacks were written at
// the end of the conversion). No output is kept unless all are complete.
// It returns what the exporters had to say.
func (wr *Writer) Write(in *driver.Input, reqs []Request, o *Options) (warnings []string, err error) {
	var files []*outfile.File
	defer func() {
		for _, f := range files {
			f.Abort()
		}
	}()
	timeline := in.Timeline() == nil
	terminal := outfile.IsTerminal(wr.Stdout)
	var outs []convert.Output
	var views []func(*stacks.Tree) error
	var said []func() []string
	var short []*termBuffer
	for _, r := range reqs {
		f, err := wr.create(r.Path, outfile.Options{What: r.Format.What, Binary: r.Format.Binary, WriteBehind: r.Format.Large})
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		var w io.Writer = f
		if r.Format.TermMax > 0 && IsStdout(r.Path) && terminal {
			// Printed on a terminal when short; refused when long.
			tb := &termBuffer{max: r.Format.TermMax, f: r.Format, out: f}
			short, w = append(short, tb), tb
		}
		if r.Format.Export != nil && (timeline || r.Format.Tree == nil) {
			x := r.Format.Export(f, o)
			if x.Close != nil {
				defer x.Close()
			}
			if x.Warnings != nil {
				said = append(said, x.Warnings)
			}
			outs = append(outs, x.Out)
			continue
		}
		tree := r.Format.Tree
		views = append(views, func(t *stacks.Tree) error { return tree(w, t, o) })
	}
	var tree *stacks.Tree
	if len(outs) == 0 {
		tree, err = in.Tree()
	} else {
		tree, err = in.Run(len(views) > 0, outs...)
	}
	if err != nil {
		return nil, err
	}
	if len(views) > 0 {
		// The views write each stack whole: refused before the first.
		if err := in.CheckStacks(tree); err != nil {
			return nil, err
		}
	}
	for i := len(views) - 1; i >= 0; i-- {
		var long *tooLong
		if err := views[i](tree); errors.As(err, &long) {
			return nil, driver.Usagef(long.f.Terminal, long.f.TermMax>>10)
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

// termBuffer holds up to max bytes of an output bound for a terminal,
// for out once complete, and refuses a write beyond them as the format's
// row says.
type termBuffer struct {
	buf bytes.Buffer
	max int
	f   *Format
	out *outfile.File
}

func (c *termBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, &tooLong{c.f}
	}
	return c.buf.Write(p)
}

// tooLong stops writing to a termBuffer.
type tooLong struct{ f *Format }

func (e *tooLong) Error() string { return "too long for a terminal" }

// PerfettoTimeline declares the Perfetto exporter to convert: a timeline
// whose output o can take back when it is a file (see outfile.File.Rewinder).
func PerfettoTimeline(e *perfetto.Exporter, o *outfile.File) convert.Output {
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
