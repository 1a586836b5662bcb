package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The am options record uses, with the API level that brought each. The
// texts are the platform's own (ActivityManagerShellCommand's help and
// parsing from Android 8.0 on, cmds/am's Am.java before); docs/guide.md
// ("Recording") cites the sources.
const (
	// StreamingAPI is Android 8.0, whose am profile start and am start
	// take --streaming ("stream the profiling output to the specified
	// file"). Android 7's Am.java knows --sampling and --wall only.
	StreamingAPI = 26
	// OutputVersionAPI is Android 15, whose am takes
	// --profiler-output-version ("specifies the output format version")
	// and --clock-type. Before it, am profile start answers "Error:
	// Unknown option: --profiler-output-version".
	OutputVersionAPI = 35
)

// profilerArgs are the options of am profile start and of am start
// --start-profiler that Options asks for, checked against the device's
// API level: am does not say that an option is ignored.
func (d *Device) profilerArgs(o *Options) ([]string, error) {
	var args []string
	if o.Sampling > 0 {
		// "--sampling INTERVAL: use sample profiling with INTERVAL
		// microseconds between samples."
		args = append(args, "--sampling", strconv.FormatInt(int64(o.Sampling/time.Microsecond), 10))
	}
	if o.Streaming {
		if d.API < StreamingAPI {
			return nil, fmt.Errorf("--streaming: %s runs %s, and am takes --streaming from Android 8.0 (API %d): record without it", d.Serial, d.Version(), StreamingAPI)
		}
		args = append(args, "--streaming")
	}
	if o.OutputVersion == 2 {
		if d.API < OutputVersionAPI {
			return nil, fmt.Errorf("--output-version 2: %s runs %s, and am takes --profiler-output-version from Android 15 (API %d): record without it, in version 1", d.Serial, d.Version(), OutputVersionAPI)
		}
		args = append(args, "--profiler-output-version", "2")
	}
	return args, nil
}

// amFailure reads what am printed for a command that should print
// nothing (am profile start and stop) or a launch report (am start -W),
// and returns the refusal it reports as one line that says what to do,
// nil when it succeeded. am's exit status is not enough: some failures
// print an error and exit 0 (am start on Android 7 to 10), and Android 7's
// am prints an exception's stack trace or its whole usage before the
// error.
func amFailure(r result, pkg, serial, what string) error {
	text := r.text()
	switch {
	case strings.Contains(text, "Unknown process"):
		// ActivityManagerService.profileControl: the process is not running.
		return fmt.Errorf("%s is not running on %s: start the app first, or record its start with --cold", pkg, serial)
	case strings.Contains(text, "not debuggable"):
		// "Process not debuggable: …" (AMS), "Process not debuggable, and
		// not profileable by shell: …" (AppProfiler, Android 12 on).
		return notDebuggable(pkg, serial)
	case strings.Contains(text, "No space left"):
		return fmt.Errorf("%s is out of storage (%s: No space left on device): free space on the device, then record again", serial, what)
	case strings.Contains(text, "Unable to open file"):
		// ShellCommand.openFileForSystem, Am.java: "Error: Unable to open
		// file: PATH".
		return fmt.Errorf("%s: %s: %s", serial, what, amLine(text))
	}
	line := amLine(text)
	if r.exit != 0 || strings.HasPrefix(line, "Error") || strings.Contains(text, "Exception") || strings.Contains(text, "FAILED") {
		if line == "" {
			line = fmt.Sprintf("exit status %d", r.exit)
		}
		return fmt.Errorf("%s on %s failed: %s", what, serial, line)
	}
	return nil
}

// amLine picks the line of am's output that says what went wrong: an
// "Error: …" line (not am start's "Error type 3", which precedes one),
// else an exception's message, else the first line.
func amLine(text string) string {
	l := lines(text)
	for _, prefix := range []string{"Error:", "Error"} {
		for _, s := range l {
			if strings.HasPrefix(s, prefix) {
				return s
			}
		}
	}
	for _, s := range l {
		if i := strings.Index(s, "Exception: "); i >= 0 && !strings.HasPrefix(s, "at ") {
			return s[i+len("Exception: "):]
		}
	}
	if len(l) > 0 {
		return l[0]
	}
	return ""
}

// launchReport reads am start -W's report: "Status: ok" (or "timeout")
// after the launch, with "Warning: Activity not started, …" when the
// activity was not started anew.
func launchReport(r result) (status, warning string) {
	for _, l := range lines(r.text()) {
		if s, ok := strings.CutPrefix(l, "Status: "); ok {
			status = s
		}
		if strings.HasPrefix(l, "Warning:") {
			warning = l
		}
	}
	return status, warning
}
