package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/samples/samplegen"
)

// sampledInputs writes one sampled profile of each kind atrace2 reads:
// Dalvik SamplingProfiler text, JVM hprof cpu=samples (no threads) and
// cpu=times, and a bounded-stack ART profile; plus the corpus hprof file
// when it is there and the run is not -short.
func sampledInputs(t *testing.T, dir string) []string {
	fr := func(class, method string, line int) samplegen.Frame {
		return samplegen.Frame{Class: "com.example." + class, Method: method, File: class + ".java", Line: line}
	}
	main, parse, run := fr("App", "main", 5), fr("App", "parse", 20), fr("Worker", "run", 7)
	h := &samplegen.Hprof{
		Date:    "Sun Jan 13 05:57:25 2013",
		Threads: []samplegen.Thread{{ID: 1, Obj: 100, Name: "main", Group: "main"}, {ID: 2, Obj: 101, Name: "worker", Group: "main"}},
		Traces: []samplegen.Trace{
			{ID: 300001, Thread: 1, Count: 5, TimeMs: 60, Frames: []samplegen.Frame{parse, main}},
			{ID: 300002, Thread: 1, Count: 3, TimeMs: 30, Frames: []samplegen.Frame{main}},
			{ID: 300003, Thread: 2, Count: 2, TimeMs: 10, Frames: []samplegen.Frame{parse, run}},
		},
	}
	noThreads := *h
	noThreads.Traces = append([]samplegen.Trace{{ID: 300004, Count: 1}}, h.Traces...)
	for i := range noThreads.Traces {
		noThreads.Traces[i].Thread = 0
	}
	appRef := samplegen.MethodRef{Class: "com.example.App", Name: "main", Params: []string{"[Ljava/lang/String;"}, Return: "V"}
	art := &samplegen.ART{Samples: 9, Bounded: true, Methods: []samplegen.Method{{
		MethodRef: samplegen.MethodRef{Class: "com.example.App", Name: "parse", Params: []string{"Ljava/lang/String;"}, Return: "I"},
		Count:     9, Size: 20, Chains: []samplegen.Chain{{PC: 3, Count: 7, Callers: []samplegen.Caller{{MethodRef: appRef, PC: 9}}}},
	}}}
	var paths []string
	for _, in := range []struct {
		name string
		data []byte
	}{
		{"dalvik.hprof", h.Dalvik()},
		{"samples.hprof", noThreads.JVM(samplegen.JVMOptions{})},
		{"times.hprof", h.JVM(samplegen.JVMOptions{Times: true})},
		{"art.prof", art.Text()},
	} {
		path := filepath.Join(dir, in.name)
		if err := os.WriteFile(path, in.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	corpus := filepath.Join(repoRoot(t), "..", "shared", "corpus", "pjstadig-deque-clojure__java.hprof.txt")
	if _, err := os.Stat(corpus); err == nil && !testing.Short() {
		paths = append(paths, corpus)
	}
	return paths
}

// sampledOutputs converts each sampled input into speedscope and folded
// files and returns them with the titles speedscope must show.
func sampledOutputs(t *testing.T, dir string) []checkFile {
	var files []checkFile
	for _, in := range sampledInputs(t, t.TempDir()) {
		base := filepath.Base(in)
		title := base + " (samples)"
		if base == "times.hprof" {
			title = base + " (elapsed time)" // hprof cpu=times reads the time of day
		}
		stem := filepath.Join(dir, "sampled-"+base)
		for _, r := range []struct{ cmd, out, title string }{
			{"speedscope", stem + ".speedscope.json", title},
			{"folded", stem + ".folded", filepath.Base(stem) + ".folded"},
		} {
			if res := atrace2(t, nil, r.cmd, "-q", "-o", r.out, in); res.code != 0 {
				t.Fatalf("atrace2 %s %s: %s", r.cmd, base, res.stderr)
			}
			files = append(files, checkFile{Path: r.out, Title: r.title + " - speedscope"})
		}
	}
	return files
}

// TestSampledStdinProcess reads a sampled profile on a real pipe and from
// a regular file redirected to standard input, which take different paths
// (a peek, and reads at offset 0).
func TestSampledStdinProcess(t *testing.T) {
	in := sampledInputs(t, t.TempDir())[0]
	want := atrace2(t, nil, "folded", "-q", in)
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := atrace2(t, data, "folded", "-q", "-"); got.code != 0 || got.stdout != want.stdout || want.stdout == "" {
		t.Errorf("pipe: %+v, want %q", got, want.stdout)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(binary(t), "folded", "-q", "-")
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout = f, &out
	if err := cmd.Run(); err != nil || out.String() != want.stdout {
		t.Errorf("redirected file: %v\n%s", err, out.String())
	}
}
