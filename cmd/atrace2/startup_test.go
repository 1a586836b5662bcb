package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/startup"
)

// writeColdStart writes tracegen.ColdStart(opt) to dir/name.
func writeColdStart(t *testing.T, dir, name string, opt tracegen.ColdStartOptions) (string, *tracegen.ColdStartTrace) {
	t.Helper()
	cs := tracegen.ColdStart(opt)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, cs.Trace.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, cs
}

// TestStartupGolden: the text and JSON of the generated cold start, and
// of the one whose tracing started inside bind.
func TestStartupGolden(t *testing.T) {
	dir := t.TempDir()
	cold, _ := writeColdStart(t, dir, "cold.trace", tracegen.ColdStartOptions{})
	late, _ := writeColdStart(t, dir, "late.trace", tracegen.ColdStartOptions{LateStart: true})
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"startup-cold.txt", []string{"startup", cold}},
		{"startup-cold.json", []string{"startup", "--format", "json", cold}},
		{"startup-late.txt", []string{"startup", "-q", late}},
	} {
		code, out, errOut := runCLI(t, nil, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.golden, strings.ReplaceAll(out, dir, "TMP"))
	}
}

// TestStartupJSON compares the JSON of every phase of several traces with
// what the generator says, and checks that they come as an array.
func TestStartupJSON(t *testing.T) {
	dir := t.TempDir()
	opts := []tracegen.ColdStartOptions{{}, {LateStart: true}, {Stretch: "first-frame", Factor: 2}}
	var paths []string
	var want []*tracegen.ColdStartTrace
	for i, o := range opts {
		p, cs := writeColdStart(t, dir, fmt.Sprintf("run%d.trace", i), o)
		paths, want = append(paths, p), append(want, cs)
	}
	code, out, errOut := runCLI(t, nil, append([]string{"startup", "-q", "--format", "json"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var reps []startup.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("not a JSON array of reports: %v\n%s", err, out)
	}
	if len(reps) != len(opts) {
		t.Fatalf("%d reports, want %d", len(reps), len(opts))
	}
	for i, r := range reps {
		if r.Trace != paths[i] {
			t.Errorf("report %d is of %s, want %s", i, r.Trace, paths[i])
		}
		for j, g := range want[i].Phases {
			p := r.Phases[j]
			got := [6]int64{p.Begin, p.End, p.Wall, p.CPU, p.OffCPU, int64(len(p.Top))}
			exp := [6]int64{1000 * int64(g.Begin), 1000 * int64(g.End), 1000 * int64(g.Wall), 1000 * int64(g.CPU), 1000 * int64(g.OffCPU), int64(len(g.Top))}
			if p.Name != g.Name || p.Recorded != g.Recorded || got != exp {
				t.Errorf("%s %s: got %v recorded %v, want %v recorded %v", paths[i], g.Name, got, p.Recorded, exp, g.Recorded)
			}
			for k, m := range g.Top {
				if p.Top[k].Name != m.Name || p.Top[k].Wall != 1000*int64(m.Wall) {
					t.Errorf("%s %s top %d: %+v, want %+v", paths[i], g.Name, k, p.Top[k], m)
				}
			}
		}
	}
}

// TestStartupRefusals: the flags that hide part of the main thread and
// sampled profiles are usage errors.
func TestStartupRefusals(t *testing.T) {
	cold, _ := writeColdStart(t, t.TempDir(), "cold.trace", tracegen.ColdStartOptions{})
	ar, err := txtar.ParseFile("../../samples/testdata/cases/jvm-samples.txtar")
	if err != nil {
		t.Fatal(err)
	}
	hprof := filepath.Join(t.TempDir(), "p.hprof.txt")
	if err := os.WriteFile(hprof, ar.Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"startup", "--thread", "main", cold}, `--thread: startup phases are always read on the main thread`},
		{[]string{"startup", "--root", "doFrame", cold}, `--root: `},
		{[]string{"startup", "--from", "1ms", cold}, `--from/--to: `},
		{[]string{"startup", hprof}, `has no timestamps; startup phases need a method trace`},
	} {
		code, _, errOut := runCLI(t, nil, c.args...)
		if code != exitUsage || !regexp.MustCompile(c.stderr).MatchString(errOut) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitUsage, c.stderr)
		}
	}
}

// TestStartupCorpus checks the phases of the real traces (../shared/corpus)
// that have any: ART on Android 8 (-wrap11 accessors) and Dalvik.
func TestStartupCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not available at %s: %v", dir, err)
	}
	// Phase: begin, end, wall, cpu (µs); "-" when not recorded. Every
	// trace but test1 was recorded in sampling mode (info says so), and the
	// report notes it.
	for _, c := range []struct {
		file   string
		phases string
	}{
		{"Flank-mirror-goog-studio-main__streaming.trace", "activity-create 16959576 17019879 60303 24267; activity-start 17019879 17022316 2437 1659; activity-resume 17022316 17025045 2729 1353; first-frame 17037646 17112680 75034 16684"},
		{"firefox-devtools-profiler__art-trace-regular.trace.gz", "activity-create -; activity-start 120020 125623 5603 4048; activity-resume 125623 131248 5625 3796; first-frame 246627 264582 17955 5677"},
		{"zhkl0228-TraceReader__test2.trace", "activity-create 2282664 3338351 1055687 538717"},
		{"Grigory-Rylov-android-methods-profiler__legacy.trace", "activity-create -"},
		{"zhkl0228-TraceReader__test1.trace", ""},
	} {
		code, out, errOut := runCLI(t, nil, "startup", "-q", "--format", "json", filepath.Join(dir, c.file))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errOut)
		}
		var rs []startup.Report
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("%s: %d reports, want an array of 1", c.file, len(rs))
		}
		r := rs[0]
		var got []string
		for _, p := range r.Phases {
			switch {
			case p.Recorded:
				got = append(got, fmt.Sprintf("%s %d %d %d %d", p.Name, p.Begin/1000, p.End/1000, p.Wall/1000, p.CPU/1000))
			case p.Reason != startup.ReasonMissing:
				got = append(got, p.Name+" -")
			}
		}
		if s := strings.Join(got, "; "); s != c.phases {
			t.Errorf("%s:\n got %s\nwant %s", c.file, s, c.phases)
		}
		sampled := !strings.Contains(c.file, "test1")
		if noted := len(r.Notes) == 1 && strings.HasPrefix(r.Notes[0], "looks like a sampling-mode trace"); noted != sampled {
			t.Errorf("%s: notes %q; want the sampling-mode note: %v", c.file, r.Notes, sampled)
		}
	}
}
