package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/record"
	"github.com/atrace2/atrace2/record/fakeadb"
)

func TestMain(m *testing.M) {
	fakeadb.Serve() // the test binary is also the fake adb of the record tests
	os.Exit(m.Run())
}

const (
	recPkg    = "com.example.app"
	recName   = "com.example.app-20260830-142501.trace"
	recRemote = "/data/local/tmp/atrace2-" + recName
	recOn     = "-s emulator-5554 "
)

// recordSetup runs the test in a folder of its own, with the fake adb as
// adb (a healthy device serving trace, rules first), a fixed clock and
// fast polling; it returns the fake.
func recordSetup(t *testing.T, trace string, rules ...fakeadb.Rule) *fakeadb.Fake {
	t.Helper()
	recordNow = func() time.Time { return time.Date(2026, 8, 30, 14, 25, 1, 0, time.Local) }
	recordPoll = record.Poll{Interval: time.Millisecond, Settle: 2, Empty: 5, Reconnect: 200 * time.Millisecond}
	t.Cleanup(func() { recordNow, recordPoll = time.Now, record.Poll{} })
	t.Chdir(t.TempDir())
	t.Setenv("ANDROID_SERIAL", "")
	f := fakeadb.Install(t, append(fakeadb.Script(rules), fakeadb.Healthy(t, fakeadb.Device{Package: recPkg, Trace: trace})...))
	f.Setenv(t)
	return f
}

// sampleBytes is the sample trace the fake device serves.
func sampleBytes(t *testing.T) []byte {
	data, err := os.ReadFile(testutil.SampleTrace(t))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRecord(t *testing.T) {
	f := recordSetup(t, testutil.SampleTrace(t))
	code, out, errOut := runCLI(t, nil, "record", "--duration", "1ms", recPkg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(recName)
	if err != nil || !bytes.Equal(got, sampleBytes(t)) {
		t.Fatalf("%s: %d bytes, %v; want the device's %d", recName, len(got), err, len(sampleBytes(t)))
	}
	// Standard output is info's summary of the file.
	if _, info, _ := runCLI(t, nil, "info", recName); out != info {
		t.Errorf("stdout:\n%s\nwant info's:\n%s", out, info)
	}
	wantErr := "atrace2: tracing com.example.app on emulator-5554 (Android 14, API 34), every call\n" +
		"atrace2: recording for 1ms: Enter or Ctrl-C stops sooner\n" +
		"atrace2: stopped (--duration): waiting for com.example.app to write the trace\n" +
		"atrace2: copied 60,224 bytes and removed " + recRemote + " from the device\n" +
		"atrace2: wrote " + recName + "\n" +
		"atrace2: " + recName + ": repaired: 1 orphan exit, 25 frames open at the end\n"
	if errOut != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, wantErr)
	}
	lines := f.Lines(t)
	for _, l := range []string{recOn + "shell am profile start com.example.app " + recRemote, recOn + "exec-out cat " + recRemote} {
		if !slices.Contains(lines, l) {
			t.Errorf("no %q among\n%s", l, strings.Join(lines, "\n"))
		}
	}
	if last := lines[len(lines)-1]; last != recOn+"shell rm -f "+recRemote {
		t.Errorf("last command %q", last)
	}
	// No temporary file is left here.
	if entries, _ := os.ReadDir("."); len(entries) != 1 {
		t.Errorf("files: %v", entries)
	}
}

func TestRecordStopsOnEnter(t *testing.T) {
	recordSetup(t, testutil.SampleTrace(t))
	code, _, errOut := runCLI(t, []byte("\n"), "record", "-q", "-o", "app.trace", recPkg)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile("app.trace"); !bytes.Equal(got, sampleBytes(t)) {
		t.Errorf("app.trace: %d bytes", len(got))
	}
}

func TestRecordToStdout(t *testing.T) {
	recordSetup(t, testutil.SampleTrace(t))
	code, out, errOut := runCLI(t, nil, "record", "--duration", "1ms", "-o", "-", recPkg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != string(sampleBytes(t)) {
		t.Errorf("stdout: %d bytes, not the trace", len(out))
	}
	if !strings.Contains(errOut, "\nvariant     regular, version 3 (data version 0x03)\n") {
		t.Errorf("no summary on stderr:\n%s", errOut)
	}
}

// TestRecordConvert: --convert writes what the conversion command writes
// for the recorded trace, with the global options.
func TestRecordConvert(t *testing.T) {
	for _, c := range []struct {
		convert string
		globals []string
		file    string   // the converted file, "" for standard output
		same    []string // the command whose output it equals
	}{
		{"pprof", nil, "com.example.app-20260830-142501.pb.gz", []string{"pprof", "-o", "want"}},
		{"perfetto", []string{"--clock", "offcpu"}, "com.example.app-20260830-142501.perfetto-trace", []string{"perfetto", "--process-name", recPkg, "-o", "want"}},
		{"speedscope", []string{"--clock", "cpu"}, "com.example.app-20260830-142501.speedscope.json", []string{"speedscope", "-o", "want"}},
		{"folded", []string{"--thread", "main"}, "", []string{"folded"}},
		{"top", []string{"--root", "onCreate"}, "", []string{"top"}},
		{"startup", nil, "", []string{"startup"}},
	} {
		t.Run(c.convert, func(t *testing.T) {
			recordSetup(t, testutil.SampleTrace(t))
			args := append(append([]string{"-q"}, c.globals...), "record", "--cold", "--duration", "1ms", "--convert", c.convert, recPkg)
			code, out, errOut := runCLI(t, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			wantCode, wantOut, wantErr := runCLI(t, nil, append(append(append([]string{"-q"}, c.globals...), c.same...), recName)...)
			if wantCode != 0 {
				t.Fatalf("%v: exit %d: %s", c.same, wantCode, wantErr)
			}
			if out != wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, wantOut)
			}
			if c.file == "" {
				return
			}
			got, err := os.ReadFile(c.file)
			want, _ := os.ReadFile("want")
			if err != nil || !bytes.Equal(got, want) || len(want) == 0 {
				t.Errorf("%s: %d bytes (%v), want the %d bytes of %v", c.file, len(got), err, len(want), c.same)
			}
		})
	}
}

func TestRecordOpen(t *testing.T) {
	recordSetup(t, testutil.SampleTrace(t))
	done, lines := openRun(t, "record", "--duration", "1ms", "--convert", "perfetto", "--open", "--no-browser", recPkg)
	u := fileOf(t, viewerURL(t, done, lines))
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Origin", "https://ui.perfetto.dev")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	kept, err := os.ReadFile("com.example.app-20260830-142501.perfetto-trace")
	if err != nil || !bytes.Equal(served, kept) || len(kept) == 0 {
		t.Errorf("served %d bytes, kept %d (%v)", len(served), len(kept), err)
	}
}

// TestRecordRefusesEarly: mistakes in the command line, and outputs that
// exist, are refused before adb runs.
func TestRecordRefusesEarly(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"record", "--convert", "svg", recPkg}, 80, `atrace2: --convert "svg": give pprof, perfetto, speedscope, folded, top or startup`},
		{[]string{"record", "--open", recPkg}, 80, "atrace2: --open opens the result of --convert pprof, perfetto or speedscope"},
		{[]string{"record", "--convert", "top", "--open", recPkg}, 80, "atrace2: --open opens the result of --convert pprof, perfetto or speedscope"},
		{[]string{"record", "--no-browser", recPkg}, 80, "atrace2: --no-browser only makes sense with --open"},
		{[]string{"record", "--activity", ".Main", recPkg}, 80, "atrace2: --activity names the activity --cold launches"},
		{[]string{"record", "-o", "-", "--convert", "folded", recPkg}, 80, "atrace2: -o - and --convert folded would both write to standard output: give -o FILE"},
		{[]string{"--clock", "offcpu", "record", "--convert", "speedscope", recPkg}, 80, "atrace2: --clock offcpu: speedscope cannot show offcpu time: its timeline is on one clock (folded, top or pprof show off-CPU time)"},
		{[]string{"--thread", "main", "record", "--convert", "startup", recPkg}, 80, "atrace2: --thread: startup phases are always read on the main thread"},
		{[]string{"--from", "soon", "record", recPkg}, 80, `atrace2: --from "soon": give a duration since the trace start, such as 1.5s, 250ms or 1200us`},
		{[]string{"record", "--output-version", "3", recPkg}, 80, ""},
		{[]string{"record", "../../evil"}, 80, `atrace2: "../../evil" is not an application id (such as com.example.app)`},
		{[]string{"record", "--sampling", "1500ns", recPkg}, 80, "atrace2: --sampling 1.5µs: give a whole number of microseconds, 1us or more (am takes µs)"},
		{[]string{"record", "--cold", "--activity", "a;reboot", recPkg}, 80, `atrace2: --activity "a;reboot": give a class (.MainActivity, com.example.app.MainActivity) or a component (com.example.app/.MainActivity)`},
		{[]string{"record", "-o", "exists.trace", recPkg}, 80, "atrace2: exists.trace exists: give another -o FILE, or --force to replace it"},
		{[]string{"record", "--convert", "pprof", "-o", "x.trace", recPkg}, 80, "atrace2: x.pb.gz exists: give another -o FILE, or --force to replace it"},
		{[]string{"record", "-o", "no/such/dir/x.trace", recPkg}, 1, "atrace2: creating no/such/dir/x.trace: no such file or directory"},
	} {
		f := recordSetup(t, testutil.SampleTrace(t))
		os.WriteFile("exists.trace", []byte("mine"), 0o644)
		os.WriteFile("x.pb.gz", []byte("mine"), 0o644)
		code, _, errOut := runCLI(t, nil, c.args...)
		if code != c.code || c.want != "" && strings.TrimSpace(errOut) != c.want {
			t.Errorf("%v: exit %d: %s\nwant %d: %s", c.args, code, errOut, c.code, c.want)
		}
		if l := f.Lines(t); len(l) != 0 {
			t.Errorf("%v: adb ran %q", c.args, l)
		}
		if got, _ := os.ReadFile("exists.trace"); string(got) != "mine" {
			t.Errorf("%v: exists.trace changed", c.args)
		}
	}
}

func TestRecordForce(t *testing.T) {
	recordSetup(t, testutil.SampleTrace(t))
	os.WriteFile("app.trace", []byte("old"), 0o644)
	if code, _, errOut := runCLI(t, nil, "record", "-q", "--force", "--duration", "1ms", "-o", "app.trace", recPkg); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile("app.trace"); !bytes.Equal(got, sampleBytes(t)) {
		t.Errorf("app.trace not replaced: %d bytes", len(got))
	}
}

func TestRecordWithoutADB(t *testing.T) {
	recordSetup(t, testutil.SampleTrace(t))
	t.Setenv("ADB", "")
	t.Setenv("PATH", t.TempDir())
	code, _, errOut := runCLI(t, nil, "record", recPkg)
	want := "atrace2: adb not found on PATH: install Android SDK Platform-Tools (https://developer.android.com/tools/releases/platform-tools, or the SDK's platform-tools folder) and put adb on PATH, or set ADB to the adb binary\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d: %s\nwant %s", code, errOut, want)
	}
}

// TestRecordDeviceErrors: the device's refusals and failures end the run
// with one line, exit 1, and leave no file here.
func TestRecordDeviceErrors(t *testing.T) {
	sample := testutil.SampleTrace(t)
	gone := fakeadb.Reply{Stderr: "error: device 'emulator-5554' not found\n", Exit: 1}
	for _, c := range []struct {
		name  string
		rules []fakeadb.Rule
		want  []string // the lines of stderr after the progress lines
	}{
		{"no device", []fakeadb.Rule{{Match: "devices -l", Replies: []fakeadb.Reply{{Stdout: "List of devices attached\n\n"}}}},
			[]string{"atrace2: no device: adb devices lists none; connect a device with USB debugging on, or start an emulator"}},
		{"not installed", []fakeadb.Rule{{Match: recOn + "shell pm path *", Replies: []fakeadb.Reply{{Exit: 1}}}},
			[]string{"atrace2: com.example.app is not installed on emulator-5554: install the app (adb install), or check the name (adb shell pm list packages)"}},
		// The device goes away during the copy and does not come back:
		// the error, then what is left to do by hand.
		{"lost", []fakeadb.Rule{
			{Match: recOn + "exec-out cat *", Replies: []fakeadb.Reply{{File: sample, Cut: 1000, Stderr: gone.Stderr, Exit: 1}}},
			{Match: recOn + "wait-for-device", Replies: []fakeadb.Reply{{Delay: time.Second}}},
			{Match: recOn + "shell rm -f *", Replies: []fakeadb.Reply{gone}},
		}, []string{
			"atrace2: warning: could not clean up emulator-5554 (lost the connection to emulator-5554 while removing the trace from the device (error: device 'emulator-5554' not found): reconnect it (adb devices lists it when it is back) and record again); when it is back, run: adb -s emulator-5554 shell rm -f " + recRemote,
			"atrace2: lost the connection to emulator-5554 while copying the trace (1000 of 60224 bytes) (error: device 'emulator-5554' not found): reconnect it (adb devices lists it when it is back) and record again",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			recordSetup(t, sample, c.rules...)
			code, out, errOut := runCLI(t, nil, "record", "--duration", "1ms", recPkg)
			if code != 1 || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			l := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(l) < len(c.want) || !slices.Equal(l[len(l)-len(c.want):], c.want) {
				t.Errorf("stderr:\n%s\nwant it to end with:\n%s", errOut, strings.Join(c.want, "\n"))
			}
			if entries, _ := os.ReadDir("."); len(entries) != 0 {
				t.Errorf("left here: %v", entries)
			}
		})
	}
}

// TestRecordUnreadable: a file the device wrote that does not read is
// kept, as written, for a bug report, and the run fails.
func TestRecordUnreadable(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.trace")
	os.WriteFile(bad, []byte("*version\n3\n*end\nSLOW\x07\x00"), 0o644)
	recordSetup(t, bad)
	code, out, errOut := runCLI(t, nil, "record", "-q", "--duration", "1ms", recPkg)
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "atrace2: "+recName+": ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got, _ := os.ReadFile(recName); string(got) != "*version\n3\n*end\nSLOW\x07\x00" {
		t.Errorf("kept %q", got)
	}
}

// TestRecordCorpus: real traces from devices (../shared/corpus, when it
// is there), served by the fake device, are written as they are and
// summarized as info summarizes them.
func TestRecordCorpus(t *testing.T) {
	for _, trace := range testutil.CorpusTraces(t) {
		t.Run(filepath.Base(trace), func(t *testing.T) {
			recordSetup(t, trace)
			code, out, errOut := runCLI(t, nil, "record", "-q", "--duration", "1ms", recPkg)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got, _ := os.ReadFile(recName)
			want, _ := os.ReadFile(trace)
			if !bytes.Equal(got, want) {
				t.Errorf("wrote %d bytes, the device had %d", len(got), len(want))
			}
			if _, info, _ := runCLI(t, nil, "-q", "info", recName); out != info {
				t.Errorf("summary:\n%s\nwant info's:\n%s", out, info)
			}
		})
	}
}

// TestRecordSerial: with several devices, ANDROID_SERIAL or -s chooses;
// without either, the devices are listed.
func TestRecordSerial(t *testing.T) {
	two := fakeadb.Rule{Match: "devices -l", Replies: []fakeadb.Reply{{Stdout: "List of devices attached\nemulator-5554 device model:sdk_gphone64\nR58M123ABC device usb:1-1 model:SM_A525F\n"}}}
	f := recordSetup(t, testutil.SampleTrace(t), two)
	code, _, errOut := runCLI(t, nil, "record", "--duration", "1ms", recPkg)
	if want := "atrace2: 2 devices: emulator-5554, R58M123ABC; choose one with -s SERIAL or ANDROID_SERIAL\n"; code != 1 || errOut != want {
		t.Errorf("exit %d: %s\nwant %s", code, errOut, want)
	}
	t.Setenv("ANDROID_SERIAL", "emulator-5554")
	if code, _, errOut := runCLI(t, nil, "record", "-q", "--duration", "1ms", "-o", "env.trace", recPkg); code != 0 {
		t.Fatalf("ANDROID_SERIAL: exit %d: %s", code, errOut)
	}
	// -s wins over ANDROID_SERIAL; the fake answers nothing for this
	// device, so its first command fails.
	code, _, errOut = runCLI(t, nil, "record", "-s", "R58M123ABC", "--duration", "1ms", recPkg)
	if code != 1 || !strings.Contains(errOut, "R58M123ABC") {
		t.Errorf("-s: exit %d: %s", code, errOut)
	}
	if l := f.Lines(t); l[len(l)-1] != "-s R58M123ABC shell getprop ro.build.version.sdk; getprop ro.build.version.codename; getprop ro.build.version.release; getprop ro.debuggable" {
		t.Errorf("last command %q", l[len(l)-1])
	}
}
