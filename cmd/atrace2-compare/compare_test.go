package main

import (
	"bytes"
	"compress/gzip"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var (
	genOnce  sync.Once
	genCache []genInput
	genErr   error
)

// generatedInputs returns the generated inputs and their files, by name:
// made anew when fresh is set, else once for all tests.
func generatedInputs(t *testing.T, fresh bool) ([]input, map[string][]byte) {
	t.Helper()
	genOnce.Do(func() { genCache, genErr = generated(repoRoot(t)) })
	gen, err := genCache, genErr
	if fresh {
		gen, err = generated(repoRoot(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	var inputs []input
	files := map[string][]byte{}
	for _, g := range gen {
		inputs = append(inputs, g.input)
		for _, f := range g.files {
			if _, dup := files[f.name]; dup {
				t.Errorf("file %s generated twice", f.name)
			}
			files[f.name] = f.data
		}
	}
	return inputs, files
}

// TestGeneratedDeterministic checks that the inputs are the same bytes on
// every run, which the comparison's reuse of -dir/in relies on, and that
// the variants the comparison promises are there.
func TestGeneratedDeterministic(t *testing.T) {
	_, a := generatedInputs(t, false)
	_, b := generatedInputs(t, true)
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
	for _, want := range []string{
		"g-v1-cpu-dalvik.trace", "g-v2-wall-art.trace", "g-v3-dual-art.trace", "g-v3-dual-art.trace.gz",
		"g-stream-v3.trace", "g-stream-v3-nosum.trace", "g-stream-sec.trace", "g-stream-sec.trace.sec",
		"g-split.key", "g-split.data", "g-v2c.trace", "g-v2d-stream-nosum.trace", "g-v2b-hybrid.trace",
		"g-anomalies-v3-art.trace", "g-deep-recursion.trace", "g-medium.trace", "t-orphans.trace",
		"s-dalvik.hprof.txt", "s-jvm-times.hprof.txt", "s-art-bounded.prof", "b-truncated.trace",
		"g-minified.trace", "g-minified-r8.txt", "g-minified-proguard.txt", "g-coldstart.trace",
		"g-coldstart-slow.trace", "g-run-old-4.trace", "g-run-new-4.trace",
		"p-perf.perfetto-trace", "p-perf-compressed.perfetto-trace.gz", "p-stacksample.perfetto-trace",
		"sp-cpu.simpleperf.trace", "ff-simpleperf-cpu-clock.trace.gz", "b-empty-capture.perfetto-trace",
		"g-bench-old/run-0/com.example.benchmark-benchmarkData.json", "g-bench-new/run-2/com.example.benchmark-benchmarkData.json",
	} {
		if len(a[want]) == 0 && !strings.HasSuffix(want, ".sec") {
			t.Errorf("input %s missing or empty", want)
		}
	}
}

// TestCases checks that the case list runs every command and flag of
// atrace2, and that every input file a command names exists.
func TestCases(t *testing.T) {
	inputs, files := generatedInputs(t, false)
	// The corpus and the sample are not generated; stand-ins do.
	inputs = append(inputs, input{name: "sample.trace", kind: kindTrace, rich: true},
		input{name: "JetBrains-adt-tools-base__basic.trace", kind: kindTrace, rich: true})
	files["sample.trace"] = []byte("x")
	files["JetBrains-adt-tools-base__basic.trace"] = []byte("x")
	cases := buildCases(inputs)
	if len(cases) != len(inputs)+1 || cases[0].name != "cli" {
		t.Fatalf("%d cases for %d inputs, first %q", len(cases), len(inputs), cases[0].name)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if len(c.cmds) == 0 {
			t.Errorf("%s: no commands", c.name)
		}
		for _, cmd := range c.cmds {
			line := strings.Join(cmd.args, " ")
			for _, arg := range append(slices.Clone(cmd.args), cmd.stdin) {
				if name, ok := strings.CutPrefix(arg, "in/"); ok {
					_, exists := files[name]
					for f := range files {
						exists = exists || strings.HasPrefix(f, name+"/") // a folder, such as g-bench-old
					}
					if !exists && name != "b-missing.trace" && name != "g-split" && name != "no-such-map.txt" {
						t.Errorf("%s: %s: input %s does not exist", c.name, cmd, name)
					}
				}
				if filepath.IsAbs(arg) && !strings.HasPrefix(arg, "/dev/") || strings.HasPrefix(arg, "..") {
					t.Errorf("%s: %s: argument %q leaves the working directory", c.name, cmd, arg)
				}
			}
			for _, f := range strings.Fields(line) {
				seen[f] = true
			}
			if cmd.stdin != "" {
				seen[map[bool]string{true: "<pipe>", false: "<stdin-file>"}[cmd.pipe]] = true
			}
			if cmd.stdoutFile {
				seen["<stdout-file>"] = true
			}
			if cmd.stdoutAppend {
				seen["<stdout-append>"] = true
			}
			for _, e := range cmd.env {
				seen[e] = true
			}
		}
	}
	for _, want := range append(slices.Clone(commandNames),
		"-q", "--strict", "--clock", "wall", "cpu", "thread-cpu", "dual", "--time-unit", "us", "ns",
		"--version", "--help", "-h", "--format", "json", "csv", "-o", "-n", "0", "--per-thread", "--sort",
		"incl", "calls", "name", "--wide", "--threshold", "500us", "0.5%", "1%", "--no-thread",
		"--process-name", "--pprof", "--perfetto", "--speedscope", "--folded", "-",
		"/dev/null", "/dev/stdin",
		"--thread", "--from", "--to", "--root", "--max-depth", "offcpu", "--mapping", "--mapping-mismatch",
		"startup", "--old", "--new", "--fail-on", "--adjust", "holm", "none", "junit", "markdown",
		"--benchmark", "--alpha", "--process",
		"<pipe>", "<stdin-file>", "<stdout-file>", "<stdout-append>", "GOMAXPROCS=1") {
		if !seen[want] {
			t.Errorf("no command uses %q", want)
		}
	}
}

func TestCompareBytes(t *testing.T) {
	gz := func(s string, level int) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, level)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	for _, tc := range []struct {
		old, new []byte
		want     string
	}{
		{[]byte("same"), []byte("same"), ""},
		{[]byte("abc\ndef\n"), []byte("abc\ndxf\n"), "stdout differs at byte 5 (old 8 bytes, new 8)"},
		{[]byte("abc"), []byte("abcd"), "stdout differs at byte 3 (old 3 bytes, new 4)"},
		{gz("profile", 1), gz("profile", 9), ""}, // compared uncompressed
		{gz("profile", 1), gz("profiles", 1), "stdout (uncompressed) differs at byte 7 (old 7 bytes, new 8)"},
	} {
		if got := compareBytes("stdout", tc.old, tc.new, false); got != tc.want {
			t.Errorf("compareBytes(%q, %q) = %q, want %q", tc.old, tc.new, got, tc.want)
		}
	}
	if got := compareBytes("stderr", []byte("x: old text\n"), []byte("x: new text\n"), true); !strings.Contains(got, `old "x: old text", new "x: new text"`) {
		t.Errorf("verbose excerpt: %q", got)
	}
}

func TestCompareResults(t *testing.T) {
	old := &result{exit: "exit 0", files: map[string][]byte{"p.pb.gz": []byte("a"), "gone": nil}}
	new := &result{exit: "exit 1", stderr: []byte("boom\n"), files: map[string][]byte{"p.pb.gz": []byte("b"), "extra": nil}}
	got := compareResults(old, new, false)
	want := []string{
		`exit status differs: old "exit 0", new "exit 1"`,
		"stderr differs at byte 0 (old 0 bytes, new 5)",
		"file extra written only by new",
		"file gone written only by old",
		"file p.pb.gz differs at byte 0 (old 1 bytes, new 1)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("compareResults:\n got %q\nwant %q", got, want)
	}
}

func TestNormalize(t *testing.T) {
	got := normalize([]byte("atrace2: /w/old/x.pb.gz: /w/tmp-old/spool123: no space\n"), "/w/old", "/w/tmp-old")
	if want := "atrace2: $RUN/x.pb.gz: $TMP/spool123: no space\n"; string(got) != want {
		t.Errorf("normalize = %q, want %q", got, want)
	}
}

func TestShellQuote(t *testing.T) {
	c := command{args: []string{"calls", "in/x.trace", `a\.b|c`}, stdin: "in/x.trace", pipe: true, stdoutFile: true, env: oneCore}
	if got, want := c.String(), `cat in/x.trace | GOMAXPROCS=1 atrace2 calls in/x.trace 'a\.b|c' > stdout-file`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote = %q", got)
	}
}
