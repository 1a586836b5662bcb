package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestSampledTotals: a sampled profile whose counts or times add up to
// more than an int64 holds is refused by every command with one line
// naming the file and the line, and exit 1, never printed with negative
// totals; merging profiles whose sums together overflow is refused too.
func TestSampledTotals(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"methods.prof":  "1/0/0\nvoid a.B.c()/9223372036854775807/1\nvoid a.B.d()/1/1\n",
		"unlisted.prof": "1/9223372036854775807/1\nvoid a.B.c()/1/1\n",
		"chains.prof":   "1/0/0\nvoid a.B.c()/0/1/[1:9223372036854775807:]\nvoid a.B.d()/0/1/[1:1:void a.B.c()@1]\n",
		"traces.hprof":  "TRACE 1:\n\ta.B.c(B.java:1)\nTRACE 2:\n\ta.B.d(B.java:1)\nCPU SAMPLES BEGIN (total = 1) x\n 1 1% 1% 9223372036854775807 1 a\n 2 1% 1% 9 2 a\nCPU SAMPLES END\n",
		"times.hprof": "JAVA PROFILE 1.0.1, created x\n--------\nTRACE 1:\n\ta.B.c(B.java:1)\nTRACE 2:\n\ta.B.d(B.java:1)\nTRACE 3:\n\ta.B.e(B.java:1)\n" +
			"CPU TIME (ms) BEGIN (total = 9223372036854) x\n 1 34.00% 1% 1 1 a\n 2 34.00% 1% 1 2 a\n 3 34.00% 1% 1 3 a\nCPU TIME (ms) END\n",
		"half1.prof": "1/0/0\nvoid a.B.c()/9223372036854775000/1\n",
		"half2.prof": "1/0/0\nvoid a.B.c()/9223372036854775000/1\n",
	}
	for name, text := range files {
		files[name] = filepath.Join(dir, name)
		if err := os.WriteFile(files[name], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const over = `the sample counts add up to more than 9223372036854775807`
	for _, c := range []struct {
		file   string
		stderr string // regexp
	}{
		{"methods.prof", `methods.prof: ART profile \(Android 5.x\), method mode: line 3: ` + over},
		{"unlisted.prof", `unlisted.prof: ART profile \(Android 5.x\), method mode: line 1: ` + over},
		{"chains.prof", `chains.prof: ART profile \(Android 5.x\), bounded-stack mode: line 3: ` + over},
		{"traces.hprof", `traces.hprof: Dalvik SamplingProfiler text \(ASCII hprof\): line 7: the rows' counts add up to more than 9223372036854775807`},
		{"times.hprof", `times.hprof: JVM hprof text, cpu=times: line 12: the rows' counts or times add up to more than 9223372036854775807`},
	} {
		for _, cmd := range []string{"info", "top", "folded", "pprof", "speedscope", "calls"} {
			t.Run(c.file+"/"+cmd, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out")
				args := []string{cmd, "-o", out, files[c.file]}
				switch cmd {
				case "info", "top":
					args = []string{cmd, files[c.file]}
				case "calls":
					args = []string{cmd, files[c.file], "c"}
				}
				code, stdout, stderr := runCLI(t, nil, args...)
				if code != exitError || !regexp.MustCompile(`^atrace2: .*`+c.stderr+"\n$").MatchString(stderr) {
					t.Errorf("exit %d, stderr %q, want exit %d and /%s/", code, stderr, exitError, c.stderr)
				}
				if stdout != "" {
					t.Errorf("output on stdout: %q", stdout)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
			})
		}
	}
	out := filepath.Join(dir, "merged.pb.gz")
	code, _, stderr := runCLI(t, nil, "pprof", "-q", "-o", out, files["half1.prof"], files["half2.prof"])
	if want := `^atrace2: pprof: .*half2.prof: the counts or times of the profiles add up to more than 9223372036854775807, which a pprof value cannot hold\n$`; code != exitError || !regexp.MustCompile(want).MatchString(stderr) {
		t.Errorf("merging: exit %d, stderr %q, want exit %d and /%s/", code, stderr, exitError, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
