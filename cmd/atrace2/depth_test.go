package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// deepChild is set in the environment of the process TestDeepStacks starts.
const deepChild = "ATRACE2_TEST_DEEP_CHILD"

// TestDeepStacks runs every command on a thread 200,000 frames deep, in a
// process whose goroutines may grow their stacks to 64 KiB only: a
// recursion over the call tree (or any structure as deep as the trace's
// stacks, 2,048 frames with the default depth limit) needs more, and dies
// of "stack overflow". The limit is process-wide, hence the process of its
// own. The folded outputs, 46 MB of lines up to 2,048 frames long, go to
// /dev/null.
func TestDeepStacks(t *testing.T) {
	if os.Getenv(deepChild) == "" {
		if testing.Short() {
			t.Skip("runs every command on 400,000 records")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDeepStacks$", "-test.v")
		cmd.Env = append(os.Environ(), deepChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDeepStacks") {
			t.Fatalf("%v\n%s", err, out[:min(len(out), 3000)])
		}
		return
	}
	debug.SetMaxStack(64 << 10)
	const depth = 200_000
	dir := t.TempDir()
	in := filepath.Join(dir, "deep.trace")
	if err := os.WriteFile(in, tracegen.Nested(depth).Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"info"},
		{"dump"},
		{"pprof", "-o", out("p.pb.gz")},
		{"perfetto", "-o", out("p.pftrace")},
		{"speedscope", "-o", out("s.json")},
		{"folded", "-o", os.DevNull},
		{"top"},
		{"calls", "com.example.Deep.a"},
		{"diff", in},
		{"convert", "--pprof", out("c.pb.gz"), "--perfetto", out("c.pftrace"), "--speedscope", out("c.json"), "--folded", os.DevNull},
	} {
		args = append([]string{args[0], in}, args[1:]...)
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if want := "repaired: 197952 frames nested deeper than the depth limit"; !strings.Contains(stderr, want) {
			t.Errorf("%v: stderr %q, want %q", args, stderr, want)
		}
		if args[0] == "info" && !strings.Contains(stdout, "200000") {
			t.Errorf("info does not give the depth 200000:\n%s", stdout)
		}
	}
}

// TestMaxDepthFlag: --max-depth folds the frames below it in every output
// (top shows the folded time as the limit frame's self time), and a depth
// out of range is a usage error.
func TestMaxDepthFlag(t *testing.T) {
	in := filepath.Join(t.TempDir(), "deep.trace")
	if err := os.WriteFile(in, tracegen.Nested(30).Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "folded", "--max-depth", "4", in)
	if code != 0 || !strings.Contains(stderr, "repaired: 26 frames nested deeper than the depth limit") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// The frame at depth 4 (Deep.a) runs from 3 µs to 56 µs, all of it
	// its own with the 26 frames below it folded into it.
	if !strings.Contains(stdout, "main (tid 1);com.example.Deep.a;com.example.Deep.b;com.example.Deep.c;com.example.Deep.a 53\n") ||
		strings.Count(stdout, "\n") != 5 {
		t.Errorf("folded:\n%s", stdout)
	}
	for _, bad := range []string{"0", "1000001"} {
		if code, _, stderr := runCLI(t, nil, "info", "--max-depth", bad, in); code != 80 || !strings.Contains(stderr, "--max-depth") {
			t.Errorf("--max-depth %s: exit %d, %q; want 80", bad, code, stderr)
		}
	}
}

// capped counts what is written to it and fails once more than limit
// bytes are: a command whose output outgrows the limit stops at its first
// failed write (exit 1) rather than fill the disk.
type capped struct{ n, limit int }

func (c *capped) Write(b []byte) (int, error) {
	c.n += len(b)
	if c.n > c.limit {
		return 0, fmt.Errorf("more than %d bytes written", c.limit)
	}
	return len(b), nil
}

// TestOrphanNest runs every command on a thread with 100,000 orphan exits
// in a row, which nest 100,000 deep unless the depth limit bounds them.
// With --max-depth 100 every command succeeds, drops the orphan exits past
// the first 100, and writes less than eight bytes a byte of input: an
// output that wrote whole stacks of the full nest would need about 10^12.
func TestOrphanNest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on 300,000 records")
	}
	const n = 100_000
	dir := t.TempDir()
	in := filepath.Join(dir, "orphans.trace")
	data := tracegen.Orphans(n).Regular()
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	limit := 8 * len(data)
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"info"},
		{"dump"},
		{"pprof", "-o", "-"},
		{"perfetto", "-o", "-"},
		{"speedscope", "-o", "-"},
		{"folded", "-o", "-"},
		{"top"},
		{"calls", "com.example.Outer.a"},
		{"diff", in},
		{"convert", "--pprof", out("c.pb.gz"), "--perfetto", out("c.pftrace"), "--speedscope", out("c.json"), "--folded", "-"},
	} {
		args = append(append([]string{args[0], in}, args[1:]...), "--max-depth", "100")
		stdout, stderr := &capped{limit: limit}, &bytes.Buffer{}
		if code := run(args, &env{stdin: bytes.NewReader(nil), stdout: stdout, stderr: stderr}); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if want := "repaired: 100 orphan exits, 99900 orphan exits beyond the depth limit, dropped (--max-depth)"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%v: stderr %q, want %q", args, stderr, want)
		}
		for _, name := range []string{"c.pb.gz", "c.pftrace", "c.json"} {
			if fi, err := os.Stat(out(name)); err == nil && fi.Size() > int64(limit) {
				t.Errorf("%v: %s has %d bytes, more than %d", args, name, fi.Size(), limit)
			}
		}
	}
}
