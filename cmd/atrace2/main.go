// Command atrace2 converts Android method traces (.trace files from
// Debug.startMethodTracing, Android Studio and `am profile`) into pprof,
// Perfetto and speedscope, and reads them in a terminal.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/atrace2/atrace2/internal/buildinfo"
	"github.com/atrace2/atrace2/internal/cpuprofile"
	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/memlimit"
	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/rundiff"
	"github.com/atrace2/atrace2/report"
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
	Record     RecordCmd     `cmd:"" help:"Record a method trace of an app on a device or emulator through adb (am profile, or am start --start-profiler for its start), copy it here and check it, or convert it at once with --convert."`

	Version kong.VersionFlag `help:"Print the version and exit."`
}

const description = `atrace2 converts Android method traces (the .trace files written by
Debug.startMethodTracing, Android Studio's Java/Kotlin method recording and
adb shell am profile) into pprof, Perfetto and speedscope, and reads them in a
terminal. It also reads sampled profiles: Perfetto traces of CPU stack samples
(ProfilingManager's .perfetto-stack-sample, traced_perf), simpleperf's
report-sample protobuf (and Jetpack Benchmark's StackSamplingTrace), hprof text
(Dalvik SamplingProfiler, JVM -agentlib:hprof) and Android 5.x ART profile
files. TRACE may be - for standard input; gzip input is recognised.`

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
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": buildinfo.Line(version, commit, date)},
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
			return parseError(e.stderr, err)
		}
		// The flags are checked once, before any input is opened.
		if e.opt, err = driver.NewOptions(c.flags()); err != nil {
			return printError(e.stderr, err)
		}
		e.d = driver.New(e.opt, e.opener, e)
		if c.Mapping != "" {
			e.inputs.Add(c.Mapping) // no output may replace the map
		}
		if c.CPUProfile == "-" {
			return printError(e.stderr, usagef("--cpu-profile: name a file; standard output carries the command's output"))
		}
		e.cpuProfile = c.CPUProfile // no output may replace it
		// Refused before the profile starts, which would write it.
		for _, o := range outputArgs(ctx) {
			if outfile.SamePath(o.path, c.CPUProfile) {
				return printError(e.stderr, usagef("refusing to write the %s output over the --cpu-profile file %s", o.what, c.CPUProfile))
			}
		}
		stop, err := cpuprofile.Start(c.CPUProfile, traceArgs(ctx), e.stdin)
		if err != nil {
			return printError(e.stderr, err)
		}
		err = ctx.Run()
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

// outputFlags are the flags that name an output file, and the output each
// names ("" for the command's own).
var outputFlags = map[string]string{"output": "", "pprof": "pprof", "perfetto": "perfetto", "speedscope": "speedscope", "folded": "folded"}

// outputArgs returns the files the selected command's flags name as
// outputs, with what each is (the command's name for -o).
func outputArgs(ctx *kong.Context) []struct{ path, what string } {
	var outs []struct{ path, what string }
	node := ctx.Selected()
	if node == nil {
		return nil
	}
	for _, f := range node.Flags {
		what, ok := outputFlags[f.Name]
		if !ok {
			continue
		}
		if what == "" {
			what = node.Name
		}
		if v, ok := f.Target.Interface().(string); ok && v != "" && v != "-" {
			outs = append(outs, struct{ path, what string }{v, what})
		}
	}
	return outs
}

// parseError prints an error of the command line's parser (an unknown
// flag, a bad value, a missing argument, a command's Validate) and returns
// its exit code, 80 for a usage error. It writes nothing on standard
// output, which the user may have redirected to an output file (`>
// out.folded`, `>> keep.folded`): the error goes to standard error, with
// a pointer to the command's help rather than the help itself.
func parseError(w io.Writer, err error) int {
	help := "atrace2"
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if n := pe.Context.Selected(); n != nil {
			help = commandPath(n)
		}
	}
	fmt.Fprintf(w, "atrace2: error: %v\nTry '%s --help' for more information.\n", err, help)
	var ec kong.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitUsage
}

// commandPath is the command line that selects node: "atrace2 folded".
func commandPath(n *kong.Node) string {
	var path []string
	for ; n != nil; n = n.Parent {
		if n.Type == kong.CommandNode || n.Parent == nil {
			path = append(path, n.Name)
		}
	}
	slices.Reverse(path)
	return strings.Join(path, " ")
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
	if g := (*rundiff.GateError)(nil); errors.As(err, &g) {
		if g.Outcome == report.OutcomeRegressed {
			return exitRegressed
		}
		return exitInconclusive
	}
	var u *driver.UsageError
	var refused *outfile.RefusedError
	if errors.As(err, &u) || errors.As(err, &refused) {
		return exitUsage
	}
	return exitError
}

// usagef makes a usage error: a mistake in the command line found after
// parsing, by a command or by the load stage (driver.UsageError).
func usagef(format string, args ...any) error { return driver.Usagef(format, args...) }
