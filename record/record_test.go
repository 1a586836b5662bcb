package record

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/record/fakeadb"
)

func TestMain(m *testing.M) {
	fakeadb.Serve() // the test binary is also the fake adb
	os.Exit(m.Run())
}

const (
	pkg    = "com.example.app"
	remote = "/data/local/tmp/x.trace"
	on     = "-s emulator-5554 "
)

// fast polls without waiting: the fake's answers, not time, decide.
var fast = Poll{Interval: time.Millisecond, Settle: 2, Empty: 5, Reconnect: 2 * time.Second}

func reply(out string) []fakeadb.Reply { return []fakeadb.Reply{{Stdout: out}} }

// connect is device with the fake's environment set first: the fake is
// found through ATRACE2_FAKEADB in the child's environment.
func connect(t *testing.T, api int, rules ...fakeadb.Rule) (*Device, *fakeadb.Fake, error) {
	t.Helper()
	release := map[int]string{23: "6.0", 24: "7.0", 25: "7.1.2", 26: "8.0.0", 34: "14", 35: "15", 36: "16"}[api]
	s := append(fakeadb.Script(rules), fakeadb.Healthy(t, fakeadb.Device{API: api, Release: release, Package: pkg, Trace: testutil.SampleTrace(t)})...)
	f := fakeadb.Install(t, s)
	f.Setenv(t)
	d, err := Connect(context.Background(), Config{ADB: f.Path()})
	return d, f, err
}

// record runs a whole recording the way atrace2 record does, and returns
// the copy, the first error and the command lines.
func record(t *testing.T, d *Device, f *fakeadb.Fake, opt Options) ([]byte, error) {
	t.Helper()
	ctx := context.Background()
	if opt.Package == "" {
		opt.Package = pkg
	}
	if opt.Remote == "" {
		opt.Remote = remote
	}
	if opt.Poll == (Poll{}) {
		opt.Poll = fast
	}
	s, err := d.Prepare(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer func() {
		if msg := s.Cleanup(); msg != "" {
			t.Logf("cleanup: %s", msg)
		}
	}()
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	if err := s.Stop(ctx); err != nil {
		return nil, err
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "copy.trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := s.Fetch(ctx, out); err != nil {
		return nil, err
	}
	if err := s.Remove(ctx); err != nil {
		return nil, err
	}
	return os.ReadFile(out.Name())
}

// wantLines compares the fake's log with want, the lines after Connect's
// two (devices -l and getprop).
func wantLines(t *testing.T, f *fakeadb.Fake, want ...string) {
	t.Helper()
	got := f.Lines(t)
	if len(got) < 2 || got[0] != "devices -l" || !strings.HasPrefix(got[1], on+"shell getprop ro.build.version.sdk") {
		t.Fatalf("Connect ran %q", got)
	}
	if !slices.Equal(got[2:], want) {
		t.Errorf("command lines:\n%s\nwant:\n%s", strings.Join(got[2:], "\n"), strings.Join(want, "\n"))
	}
}

// stats is n looks at the file's size.
func stats(n int) []string {
	return slices.Repeat([]string{on + "shell stat -c %s " + remote}, n)
}

func TestRecordRunningApp(t *testing.T) {
	d, f, err := connect(t, 34)
	if err != nil {
		t.Fatal(err)
	}
	if d.Serial != "emulator-5554" || d.API != 34 || d.Release != "14" || d.Debuggable || d.Model != "sdk_gphone64_x86_64" {
		t.Errorf("device %+v", d)
	}
	got, err := record(t, d, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(testutil.SampleTrace(t))
	if !bytes.Equal(got, want) {
		t.Errorf("copied %d bytes, not the %d of the trace", len(got), len(want))
	}
	// The size reads 0, 0, half, whole, whole, whole: done at the second
	// repeat (Settle 2); one more look after the copy.
	wantLines(t, f, append(append([]string{
		on + "shell pm path " + pkg,
		on + "shell dumpsys package " + pkg,
		on + "shell pidof " + pkg,
		on + "shell dumpsys activity processes " + pkg,
		on + "shell df -k /data/local/tmp",
		on + "shell am profile start " + pkg + " " + remote,
		on + "shell am profile stop " + pkg,
	}, stats(6)...),
		on+"exec-out cat "+remote,
		on+"shell stat -c %s "+remote,
		on+"shell df -k /data/local/tmp",
		on+"shell rm -f "+remote,
	)...)
}

func TestRecordColdStart(t *testing.T) {
	d, f, err := connect(t, 34)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record(t, d, f, Options{Cold: true, Sampling: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	got := f.Lines(t)
	// No pidof: the app need not run.
	want := []string{
		on + "shell pm path " + pkg,
		on + "shell dumpsys package " + pkg,
		on + "shell dumpsys activity processes " + pkg,
		on + "shell df -k /data/local/tmp",
		on + "shell cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER " + pkg,
		on + "shell am start -S -W --start-profiler " + remote + " --sampling 1000 -n 'com.example.app/.MainActivity'",
		on + "shell am profile stop " + pkg,
	}
	if !slices.Equal(got[2:9], want) {
		t.Errorf("command lines:\n%s\nwant:\n%s", strings.Join(got[2:9], "\n"), strings.Join(want, "\n"))
	}
}

// TestOptionsByAPI: each option goes to am only on a device whose am
// takes it, and is refused with one line naming the API level elsewhere.
func TestOptionsByAPI(t *testing.T) {
	for _, c := range []struct {
		api  int
		opt  Options
		want string // the am command, or the refusal
	}{
		{24, Options{}, "am profile start com.example.app " + remote},
		{24, Options{Sampling: 250 * time.Microsecond}, "am profile start --sampling 250 com.example.app " + remote},
		{24, Options{Streaming: true}, "--streaming: emulator-5554 runs Android 7.0 (API 24), and am takes --streaming from Android 8.0 (API 26): record without it"},
		{25, Options{Cold: true, Streaming: true}, "--streaming: emulator-5554 runs Android 7.1.2 (API 25), and am takes --streaming from Android 8.0 (API 26): record without it"},
		{26, Options{Streaming: true}, "am profile start --streaming com.example.app " + remote},
		{26, Options{Cold: true, Streaming: true, Activity: ".Main$Inner"}, "am start -S -W --start-profiler " + remote + " --streaming -n 'com.example.app/.Main$Inner'"},
		{34, Options{OutputVersion: 2}, "--output-version 2: emulator-5554 runs Android 14 (API 34), and am takes --profiler-output-version from Android 15 (API 35): record without it, in version 1"},
		{34, Options{OutputVersion: 1}, "am profile start com.example.app " + remote},
		{35, Options{OutputVersion: 2, Streaming: true, Sampling: time.Millisecond}, "am profile start --sampling 1000 --streaming --profiler-output-version 2 com.example.app " + remote},
		{36, Options{Cold: true, OutputVersion: 2, Activity: "com.other/.Main"}, "am start -S -W --start-profiler " + remote + " --profiler-output-version 2 -n 'com.other/.Main'"},
	} {
		d, f, err := connect(t, c.api)
		if err != nil {
			t.Fatal(err)
		}
		_, err = record(t, d, f, c.opt)
		if strings.HasPrefix(c.want, "am ") {
			if err != nil {
				t.Errorf("API %d %+v: %v", c.api, c.opt, err)
			} else if !slices.Contains(f.Lines(t), on+"shell "+c.want) {
				t.Errorf("API %d %+v: ran\n%s\nwant %s", c.api, c.opt, strings.Join(f.Lines(t), "\n"), c.want)
			}
			continue
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("API %d %+v: %v\nwant %s", c.api, c.opt, err, c.want)
		}
		for _, l := range f.Lines(t) {
			if strings.Contains(l, " am ") {
				t.Errorf("API %d %+v: ran %s after refusing", c.api, c.opt, l)
			}
		}
	}
}

func TestOldAndPreviewDevices(t *testing.T) {
	_, _, err := connect(t, 23)
	if want := "emulator-5554 runs Android 6.0 (API 23): atrace2 record needs Android 7.0 (API 24) or later; record there with Android Studio, or am profile start and stop by hand"; err == nil || err.Error() != want {
		t.Errorf("API 23: %v\nwant %s", err, want)
	}
	// A preview of Android 15 reports SDK 34 and its codename: it is
	// API 35 for am's options.
	d, _, err := connect(t, 34, fakeadb.Rule{Match: on + "shell getprop *", Replies: reply("34\nVanillaIceCream\nVanillaIceCream\n0\n")})
	if err != nil {
		t.Fatal(err)
	}
	if d.API != 35 {
		t.Errorf("preview: API %d, want 35", d.API)
	}
}

// TestRefusals: every refusal of the device is one line that says what
// to do, and nothing is left running or on the device.
func TestRefusals(t *testing.T) {
	notRunning := fakeadb.Reply{Exit: 1}
	for _, c := range []struct {
		name  string
		opt   Options
		rules []fakeadb.Rule
		want  string
		// last is the last command line: the refusal's, or the clean-up's.
		last string
	}{
		{"not installed", Options{}, []fakeadb.Rule{{Match: on + "shell pm path *", Replies: []fakeadb.Reply{{Exit: 1}}}},
			"com.example.app is not installed on emulator-5554: install the app (adb install), or check the name (adb shell pm list packages)",
			on + "shell pm path " + pkg},
		{"not running", Options{}, []fakeadb.Rule{{Match: on + "shell pidof *", Replies: []fakeadb.Reply{notRunning}}},
			"com.example.app is not running on emulator-5554: start the app first, or record its start with --cold",
			on + "shell pidof " + pkg},
		{"not debuggable", Options{}, []fakeadb.Rule{{Match: on + "shell dumpsys package *", Replies: reply("    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n")}},
			`com.example.app is not debuggable and emulator-5554 runs a user build: method tracing needs a debuggable build of the app (the debug build type, or android:debuggable="true") or a userdebug or eng device`,
			on + "shell dumpsys package " + pkg},
		{"storage full", Options{}, []fakeadb.Rule{{Match: on + "shell df *", Replies: reply("Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/dm-48 6082144 6077024 5120 99% /data\n")}},
			"emulator-5554 has 5.0 MiB free in /data/local/tmp, and a trace needs 16.0 MiB or more: free space on the device (delete files, or adb shell pm trim-caches 1G), then record again",
			on + "shell df -k /data/local/tmp"},
		{"profiling already", Options{}, []fakeadb.Rule{{Match: on + "shell dumpsys activity processes *", Replies: reply("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n  mProfileApp=com.example.app mProfileProc=ProcessRecord{5f1c2d0 4821:com.example.app/u0a190}\n  mProfileFile=/data/local/tmp/studio.trace mProfileFd={ParcelFileDescriptor: java.io.FileDescriptor@1a2b3c}\n  mSamplingInterval=0 mAutoStopProfiler=false mStreamingOutput=true\n")}},
			"com.example.app is already being profiled on emulator-5554 (by am profile or Android Studio, into /data/local/tmp/studio.trace): stop that first (adb shell am profile stop com.example.app), then record again",
			on + "shell dumpsys activity processes " + pkg},
		{"no launcher activity", Options{Cold: true}, []fakeadb.Rule{{Match: on + "shell cmd package resolve-activity *", Replies: reply("No activity found\n")}},
			"com.example.app has no launcher activity on emulator-5554 (cmd package resolve-activity found none): name the activity to start with --activity",
			on + "shell cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER " + pkg},
		// The app stopped between the checks and the start (Android 8 on:
		// the shell command prints the exception and exits 255).
		{"gone at the start", Options{}, []fakeadb.Rule{{Match: on + "shell am profile start *", Replies: []fakeadb.Reply{{Stderr: "\nException occurred while executing 'profile':\njava.lang.IllegalArgumentException: Unknown process: com.example.app\n\tat com.android.server.am.ActivityManagerService.profileControl(ActivityManagerService.java:17107)\n", Exit: 255}}}},
			"com.example.app is not running on emulator-5554: start the app first, or record its start with --cold",
			on + "shell rm -f " + remote},
		// Android 7's Am.java prints the stack trace of the
		// SecurityException and exits 1.
		{"debuggable check of am", Options{}, []fakeadb.Rule{{Match: on + "shell am profile start *", Replies: []fakeadb.Reply{{Stderr: "java.lang.SecurityException: Process not debuggable: ProcessRecord{3d1f0a 4821:com.example.app/u0a190}\n\tat android.os.Parcel.readException(Parcel.java:1684)\n", Exit: 1}}}},
			`com.example.app is not debuggable and emulator-5554 runs a user build: method tracing needs a debuggable build of the app (the debug build type, or android:debuggable="true") or a userdebug or eng device`,
			on + "shell rm -f " + remote},
		{"cannot open the file", Options{}, []fakeadb.Rule{{Match: on + "shell am profile start *", Replies: []fakeadb.Reply{{Stderr: "Error: Unable to open file: /data/local/tmp/x.trace\nConsider using a file under /data/local/tmp/\n", Exit: 255}}}},
			"emulator-5554: am profile start: Error: Unable to open file: /data/local/tmp/x.trace",
			on + "shell rm -f " + remote},
		{"profile failed", Options{}, []fakeadb.Rule{{Match: on + "shell am profile start *", Replies: []fakeadb.Reply{{Stderr: "PROFILE FAILED on process com.example.app\n", Exit: 255}}}},
			"am profile start on emulator-5554 failed: PROFILE FAILED on process com.example.app",
			on + "shell rm -f " + remote},
		// am start reports an unknown class on stdout and, up to Android
		// 10, exits 0.
		{"no such activity", Options{Cold: true, Activity: ".Nope"}, []fakeadb.Rule{{Match: on + "shell am start *", Replies: reply("Stopping: com.example.app\nStarting: Intent { cmp=com.example.app/.Nope }\nError type 3\nError: Activity class {com.example.app/com.example.app.Nope} does not exist.\n")}},
			"emulator-5554: Error: Activity class {com.example.app/com.example.app.Nope} does not exist.: check --activity (adb shell cmd package resolve-activity --brief com.example.app prints the launcher activity)",
			on + "shell rm -f " + remote},
		{"storage filled up", Options{}, []fakeadb.Rule{{Match: on + "shell df *", Replies: []fakeadb.Reply{
			{Stdout: "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/dm-48 6082144 3899936 2097152 66% /data\n"},
			{Stdout: "Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/dm-48 6082144 6081632 512 99% /data\n"}}}},
			"emulator-5554 ran out of storage while the app wrote the trace (0.5 MiB free in /data/local/tmp): free space on the device, then record again",
			on + "shell rm -f " + remote},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, f, err := connect(t, 34, c.rules...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = record(t, d, f, c.opt)
			if err == nil || err.Error() != c.want {
				t.Fatalf("%v\nwant %s", err, c.want)
			}
			got := f.Lines(t)
			if last := got[len(got)-1]; last != c.last {
				t.Errorf("last command %q, want %q", last, c.last)
			}
			// After a start, the clean-up stops the profiler and removes
			// the file; before it, the device saw no am command.
			started := slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "am profile start") || strings.Contains(l, "am start") })
			if started && !slices.Contains(got, on+"shell am profile stop "+pkg) {
				t.Errorf("the profiler was not stopped:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

func TestDebuggableBuild(t *testing.T) {
	// ro.debuggable=1: every app can be traced, so no flag is read.
	d, f, err := connect(t, 34, fakeadb.Rule{Match: on + "shell getprop *", Replies: reply("34\nREL\n14\n1\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Debuggable {
		t.Fatal("ro.debuggable=1 not read")
	}
	if _, err := record(t, d, f, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, l := range f.Lines(t) {
		if strings.Contains(l, "dumpsys package") {
			t.Errorf("read the app's flags on a debuggable build: %s", l)
		}
	}
}

// TestTraceGrowsDuringCopy: a streaming trace whose summary comes after
// the copy began is waited for and copied again.
func TestTraceGrowsDuringCopy(t *testing.T) {
	trace := testutil.SampleTrace(t)
	data, _ := os.ReadFile(trace)
	partial := filepath.Join(t.TempDir(), "partial.trace")
	os.WriteFile(partial, data[:1000], 0o644)
	d, f, err := connect(t, 34,
		fakeadb.Rule{Match: on + "shell stat -c %s *", Replies: []fakeadb.Reply{
			{Stdout: "1000\n"}, {Stdout: "1000\n"}, {Stdout: "1000\n"}, // settled too early
			{Stdout: "60224\n"}, // after the copy: it grew
		}},
		fakeadb.Rule{Match: on + "exec-out cat *", Replies: []fakeadb.Reply{{File: partial}, {File: trace}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := record(t, d, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("copied %d bytes, want the whole %d", len(got), len(data))
	}
	if n := strings.Count(strings.Join(f.Lines(t), "\n"), "exec-out cat"); n != 2 {
		t.Errorf("%d copies, want 2", n)
	}
}

// TestConnectionLostMidCopy: adb loses the device in the middle of the
// copy; once the device is back, the copy is made again and checked.
func TestConnectionLostMidCopy(t *testing.T) {
	trace := testutil.SampleTrace(t)
	data, _ := os.ReadFile(trace)
	d, f, err := connect(t, 34, fakeadb.Rule{Match: on + "exec-out cat *", Replies: []fakeadb.Reply{
		{File: trace, Cut: 20000, Stderr: "error: device 'emulator-5554' not found\n", Exit: 1},
		{File: trace},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := record(t, d, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("copied %d bytes, want %d", len(got), len(data))
	}
	lines := f.Lines(t)
	i := slices.Index(lines, on+"wait-for-device")
	if i < 0 || lines[i-1] != on+"exec-out cat "+remote || lines[len(lines)-1] != on+"shell rm -f "+remote {
		t.Errorf("command lines:\n%s", strings.Join(lines, "\n"))
	}
}

// TestConnectionLostForGood: the device does not come back; the error
// says so, and the clean-up says what is left on the device.
func TestConnectionLostForGood(t *testing.T) {
	gone := fakeadb.Reply{Stderr: "error: device 'emulator-5554' not found\n", Exit: 1}
	ctx := context.Background()
	d, _, err := connect(t, 34)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Prepare(ctx, Options{Package: pkg, Remote: remote, Poll: Poll{Interval: time.Millisecond, Settle: 2, Empty: 5, Reconnect: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// From now on the device is gone.
	f2 := fakeadb.Install(t, fakeadb.Script{
		{Match: on + "wait-for-device", Replies: []fakeadb.Reply{{Delay: time.Second}}},
		{Match: "*", Replies: []fakeadb.Reply{gone}},
	})
	f2.Setenv(t)
	err = s.Stop(ctx)
	want := "lost the connection to emulator-5554 while stopping the profiler (error: device 'emulator-5554' not found): reconnect it (adb devices lists it when it is back) and record again"
	var lost *LostError
	if !errors.As(err, &lost) || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
	msg := s.Cleanup()
	want = "could not clean up emulator-5554 (lost the connection to emulator-5554 while stopping the profiler (error: device 'emulator-5554' not found): reconnect it (adb devices lists it when it is back) and record again); when it is back, run: adb -s emulator-5554 shell am profile stop com.example.app; adb -s emulator-5554 shell rm -f /data/local/tmp/x.trace"
	if msg != want {
		t.Errorf("cleanup: %s\nwant %s", msg, want)
	}
	if l := f2.Lines(t); !slices.Contains(l, on+"wait-for-device") || !slices.Contains(l, on+"shell am profile stop "+pkg) {
		t.Errorf("cleanup ran:\n%s", strings.Join(l, "\n"))
	}
}

func TestWroteNothing(t *testing.T) {
	empty := fakeadb.Rule{Match: on + "shell stat -c %s *", Replies: reply("0\n")}
	d, f, err := connect(t, 34, empty)
	if err != nil {
		t.Fatal(err)
	}
	_, err = record(t, d, f, Options{})
	want := "com.example.app wrote no trace in 0s after am profile stop: the app ignores a profiler while it traces already (Debug.startMethodTracing in its code, or another tool): stop that tracing, then record again"
	if err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
	if n := strings.Count(strings.Join(f.Lines(t), "\n"), "stat -c"); n != fast.Empty {
		t.Errorf("%d looks at the size, want %d", n, fast.Empty)
	}
	// The app died: pidof finds it before the start, not after the stop.
	d, f, err = connect(t, 34, empty, fakeadb.Rule{Match: on + "shell pidof *", Replies: []fakeadb.Reply{{Stdout: "4821\n"}, {Exit: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = record(t, d, f, Options{})
	want = "com.example.app stopped running on emulator-5554 before it wrote the trace (it crashed, or was killed): record again"
	if err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
}

func TestCleanupAfterSuccessDoesNothing(t *testing.T) {
	d, f, err := connect(t, 34)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := record(t, d, f, Options{}); err != nil { // its deferred Cleanup ran
		t.Fatal(err)
	}
	got := f.Lines(t)
	if got[len(got)-1] != on+"shell rm -f "+remote || strings.Count(strings.Join(got, "\n"), "rm -f") != 1 {
		t.Errorf("command lines:\n%s", strings.Join(got, "\n"))
	}
}

func TestUntil(t *testing.T) {
	ctx := context.Background()
	if got := Until(ctx, strings.NewReader("\n"), time.Time{}, nil); got != StoppedByEnter {
		t.Errorf("Enter: %q", got)
	}
	// A closed input is not a stop: the deadline is.
	if got := Until(ctx, strings.NewReader("no newline"), time.Now().Add(20*time.Millisecond), nil); got != StoppedByDuration {
		t.Errorf("EOF then deadline: %q", got)
	}
	intr := make(chan os.Signal, 1)
	intr <- os.Interrupt
	if got := Until(ctx, strings.NewReader(""), time.Time{}, intr); got != StoppedByInterrupt {
		t.Errorf("interrupt: %q", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got := Until(cctx, nil, time.Time{}, nil); got != "" {
		t.Errorf("cancelled: %q", got)
	}
}

// TestStreamingWaitsForSummary: a streaming trace whose size holds before
// ART has written its summary is waited for until its last bytes are the
// summary's "*end\n", and copied as it is, with a word, when the summary
// never comes.
func TestStreamingWaitsForSummary(t *testing.T) {
	d, f, err := connect(t, 34,
		fakeadb.Rule{Match: on + "shell stat -c %s *", Replies: []fakeadb.Reply{
			{Stdout: "30000\n"}, {Stdout: "30000\n"}, {Stdout: "30000\n"}, // the records, streamed
			{Stdout: "60224\n"}, // then the summary
		}},
		fakeadb.Rule{Match: on + "shell tail -c 5 *", Replies: []fakeadb.Reply{{Stdout: "\x00\x01\x02\x03\x04"}, {Stdout: "*end\n"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	if _, err := record(t, d, f, Options{Streaming: true, Log: func(s string) { log = append(log, s) }}); err != nil {
		t.Fatal(err)
	}
	// Settled at 30000 (third look): no summary; at 60224 (fourth, fifth,
	// sixth look): the summary. One look after the copy.
	want := []string{on + "shell am profile start --streaming com.example.app " + remote, on + "shell am profile stop " + pkg}
	want = append(append(append(want, stats(3)...), on+"shell tail -c 5 "+remote), stats(3)...)
	want = append(want, on+"shell tail -c 5 "+remote, on+"exec-out cat "+remote)
	got := f.Lines(t)
	i := slices.Index(got, want[0])
	if i < 0 || len(got) < i+len(want) || !slices.Equal(got[i:i+len(want)], want) {
		t.Errorf("command lines:\n%s\nwant, from the start:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(log) != 0 {
		t.Errorf("log %q", log)
	}

	// The summary never comes: after Poll.Empty looks at a size that
	// holds, the trace is copied as it is.
	d, f, err = connect(t, 34, fakeadb.Rule{Match: on + "shell tail -c 5 *", Replies: reply("\x00\x01\x02\x03\x04")})
	if err != nil {
		t.Fatal(err)
	}
	log = nil
	if _, err := record(t, d, f, Options{Streaming: true, Log: func(s string) { log = append(log, s) }}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"the streaming trace ends without its summary (the app may have stopped streaming early): copying it as it is"}; !slices.Equal(log, want) {
		t.Errorf("log %q, want %q", log, want)
	}
}
