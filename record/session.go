package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Options say what to record.
type Options struct {
	Package string
	// Cold records a start of the app: am start -S (force-stop, then
	// launch) -W (wait for the launch) --start-profiler FILE. Otherwise
	// the app must be running, and am profile start traces it.
	Cold bool
	// Activity is the activity a cold start launches: a class
	// (".MainActivity", "com.example.app.MainActivity") or a component
	// ("com.example.app/.MainActivity"). "" takes the launcher activity
	// the device resolves.
	Activity string
	// Sampling, when not 0, records in sampling mode at this interval (a
	// whole number of µs) instead of instrumenting every call.
	Sampling time.Duration
	// Streaming has ART write the trace as it goes rather than at the
	// end from a buffer of 8 MiB.
	Streaming bool
	// OutputVersion 2 asks for ART's V2 format; 0 and 1 leave ART's
	// default, version 1.
	OutputVersion int
	// Remote is the file on the device; "" makes a name in RemoteDir.
	Remote string
	// Poll paces the wait for the file (DefaultPoll when zero).
	Poll Poll
	// Log, when set, is told what is going on, one line at a time.
	Log func(string)
}

// RemoteDir is where the trace is written on the device: the folder the
// shell user (adb) and am may both write, which am's own error message
// suggests ("Consider using a file under /data/local/tmp/").
const RemoteDir = "/data/local/tmp"

// Poll paces the wait for the app to finish writing the trace.
type Poll struct {
	Interval time.Duration // between two looks at the file's size
	Settle   int           // this many looks in a row at the same size, not 0: the app is done
	Empty    int           // this many looks at an empty file: the app wrote nothing
	// Reconnect is how long a device that lost its connection has to come
	// back (adb wait-for-device) before the copy is tried again or the
	// clean-up given up.
	Reconnect time.Duration
}

// DefaultPoll looks every quarter second, takes a size that held for a
// second as the end, and gives an app 30 s to start writing.
var DefaultPoll = Poll{Interval: 250 * time.Millisecond, Settle: 4, Empty: 120, Reconnect: 10 * time.Second}

// Session is one recording on a device, from its checks to the removal of
// its file. Cleanup may be called from any goroutine.
type Session struct {
	dev       *Device
	opt       Options
	args      []string // the profiler's options for am
	component string   // the activity a cold start launches

	mu                        sync.Mutex
	started, stopped, removed bool
}

// Prepare checks that the device can record what opt asks for, changing
// nothing on it: the app is installed, debuggable (or the build is),
// running (unless Cold), not profiled already, and the device has room
// for the trace; a cold start's activity is resolved.
func (d *Device) Prepare(ctx context.Context, opt Options) (*Session, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if opt.Poll == (Poll{}) {
		opt.Poll = DefaultPoll
	}
	s := &Session{dev: d, opt: opt}
	var err error
	if s.args, err = d.profilerArgs(&opt); err != nil {
		return nil, err
	}
	if err := d.installed(ctx, opt.Package); err != nil {
		return nil, err
	}
	if err := d.debuggable(ctx, opt.Package); err != nil {
		return nil, err
	}
	if !opt.Cold {
		pid, err := d.pid(ctx, opt.Package)
		if err != nil {
			return nil, err
		}
		if pid == "" {
			return nil, fmt.Errorf("%s is not running on %s: start the app first, or record its start with --cold", opt.Package, d.Serial)
		}
	}
	if err := d.profiling(ctx, opt.Package); err != nil {
		return nil, err
	}
	free, err := d.freeSpace(ctx, RemoteDir)
	if err != nil {
		return nil, err
	}
	if free < MinFree {
		return nil, fmt.Errorf("%s has %s free in %s, and a trace needs %s or more: free space on the device (delete files, or adb shell pm trim-caches 1G), then record again", d.Serial, mib(free), RemoteDir, mib(MinFree))
	}
	if opt.Cold {
		if s.component, err = d.activity(ctx, opt.Package, opt.Activity); err != nil {
			return nil, err
		}
	}
	if s.opt.Remote == "" {
		s.opt.Remote = fmt.Sprintf("%s/atrace2-%s-%s.trace", RemoteDir, opt.Package, time.Now().Format("20060102-150405"))
	}
	return s, nil
}

// Check refuses options that no device could record: a package name that
// is not an application id, a sampling interval that is not a whole
// number of µs, an activity that is not a class or component name.
func (opt *Options) Check() error {
	switch {
	case !packageName.MatchString(opt.Package):
		return fmt.Errorf("%q is not an application id (such as com.example.app)", opt.Package)
	case opt.Sampling < 0 || opt.Sampling > 0 && (opt.Sampling < time.Microsecond || opt.Sampling%time.Microsecond != 0):
		return fmt.Errorf("--sampling %v: give a whole number of microseconds, 1us or more (am takes µs)", opt.Sampling)
	case opt.Activity != "" && !activityName.MatchString(opt.Activity):
		return fmt.Errorf("--activity %q: give a class (.MainActivity, com.example.app.MainActivity) or a component (com.example.app/.MainActivity)", opt.Activity)
	case opt.OutputVersion < 0 || opt.OutputVersion > 2:
		return fmt.Errorf("--output-version %d: give 1 or 2", opt.OutputVersion)
	}
	return nil
}

// mib formats a size in MiB for a message.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// activity returns the component a cold start launches.
func (d *Device) activity(ctx context.Context, pkg, activity string) (string, error) {
	switch {
	case activity == "":
		return d.launcher(ctx, pkg)
	case strings.Contains(activity, "/"):
		return activity, nil
	}
	return pkg + "/" + activity, nil
}

// Remote is the trace's file on the device.
func (s *Session) Remote() string { return s.opt.Remote }

// Component is the activity a cold start launches, "" for a running app.
func (s *Session) Component() string { return s.component }

// Serial is the device's.
func (s *Session) Serial() string { return s.dev.Serial }

// Describe says what Start is about to do, for a progress line:
// "tracing com.example.app on emulator-5554 (Android 14, API 34), every
// call".
func (s *Session) Describe() string {
	what := "tracing " + s.opt.Package
	if s.opt.Cold {
		what = "starting " + s.component + " with the profiler"
	}
	how := "every call"
	if s.opt.Sampling > 0 {
		how = "sampling every " + s.opt.Sampling.String()
	}
	if s.opt.Streaming {
		how += ", streaming"
	}
	if s.opt.OutputVersion == 2 {
		how += ", format V2"
	}
	return fmt.Sprintf("%s on %s (Android %s, API %d), %s", what, s.dev.Serial, s.dev.Release, s.dev.API, how)
}

func (s *Session) log(format string, args ...any) {
	if s.opt.Log != nil {
		s.opt.Log(fmt.Sprintf(format, args...))
	}
}

// Start starts the profiler: am profile start on the running app, or, for
// a cold start, am start -S -W --start-profiler, which returns once the
// activity has launched.
func (s *Session) Start(ctx context.Context) error {
	s.mu.Lock()
	s.started = true // from here on Cleanup stops it, whatever happens
	s.mu.Unlock()
	o := &s.opt
	if !o.Cold {
		cmd := append([]string{"am", "profile", "start"}, s.args...)
		r, err := s.dev.shell(ctx, "starting the profiler", append(cmd, o.Package, o.Remote)...)
		if err != nil {
			return err
		}
		return amFailure(r, o.Package, s.dev.Serial, "am profile start")
	}
	cmd := append([]string{"am", "start", "-S", "-W", "--start-profiler", o.Remote}, s.args...)
	r, err := s.dev.shell(ctx, "starting the app", append(cmd, "-n", shellQuote(s.component))...)
	if err != nil {
		return err
	}
	if strings.Contains(r.text(), "does not exist") {
		return fmt.Errorf("%s: %s: check --activity (adb shell cmd package resolve-activity --brief %s prints the launcher activity)", s.dev.Serial, amLine(r.text()), o.Package)
	}
	if err := amFailure(r, o.Package, s.dev.Serial, "am start"); err != nil {
		return err
	}
	switch status, warning := launchReport(r); {
	case warning != "":
		return fmt.Errorf("am start on %s did not start %s anew (%s): the trace would miss the start", s.dev.Serial, s.component, warning)
	case status == "timeout":
		s.log("the launch of %s did not complete in am start's time; still recording", s.component)
	case status != "ok":
		return fmt.Errorf("am start on %s did not report the launch of %s (%s)", s.dev.Serial, s.component, firstLine(r.text(), "no output"))
	}
	return nil
}

// Stop stops the profiler (am profile stop); the app then writes the rest
// of the trace, which Fetch waits for.
func (s *Session) Stop(ctx context.Context) error {
	r, err := s.dev.shell(ctx, "stopping the profiler", "am", "profile", "stop", s.opt.Package)
	if err != nil {
		return err
	}
	if err := amFailure(r, s.opt.Package, s.dev.Serial, "am profile stop"); err != nil {
		return err
	}
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	return nil
}

// Fetch waits until the app has written the whole trace, then copies it
// into f (adb exec-out cat: no root, no run-as) and returns its size. A
// connection lost during the copy gets one more copy once the device is
// back; a trace that changed during the copy is waited for and copied
// again.
func (s *Session) Fetch(ctx context.Context, f *os.File) (int64, error) {
	retried := false
	for round := 0; ; round++ {
		size, err := s.waitComplete(ctx)
		if err != nil {
			return 0, err
		}
		if err := s.copy(ctx, f, size); err != nil {
			var lost *LostError
			if retried || !errors.As(err, &lost) || !s.reconnect(ctx) {
				return 0, err
			}
			retried = true
			s.log("%s is back: copying the trace again", s.dev.Serial)
			continue
		}
		now, err := s.size(ctx, "checking the copy")
		if err != nil {
			return 0, err
		}
		if now == size {
			return size, s.roomLeft(ctx)
		}
		if round == 2 {
			return 0, fmt.Errorf("%s: %s kept changing after am profile stop (%d bytes, then %d): record again", s.dev.Serial, s.opt.Remote, size, now)
		}
		s.log("the trace grew during the copy: waiting for the app again")
	}
}

// waitComplete polls the file's size until it holds for Poll.Settle looks
// in a row: the app has written the whole trace (ART writes a regular
// trace at the end, key then records). A streaming trace grows while it
// is recorded, and ends with its summary, whose text ends "*end\n" (V1
// and V2, docs/formats.md §8.2, §10.3): its size must hold and its last
// bytes be those, or stay otherwise for Poll.Empty more looks (an app
// that died while streaming leaves no summary).
func (s *Session) waitComplete(ctx context.Context) (int64, error) {
	p := s.opt.Poll
	last, same, empty, unfinished := int64(-1), 0, 0, 0
	for {
		size, err := s.size(ctx, "waiting for the trace")
		if err != nil {
			return 0, err
		}
		switch {
		case size == 0:
			if empty++; empty >= p.Empty {
				return 0, s.wroteNothing(ctx)
			}
		case size == last:
			if same++; same < p.Settle {
				break
			}
			if !s.opt.Streaming {
				return size, nil
			}
			done, err := s.summarized(ctx)
			if err != nil {
				return 0, err
			}
			if done {
				return size, nil
			}
			if unfinished += same; unfinished >= p.Empty {
				s.log("the streaming trace ends without its summary (the app may have stopped streaming early): copying it as it is")
				return size, nil
			}
			same = 0
		default:
			last, same = size, 0
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(p.Interval):
		}
	}
}

// summarized reports whether the trace ends with the end of a streaming
// trace's summary, "*end\n".
func (s *Session) summarized(ctx context.Context) (bool, error) {
	r, err := s.dev.shell(ctx, "waiting for the trace's summary", "tail", "-c", "5", s.opt.Remote)
	if err != nil {
		return false, err
	}
	return r.exit == 0 && r.stdout == "*end\n", nil
}

// size returns the size of the trace on the device.
func (s *Session) size(ctx context.Context, doing string) (int64, error) {
	r, err := s.dev.shell(ctx, doing, "stat", "-c", "%s", s.opt.Remote)
	if err != nil {
		return 0, err
	}
	n, err := parseSize(r.stdout)
	if r.exit != 0 || err != nil {
		return 0, fmt.Errorf("%s: %s is gone from the device (%s): record again", s.dev.Serial, s.opt.Remote, firstLine(r.text(), "stat printed nothing"))
	}
	return n, nil
}

// parseSize reads stat -c %s: the size in bytes.
func parseSize(out string) (int64, error) {
	var n int64
	f := strings.TrimSpace(strings.ReplaceAll(out, "\r", ""))
	if _, err := fmt.Sscan(f, &n); err != nil || n < 0 || fmt.Sprint(n) != f {
		return 0, fmt.Errorf("stat printed %q, not a size", f)
	}
	return n, nil
}

// wroteNothing explains an app that wrote no trace after am profile stop.
func (s *Session) wroteNothing(ctx context.Context) error {
	wait := s.opt.Poll.Interval * time.Duration(s.opt.Poll.Empty)
	pid, err := s.dev.pid(ctx, s.opt.Package)
	if err == nil && pid == "" {
		return fmt.Errorf("%s stopped running on %s before it wrote the trace (it crashed, or was killed): record again", s.opt.Package, s.dev.Serial)
	}
	return fmt.Errorf("%s wrote no trace in %v after am profile stop: the app ignores a profiler while it traces already (Debug.startMethodTracing in its code, or another tool): stop that tracing, then record again", s.opt.Package, wait.Round(time.Second))
}

// copy copies the trace, which has size bytes, into f.
func (s *Session) copy(ctx context.Context, f *os.File, size int64) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w := &countingWriter{w: f}
	r, err := s.dev.adb.stream(ctx, w, "exec-out", "cat", s.opt.Remote)
	switch {
	case w.err != nil:
		return fmt.Errorf("writing the trace: %w", w.err)
	case err != nil:
		return fmt.Errorf("%s: copying the trace: %v", s.dev.Serial, err)
	case r.transport() != "":
		return &LostError{Serial: s.dev.Serial, Doing: fmt.Sprintf("copying the trace (%d of %d bytes)", w.n, size), ADB: r.transport()}
	case r.exit != 0:
		return fmt.Errorf("%s: copying %s failed: %s", s.dev.Serial, s.opt.Remote, firstLine(r.text(), fmt.Sprintf("exit status %d", r.exit)))
	case w.n != size:
		return &LostError{Serial: s.dev.Serial, Doing: "copying the trace", ADB: fmt.Sprintf("got %d of %d bytes", w.n, size)}
	}
	return nil
}

// countingWriter counts what it writes and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// roomLeft refuses a trace written on a full device: ART stops writing
// when the storage fills up, and leaves a file that looks complete.
func (s *Session) roomLeft(ctx context.Context) error {
	free, err := s.dev.freeSpace(ctx, RemoteDir)
	if err != nil {
		return err
	}
	if free < 1<<20 {
		return fmt.Errorf("%s ran out of storage while the app wrote the trace (%s free in %s): free space on the device, then record again", s.dev.Serial, mib(free), RemoteDir)
	}
	return nil
}

// reconnect waits up to Poll.Reconnect for the device to answer again.
func (s *Session) reconnect(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, s.opt.Poll.Reconnect)
	defer cancel()
	r, err := s.dev.adb.run(ctx, "wait-for-device")
	return err == nil && r.exit == 0
}

// Remove removes the trace from the device.
func (s *Session) Remove(ctx context.Context) error {
	r, err := s.dev.shell(ctx, "removing the trace from the device", "rm", "-f", s.opt.Remote)
	if err != nil {
		return err
	}
	if r.exit != 0 {
		return fmt.Errorf("%s: removing %s failed: %s", s.dev.Serial, s.opt.Remote, firstLine(r.text(), fmt.Sprintf("exit status %d", r.exit)))
	}
	s.mu.Lock()
	s.removed = true
	s.mu.Unlock()
	return nil
}

// Cleanup leaves the device as it found it, whatever happened: it stops
// the profiler when Start ran and Stop did not, and removes the file.
// When the device does not answer, it waits Poll.Reconnect for it to come
// back and tries once more. It returns what it could not do as one line
// that says how to do it by hand, "" when done. It may run more than
// once, and on a signal's goroutine while another step is under way.
func (s *Session) Cleanup() string {
	ctx, cancel := context.WithTimeout(context.Background(), s.opt.Poll.Reconnect+2*s.dev.adb.timeout)
	defer cancel()
	err := s.cleanup(ctx)
	var lost *LostError
	if errors.As(err, &lost) && s.reconnect(ctx) {
		err = s.cleanup(ctx)
	}
	if err == nil {
		return ""
	}
	s.mu.Lock()
	stop := s.started && !s.stopped
	s.mu.Unlock()
	by := "adb -s " + s.dev.Serial + " shell "
	todo := by + "rm -f " + s.opt.Remote
	if stop {
		todo = by + "am profile stop " + s.opt.Package + "; " + todo
	}
	return fmt.Sprintf("could not clean up %s (%v); when it is back, run: %s", s.dev.Serial, err, todo)
}

func (s *Session) cleanup(ctx context.Context) error {
	s.mu.Lock()
	stop, remove := s.started && !s.stopped, !s.removed
	s.mu.Unlock()
	if stop {
		if err := s.Stop(ctx); err != nil {
			var lost *LostError
			if errors.As(err, &lost) {
				return err
			}
			// am answered, so the profiler is not running: whatever it
			// said, it stopped nothing more. The file goes anyway.
		}
	}
	if remove {
		return s.Remove(ctx)
	}
	return nil
}
