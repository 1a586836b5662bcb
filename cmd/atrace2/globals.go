package main

import (
	"fmt"
	"io"

	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/outputs"
	"github.com/atrace2/atrace2/internal/progress"
)

// Globals are the flags every command takes.
type Globals struct {
	Quiet  bool   `short:"q" help:"Print nothing on stderr but errors: no repair summary and no warnings."`
	Strict bool   `help:"Fail (exit 1) when the trace needed any repair (orphan exits, open frames, unknown ids, lost bytes …) or the reader had to work around anything, or when --mapping resolved a method by name only (no descriptor matched) or ambiguously."`
	Clock  string `default:"auto" enum:"auto,wall,cpu,thread-cpu,dual,offcpu" help:"Clock to show: wall, cpu (thread CPU time), dual (both) or offcpu; auto shows every clock the trace has. The trace is read whole, and each output shows the clock chosen: one clock of a dual-clock trace, or offcpu, the off-CPU time of a dual-clock trace: per stack, exclusive wall time minus exclusive thread CPU time (at least 0), the time the thread was on the stack but not running (pprof makes it the default sample type; Perfetto shows it per slice; speedscope and dump, whose times are on one clock, refuse it). It also sets the clock of a streaming trace whose summary is missing (there it is otherwise guessed from the record size). One of: ${enum}."`

	TimeUnit string `name:"time-unit" default:"auto" enum:"auto,us,ns" help:"Unit of an ART V2 trace's times: us or ns. auto takes it from the trace's summary, or guesses it from the size of the time steps when the summary is missing (a warning says so). Other traces always count µs. One of: ${enum}."`

	MaxDepth int `name:"max-depth" default:"2048" help:"Depth limit, for method traces and sampled profiles alike: frames nested deeper than this many levels are folded into the frame at the limit (their time or samples become its own), and a thread's orphan exits (methods running before tracing began) past this many are dropped; both are counted and reported as repairs. At most 1000000; a stack that reaches 1000000 levels is refused as corrupt. pprof and folded stacks, which write each stack whole, refuse stacks whose frames, or the bytes of their names, add up to more than the input's size allows (docs/guide.md), naming a depth that fits."`

	Mapping         string `placeholder:"FILE" help:"Name the methods of a minified (R8 or ProGuard) build as the app's source does, with its mapping.txt: a file, gzipped or not, or a directory (such as app/build/outputs/mapping/) searched for mapping.txt files, of which the one whose map id the trace names is taken. Every output then shows the original names."`
	MappingMismatch string `name:"mapping-mismatch" default:"error" enum:"error,warn" help:"What to do when the trace names R8 map ids (r8-map-id-… sources) and none is the --mapping file's: error refuses (exit 1), warn says so and goes on. One of: ${enum}."`

	Thread  []string `name:"thread" sep:"none" placeholder:"PATTERN" help:"Keep only the threads whose name matches PATTERN (an RE2 regular expression, unanchored: ^main$ for exactly main) or whose tid, in decimal, is PATTERN; repeat it to keep several. main also keeps the main thread, whose tid is the pid, when the app renamed it. Everything of the other threads disappears, totals and repairs included. Applied first, before --from/--to and --root."`
	From    string   `placeholder:"DURATION" help:"Count only what lies at or after this time on the wall clock, since the trace start (the time axis of every output): a Go duration such as 1.5s, 250ms or 1200us. Frames running at it begin there, marked as cut in timelines. With --to, the closed window [from, to]. A window needs times: a method trace with a wall clock, or Perfetto or simpleperf stack samples (from the first sample); one that starts past the trace is refused, one that ends past it warns."`
	To      string   `placeholder:"DURATION" help:"Count only what lies at or before this time on the wall clock, since the trace start: a Go duration. Frames still running at it end there, marked as cut in timelines."`
	Process string   `placeholder:"NAME|PID" help:"Which process of a Perfetto trace or simpleperf profile to read: its name (or the last element of its path, surfaceflinger for /system/bin/surfaceflinger) or its pid. By default the process with the most stack samples, which a note names; info lists them all with their sample counts."`
	Root    string   `placeholder:"PATTERN" help:"Keep only the time spent inside methods whose <class>.<method> matches this regular expression (RE2, unanchored; the names --mapping gives): in every stack the outermost matching frame becomes the root and the frames outside it are dropped; stacks without a match are dropped, and stacks that become equal merge. Timelines keep only the matching frames' subtrees; recursion counts once, at the outermost match."`

	// CPUProfile is for atrace2's developers: where a conversion's time goes.
	CPUProfile string `name:"cpu-profile" hidden:"" type:"path" help:"Write a Go CPU profile of the run to this file."`
}

// flags are the globals the load stage takes (driver.NewOptions).
func (g *Globals) flags() driver.Flags {
	return driver.Flags{Strict: g.Strict, Quiet: g.Quiet, Clock: g.Clock, TimeUnit: g.TimeUnit, MaxDepth: g.MaxDepth,
		Mapping: g.Mapping, MappingMismatch: g.MappingMismatch, Threads: g.Thread, From: g.From, To: g.To, Root: g.Root, Process: g.Process}
}

// env is one run of a command: the process's standard streams, bound so
// that tests can run commands in-process, what the run opened, and the
// load stage built from the flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	opener         *input.Opener   // the run's inputs, each opened once
	inputs         outfile.Inputs  // the inputs no output may overwrite
	cpuProfile     string          // --cpu-profile's file, which no output may replace
	written        progress.Writes // the outputs' writing, shown on the progress line
	opt            driver.Options  // the global flags, checked
	d              *driver.Driver
}

// Bar and Writing show the reads and the outputs' writes on a progress
// line; Diagnose prints what a read had to say, the one place the load
// stage's diagnostics are printed (driver.UI).
func (e *env) Bar(name string) *progress.Bar { return progress.New(e.stderr, name) }
func (e *env) Writing(b *progress.Bar)       { e.written.Set(b) }
func (e *env) Diagnose(ds []driver.Diagnostic) {
	for _, d := range ds {
		fmt.Fprintln(e.stderr, "atrace2: "+d.Text)
	}
}

// out is the run's outputs (outputs.Writer): to standard output as it is
// now (record may have sent it to standard error).
func (e *env) out() *outputs.Writer {
	return &outputs.Writer{Stdout: e.stdout, Stderr: e.stderr, Inputs: &e.inputs, CPUProfile: e.cpuProfile, Progress: &e.written, Quiet: e.opt.Flags.Quiet}
}

// oneInput loads the input of a command that converts one trace, and
// records it, so that no output can overwrite it.
func (e *env) oneInput(args []string, cmd string) (*driver.Input, error) {
	in, err := e.d.LoadOne(args, cmd+" converts one trace at a time")
	if err == nil {
		e.out().Protect([]input.Arg{in.Arg()})
	}
	return in, err
}
