package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/atrace2/atrace2/internal/driver"
	"github.com/atrace2/atrace2/internal/outputs"
	"github.com/atrace2/atrace2/record"
)

// RecordCmd captures a method trace from a device or emulator; package
// record does the work on the device.
type RecordCmd struct {
	Output        string        `short:"o" placeholder:"FILE" help:"Write the trace to FILE (- for standard output). By default <package>-<date>.trace in the current folder, such as com.example.app-20260830-142501.trace. An existing file is never replaced without --force."`
	Force         bool          `help:"Replace the trace, and the --convert file, when they exist."`
	Duration      time.Duration `placeholder:"DURATION" help:"Stop after this long, a Go duration such as 10s (counted from the launch with --cold); Enter or Ctrl-C stops sooner. Without it, Enter or Ctrl-C stops."`
	Sampling      time.Duration `placeholder:"INTERVAL" help:"Record in sampling mode: ART samples every thread's stack each INTERVAL (such as 1ms; whole microseconds) instead of recording every call. Lighter on the app; calls are not counted."`
	Streaming     bool          `help:"Have ART write the trace as it goes (am's --streaming; Android 8.0 and later) instead of filling a buffer of 8 MiB, which ends the recording when full: for long recordings."`
	Cold          bool          `help:"Record the app's start: am start -S -W --start-profiler force-stops it and launches it with the profiler on, so that the trace holds the bind, Application.onCreate and the first frame that atrace2 startup reads."`
	Activity      string        `placeholder:"ACTIVITY" help:"With --cold, the activity to launch: a class (.MainActivity, com.example.app.MainActivity) or a component (com.example.app/.MainActivity). By default the launcher activity, as the device resolves it."`
	OutputVersion int           `name:"output-version" default:"1" enum:"1,2" help:"The trace format ART writes: 1, which every tool reads, or 2, ART's V2 (am's --profiler-output-version 2; Android 15 and later, refused before). One of: ${enum}."`
	Convert       string        `placeholder:"FORMAT" help:"Then convert the trace, in this process and with every global option (--mapping, --thread, --from/--to, …): pprof, perfetto or speedscope write <trace>.pb.gz, <trace>.perfetto-trace or <trace>.speedscope.json beside the trace; folded, top and startup print to standard output, as those commands do."`
	Open          bool          `help:"With --convert pprof, perfetto or speedscope, open the result in its viewer as those commands do (perfetto and speedscope: --open; pprof: its web UI, --http on localhost)."`
	NoBrowser     bool          `name:"no-browser" help:"With --open, print the viewer's URL instead of opening a browser."`
	Serial        string        `short:"s" env:"ANDROID_SERIAL" placeholder:"SERIAL" help:"The device to record on, as adb devices lists it; needed when several are attached."`
	Package       string        `arg:"" name:"PACKAGE" help:"The app's package name (application id), such as com.example.app."`
}

// Help is shown by atrace2 record --help.
func (c *RecordCmd) Help() string {
	return `Records a method trace of an app on a device or emulator, through adb (ADB names the adb binary when it is not on PATH; it comes with Android SDK Platform-Tools, ` + record.PlatformToolsURL + `):

  atrace2 record com.example.app                          # the running app, until Enter or Ctrl-C
  atrace2 record --duration 10s --sampling 1ms com.example.app
  atrace2 record --cold --convert startup com.example.app # the app's start, then its phases
  atrace2 record --convert perfetto --open com.example.app # straight to ui.perfetto.dev

It starts the profiler with am profile start on the running app (with --cold: am start -S -W --start-profiler, after force-stopping it), stops it with am profile stop on Enter, after --duration or on Ctrl-C, waits until the app has written the whole file in /data/local/tmp, copies it with adb exec-out (no root needed), removes it from the device, and writes it to -o FILE. Without --convert it then prints the summary atrace2 info prints (on standard error when the trace goes to standard output).

The app must be debuggable (the debug build type), or the device a userdebug or eng build, and the device Android 7.0 (API 24) or later. What the device refuses (the app not installed, not running, not debuggable, storage full, a profiler already running on it, an option its am does not know) ends the command with one line that says what to do.

Whatever happens after the start (an error, a lost connection, SIGTERM, a second Ctrl-C while the trace is copied), atrace2 stops the profiler and removes the file from the device, or says what to run when the device is gone; the trace file is written whole or not at all.`
}

// recordNow is the clock of the default file name (tests set it).
var recordNow = time.Now

// recordPoll paces the wait for the app's file (tests make it fast);
// zero is record.DefaultPoll.
var recordPoll record.Poll

// recordFormats are --convert's values: those that write a file, and the
// extension of the file.
var recordFormats = map[string]string{
	"pprof": ".pb.gz", "perfetto": ".perfetto-trace", "speedscope": ".speedscope.json",
	"folded": "", "top": "", "startup": "",
}

// Run records, writes the trace, and checks or converts it.
func (c *RecordCmd) Run(e *env) error {
	base := record.DefaultName(c.Package, recordNow())
	// The package name checked first: it names the default output.
	check := c.options(base, nil)
	if err := check.Check(); err != nil {
		return usagef("%v", err)
	}
	path, converted, err := c.outputs(base)
	if err != nil {
		return err
	}
	if err := c.checkGlobals(e.opt); err != nil {
		return err
	}
	adb, err := record.FindADB(os.Getenv)
	if err != nil {
		return err
	}
	// The trace's output opens first: a missing folder fails before the
	// device is touched.
	out, err := e.out().Create(path, true, "trace")
	if err != nil {
		return err
	}
	defer out.Abort()
	say := func(s string) {
		if !e.opt.Flags.Quiet {
			fmt.Fprintf(e.stderr, "atrace2: %s\n", s)
		}
	}
	copyPath, remove, err := record.Record(context.Background(), record.Capture{Config: record.Config{ADB: adb, Serial: c.Serial},
		Options: c.options(base, say), Duration: c.Duration, Stdin: e.stdin,
		Warn: func(s string) { fmt.Fprintf(e.stderr, "atrace2: %s\n", s) }}, out, path, c.Force)
	if err != nil {
		return err
	}
	defer remove()
	trace := path
	if path == "-" {
		// The trace took standard output: what follows goes to standard
		// error (info's summary; nowhere with -q).
		trace = copyPath
		defer func(w io.Writer) { e.stdout = w }(e.stdout)
		e.stdout = e.stderr
		if e.opt.Flags.Quiet {
			e.stdout = io.Discard
		}
	} else {
		say(fmt.Sprintf("wrote %s", path))
	}
	return c.convert(e, trace, converted)
}

// options are what to record, for package record.
func (c *RecordCmd) options(base string, say func(string)) record.Options {
	return record.Options{Package: c.Package, Cold: c.Cold, Activity: c.Activity, Sampling: c.Sampling,
		Streaming: c.Streaming, OutputVersion: c.OutputVersion, Remote: record.RemoteDir + "/atrace2-" + base,
		Poll: recordPoll, Log: say}
}

// outputs checks the flags and names the files (record.Files): the
// trace's, and the converted file of --convert pprof, perfetto or
// speedscope.
func (c *RecordCmd) outputs(base string) (trace, converted string, err error) {
	ext, ok := recordFormats[c.Convert]
	switch {
	case c.Convert != "" && !ok:
		return "", "", usagef("--convert %q: give pprof, perfetto, speedscope, folded, top or startup", c.Convert)
	case c.Open && ext == "":
		return "", "", usagef("--open opens the result of --convert pprof, perfetto or speedscope")
	case c.NoBrowser && !c.Open:
		return "", "", usagef("--no-browser only makes sense with --open")
	case c.Activity != "" && !c.Cold:
		return "", "", usagef("--activity names the activity --cold launches")
	case c.Duration < 0:
		return "", "", usagef("--duration %v: give a positive duration, such as 10s", c.Duration)
	case c.Output == "-" && c.Convert != "" && ext == "":
		return "", "", usagef("-o - and --convert %s would both write to standard output: give -o FILE", c.Convert)
	}
	trace, converted, err = record.Files(c.Output, base, ext, c.Force)
	if err != nil {
		return "", "", usagef("%v", err)
	}
	return trace, converted, nil
}

// checkGlobals refuses, before anything is recorded, the global options
// that the check or the conversion would refuse afterwards (the load stage
// has checked the others: driver.NewOptions).
func (c *RecordCmd) checkGlobals(o driver.Options) error {
	g := o.Flags
	for _, f := range formats { // a view that refuses the value whatever the trace
		if f.Name == c.Convert && f.Refuse != nil {
			if err := f.Refuse(o.Value); err != nil {
				return usagef("--clock %s: %v", g.Clock, err)
			}
		}
	}
	if c.Convert == "startup" {
		if err := driver.CheckStartup(g); err != nil {
			return err
		}
	}
	if g.Mapping != "" {
		if _, err := os.Stat(g.Mapping); err != nil {
			return fmt.Errorf("--mapping: %w", err)
		}
	}
	return nil
}

// convert reads the recorded trace as atrace2 --convert would (atrace2
// info without --convert: its summary is the check that the trace reads),
// with every global option: the one place where record calls the
// commands that read traces, which go through the load stage. The flags
// are the commands' defaults but for the output's name (converted), the
// process name (the package) and --open.
func (c *RecordCmd) convert(e *env, trace, converted string) error {
	args := []string{trace}
	switch c.Convert {
	case "":
		return (&InfoCmd{Format: "text", Trace: args}).Run(e)
	case "pprof":
		p := PprofCmd{Output: converted, Trace: args}
		if c.Open {
			p.HTTP, p.NoBrowser = "localhost:0", c.NoBrowser
		}
		return p.Run(e)
	case "perfetto", "speedscope", "folded": // as their commands: the output table's rows
		return e.writeOne(formatNamed(c.Convert), args, converted, &openFlags{Open: c.Open, NoBrowser: c.NoBrowser},
			&outputs.Options{ProcessName: c.Package, Value: e.opt.Value})
	case "top":
		return (&TopCmd{Sort: "excl", Limit: 50, reportFlags: reportFlags{Format: "text"}, Trace: args}).Run(e)
	case "startup":
		return (&StartupCmd{Format: "text", Trace: args}).Run(e)
	}
	return usagef("--convert %q: give pprof, perfetto, speedscope, folded, top or startup", c.Convert)
}
