package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// PlatformToolsURL is where adb comes from.
const PlatformToolsURL = "https://developer.android.com/tools/releases/platform-tools"

// FindADB returns the adb binary: the one $ADB names, else adb on PATH.
// getenv is os.Getenv (a parameter so that tests need not change the
// process's environment).
func FindADB(getenv func(string) string) (string, error) {
	if p := getenv("ADB"); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("ADB=%s: %v: set ADB to the adb binary of Android SDK Platform-Tools (%s)", p, unwrapExec(err), PlatformToolsURL)
		}
		return path, nil
	}
	path, err := exec.LookPath("adb")
	if err != nil {
		return "", fmt.Errorf("adb not found on PATH: install Android SDK Platform-Tools (%s, or the SDK's platform-tools folder) and put adb on PATH, or set ADB to the adb binary", PlatformToolsURL)
	}
	return path, nil
}

// unwrapExec keeps the reason of an exec.LookPath error, without the path
// it repeats.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// adb runs the adb client, on one device once Serial is set.
type adb struct {
	path   string
	serial string
	// timeout bounds each command but the copy, which may take minutes.
	timeout time.Duration
}

// result is what an adb command printed and its exit status.
type result struct {
	stdout, stderr string
	exit           int
}

// text is the command's whole output, stdout then stderr, with the
// carriage returns of a pseudo-terminal removed.
func (r result) text() string {
	return strings.ReplaceAll(r.stdout+r.stderr, "\r", "")
}

// args returns the full command line: -s SERIAL, then args.
func (a *adb) args(args []string) []string {
	if a.serial == "" {
		return args
	}
	return append([]string{"-s", a.serial}, args...)
}

// run runs adb with args and returns what it printed; err is set when adb
// could not run or ran out of time, not when it exited with an error (see
// result.transport).
func (a *adb) run(ctx context.Context, args ...string) (result, error) {
	var out, errb bytes.Buffer
	r, err := a.runTo(ctx, &out, &errb, a.timeout, args)
	r.stdout, r.stderr = out.String(), errb.String()
	return r, err
}

// stream runs adb with args and copies its standard output to w, without
// a time limit; the result holds its standard error.
func (a *adb) stream(ctx context.Context, w io.Writer, args ...string) (result, error) {
	var errb bytes.Buffer
	r, err := a.runTo(ctx, w, &errb, 0, args)
	r.stderr = errb.String()
	return r, err
}

func (a *adb) runTo(ctx context.Context, stdout, stderr io.Writer, timeout time.Duration, args []string) (result, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, a.path, a.args(args)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// In a process group of its own, so that the Ctrl-C meant to stop the
	// recording does not kill an adb command on its way (am start -W of a
	// cold start, the copy).
	cmd.SysProcAttr = ownProcessGroup()
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return result{}, nil
	case ctx.Err() != nil:
		return result{exit: -1}, fmt.Errorf("adb %s: no answer within %v", strings.Join(args, " "), timeout)
	case errors.As(err, &ee):
		return result{exit: ee.ExitCode()}, nil
	default:
		return result{exit: -1}, fmt.Errorf("running %s: %v", a.path, err)
	}
}

// transport returns adb's own complaint when the command failed because of
// the connection (the device went away, went offline, or is not
// authorized), "" when the command ran on the device. adb writes these
// lines itself, beginning "error:" or "adb:"; commands on the device
// (am, toybox) write "Error:" or their own name.
func (r result) transport() string {
	if r.exit == 0 {
		return ""
	}
	for _, line := range lines(r.stderr) {
		if strings.HasPrefix(line, "error:") || strings.HasPrefix(line, "adb:") {
			return line
		}
	}
	return ""
}

// lines splits text into its non-blank lines, trimmed, without carriage
// returns.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// shellQuote quotes s for the device's shell, which adb gives the joined
// command line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
