package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/focus"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/progress"
	"github.com/atrace2/atrace2/internal/units"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// env is the process's standard streams, bound so tests can run commands
// in-process, and what a run opened.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	opener         *input.Opener   // the run's inputs, each opened once
	inputs         outfile.Inputs  // the inputs no output may overwrite
	cpuProfile     string          // --cpu-profile's file, which no output may replace
	said           map[string]bool // mapping warnings and hints already printed (mapping.go)
	written        writeProgress   // the outputs' writing, shown on the progress line (progress.go)
}

// Globals are the flags every command takes.
type Globals struct {
	Quiet  bool   `short:"q" help:"Print nothing on stderr but errors: no repair summary and no warnings."`
	Strict bool   `help:"Fail (exit 1) when the trace needed any repair (orphan exits, open frames, unknown ids, lost bytes …) or the reader had to work around anything, or when --mapping resolved a method by name only (no descriptor matched) or ambiguously."`
	Clock  string `default:"auto" enum:"auto,wall,cpu,thread-cpu,dual,offcpu" help:"Clock to read: wall, cpu (thread CPU time) or dual; auto reads every clock the trace has. It can narrow a dual-clock trace to one clock, and it sets the clock of a streaming trace whose summary is missing (there it is otherwise guessed from the record size). offcpu (folded, top and diff) reads both clocks and shows off-CPU time: per stack, exclusive wall time minus exclusive thread CPU time (at least 0), the time the thread was on the stack but not running. One of: ${enum}."`

	TimeUnit string `name:"time-unit" default:"auto" enum:"auto,us,ns" help:"Unit of an ART V2 trace's times: us or ns. auto takes it from the trace's summary, or guesses it from the size of the time steps when the summary is missing (a warning says so). Other traces always count µs. One of: ${enum}."`

	MaxDepth int `name:"max-depth" default:"10000" help:"Depth limit: frames nested deeper than this many levels are folded into the frame at the limit (their time becomes its self time), and a thread's orphan exits (methods running before tracing began) past this many are dropped; both are counted and reported as repairs. At most 1000000; a stack that reaches 1000000 levels is refused as corrupt."`

	Mapping         string `placeholder:"FILE" help:"Name the methods of a minified (R8 or ProGuard) build as the app's source does, with its mapping.txt: a file, gzipped or not, or a directory (such as app/build/outputs/mapping/) searched for mapping.txt files, of which the one whose map id the trace names is taken. Every output then shows the original names."`
	MappingMismatch string `name:"mapping-mismatch" default:"error" enum:"error,warn" help:"What to do when the trace names R8 map ids (r8-map-id-… sources) and none is the --mapping file's: error refuses (exit 1), warn says so and goes on. One of: ${enum}."`

	Thread []string `name:"thread" sep:"none" placeholder:"PATTERN" help:"Keep only the threads whose name matches PATTERN (an RE2 regular expression, unanchored: ^main$ for exactly main) or whose tid, in decimal, is PATTERN; repeat it to keep several. Everything of the other threads disappears, totals and repairs included. Applied first, before --from/--to and --root."`
	From   string   `placeholder:"DURATION" help:"Count only what lies at or after this time on the wall clock, since the trace start (the time axis of every output): a Go duration such as 1.5s, 250ms or 1200us. Frames running at it begin there, marked as cut in timelines. With --to, the closed window [from, to]; needs a method trace with a wall clock."`
	To     string   `placeholder:"DURATION" help:"Count only what lies at or before this time on the wall clock, since the trace start: a Go duration. Frames still running at it end there, marked as cut in timelines."`
	Root   string   `placeholder:"PATTERN" help:"Keep only the time spent inside methods whose <class>.<method> matches this regular expression (RE2, unanchored; the names --mapping gives): in every stack the outermost matching frame becomes the root and the frames outside it are dropped; stacks without a match are dropped, and stacks that become equal merge. Timelines keep only the matching frames' subtrees; recursion counts once, at the outermost match."`

	// CPUProfile is for atrace2's developers: where a conversion's time goes.
	CPUProfile string `name:"cpu-profile" hidden:"" type:"path" help:"Write a Go CPU profile of the run to this file."`

	env    *env
	rootRE *regexp.Regexp // --root, compiled once (rootPattern)
}

// offCPUClock is --clock's derived clock: off-CPU time.
const offCPUClock = "offcpu"

// offCPUCommands are the commands that can show off-CPU time (--clock
// offcpu); pprof has it as a sample type of every dual-clock profile.
var offCPUCommands = []string{"folded", "top", "diff"}

// checkClock refuses --clock offcpu on a command that cannot show it.
func (g *Globals) checkClock(cmd string) error {
	if g.Clock == offCPUClock && !slices.Contains(offCPUCommands, cmd) {
		return usagef("--clock offcpu: %s cannot show off-CPU time; folded, top and diff can (pprof profiles of dual-clock traces carry it as the sample type offcpu)", cmd)
	}
	return nil
}

// pairInputs reads trace arguments: a NAME.sec argument is the key file of
// the trace before it (Android 6-7 wrote streaming summaries there).
func pairInputs(args []string) ([]input.Arg, error) {
	var ins []input.Arg
	for _, a := range args {
		if strings.HasSuffix(a, ".sec") {
			if len(ins) == 0 || ins[len(ins)-1].Sec != "" {
				return nil, usagef("%s: a .sec key file must follow the streaming trace it belongs to", a)
			}
			ins[len(ins)-1].Sec = a
			continue
		}
		ins = append(ins, input.Arg{Path: a})
	}
	if len(ins) == 0 {
		return nil, usagef("no trace given")
	}
	return ins, nil
}

// parseInputsForWriting reads the trace arguments of a command that writes
// files, and records them, so that no output can overwrite one
// (outfile.Inputs).
func parseInputsForWriting(e *env, args []string) ([]input.Arg, error) {
	ins, err := pairInputs(args)
	for _, in := range ins {
		e.inputs.Add(parser.Sources(in.Path)...)
		if in.Sec != "" {
			e.inputs.Add(in.Sec)
		}
		if in.Path == "-" {
			e.inputs.Add("-")
		}
	}
	return ins, err
}

// oneInput reads the arguments of a command that converts one trace and
// identifies it.
func oneInput(e *env, args []string, cmd string) (*input.Source, error) {
	ins, err := parseInputsForWriting(e, args)
	if err != nil {
		return nil, err
	}
	if len(ins) != 1 {
		return nil, usagef("%s converts one trace at a time, got %d", cmd, len(ins))
	}
	return e.opener.Identify(ins[0])
}

// createOutput opens an output of the run (outfile.Create): path "" or
// "-" is standard output, and no input may be written over.
func (e *env) createOutput(path string, binary bool, what string) (*outfile.File, error) {
	return e.create(path, outfile.Options{What: what, Binary: binary})
}

// createLargeOutput opens an output about as large as the trace (Perfetto,
// speedscope, dump), which is written from a goroutine of its own: that
// pays for such outputs only (outfile.Options.WriteBehind).
func (e *env) createLargeOutput(path string, binary bool, what string) (*outfile.File, error) {
	return e.create(path, outfile.Options{What: what, Binary: binary, WriteBehind: true})
}

func (e *env) create(path string, opt outfile.Options) (*outfile.File, error) {
	if outfile.SamePath(path, e.cpuProfile) {
		return nil, usagef("refusing to write the %s output over the --cpu-profile file %s", opt.What, e.cpuProfile)
	}
	opt.Stdout, opt.Inputs, opt.Progress = e.stdout, &e.inputs, &e.written
	return outfile.Create(path, opt)
}

// progressBar returns the bar of one input, or nil when none is shown.
func progressBar(g *Globals, name string) *progress.Bar {
	if g.Quiet {
		return nil
	}
	return progress.New(g.env.stderr, name)
}

// openTrace opens a method trace with the global options.
func openTrace(g *Globals, src *input.Source) (*input.Trace, error) {
	// Every command reads the file through convert, which takes a
	// streaming file's definitions as they come: one read, not two.
	// With --mapping the whole method table is needed before the map is
	// read (loadMapping), and with --thread the whole thread table before
	// the first record: then a streaming file is scanned first.
	opt := parser.Options{KeyFile: src.Sec, SkipStreamingScan: g.Mapping == "" && len(g.Thread) == 0}
	if g.Clock != "auto" && g.Clock != "" && !g.windowOnCPU() {
		opt.Clock, _ = parser.ParseClock(g.Clock)
	}
	if g.Clock == offCPUClock {
		opt.Clock = parser.ClockDual // off-CPU time is derived from both
	}
	switch g.TimeUnit {
	case "us":
		opt.TimeUnit = time.Microsecond
	case "ns":
		opt.TimeUnit = time.Nanosecond
	}
	// Standard input, pipes and gzip are copied to a temporary file on a
	// goroutine of their own; a regular trace opens once its header is in,
	// and its reads follow the copy (internal/input).
	bar := progressBar(g, src.Name()+" (reading)")
	f, err := src.OpenTrace(opt, bar.Func())
	bar.Clear()
	if err != nil {
		var ce *parser.ClockError
		if errors.As(err, &ce) && g.Clock == offCPUClock {
			return nil, usagef("%s: --clock offcpu: the trace records the %s clock; off-CPU time needs both the wall and the thread-CPU clock", src.Name(), ce.Have)
		}
		if errors.As(err, &ce) {
			return nil, usagef("%s: --clock %s: %v", src.Name(), g.Clock, err)
		}
		return nil, fmt.Errorf("%s: %w", src.Name(), err)
	}
	return f, nil
}

// convertTrace runs the converter over one method trace into the
// outputs (one read or two, see convert.Run) and prints the repair
// summary. With no outputs it only analyses the trace.
func convertTrace(g *Globals, src *input.Source, outs ...convert.Output) (*stream.Trace, error) {
	threads, err := threadFilter(g)
	if err != nil {
		return nil, err
	}
	root, err := g.rootPattern()
	if err != nil {
		return nil, err
	}
	f, err := openTrace(g, src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if g.MaxDepth < 1 || g.MaxDepth > convert.CorruptDepth {
		return nil, usagef("--max-depth %d: give a depth from 1 to %d", g.MaxDepth, convert.CorruptDepth)
	}
	opt := convert.Options{Strict: g.Strict, MaxDepth: g.MaxDepth, Threads: threads, Root: root}
	if opt.Window, err = g.window(); err != nil {
		return nil, err
	}
	opt.CPUOnly = g.windowOnCPU()
	if g.Mapping != "" {
		methods := stream.MappingMethods(f.Header)
		if opt.Mapping, err = loadMapping(g, methods); err != nil {
			return nil, err
		}
		if err := checkMapID(g, src.Name(), opt.Mapping, methods); err != nil {
			return nil, err
		}
	}
	bar := progressBar(g, src.Name())
	opt.Progress = bar.Func()
	g.env.written.set(bar)
	var t *stream.Trace
	if len(outs) == 0 {
		t, err = convert.Analyze(f.File, opt)
	} else {
		t, err = convert.Run(f.File, opt, outs...)
	}
	bar.Clear()
	if err == nil && len(outs) > 0 {
		// The outputs written after the conversion get a line of their own.
		defer g.env.written.set(progressBar(g, src.Name()).Finishing())
	}
	var werr *outfile.WriteError
	if errors.Is(err, convert.ErrNoWallClock) {
		return nil, fmt.Errorf("%s: --from/--to: the trace has thread-CPU times only, and a window is on the wall clock", src.Name())
	}
	var late *convert.WindowAfterEndError
	if errors.As(err, &late) {
		return nil, fmt.Errorf("%s: --from %s is after the trace's end at %s: nothing to keep", src.Name(), g.From, units.Duration(late.End))
	}
	var ce *parser.ClockError
	if errors.As(err, &ce) {
		return nil, usagef("%s: --clock %s: %v", src.Name(), g.Clock, err)
	}
	if errors.As(err, &werr) {
		return nil, err // the output's fault, not the trace's: no trace name before it
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Name(), err)
	}
	if opt.Threads != nil && t.Focus.ThreadsKept == 0 {
		return nil, noThreadMatches(g, src.Name(), t.Focus.ThreadsTotal, "records", listedThreads(t.Header.Threads))
	}
	summarize(g, src, t)
	if len(outs) > 0 {
		noRootMatch(g, src, t.Frames)
	}
	if opt.Mapping == nil {
		hintTrace(g, src.Name(), t.Header.Methods)
	}
	return t, nil
}

// summarize prints the reader's warnings and the repairs, one line each.
func summarize(g *Globals, src *input.Source, t *stream.Trace) {
	if g.Quiet {
		return
	}
	for _, w := range t.Header.Warnings {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: warning: %s\n", src.Name(), w)
	}
	if s := t.Stats.Summary(); s != "" {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: repaired: %s\n", src.Name(), s)
	}
	if s := t.DeobfSummary(); s != "" {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: %s\n", src.Name(), s)
	}
	if s := t.Focus.Summary(); s != "" {
		fmt.Fprintf(g.env.stderr, "atrace2: %s: %s\n", src.Name(), s)
	}
}

// window is the window --from and --to ask for, nil without either: a
// closed window of wall times since the trace start.
func (g *Globals) window() (*focus.Window, error) {
	if g.From == "" && g.To == "" {
		return nil, nil
	}
	w := &focus.Window{To: focus.NoEnd}
	for _, d := range []struct {
		flag, val string
		ns        *int64
	}{{"--from", g.From, &w.From}, {"--to", g.To, &w.To}} {
		if d.val == "" {
			continue
		}
		v, err := time.ParseDuration(d.val)
		if err != nil || v < 0 {
			return nil, usagef("%s %q: give a duration since the trace start, such as 1.5s, 250ms or 1200us", d.flag, d.val)
		}
		*d.ns = int64(v)
	}
	if w.From > w.To {
		return nil, usagef("--from %s is after --to %s", g.From, g.To)
	}
	return w, nil
}

// windowOnCPU reports whether --clock cpu comes with a window: the trace is
// then read with both clocks, the window on the wall clock, and the
// outputs get the thread-CPU clock only (convert.Options.CPUOnly).
func (g *Globals) windowOnCPU() bool {
	return (g.Clock == "cpu" || g.Clock == "thread-cpu") && (g.From != "" || g.To != "")
}
