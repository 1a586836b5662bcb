// Package record captures a method trace from an Android device or
// emulator through adb, for atrace2 record. It runs the platform's own
// commands, as Android Studio does behind its button:
//
//  1. Connect: adb devices -l, one device (Config.Serial, else the only
//     one), and its Android version (getprop).
//  2. Prepare, which changes nothing on the device: the app is installed
//     (pm path), debuggable or the build is (dumpsys package, ro.debuggable),
//     running for a warm capture (pidof), not profiled already (dumpsys
//     activity processes), and /data/local/tmp has room (df); a cold start's
//     launcher activity is resolved (cmd package resolve-activity).
//  3. Start: am profile start [--sampling µs] [--streaming]
//     [--profiler-output-version 2] PACKAGE FILE, or for a cold start am
//     start -S -W --start-profiler FILE [the same options] -n COMPONENT.
//  4. Stop: am profile stop PACKAGE.
//  5. Fetch: the app writes the trace after the stop, so its size is
//     polled (stat -c %s) until it holds (and a streaming trace ends with
//     its summary, tail -c 5), then it is copied with adb exec-out cat (no
//     root, no run-as) and the copy's length checked.
//  6. Remove: rm -f FILE.
//
// Cleanup undoes 3 and 6 whatever happened (an error, a lost connection,
// a signal), and says how to do it by hand when the device does not come
// back. Every refusal of the device (app not installed, not running, not
// debuggable, storage full, profiling already running, an option the
// device's am does not know) is one line that says what to do.
//
// The am options and the API levels that brought them come from the
// platform's ActivityManagerShellCommand (Android 8.0 on) and cmds/am's
// Am.java (Android 7); am.go holds them, and docs/guide.md ("Recording")
// cites the sources read for each Android version. Android 7.0 (API 24) is
// the oldest supported (MinAPI).
//
// The tests run every step against fakeadb, a stand-in for adb that plays
// a scripted device; no test needs a device.
package record
