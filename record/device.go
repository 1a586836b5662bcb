package record

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MinAPI is the oldest API level record supports, Android 7.0: adb
// reports the exit status of shell commands from there on (its shell
// protocol), cmd package resolve-activity finds a cold start's activity,
// and am profile start takes --sampling (docs/guide.md, "Recording").
const MinAPI = 24

// Config says how to reach the device.
type Config struct {
	ADB    string // the adb binary (FindADB)
	Serial string // -s or ANDROID_SERIAL; "" takes the only device
	// Timeout bounds each adb command but the copy of the trace; 0 means
	// 30 s.
	Timeout time.Duration
}

// Device is a device chosen and found fit to record on.
type Device struct {
	adb     *adb
	Serial  string
	Model   string // from adb devices -l, "" when adb does not say
	API     int    // the API level; a preview build counts as the release it previews
	Release string // ro.build.version.release, such as "14"
	// Debuggable is ro.debuggable=1: a userdebug or eng build, on which
	// every app can be traced, debuggable or not.
	Debuggable bool
}

// Connect finds the device (Config.Serial, else the only one adb lists)
// and reads its Android version.
func Connect(ctx context.Context, c Config) (*Device, error) {
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	a := &adb{path: c.ADB, timeout: c.Timeout}
	r, err := a.run(ctx, "devices", "-l")
	if err != nil {
		return nil, err
	}
	if r.exit != 0 {
		return nil, fmt.Errorf("adb devices failed: %s", firstLine(r.text(), "no output"))
	}
	l, err := chooseDevice(parseDevices(r.stdout), c.Serial)
	if err != nil {
		return nil, err
	}
	a.serial = l.serial
	d := &Device{adb: a, Serial: l.serial, Model: l.model}
	r, err = d.shell(ctx, "reading the Android version", "getprop ro.build.version.sdk; getprop ro.build.version.codename; getprop ro.build.version.release; getprop ro.debuggable")
	if err != nil {
		return nil, err
	}
	p, err := parseProps(r.stdout)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the Android version: %v", d.Serial, err)
	}
	d.API, d.Release, d.Debuggable = p.api, p.release, p.debuggable
	if d.API < MinAPI {
		return nil, fmt.Errorf("%s runs %s: atrace2 record needs Android 7.0 (API %d) or later; record there with Android Studio, or am profile start and stop by hand", d.Serial, d.Version(), MinAPI)
	}
	return d, nil
}

// Version names the device's Android version: "Android 14 (API 34)".
func (d *Device) Version() string {
	return fmt.Sprintf("Android %s (API %d)", d.Release, d.API)
}

// LostError is the connection to the device lost in the middle: adb's own
// complaint, such as "error: device 'emulator-5554' not found".
type LostError struct {
	Serial string
	Doing  string // what was under way: "copying the trace"
	ADB    string // adb's line
}

func (e *LostError) Error() string {
	return fmt.Sprintf("lost the connection to %s while %s (%s): reconnect it (adb devices lists it when it is back) and record again", e.Serial, e.Doing, e.ADB)
}

// shell runs a command on the device. A failure of the connection is a
// *LostError that names doing; a command that ran and failed is the
// caller's to judge from the result.
func (d *Device) shell(ctx context.Context, doing string, cmd ...string) (result, error) {
	r, err := d.adb.run(ctx, append([]string{"shell"}, cmd...)...)
	if err != nil {
		return r, fmt.Errorf("%s: %s: %v", d.Serial, doing, err)
	}
	if t := r.transport(); t != "" {
		return r, &LostError{Serial: d.Serial, Doing: doing, ADB: t}
	}
	return r, nil
}

// props are the system properties Connect reads.
type props struct {
	api        int
	release    string
	debuggable bool
}

// parseProps reads the four getprop lines Connect asks for: the SDK
// level, the codename ("REL" for a release; a preview's name, such as
// "Baklava", counts as the next level), the release and ro.debuggable.
func parseProps(out string) (props, error) {
	l := strings.Split(strings.ReplaceAll(out, "\r", ""), "\n")
	if len(l) < 4 {
		return props{}, fmt.Errorf("getprop printed %d lines, want 4", len(l))
	}
	sdk, err := strconv.Atoi(strings.TrimSpace(l[0]))
	if err != nil || sdk < 1 || sdk > 1000 {
		return props{}, fmt.Errorf("ro.build.version.sdk is %q, not an API level", strings.TrimSpace(l[0]))
	}
	p := props{api: sdk, release: strings.TrimSpace(l[2]), debuggable: strings.TrimSpace(l[3]) == "1"}
	if c := strings.TrimSpace(l[1]); c != "" && c != "REL" {
		p.api++
	}
	if p.release == "" {
		p.release = "?"
	}
	return p, nil
}

// firstLine returns the first non-blank line of text, or none.
func firstLine(text, none string) string {
	if l := lines(text); len(l) > 0 {
		return l[0]
	}
	return none
}

// packageName is what Android accepts as an application id, and nothing
// the device's shell would read otherwise.
var packageName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$`)

// activityName is a class name, or a component PACKAGE/CLASS, with $ for
// inner classes.
var activityName = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.]*/)?\.?[A-Za-z_][A-Za-z0-9_.$]*$`)

// installed refuses a package the device does not have (pm path prints
// "package:PATH" lines for it, nothing otherwise).
func (d *Device) installed(ctx context.Context, pkg string) error {
	r, err := d.shell(ctx, "looking up the app", "pm", "path", pkg)
	if err != nil {
		return err
	}
	for _, l := range lines(r.stdout) {
		if strings.HasPrefix(l, "package:") {
			return nil
		}
	}
	return fmt.Errorf("%s is not installed on %s: install the app (adb install), or check the name (adb shell pm list packages)", pkg, d.Serial)
}

// pid returns the process id of the app's main process, "" when it is not
// running (pidof prints nothing and exits 1).
func (d *Device) pid(ctx context.Context, pkg string) (string, error) {
	r, err := d.shell(ctx, "looking for the app's process", "pidof", pkg)
	if err != nil {
		return "", err
	}
	if r.exit > 1 { // 1 is "none"; more, pidof itself failed
		return "", fmt.Errorf("%s: pidof %s failed: %s", d.Serial, pkg, firstLine(r.text(), fmt.Sprintf("exit status %d", r.exit)))
	}
	return parsePid(r.stdout), nil
}

// parsePid returns the first process id pidof printed, "" for none.
func parsePid(out string) string {
	for _, f := range strings.Fields(out) {
		if _, err := strconv.ParseUint(f, 10, 31); err == nil {
			return f
		}
	}
	return ""
}

// debuggable refuses an app that cannot be traced: ActivityManager lets
// am profile and am start --start-profiler trace an app only when it is
// debuggable (android:debuggable, FLAG_DEBUGGABLE) or the build is
// (ro.debuggable=1, userdebug and eng builds).
func (d *Device) debuggable(ctx context.Context, pkg string) error {
	if d.Debuggable {
		return nil
	}
	r, err := d.shell(ctx, "reading the app's flags", "dumpsys", "package", pkg)
	if err != nil {
		return err
	}
	if parseDebuggable(r.stdout) {
		return nil
	}
	return notDebuggable(pkg, d.Serial)
}

// notDebuggable is the refusal of an app that is not debuggable on a user
// build.
func notDebuggable(pkg, serial string) error {
	return fmt.Errorf("%s is not debuggable and %s runs a user build: method tracing needs a debuggable build of the app (the debug build type, or android:debuggable=\"true\") or a userdebug or eng device", pkg, serial)
}

// parseDebuggable finds DEBUGGABLE among the application flags dumpsys
// package prints ("flags=[ DEBUGGABLE HAS_CODE … ]", "pkgFlags=[ … ]").
func parseDebuggable(out string) bool {
	for _, l := range lines(out) {
		if (strings.HasPrefix(l, "flags=[") || strings.HasPrefix(l, "pkgFlags=[")) && strings.Contains(l, " DEBUGGABLE ") {
			return true
		}
	}
	return false
}

// MinFree is the free space the trace needs on the device: a trace that
// is not streamed is at most ActivityThread's buffer of 8 MiB of records
// (debug.traceview-buffer-size-mb) and its key.
const MinFree = 16 << 20

// freeSpace returns the bytes free in the folder, from df -k.
func (d *Device) freeSpace(ctx context.Context, dir string) (int64, error) {
	r, err := d.shell(ctx, "reading the free space", "df", "-k", dir)
	if err != nil {
		return 0, err
	}
	free, err := parseDf(r.stdout)
	if err != nil {
		return 0, fmt.Errorf("%s: reading the free space in %s: %v (df -k printed %q)", d.Serial, dir, err, firstLine(r.text(), ""))
	}
	return free, nil
}

// parseDf reads the free space from df -k: the last line, "FILESYSTEM
// 1K-BLOCKS USED AVAILABLE USE% MOUNTED-ON", in bytes.
func parseDf(out string) (int64, error) {
	l := lines(out)
	if len(l) < 2 {
		return 0, fmt.Errorf("no file system line")
	}
	f := strings.Fields(l[len(l)-1])
	if len(f) < 6 {
		return 0, fmt.Errorf("%d columns, want 6", len(f))
	}
	kb, err := strconv.ParseInt(f[len(f)-3], 10, 64)
	if err != nil || kb < 0 || kb > 1<<50 {
		return 0, fmt.Errorf("available %q is not a count of KiB", f[len(f)-3])
	}
	return kb << 10, nil
}

// profiling refuses an app that ActivityManager is profiling already (am
// profile, am start --start-profiler, Android Studio): a second start
// would stop that recording, and ActivityThread ignores the second
// profiler while one runs. dumpsys activity processes PKG prints
// "mProfileApp=PKG mProfileProc=ProcessRecord{…}" and "mProfileFile=…"
// then (Android 7 to 16, ActivityManagerService and AppProfiler).
func (d *Device) profiling(ctx context.Context, pkg string) error {
	r, err := d.shell(ctx, "asking whether the app is profiled", "dumpsys", "activity", "processes", pkg)
	if err != nil {
		return err
	}
	if file, ok := parseProfiling(r.stdout, pkg); ok {
		return fmt.Errorf("%s is already being profiled on %s (by am profile or Android Studio, into %s): stop that first (adb shell am profile stop %s), then record again", pkg, d.Serial, file, pkg)
	}
	return nil
}

// parseProfiling finds pkg's running profile in dumpsys activity
// processes, and the file it writes ("?" when not printed).
func parseProfiling(out, pkg string) (file string, ok bool) {
	file = "?"
	for _, l := range lines(out) {
		if f, found := strings.CutPrefix(l, "mProfileFile="); found {
			if name, _, _ := strings.Cut(f, " "); name != "" && name != "null" {
				file = name
			}
			continue
		}
		app, found := strings.CutPrefix(l, "mProfileApp=")
		if !found {
			continue
		}
		name, rest, _ := strings.Cut(app, " ")
		proc, _ := strings.CutPrefix(rest, "mProfileProc=")
		if name == pkg && proc != "" && proc != "null" {
			ok = true
		}
	}
	return file, ok
}

// launcher returns the component of the app's launcher activity, which
// the home screen starts (cmd package resolve-activity, Android 7.0 on).
func (d *Device) launcher(ctx context.Context, pkg string) (string, error) {
	r, err := d.shell(ctx, "looking up the launcher activity", "cmd", "package", "resolve-activity", "--brief",
		"-a", "android.intent.action.MAIN", "-c", "android.intent.category.LAUNCHER", pkg)
	if err != nil {
		return "", err
	}
	if c, ok := parseResolve(r.stdout, pkg); ok {
		return c, nil
	}
	return "", fmt.Errorf("%s has no launcher activity on %s (cmd package resolve-activity found none): name the activity to start with --activity", pkg, d.Serial)
}

// parseResolve reads resolve-activity --brief: a line of match details,
// then the component "PKG/CLASS", or "No activity found".
func parseResolve(out, pkg string) (string, bool) {
	l := lines(out)
	if len(l) == 0 {
		return "", false
	}
	c := l[len(l)-1]
	p, cls, ok := strings.Cut(c, "/")
	if !ok || p != pkg || cls == "" || strings.ContainsAny(c, " \t") || !activityName.MatchString(c) {
		return "", false
	}
	return c, true
}
