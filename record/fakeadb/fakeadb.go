// Package fakeadb stands in for adb in tests, so that atrace2 record is
// tested without a device. A test writes the device's answers as a Script;
// Install saves it in a folder and returns a Fake, whose Path is the
// program to run as adb: the test binary itself, which acts as adb when
// ATRACE2_FAKEADB names that folder (the package's TestMain calls Serve
// before anything else). Each run appends its command line to the
// folder's log (Fake.Lines) and answers with the next reply of the first
// rule its command line matches: a success, a refusal, a size that grows
// from one look to the next, a real trace served by exec-out cat, or a
// connection lost in the middle of that copy.
package fakeadb

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// envDir names the folder of the script a test binary serves as adb.
const envDir = "ATRACE2_FAKEADB"

// Reply is one answer of the fake device.
type Reply struct {
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit,omitempty"`
	// File is a local file served on standard output after Stdout: the
	// trace that exec-out cat copies.
	File string `json:"file,omitempty"`
	// Cut, when not 0, serves only this many bytes of File before Stderr
	// and Exit: a connection lost in the middle of the copy.
	Cut int64 `json:"cut,omitempty"`
	// Delay is waited before answering: a slow device, or a command under
	// way when a signal comes.
	Delay time.Duration `json:"delay,omitempty"`
}

// Rule answers the command lines that match it.
type Rule struct {
	// Match is a whole command line, the arguments joined by single
	// spaces ("-s emulator-5554 shell pidof com.example.app"), where *
	// stands for any text.
	Match string `json:"match"`
	// Replies are the answers to the rule's first, second… match; the
	// last one answers every later match too.
	Replies []Reply `json:"replies"`
}

// Script is a device: the first rule that matches a command line answers
// it. A command line no rule matches gets "fakeadb: no rule" and exit 127.
type Script []Rule

// Fake is an installed script.
type Fake struct {
	dir, exe string
}

// Install saves s for the fake adb and returns it; the files live in a
// temporary folder of t.
func Install(t testing.TB, s Script) *Fake {
	t.Helper()
	dir := t.TempDir()
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "script.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Fake{dir: dir, exe: exe}
}

// Path is the program to run as adb.
func (f *Fake) Path() string { return f.exe }

// Env is the environment a process needs to find the fake as adb: ADB
// and the script's folder.
func (f *Fake) Env() []string { return []string{"ADB=" + f.exe, envDir + "=" + f.dir} }

// Setenv sets Env in the test's own process, for commands run in-process.
func (f *Fake) Setenv(t testing.TB) {
	t.Setenv("ADB", f.exe)
	t.Setenv(envDir, f.dir)
}

// Lines returns the command lines run so far, in order.
func (f *Fake) Lines(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, "log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// Serve acts as adb and exits when the environment names a script, and
// returns otherwise. Call it first in TestMain.
func Serve() {
	dir := os.Getenv(envDir)
	if dir == "" {
		return
	}
	os.Exit(serve(dir, os.Args[1:], os.Stdout, os.Stderr))
}

// serve answers one command line from the script in dir.
func serve(dir string, args []string, stdout, stderr io.Writer) int {
	line := strings.Join(args, " ")
	data, err := os.ReadFile(filepath.Join(dir, "script.json"))
	if err != nil {
		fmt.Fprintln(stderr, "fakeadb:", err)
		return 127
	}
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		fmt.Fprintln(stderr, "fakeadb:", err)
		return 127
	}
	unlock, err := lock(dir)
	if err != nil {
		fmt.Fprintln(stderr, "fakeadb:", err)
		return 127
	}
	reply, found, err := next(dir, s, line)
	unlock()
	if err != nil {
		fmt.Fprintln(stderr, "fakeadb:", err)
		return 127
	}
	if !found {
		fmt.Fprintf(stderr, "fakeadb: no rule matches %q\n", line)
		return 127
	}
	time.Sleep(reply.Delay)
	io.WriteString(stdout, reply.Stdout)
	if reply.File != "" {
		f, err := os.Open(reply.File)
		if err != nil {
			fmt.Fprintln(stderr, "fakeadb:", err)
			return 127
		}
		var r io.Reader = f
		if reply.Cut > 0 {
			r = io.LimitReader(f, reply.Cut)
		}
		_, err = io.Copy(stdout, r)
		f.Close()
		if err != nil {
			return 1 // the reader went away
		}
	}
	io.WriteString(stderr, reply.Stderr)
	return reply.Exit
}

// next logs line and returns the reply of the first rule it matches,
// counting the rule's matches in the folder (each adb run is a process of
// its own). The caller holds the lock.
func next(dir string, s Script, line string) (Reply, bool, error) {
	log, err := os.OpenFile(filepath.Join(dir, "log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return Reply{}, false, err
	}
	_, err = fmt.Fprintln(log, line)
	if cerr := log.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Reply{}, false, err
	}
	for i, rule := range s {
		if !glob(rule.Match).MatchString(line) || len(rule.Replies) == 0 {
			continue
		}
		counter := filepath.Join(dir, "count-"+strconv.Itoa(i))
		data, _ := os.ReadFile(counter)
		n, _ := strconv.Atoi(string(data))
		if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
			return Reply{}, false, err
		}
		return rule.Replies[min(n, len(rule.Replies)-1)], true, nil
	}
	return Reply{}, false, nil
}

// glob turns a Match pattern into a regular expression of the whole line.
func glob(pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`)
}

// lock takes the folder's lock (a directory, which only one process can
// make), for a minute at most: the fake serves one command at a time, as
// the counters need.
func lock(dir string) (unlock func(), err error) {
	name := filepath.Join(dir, "lock")
	for range 6000 {
		if err = os.Mkdir(name, 0o755); err == nil {
			return func() { os.Remove(name) }, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, fmt.Errorf("taking %s: %v", name, err)
}

// Device describes a healthy device for Healthy.
type Device struct {
	Serial  string // "emulator-5554" when empty
	API     int    // 34 when 0
	Release string // "14" when empty
	Package string // the app, installed, debuggable, running with pid 4821
	// Trace is the file the app writes: exec-out cat serves it, and stat
	// sees it empty twice, then half written, then whole; its last bytes
	// (tail -c 5) are a streaming trace's "*end\n".
	Trace string
}

// Healthy returns the rules of a device on which a recording succeeds:
// the only device attached, the app installed, debuggable, running and
// not profiled, 2 GiB free, and the trace written after am profile stop.
// A test puts its own rules first to change one answer.
func Healthy(t testing.TB, d Device) Script {
	t.Helper()
	if d.Serial == "" {
		d.Serial = "emulator-5554"
	}
	if d.API == 0 {
		d.API, d.Release = 34, "14"
	}
	fi, err := os.Stat(d.Trace)
	if err != nil {
		t.Fatal(err)
	}
	size := fi.Size()
	on := "-s " + d.Serial + " "
	ok := func(out string) []Reply { return []Reply{{Stdout: out}} }
	return Script{
		{Match: "devices -l", Replies: ok("List of devices attached\n" + d.Serial + "          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n\n")},
		{Match: on + "shell getprop ro.build.version.sdk; getprop ro.build.version.codename; getprop ro.build.version.release; getprop ro.debuggable",
			Replies: ok(fmt.Sprintf("%d\nREL\n%s\n0\n", d.API, d.Release))},
		{Match: on + "shell pm path " + d.Package, Replies: ok("package:/data/app/~~Xq3==/" + d.Package + "-1/base.apk\n")},
		{Match: on + "shell dumpsys package " + d.Package, Replies: ok("Packages:\n  Package [" + d.Package + "] (1b2c3d):\n    versionCode=1 minSdk=24 targetSdk=34\n    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n")},
		{Match: on + "shell pidof " + d.Package, Replies: ok("4821\n")},
		{Match: on + "shell dumpsys activity processes " + d.Package, Replies: ok("ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)\n  All known processes:\n")},
		{Match: on + "shell df -k /data/local/tmp", Replies: ok("Filesystem     1K-blocks    Used Available Use% Mounted on\n/dev/block/dm-48  6082144 3899936   2097152  66% /data\n")},
		{Match: on + "shell cmd package resolve-activity --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER " + d.Package,
			Replies: ok("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n" + d.Package + "/.MainActivity\n")},
		{Match: on + "shell am profile start *", Replies: ok("")},
		{Match: on + "shell am start -S -W --start-profiler *", Replies: ok("Stopping: " + d.Package + "\nStarting: Intent { cmp=" + d.Package + "/.MainActivity }\nStatus: ok\nLaunchState: COLD\nActivity: " + d.Package + "/.MainActivity\nTotalTime: 412\nWaitTime: 415\nComplete\n")},
		{Match: on + "shell am profile stop " + d.Package, Replies: ok("")},
		{Match: on + "shell stat -c %s *", Replies: []Reply{{Stdout: "0\n"}, {Stdout: "0\n"}, {Stdout: fmt.Sprintf("%d\n", size/2)}, {Stdout: fmt.Sprintf("%d\n", size)}}},
		{Match: on + "shell tail -c 5 *", Replies: ok("*end\n")},
		{Match: on + "exec-out cat *", Replies: []Reply{{File: d.Trace}}},
		{Match: on + "shell rm -f *", Replies: ok("")},
		{Match: on + "wait-for-device", Replies: ok("")},
	}
}
