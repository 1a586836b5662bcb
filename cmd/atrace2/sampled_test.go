package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/info"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples/samplegen"
)

// artFixture is a bounded-stack ART profile: 12 samples on line 1, of
// which 9 are on method lines, 7 of them with their caller.
func artFixture() *samplegen.ART {
	mainRef := samplegen.MethodRef{Class: "com.example.App", Name: "main", Params: []string{"[Ljava/lang/String;"}, Return: "V"}
	return &samplegen.ART{Samples: 12, Null: 2, Boot: 1, Bounded: true, Methods: []samplegen.Method{{
		MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "parse", Params: []string{"Ljava/lang/String;"}, Return: "I"},
		Count:     9, Size: 20,
		Chains: []samplegen.Chain{{PC: 3, Count: 7, Callers: []samplegen.Caller{{MethodRef: mainRef, PC: 9}}}},
	}}}
}

// sampledFiles writes the fixtures to a temporary folder: app.hprof
// (Dalvik), times.hprof (JVM cpu=times), new.hprof (JVM cpu=samples in two
// dumps, with the sections a reader skips, and 3 more samples of
// Long.parseLong) and app.prof.gz (ART, gzip-compressed).
func sampledFiles(t *testing.T) (dir string, files map[string]string) {
	dir = t.TempDir()
	files = map[string]string{}
	changed := samplegen.Fixture()
	changed.Traces[0].Count = 8
	for name, data := range map[string][]byte{
		"app.hprof":   samplegen.Fixture().Dalvik(),
		"times.hprof": samplegen.Fixture().JVM(samplegen.JVMOptions{Times: true}),
		"new.hprof":   changed.JVM(samplegen.JVMOptions{Dumps: 2, Others: true}),
		"app.prof.gz": tracegen.Gzip(artFixture().Text()),
	} {
		files[name] = filepath.Join(dir, name)
		if err := os.WriteFile(files[name], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

func TestSampledGolden(t *testing.T) {
	dir, f := sampledFiles(t)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"info-sampled-dalvik.txt", []string{"info", f["app.hprof"]}},
		{"info-sampled-dalvik.json", []string{"info", "--format", "json", f["app.hprof"]}},
		{"info-sampled-times.txt", []string{"info", f["times.hprof"]}},
		{"info-sampled-art.txt", []string{"info", f["app.prof.gz"]}},
		{"top-sampled.txt", []string{"top", f["app.hprof"]}},
		{"top-sampled-times.txt", []string{"top", "--per-thread", f["times.hprof"]}},
		{"calls-sampled.txt", []string{"calls", f["app.hprof"], `App\.parse$`}},
		{"diff-sampled.txt", []string{"diff", f["app.hprof"], f["new.hprof"]}},
		{"folded-sampled.txt", []string{"folded", f["app.hprof"]}},
		{"folded-sampled-art.txt", []string{"folded", f["app.prof.gz"]}},
	} {
		args := append([]string{c.args[0], "-q"}, c.args[1:]...) // TestSampledNotes checks stderr
		code, out, errOut := runCLI(t, nil, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		golden(t, c.golden, strings.ReplaceAll(out, dir, "TMP"))
	}
}

// TestSampledInfo checks the numbers info gives against the fixtures.
func TestSampledInfo(t *testing.T) {
	_, f := sampledFiles(t)
	var reports []info.Sampled
	code, out, _ := runCLI(t, nil, "info", "-q", "--format", "json", f["app.hprof"], f["times.hprof"], f["app.prof.gz"])
	if code != 0 || json.Unmarshal([]byte(out), &reports) != nil || len(reports) != 3 {
		t.Fatalf("exit %d, JSON:\n%s", code, out)
	}
	d, tm, art := reports[0], reports[1], reports[2]
	if d.Format != "Dalvik SamplingProfiler text (ASCII hprof)" || d.Stacks != 5 || d.Count != 13 || d.StatedTotal != 13 ||
		d.Frames != 7 || d.MaxDepth != 3 || !d.DepthLimited || d.CutStacks != 2 || len(d.Threads) != 2 ||
		d.Threads[0].Count != 10 || d.Threads[1].Count != 3 || d.Threads[1].Stacks != 2 {
		t.Errorf("Dalvik: %+v", d)
	}
	if tm.Format != "JVM hprof text, cpu=times" || !tm.Timed || tm.CountOf != "calls" || tm.Count != 13 || tm.CPUNanos != 100e6 || tm.StatedCPU != 100e6 ||
		tm.Threads[0].CPUNanos != 75e6 {
		t.Errorf("cpu=times: %+v", tm)
	}
	if art.Format != "ART profile (Android 5.x), bounded-stack mode" || !art.Compressed || art.Count != 9 || art.CountOf != "samples" || art.StatedTotal != 12 ||
		len(art.Unlisted) != 2 || art.Unlisted[0].Count != 2 || len(art.Notes) != 1 || len(art.Threads) != 1 || art.Threads[0].Listed {
		t.Errorf("ART: %+v", art)
	}
}

// TestSampledStdin: a pipe (read once, peeked), gzip on it, and a regular
// file as standard input give what the file name gives.
func TestSampledStdin(t *testing.T) {
	_, f := sampledFiles(t)
	data, err := os.ReadFile(f["app.hprof"])
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, nil, "top", f["app.hprof"])
	want = strings.Replace(want, f["app.hprof"], "<stdin>", 1)
	for name, in := range map[string][]byte{"pipe": data, "gzip": tracegen.Gzip(data)} {
		code, got, errOut := runCLI(t, in, "top", "-")
		if code != 0 || got != want {
			t.Errorf("%s: exit %d %s\n%s\nwant:\n%s", name, code, errOut, got, want)
		}
	}
	file, err := os.Open(f["app.hprof"])
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"top", "-"}, &env{stdin: file, stdout: &out, stderr: &errb}); code != 0 || out.String() != want {
		t.Errorf("regular file on stdin: exit %d %s\n%s", code, errb.String(), out.String())
	}
	// A method trace still reads from a pipe after the sniff peeked at it.
	trace, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, trace, "info", "-q", "-"); code != 0 || !strings.Contains(out, "variant") {
		t.Errorf("method trace on stdin: exit %d %s", code, errOut)
	}
}

func TestSampledRefusals(t *testing.T) {
	_, f := sampledFiles(t)
	truncated := filepath.Join(t.TempDir(), "cut.hprof")
	data, _ := os.ReadFile(f["app.hprof"])
	os.WriteFile(truncated, data[:bytes.LastIndex(data, []byte("CPU SAMPLES END"))], 0o644)
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // regexp
	}{
		{"perfetto", []string{"perfetto", "-o", filepath.Join(t.TempDir(), "x.pftrace"), f["times.hprof"]}, exitError,
			`^atrace2: .*times.hprof: a JVM hprof text profile has no timestamps; Perfetto needs a method trace — use pprof, speedscope, folded or top\n$`},
		{"perfetto art", []string{"perfetto", f["app.prof.gz"]}, exitError, `app.prof.gz: an Android 5.x ART profile has no timestamps`},
		{"dump", []string{"dump", f["app.hprof"]}, exitError, `a Dalvik SamplingProfiler \(ASCII hprof\) profile has no timestamps; dump prints the events of a method trace`},
		{"pprof mix", []string{"pprof", f["app.hprof"], sample}, exitUsage, `app.hprof is a sampled profile and ../../testdata/sample.trace a method trace`},
		{"pprof kinds", []string{"pprof", f["app.hprof"], f["times.hprof"]}, exitUsage, `cannot merge: one counts samples, the other calls and CPU time`},
		{"clock", []string{"top", "--clock", "cpu", f["app.hprof"]}, exitUsage, `--clock cpu: a sampled profile has no clocks to choose from`},
		{"sort calls", []string{"top", "--sort", "calls", f["app.hprof"]}, exitUsage, `a sampled profile counts samples, not calls`},
		{"threshold", []string{"diff", "--threshold", "1ms", f["app.hprof"], f["new.hprof"]}, exitUsage, `threshold 1ms: the profiles count samples, not time`},
		{"diff kinds", []string{"diff", f["app.hprof"], sample}, exitError, `app.hprof has sample counts and ../../testdata/sample.trace the wall\+cpu clock`},
		{"strict", []string{"top", "--strict", truncated}, exitError, `cut.hprof: strict mode: the file was cut short inside a CPU section\n$`},
		{"not strict", []string{"top", truncated}, exitOK, `cut.hprof: note: the file ends inside its CPU SAMPLES section`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, c.args...)
			if code != c.code || !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("exit %d (want %d), stderr %q does not match %q", code, c.code, errOut, c.stderr)
			}
		})
	}
}

// TestSampledNotes: the reader's notes go to stderr, and -q drops them.
func TestSampledNotes(t *testing.T) {
	_, f := sampledFiles(t)
	_, _, errOut := runCLI(t, nil, "folded", f["new.hprof"])
	want := "atrace2: " + f["new.hprof"] + ": note: 2 CPU SAMPLES sections, one per dump and each covering the time since the previous one, were added up\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if _, _, errOut := runCLI(t, nil, "folded", "-q", f["new.hprof"]); errOut != "" {
		t.Errorf("-q: stderr %q", errOut)
	}
}
