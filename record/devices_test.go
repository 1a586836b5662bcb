package record

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/record/fakeadb"
)

const header = "List of devices attached\n"

// TestChooseDevice: which device adb devices -l gives, and every way it
// cannot, as one line through Connect.
func TestChooseDevice(t *testing.T) {
	emu := "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n"
	phone := "R58M123ABC             device usb:1-1 product:a52qnsxx model:SM_A525F device:a52q transport_id:3\n"
	for _, c := range []struct {
		name, devices, serial string
		want                  string // the serial chosen, or the error
	}{
		{"one", header + emu + "\n", "", "emulator-5554"},
		{"server starting", "* daemon not running; starting now at tcp:5037\n* daemon started successfully\n" + header + emu, "", "emulator-5554"},
		{"none", header + "\n", "", "no device: adb devices lists none; connect a device with USB debugging on, or start an emulator"},
		{"several", header + emu + phone + "0123456789ABCDEF       unauthorized usb:1-2 transport_id:4\n", "",
			"3 devices: emulator-5554, R58M123ABC, 0123456789ABCDEF (unauthorized); choose one with -s SERIAL or ANDROID_SERIAL"},
		{"chosen", header + emu + phone, "R58M123ABC", "R58M123ABC"},
		{"chosen missing", header + emu + phone, "XYZ", "device XYZ not found: adb devices lists emulator-5554, R58M123ABC; check -s or ANDROID_SERIAL"},
		{"chosen, none", header, "XYZ", "device XYZ not found: adb devices lists none; connect it with USB debugging on, or start the emulator"},
		{"unauthorized", header + "0123456789ABCDEF       unauthorized usb:1-2 transport_id:4\n", "",
			`device 0123456789ABCDEF is unauthorized: unlock it and accept its "Allow USB debugging?" prompt, then record again`},
		{"offline", header + "emulator-5556\toffline\n", "", "device emulator-5556 is offline: reconnect it (adb reconnect offline, or unplug it), then record again"},
		{"no permissions", header + "0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:5\n", "",
			"device 0123456789ABCDEF: adb has no permission to use it (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]: fix the USB permissions, then record again"},
		{"recovery", header + "0123456789ABCDEF       recovery usb:1-2 transport_id:6\n", "", "device 0123456789ABCDEF is in recovery mode: boot it into Android, then record again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fakeadb.Install(t, fakeadb.Script{
				{Match: "devices -l", Replies: reply(c.devices)},
				{Match: "-s * shell getprop *", Replies: reply("34\nREL\n14\n0\n")},
			})
			f.Setenv(t)
			d, err := Connect(context.Background(), Config{ADB: f.Path(), Serial: c.serial})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = d.Serial
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestADBFails(t *testing.T) {
	f := fakeadb.Install(t, fakeadb.Script{
		{Match: "devices -l", Replies: []fakeadb.Reply{{Stderr: "* daemon not running; starting now at tcp:5037\ncould not read ok from ADB Server\n* failed to start daemon\nadb: cannot connect to daemon\n", Exit: 1}}},
	})
	f.Setenv(t)
	_, err := Connect(context.Background(), Config{ADB: f.Path()})
	if want := "adb devices failed: * daemon not running; starting now at tcp:5037"; err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
}

func TestFindADB(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	dir := t.TempDir()
	t.Setenv("PATH", dir) // no adb on PATH
	_, err := FindADB(env(nil))
	want := "adb not found on PATH: install Android SDK Platform-Tools (https://developer.android.com/tools/releases/platform-tools, or the SDK's platform-tools folder) and put adb on PATH, or set ADB to the adb binary"
	if err == nil || err.Error() != want {
		t.Errorf("no adb: %v\nwant %s", err, want)
	}
	missing := filepath.Join(dir, "nope", "adb")
	_, err = FindADB(env(map[string]string{"ADB": missing}))
	if err == nil || !strings.HasPrefix(err.Error(), "ADB="+missing+": ") || !strings.HasSuffix(err.Error(), ": set ADB to the adb binary of Android SDK Platform-Tools (https://developer.android.com/tools/releases/platform-tools)") {
		t.Errorf("ADB missing: %v", err)
	}
	exe, _ := os.Executable()
	if got, err := FindADB(env(map[string]string{"ADB": exe})); err != nil || got != exe {
		t.Errorf("ADB=%s: %q, %v", exe, got, err)
	}
}

func TestParsers(t *testing.T) {
	if got, err := parseDf("Filesystem            1K-blocks    Used Available Use% Mounted on\n/dev/block/dm-48 6082144 3899936 2182208 65% /data\n"); err != nil || got != 2182208<<10 {
		t.Errorf("df: %d, %v", got, err)
	}
	for _, bad := range []string{"", "Filesystem 1K-blocks Used Available Use% Mounted on\n", "x\n/dev 1 2 -3 4% /data\n", "x\n/dev 1 2\n"} {
		if _, err := parseDf(bad); err == nil {
			t.Errorf("df %q: no error", bad)
		}
	}
	if n, err := parseSize("60224\r\n"); err != nil || n != 60224 {
		t.Errorf("size: %d, %v", n, err)
	}
	for _, bad := range []string{"", "-1", "12 34", "0x10", "stat: '/x': No such file or directory"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("size %q: no error", bad)
		}
	}
	if c, ok := parseResolve("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.example.app/.ui.Main$Launcher\n", pkg); !ok || c != "com.example.app/.ui.Main$Launcher" {
		t.Errorf("resolve: %q %v", c, ok)
	}
	for _, bad := range []string{"No activity found\n", "com.other/.Main\n", "com.example.app/\n", "com.example.app/.Main; rm -rf /\n"} {
		if c, ok := parseResolve(bad, pkg); ok {
			t.Errorf("resolve %q: %q", bad, c)
		}
	}
	if p := parsePid("4821 5012\n"); p != "4821" {
		t.Errorf("pid %q", p)
	}
	if file, ok := parseProfiling("  mProfileApp=com.example.app mProfileProc=null\n  mProfileFile=null mProfileFd=null\n", pkg); ok || file != "?" {
		t.Errorf("not profiling: %q %v", file, ok)
	}
	if _, err := parseProps("34\nREL\n"); err == nil {
		t.Error("props: two lines accepted")
	}
	if !parseDebuggable("  User 0: ...\n    pkgFlags=[ DEBUGGABLE HAS_CODE ]\n") || parseDebuggable("flags=[ HAS_CODE ]  DEBUGGABLE \n") {
		t.Error("debuggable flags misread")
	}
}

// FuzzDeviceOutput: whatever a device or adb prints, the parsers neither
// panic nor accept a component or size they cannot vouch for, and the
// refusals stay one line.
func FuzzDeviceOutput(f *testing.F) {
	for _, s := range []string{
		header + "emulator-5554          device product:x model:y\n",
		"34\nREL\n14\n0\n",
		"Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/block/dm-48 6082144 3899936 2182208 65% /data\n",
		"priority=0 preferredOrder=0\ncom.example.app/.Main\n",
		"  mProfileApp=com.example.app mProfileProc=ProcessRecord{1 2:com.example.app/u0a1}\n  mProfileFile=/data/local/tmp/a.trace mProfileFd=x\n",
		"java.lang.SecurityException: Process not debuggable: x\n\tat y\n",
		"Status: ok\nWarning: Activity not started\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		for _, d := range parseDevices(out) {
			if _, err := chooseDevice([]listed{d}, ""); err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("two lines: %q", err)
			}
		}
		parseProps(out)
		if n, err := parseDf(out); err == nil && n < 0 {
			t.Errorf("negative free space %d", n)
		}
		if n, err := parseSize(out); err == nil && n < 0 {
			t.Errorf("negative size %d", n)
		}
		if c, ok := parseResolve(out, pkg); ok && (!strings.HasPrefix(c, pkg+"/") || strings.ContainsAny(c, " ;'\"`|&\n")) {
			t.Errorf("resolved %q", c)
		}
		parseProfiling(out, pkg)
		parseDebuggable(out)
		parsePid(out)
		launchReport(result{stdout: out})
		if err := amFailure(result{stdout: out, exit: 1}, pkg, "emulator-5554", "am profile start"); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("am failure %q: %v", out, err)
		}
	})
}
