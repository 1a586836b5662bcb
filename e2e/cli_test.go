package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// speedscopeFile is the part of a speedscope file the CLI tests look at.
type speedscopeFile struct {
	Schema   string            `json:"$schema"`
	Name     string            `json:"name"`
	Exporter string            `json:"exporter"`
	Profiles []json.RawMessage `json:"profiles"`
}

func parseSpeedscope(t *testing.T, data string) speedscopeFile {
	t.Helper()
	var f speedscopeFile
	if err := json.Unmarshal([]byte(data), &f); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if f.Schema != "https://www.speedscope.app/file-format-schema.json" || !strings.HasPrefix(f.Exporter, "atrace2@") {
		t.Errorf("$schema %q, exporter %q", f.Schema, f.Exporter)
	}
	return f
}

// TestSpeedscopeCLI runs the command the ways a user would: to a file, to
// stdout, from stdin and on the thread CPU timeline.
func TestSpeedscopeCLI(t *testing.T) {
	sample := sampleTrace(t)
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "app.speedscope.json")
	if r := atrace2(t, nil, "speedscope", "-q", "-o", out, sample); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("-o: %+v", r)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	toStdout := atrace2(t, nil, "speedscope", sample)
	if toStdout.code != 0 || toStdout.stdout != string(written) || !strings.Contains(toStdout.stderr, "repaired:") {
		t.Errorf("stdout differs from -o, or no repair summary: code %d, stderr %q", toStdout.code, toStdout.stderr)
	}
	wall := parseSpeedscope(t, string(written))
	if wall.Name != "sample.trace (wall clock)" || len(wall.Profiles) != 6 {
		t.Errorf("name %q, %d profiles", wall.Name, len(wall.Profiles))
	}
	stdin := parseSpeedscope(t, atrace2(t, data, "speedscope", "-q", "-").stdout)
	if stdin.Name != "stdin (wall clock)" || !reflect.DeepEqual(stdin.Profiles, wall.Profiles) {
		t.Errorf("from stdin: name %q, profiles equal %v", stdin.Name, reflect.DeepEqual(stdin.Profiles, wall.Profiles))
	}
	cpu := parseSpeedscope(t, atrace2(t, nil, "speedscope", "-q", "--clock", "cpu", sample).stdout)
	if cpu.Name != "sample.trace (thread CPU clock)" || reflect.DeepEqual(cpu.Profiles, wall.Profiles) {
		t.Errorf("--clock cpu: name %q, same profiles as wall: %v", cpu.Name, reflect.DeepEqual(cpu.Profiles, wall.Profiles))
	}
}

// TestCLIErrors: usage errors exit 80, bad input 1, and no output file is
// left behind.
func TestCLIErrors(t *testing.T) {
	sample := sampleTrace(t)
	dir := t.TempDir()
	for _, cmd := range []string{"speedscope", "folded"} {
		out := filepath.Join(dir, cmd+".out")
		if r := atrace2(t, nil, cmd, sample, sample); r.code != 80 || !strings.Contains(r.stderr, "one trace at a time") {
			t.Errorf("%s with two traces: %+v", cmd, r)
		}
		if r := atrace2(t, nil, cmd, "-o", out, filepath.Join(dir, "missing.trace")); r.code != 1 || !strings.Contains(r.stderr, "missing.trace") {
			t.Errorf("%s of a missing file: %+v", cmd, r)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s left %v behind", cmd, left)
		}
	}
}

// TestFoldedCLI: the thread frame, --no-thread and --clock cpu.
func TestFoldedCLI(t *testing.T) {
	sample := sampleTrace(t)
	total := func(out string) (sum int64, threads int) {
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			i := strings.LastIndexByte(line, ' ')
			v, err := strconv.ParseInt(line[i+1:], 10, 64)
			if i < 0 || err != nil {
				t.Fatalf("bad line %q", line)
			}
			sum += v
			if first, _, _ := strings.Cut(line, ";"); strings.Contains(first, " (tid ") {
				threads++
			}
		}
		return sum, threads
	}
	withThread := atrace2(t, nil, "folded", "-q", sample)
	noThread := atrace2(t, nil, "folded", "-q", "--no-thread", sample)
	cpu := atrace2(t, nil, "folded", "-q", "--clock", "cpu", sample)
	sum, threads := total(withThread.stdout)
	sumNo, threadsNo := total(noThread.stdout)
	sumCPU, _ := total(cpu.stdout)
	if withThread.code != 0 || threads != strings.Count(withThread.stdout, "\n") || threadsNo != 0 {
		t.Errorf("thread frames: %d of %d lines with, %d without", threads, strings.Count(withThread.stdout, "\n"), threadsNo)
	}
	// Merging threads may round a few sums differently, by under 1 µs per
	// merged line; the sample's times are whole µs, so they agree exactly.
	if sum != sumNo || sumCPU >= sum || sumCPU == 0 {
		t.Errorf("totals: %d µs with threads, %d without, %d on the CPU clock", sum, sumNo, sumCPU)
	}
}
