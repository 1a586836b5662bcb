// Command atrace2 converts Android method traces (.trace files from
// Debug.startMethodTracing, Android Studio and `am profile`) into pprof,
// Perfetto and speedscope, and reads them in a terminal.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/alecthomas/kong"

	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/memlimit"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/parser"
)

// Exit codes: 0 success, 1 bad input or a failed write, 80 usage errors
// (kong's code for a ParseError); diff's gate exits 3 when a rule
// regressed and 4 when only inconclusive results fail it.
const (
	exitOK           = 0
	exitError        = 1
	exitRegressed    = 3
	exitInconclusive = 4
	exitUsage        = 80
)

// cli is the whole command line grammar. Each command lives in its own file.
type cli struct {
	Globals

	Info       InfoCmd       `cmd:"" help:"Describe a trace: variant, clock, threads, methods, durations and every repair."`
	Dump       DumpCmd       `cmd:"" help:"Print one line per event, indented by depth (dmtracedump -o)."`
	Pprof      PprofCmd      `cmd:"" help:"Convert traces into one gzipped pprof profile (exclusive time, thread CPU time and calls per call stack and thread), or serve pprof's web UI for it with --http."`
	Perfetto   PerfettoCmd   `cmd:"" help:"Convert a trace into a binary Perfetto trace for ui.perfetto.dev and trace_processor: one track per thread, one slice per call."`
	Speedscope SpeedscopeCmd `cmd:"" help:"Convert a trace into a speedscope file (app.speedscope.json): one flame chart per thread on the wall or thread CPU timeline."`
	Folded     FoldedCmd     `cmd:"" help:"Print folded stacks (thread;frame;...;frame microseconds) for flamegraph.pl, inferno and speedscope."`
	Convert    ConvertCmd    `cmd:"" help:"Write several formats (--pprof, --perfetto, --speedscope, --folded) from one reading of a trace."`
	Top        TopCmd        `cmd:"" help:"Print the flat profile: exclusive and inclusive time, calls and recursive calls per method (Traceview's profile table)."`
	Calls      CallsCmd      `cmd:"" help:"Print the callers and callees of the methods matching a pattern, with their shares of its inclusive time (Traceview's parents/children)."`
	Diff       DiffCmd       `cmd:"" help:"Compare two traces, or two sets of runs (medians, Mann–Whitney p-values), method by method: exclusive, inclusive and calls before and after, largest change first (dmtracedump -d); with --fail-on, a CI gate that exits 3 on a regression."`
	Startup    StartupCmd    `cmd:"" help:"Print the app-startup phases on the main thread (bind, Application.onCreate, Activity create/start/resume, first frame, fully drawn): begin, end, wall, CPU and off-CPU time, and the top methods of each."`

	Version kong.VersionFlag `help:"Print the version and exit."`
}

const description = `atrace2 converts Android method traces (the .trace files written by
Debug.startMethodTracing, Android Studio's Java/Kotlin method recording and
adb shell am profile) into pprof, Perfetto and speedscope, and reads them in a
terminal. It also reads sampled profiles: hprof text (Dalvik SamplingProfiler,
JVM -agentlib:hprof) and Android 5.x ART profile files. TRACE may be - for
standard input; gzip input is recognised.`

func main() {
	memlimit.SetDefaults()
	outfile.HandleSignals()
	code := run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	if code == exitBrokenPipe {
		outfile.DieOfSIGPIPE()
	}
	os.Exit(code)
}

// run parses args and runs one command; tests call it in-process.
func run(args []string, e *env) int {
	var c cli
	exited := -1
	// kong writes help and version text itself: a failure to write it is
	// kept, and reported once kong is done.
	stdout := outfile.NewStdout(e.stdout)
	k, err := kong.New(&c,
		kong.Name("atrace2"),
		kong.Description(description),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": versionLine()},
		kong.Writers(stdout, e.stderr),
		kong.Exit(func(code int) { exited = code; panic(exitPanic{}) }),
		kong.Bind(e),
	)
	if err != nil {
		fmt.Fprintln(e.stderr, "atrace2: invariant violation:", err)
		return exitError
	}
	if e.stdin == nil {
		e.stdin = os.Stdin
	}
	e.inputs.Stdin = e.stdin
	e.opener = input.NewOpener(e.stdin)
	defer e.opener.Close()
	code := func() (code int) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(exitPanic); !ok {
					panic(r)
				}
				code = exited
				if err := stdout.Err(); err != nil {
					code = printError(e.stderr, err)
				}
			}
		}()
		ctx, err := k.Parse(args)
		if err := stdout.Err(); err != nil {
			return printError(e.stderr, err)
		}
		if err != nil {
			k.FatalIfErrorf(err) // prints usage and exits 80
		}
		c.Globals.env = e
		if err := c.checkClock(selected(ctx)); err != nil {
			return printError(e.stderr, err)
		}
		if c.Mapping != "" {
			e.inputs.Add(c.Mapping) // no output may replace the map
		}
		stop, err := startCPUProfile(e, c.CPUProfile, traceArgs(ctx))
		if err != nil {
			return printError(e.stderr, err)
		}
		err = ctx.Run(&c.Globals)
		if perr := stop(); err == nil {
			err = perr
		}
		if err != nil {
			return printError(e.stderr, err)
		}
		return exitOK
	}()
	return code
}

// startCPUProfile starts a CPU profile into path when it is set; the
// returned function stops it and keeps the file. The file is an output
// like the others (outfile.Create): written under a temporary name and
// renamed at the end, and refused when it names one of the traces, which
// it used to replace before anything was read.
func startCPUProfile(e *env, path string, traces []string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	if path == "-" {
		return nil, usagef("--cpu-profile: name a file; standard output carries the command's output")
	}
	ins := outfile.Inputs{Stdin: e.stdin}
	for _, t := range traces {
		ins.Add(t)
		ins.Add(parser.Sources(t)...)
	}
	out, err := outfile.Create(path, outfile.Options{What: "CPU profile", Binary: true, Inputs: &ins})
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Abort()
		return nil, err
	}
	e.cpuProfile = path
	return func() error {
		pprof.StopCPUProfile()
		defer out.Abort()
		return out.Commit()
	}, nil
}

// traceArgs returns the files the selected command reads: its TRACE and
// OLD NEW arguments.
func traceArgs(ctx *kong.Context) []string {
	var paths []string
	node := ctx.Selected()
	if node == nil {
		return nil
	}
	for _, f := range node.Flags {
		if v, ok := f.Target.Interface().(runList); ok { // diff --old, --new
			paths = append(paths, v...)
		}
	}
	for _, arg := range node.Positional {
		if arg.Name != "TRACE" && arg.Name != "OLD NEW" {
			continue
		}
		switch v := arg.Target.Interface().(type) {
		case string:
			paths = append(paths, v)
		case []string:
			paths = append(paths, v...)
		}
	}
	return paths
}

// selected names the selected command, "" when there is none.
func selected(ctx *kong.Context) string {
	if node := ctx.Selected(); node != nil {
		return node.Name
	}
	return ""
}

// exitPanic unwinds kong's Exit callback back into run.
type exitPanic struct{}

// exitBrokenPipe is run's answer when standard output's reader has gone
// (`atrace2 folded app.trace | head`): main then dies of SIGPIPE quietly,
// as a command line tool does, once the outputs are removed.
const exitBrokenPipe = 128 + 13

// printError prints an error as one line and chooses the exit code.
func printError(w io.Writer, err error) int {
	if outfile.IsBrokenPipe(err) && outfile.SIGPIPEKills() {
		return exitBrokenPipe
	}
	fmt.Fprintln(w, "atrace2:", err)
	if c := (*exitCodeError)(nil); errors.As(err, &c) {
		return c.code
	}
	var u *usageError
	var refused *outfile.RefusedError
	if errors.As(err, &u) || errors.As(err, &refused) {
		return exitUsage
	}
	return exitError
}

// usageError is a mistake in the command line found after parsing.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitCodeError ends a command that has written its output with an exit
// status of its own, such as diff's failed gate.
type exitCodeError struct {
	code int
	msg  string
}

func (e *exitCodeError) Error() string { return e.msg }
