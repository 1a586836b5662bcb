package main

import (
	"fmt"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/folded"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/perfetto"
	"github.com/atrace2/atrace2/pprofout"
	"github.com/atrace2/atrace2/speedscope"
	"github.com/atrace2/atrace2/stacks"
)

// ConvertCmd writes several formats from one reading of a method trace:
// the exporters share the parser and the stack policy.
type ConvertCmd struct {
	Pprof       string   `placeholder:"FILE" help:"Write a gzipped pprof profile to FILE (- for standard output)."`
	Perfetto    string   `placeholder:"FILE" help:"Write a binary Perfetto trace to FILE (- for standard output)."`
	Speedscope  string   `placeholder:"FILE" help:"Write a speedscope file to FILE (- for standard output)."`
	Folded      string   `placeholder:"FILE" help:"Write folded stacks to FILE (- for standard output)."`
	NoThread    bool     `help:"Folded stacks without the thread as their first frame."`
	ProcessName string   `placeholder:"NAME" help:"The Perfetto process track's name (default: the trace's file name)."`
	Trace       []string `arg:"" name:"TRACE" help:"Trace file (- for standard input), optionally followed by its .sec key file."`
}

// Help explains what convert is for.
func (c *ConvertCmd) Help() string {
	return "Each output is what the command of the same name writes; giving several reads the trace once for all of them (with Perfetto among them, twice when the trace has methods that were running before tracing began, as that command does). No output is kept unless every one is complete.\n\nExample: atrace2 convert --pprof app.pb.gz --perfetto app.perfetto-trace --speedscope app.speedscope.json app.trace"
}

// Validate asks for at least one output and at most one on stdout.
func (c *ConvertCmd) Validate() error {
	paths := []string{c.Pprof, c.Perfetto, c.Speedscope, c.Folded}
	given, stdout := 0, 0
	for _, p := range paths {
		if p != "" {
			given++
		}
		if p == "-" {
			stdout++
		}
	}
	if given == 0 {
		return fmt.Errorf("name at least one output: --pprof, --perfetto, --speedscope or --folded")
	}
	if stdout > 1 {
		return fmt.Errorf("at most one output can go to standard output (-)")
	}
	flags := []string{"--pprof", "--perfetto", "--speedscope", "--folded"}
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if outfile.SamePath(paths[i], paths[j]) {
				return fmt.Errorf("%s and %s name the same file %s: one output would replace the other", flags[i], flags[j], paths[j])
			}
		}
	}
	return nil
}

// Run converts one trace into every requested output.
func (c *ConvertCmd) Run(g *Globals) error {
	src, err := oneInput(g.env, c.Trace, "convert")
	if err != nil {
		return err
	}
	if err := requireMethodTrace(src, "convert reads method traces"); err != nil {
		return usagef("%v", err)
	}
	var outs []*outfile.File
	defer func() {
		for _, o := range outs {
			o.Abort()
		}
	}()
	open := func(path string, binary bool, what string) (*outfile.File, error) {
		create := g.env.createOutput
		if what == "Perfetto" || what == "speedscope" {
			create = g.env.createLargeOutput
		}
		o, err := create(path, binary, what)
		if err == nil {
			outs = append(outs, o)
		}
		return o, err
	}
	// The call tree is built once for every view of it (pprof, folded),
	// which are written from the finished tree after the conversion.
	var outputs []convert.Output
	var tree *stacks.TreeBuilder
	var views []func(*stacks.Tree) error
	if c.Pprof != "" {
		o, err := open(c.Pprof, true, "pprof")
		if err != nil {
			return err
		}
		views = append(views, func(t *stacks.Tree) error {
			return pprofout.Write(o, t, pprofout.Options{Version: versionString()})
		})
	}
	if c.Perfetto != "" {
		o, err := open(c.Perfetto, true, "Perfetto")
		if err != nil {
			return err
		}
		outputs = append(outputs, perfettoOutput(perfetto.New(o, perfetto.Options{ProcessName: c.ProcessName}), o))
	}
	if c.Speedscope != "" {
		o, err := open(c.Speedscope, false, "speedscope")
		if err != nil {
			return err
		}
		ss := speedscope.New(o, speedscope.Options{Exporter: "atrace2@" + versionString()})
		defer ss.Close()
		outputs = append(outputs, convert.Aggregate(ss))
	}
	if c.Folded != "" {
		o, err := open(c.Folded, false, "folded")
		if err != nil {
			return err
		}
		// First: a failure to write both reports the folded one, as when
		// folded stacks were written at the end of the conversion.
		views = append([]func(*stacks.Tree) error{func(t *stacks.Tree) error {
			return writeFolded(o, src, t, folded.Options{NoThread: c.NoThread})
		}}, views...)
	}
	if len(views) > 0 {
		tree = stacks.New()
		outputs = append([]convert.Output{convert.Aggregate(tree).Inlined()}, outputs...)
	}
	if _, err := convertTrace(g, src, outputs...); err != nil {
		return err
	}
	for _, write := range views {
		if err := write(tree.Tree()); err != nil {
			return err
		}
	}
	return outfile.CommitAll(outs)
}
