package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// threeThreads is main (tid 11) calling A then B, worker (tid 12) in B
// with a dropped exit of C, and render (tid 13) in C, all times in µs
// (records: thread action method cpu wall). Exclusive wall: main A 40, B
// 30; worker B 85; render C 90. Thread CPU: main A 20, B 20; worker 9;
// render 5.
const threeThreads = `version 3
clock dual
thread 11 main
thread 12 worker
thread 13 render
method 0x4 a.A run ()V A.java
method 0x8 a.B run ()V B.java
method 0xc a.C run ()V C.java
11 enter 0x4 0 0
12 enter 0x8 0 5
11 enter 0x8 10 20
11 exit 0x8 30 50
11 exit 0x4 40 70
13 enter 0xc 0 10
12 exit 0xc 3 80
12 exit 0x8 9 90
13 exit 0xc 5 100
`

func writeThreeThreads(t *testing.T) string {
	t.Helper()
	tr, err := tracegen.ParseText(threeThreads)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "three.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestThreadFocus: hand-computed outputs of --thread by name and by tid;
// the worker's dropped exit is counted only when the worker is kept.
func TestThreadFocus(t *testing.T) {
	path := writeThreeThreads(t)
	for _, c := range []struct {
		args   []string
		stdout string
		stderr string
	}{
		{[]string{"folded", "--thread", "main"},
			"main (tid 11);a.A.run 40\nmain (tid 11);a.A.run;a.B.run 30\n",
			"atrace2: PATH: focus: 1 of 3 threads (--thread main)\n"},
		{[]string{"folded", "--thread", "12", "--clock", "cpu"},
			"worker (tid 12);a.B.run 9\n",
			"atrace2: PATH: repaired: 1 dropped exit\natrace2: PATH: focus: 1 of 3 threads (--thread 12)\n"},
		{[]string{"folded", "--thread", "^w", "--thread", "13"},
			"render (tid 13);a.C.run 90\nworker (tid 12);a.B.run 85\n",
			"atrace2: PATH: repaired: 1 dropped exit\natrace2: PATH: focus: 2 of 3 threads (--thread ^w --thread 13)\n"},
		{[]string{"folded", "-q", "--thread", "1[12]"}, // a regexp on names: no name has a digit
			"", "UNUSED"},
		{[]string{"top", "-q", "--thread", "main"},
			"PATH: 1 thread; total wall 70 µs, cpu 40 µs; 2 methods by exclusive wall time\n" +
				"focus: 1 of 3 threads (--thread main)\n", ""},
		{[]string{"top", "-q"},
			"PATH: all 3 threads; total wall 245 µs, cpu 54 µs; 3 methods by exclusive wall time\n" +
				"the total sums 3 threads: --thread main for the main thread alone, --per-thread for a table each, --clock cpu for CPU time only\n", ""},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append(c.args, path)...)
			if c.stderr == "UNUSED" {
				if code != exitError || !strings.Contains(errOut, `matched none of the 3 threads with records; its threads: "main" (tid 11), "worker" (tid 12), "render" (tid 13)`) {
					t.Errorf("exit %d, stderr %q; want exit 1 naming the threads", code, errOut)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if c.args[0] == "top" {
				out = out[:strings.Index(out, "\n\n")+1] // the header
			}
			out = strings.ReplaceAll(out, path, "PATH")
			if out != c.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, c.stdout)
			}
			if errOut = strings.ReplaceAll(errOut, path, "PATH"); errOut != c.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, c.stderr)
			}
		})
	}
}

// TestThreadFocusInfo: info says what the focus kept, in text and JSON,
// and the trace keeps its own duration.
func TestThreadFocusInfo(t *testing.T) {
	path := writeThreeThreads(t)
	_, out, _ := runCLI(t, nil, "info", "-q", "--thread", "render", path)
	for _, want := range []string{"wall time   100 µs measured from the records; elapsed-time-usec in the key: 100 µs\n", "focus       1 of 3 threads (--thread render)\n", "threads     1 with events, 3 listed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("info does not say %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--format", "json", "--thread", "render", path)
	if want := `"focus": {
    "thread_patterns": [
      "render"
    ],
    "threads_kept": 1,
    "threads_total": 3
  },`; !strings.Contains(out, want) {
		t.Errorf("info JSON lacks %s:\n%s", want, out)
	}
}

// TestThreadFocusSampled: hprof text keeps the samples of the matching
// threads; an ART profile has no threads.
func TestThreadFocusSampled(t *testing.T) {
	_, f := sampledFiles(t)
	code, out, errOut := runCLI(t, nil, "folded", "--thread", "^work", f["app.hprof"])
	if code != 0 || out != "worker (thread 2);com.example.Worker.run 2\nworker (thread 2);com.example.Worker.run;com.example.App.parse 1\n" {
		t.Errorf("exit %d, folded:\n%s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "focus: 1 of 2 threads (--thread ^work)\n") {
		t.Errorf("stderr %q lacks the focus", errOut)
	}
	_, out, _ = runCLI(t, nil, "top", "-q", "--thread", "1", f["app.hprof"])
	if !strings.HasPrefix(out, f["app.hprof"]+": 1 thread; total samples 10; ") {
		t.Errorf("top --thread 1:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "info", "-q", "--thread", "1", f["app.hprof"])
	if !strings.Contains(out, "focus     1 of 2 threads (--thread 1)") || strings.Contains(out, "worker") {
		t.Errorf("info --thread 1:\n%s", out)
	}
	code, _, errOut = runCLI(t, nil, "top", "--thread", "nope", f["app.hprof"])
	if code != exitError || !strings.Contains(errOut, `--thread nope matched none of the 2 threads with samples; its threads: "main" (tid 1), "worker" (tid 2)`) {
		t.Errorf("no match: exit %d, stderr %q", code, errOut)
	}
}

func TestThreadUsageErrors(t *testing.T) {
	_, f := sampledFiles(t)
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"folded", "--thread", "(main", sample}, "^atrace2: --thread \"\\(main\": not a regular expression: "},
		{[]string{"top", "--thread", "main", "--thread", "a[", sample}, "^atrace2: --thread \"a\\[\": not a regular expression: "},
		{[]string{"folded", "--thread", "main", f["app.prof.gz"]}, "--thread: an ART profile \\(Android 5.x\\), bounded-stack mode has no threads to choose from"},
	} {
		code, _, errOut := runCLI(t, nil, c.args...)
		if code != exitUsage || !regexp.MustCompile(c.stderr).MatchString(errOut) {
			t.Errorf("%v: exit %d, stderr %q; want %d matching %q", c.args, code, errOut, exitUsage, c.stderr)
		}
	}
}

// TestPprofHTTPThreadFocus: pprof --http with --thread serves the focused
// profile: the kept thread's methods, none of the others'.
func TestPprofHTTPThreadFocus(t *testing.T) {
	path := writeThreeThreads(t)
	s, done, _, stderr := serve(t, "pprof", "-q", "--http", "127.0.0.1:0", "--no-browser", "--thread", "render", path)
	client := &http.Client{Timeout: 30 * time.Second}
	body := fetch(t, client, s.url+"top")
	s.stop()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(body, "a.C.run") || strings.Contains(body, "a.A.run") || strings.Contains(body, "a.B.run") {
		t.Errorf("/ui/top is not render's alone:\n%.2000s", body)
	}
}

// TestThreadFocusStreaming: --thread on a streaming trace whose thread
// definitions come after their first record, the first of main's ending
// the first batch of records. (With the scan that --thread asks for, the
// names are known before the first record; without it, whether the
// decoding goroutine has applied a late definition when the thread is
// matched would depend on timing, which this test cannot force.)
func TestThreadFocusStreaming(t *testing.T) {
	tr, err := tracegen.ParseText(threeThreads)
	if err != nil {
		t.Fatal(err)
	}
	var recs []tracegen.Record
	for i := range 16383 {
		a := tracegen.Enter
		if i%2 == 1 {
			a = tracegen.Exit
		}
		recs = append(recs, tracegen.Record{Thread: 13, Method: 0xc, Action: a})
	}
	tr.Records = append(recs, tr.Records...)
	path := filepath.Join(t.TempDir(), "late.trace")
	if err := os.WriteFile(path, tr.Streaming(tracegen.StreamOptions{DefineAfterUse: true}), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "folded", "-q", "--thread", "^main$", path)
	if want := "main (tid 11);a.A.run 40\nmain (tid 11);a.A.run;a.B.run 30\n"; code != 0 || out != want {
		t.Errorf("exit %d, folded:\n%s\nwant:\n%s\nstderr %s", code, out, want, errOut)
	}
}

// TestThreadMainByPID: --thread main also keeps the thread whose tid is
// the pid when the app renamed it, and the summary says so; a filter that
// matches nothing lists the threads with records first, then the listed
// threads without any.
func TestThreadMainByPID(t *testing.T) {
	renamed := strings.Replace(strings.Replace(threeThreads, "thread 11 main", "thread 11 LauncherApplication-framethread", 1),
		"clock dual\n", "clock dual\noption pid=11\n", 1)
	tr, err := tracegen.ParseText(renamed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "renamed.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "folded", "--thread", "main", path)
	if want := "LauncherApplication-framethread (tid 11);a.A.run 40\nLauncherApplication-framethread (tid 11);a.A.run;a.B.run 30\n"; code != exitOK || out != want {
		t.Errorf("exit %d, folded:\n%s\nwant:\n%s", code, out, want)
	}
	if want := "atrace2: " + path + `: focus: 1 of 3 threads (--thread main; "LauncherApplication-framethread" is the main thread: its tid is the pid)` + "\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}

	// Only pool-1-thread-1 has records; main and a worker are listed only.
	onlyAsync := `version 3
clock dual
option pid=11
thread 11 main
thread 12 worker
thread 13 pool-1-thread-1
method 0x4 a.A run ()V A.java
13 enter 0x4 0 0
13 exit 0x4 5 10
`
	tr, err = tracegen.ParseText(onlyAsync)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "async.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "folded", "--thread", "main", path)
	if want := "atrace2: " + path + `: --thread main matched none of the 1 thread with records; its threads with records: "pool-1-thread-1" (tid 13); listed without records: "main" (tid 11), "worker" (tid 12)` + "\n"; code != exitError || errOut != want {
		t.Errorf("exit %d, stderr %q; want exit 1, %q", code, errOut, want)
	}
}
