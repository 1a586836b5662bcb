package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// parseProfile reads a written profile back (profile.Parse runs CheckValid).
func parseProfile(t *testing.T, data []byte) *profile.Profile {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading the profile back: %v", err)
	}
	return p
}

// valuesByKey sums a profile's samples by thread, stack and synthetic label.
func valuesByKey(p *profile.Profile) map[string][]int64 {
	m := map[string][]int64{}
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		k := strings.Join(s.Label["thread"], ",") + " " + strings.Join(s.Label["synthetic"], ",") + " " + strings.Join(names, ";")
		if m[k] == nil {
			m[k] = make([]int64, len(s.Value))
		}
		for i, v := range s.Value {
			m[k][i] += v
		}
	}
	return m
}

func TestPprofToFileAndStdout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.pb.gz")
	code, out, errOut := runCLI(t, nil, "pprof", "-o", path, sample)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %d bytes, stderr %q", code, len(out), errOut)
	}
	if want := "atrace2: " + sample + ": repaired: 1 orphan exit, 25 frames open at the end\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, nil, "pprof", "-q", sample)
	if code != 0 || !bytes.Equal([]byte(stdout), file) {
		t.Errorf("stdout (exit %d, %d bytes) differs from -o (%d bytes)", code, len(stdout), len(file))
	}
	p := parseProfile(t, file)
	if want := "converted by atrace2 " + versionString() + " from " + sample; p.Comments[0] != want {
		t.Errorf("comment %q, want %q", p.Comments[0], want)
	}
	synth := sample + ": 26 samples carry the label synthetic: 1 orphan frame (running before tracing began, begun at the trace start), 25 frames open at the end (ended when tracing stopped)"
	if !strings.Contains(strings.Join(p.Comments, "\n"), synth) {
		t.Errorf("comments %q lack %q", p.Comments, synth)
	}
	// calls, cpu, wall and the derived offcpu (the sample has both clocks).
	if len(p.SampleType) != 4 || p.DefaultSampleType != "wall" || p.Mapping[0].File != sample {
		t.Errorf("sample types %v default %q mapping %q", p.SampleType, p.DefaultSampleType, p.Mapping[0].File)
	}
	var threads []string
	for _, s := range p.Sample {
		if th := s.Label["thread"][0]; !strings.Contains(strings.Join(threads, "|"), th) {
			threads = append(threads, th)
		}
	}
	if len(threads) != 6 {
		t.Errorf("threads %q, want the sample trace's 6", threads)
	}
}

// TestPprofMerge: the same trace given twice gives every sample twice its
// value, exactly.
func TestPprofMerge(t *testing.T) {
	_, once, _ := runCLI(t, nil, "pprof", "-q", sample)
	code, twice, errOut := runCLI(t, nil, "pprof", "-q", sample, sample)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	p1, p2 := parseProfile(t, []byte(once)), parseProfile(t, []byte(twice))
	v1, v2 := valuesByKey(p1), valuesByKey(p2)
	if len(v1) != len(v2) || len(p1.Sample) != len(p2.Sample) {
		t.Fatalf("%d keys (%d samples) once, %d keys (%d samples) twice", len(v1), len(p1.Sample), len(v2), len(p2.Sample))
	}
	for k, v := range v1 {
		for i := range v {
			if v2[k][i] != 2*v[i] {
				t.Errorf("%s: value %d is %d merged, %d alone", k, i, v2[k][i], v[i])
			}
		}
	}
	if p2.DurationNanos != 2*p1.DurationNanos || len(p2.Comments) != 2*len(p1.Comments) {
		t.Errorf("duration %d vs %d, comments %d vs %d", p2.DurationNanos, p1.DurationNanos, len(p2.Comments), len(p1.Comments))
	}
}

func TestPprofUsage(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no-browser without http", []string{"pprof", "--no-browser", sample}, exitUsage, `--no-browser only makes sense with --http`},
		{"bad address", []string{"pprof", "--http", "nocolon", sample}, exitUsage, `--http nocolon: want HOST:PORT`},
		{"missing trace", []string{"pprof", "nope.trace"}, exitError, `nope.trace: open nope.trace: no such file`},
		{"no trace", []string{"pprof"}, exitUsage, `expected "<TRACE> \.\.\."`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, c.args...)
			// kong prints the usage on stdout for its own errors; no
			// profile bytes may go there in any case.
			if code != c.code || strings.HasPrefix(out, "\x1f\x8b") {
				t.Errorf("exit %d (want %d), stdout %d bytes; stderr:\n%s", code, c.code, len(out), errOut)
			}
			if !regexp.MustCompile(c.stderr).MatchString(errOut) {
				t.Errorf("stderr %q does not match %q", errOut, c.stderr)
			}
		})
	}
}

// TestPprofFailedWriteLeavesNothing: a conversion error leaves no file.
func TestPprofFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.pb.gz")
	code, _, _ := runCLI(t, nil, "pprof", "--strict", "-o", path, sample)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed conversion left %v", entries)
	}
}
