package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/outfile"
	"github.com/atrace2/atrace2/internal/tracegen"
)

// writeDeepTrace writes a dual-clock ART trace whose main thread recurses
// 600 levels deep, past trace_processor's 512, and returns its path.
func writeDeepTrace(t *testing.T) string {
	var b strings.Builder
	b.WriteString("version 3\nclock dual\nvm art\nstart 1000\noption pid=99\nthread 99 main\n" +
		"method 0x0 a.Rec recurse (I)V Rec.java\n")
	for i := range 600 {
		fmt.Fprintf(&b, "99 enter 0x0 %d %d\n", i, i)
	}
	for i := range 600 {
		fmt.Fprintf(&b, "99 exit 0x0 %d %d\n", 600+i, 600+i)
	}
	tr, err := tracegen.ParseText(b.String())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deep.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPerfettoToFileAndStdout: -o and stdout get the same bytes, the
// process name flag reaches the file, and the repair summary and the
// warnings go to stderr (the perfetto package's tests check the content).
func TestPerfettoToFileAndStdout(t *testing.T) {
	in := writeCase(t)
	path := filepath.Join(t.TempDir(), "app.perfetto-trace")
	code, out, errOut := runCLI(t, nil, "perfetto", "-o", path, "--process-name", "com.example.app", in)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %d bytes, stderr %q", code, len(out), errOut)
	}
	if want := "atrace2: " + in + ": repaired: 1 orphan exit\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(file) == 0 || file[0] != 0x0A || !bytes.Contains(file, []byte("com.example.app")) ||
		!bytes.Contains(file, []byte("com.example.App.onCreate")) {
		t.Errorf("%s does not look like our Perfetto trace (%d bytes)", path, len(file))
	}
	code, stdout, _ := runCLI(t, nil, "perfetto", "-q", "--process-name=com.example.app", in)
	if code != 0 || stdout != string(file) {
		t.Errorf("stdout (exit %d, %d bytes) differs from -o (%d bytes)", code, len(stdout), len(file))
	}
	code, stdout, _ = runCLI(t, nil, "perfetto", "-q", in)
	if code != 0 || !strings.Contains(stdout, "v1-dalvik") {
		t.Errorf("exit %d; the default process name (the file name) is missing", code)
	}
}

func TestPerfettoWarnsAboutDepth(t *testing.T) {
	in := writeDeepTrace(t)
	code, _, errOut := runCLI(t, nil, "perfetto", "-o", filepath.Join(t.TempDir(), "x.pftrace"), in)
	want := "atrace2: " + in + ": warning: 88 frames nested deeper than 512 levels were folded"
	if code != 0 || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q, want it to start with %q", code, errOut, want)
	}
	code, _, errOut = runCLI(t, nil, "perfetto", "-q", "-o", filepath.Join(t.TempDir(), "y.pftrace"), in)
	if code != 0 || errOut != "" {
		t.Errorf("-q: exit %d, stderr %q", code, errOut)
	}
}

func TestPerfettoUsage(t *testing.T) {
	in := writeCase(t)
	code, _, errOut := runCLI(t, nil, "perfetto", in, in)
	if code != exitUsage || !strings.Contains(errOut, "perfetto converts one trace at a time, got 2") {
		t.Errorf("two traces: exit %d, stderr %q", code, errOut)
	}
	out := filepath.Join(t.TempDir(), "none.pftrace")
	code, _, _ = runCLI(t, nil, "perfetto", "-o", out, filepath.Join(t.TempDir(), "missing.trace"))
	if _, err := os.Stat(out); code != exitError || err == nil {
		t.Errorf("missing input: exit %d, output left behind: %v", code, err == nil)
	}
}

// TestPerfettoRewindsItsOutput: a trace with an orphan exit in its last
// record is read twice after the first read wrote most of the Perfetto
// file, which must then be taken back. A file named by -o and standard
// output redirected to a file, empty or appended to, are; any other standard output is
// never written twice, as the converter reads twice from the start. All
// give the same bytes. A conversion that fails (--strict) leaves a
// standard output file as it was, empty or appended to (>> FILE).
func TestPerfettoRewindsItsOutput(t *testing.T) {
	dir := t.TempDir()
	_, in := writeLateOrphan(t, dir)
	code, want, _ := runCLI(t, nil, "perfetto", "-q", in)
	if code != 0 || len(want) <= 1<<20 /* outfile's chunk */ {
		t.Fatalf("exit %d, %d bytes: too few to flush before the rewind", code, len(want))
	}
	path := filepath.Join(dir, "o.perfetto-trace")
	if code, _, errOut := runCLI(t, nil, "perfetto", "-q", "-o", path, in); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("-o: %d bytes, stdout gets %d", len(got), len(want))
	}

	const before = "kept\n"
	for _, c := range []struct {
		name     string
		old      string
		flag     int
		args     []string
		code     int
		want     string
		rewinder bool
	}{
		{"empty file", "", os.O_WRONLY | os.O_TRUNC, nil, 0, want, true},
		{"appended to", before, os.O_WRONLY | os.O_APPEND, nil, 0, before + want, true},
		{"empty file, strict", "", os.O_WRONLY | os.O_TRUNC, []string{"--strict"}, exitError, "", true},
		{"appended to, strict", before, os.O_WRONLY | os.O_APPEND, []string{"--strict"}, exitError, before, true},
	} {
		name := filepath.Join(dir, "stdout")
		os.WriteFile(name, []byte(c.old), 0o644)
		f, err := os.OpenFile(name, c.flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		o, err := outfile.Create("-", outfile.Options{Stdout: f})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Rewinder() != nil; got != c.rewinder {
			t.Errorf("%s: can be taken back %v, want %v", c.name, got, c.rewinder)
		}
		o.Abort()
		var errb bytes.Buffer
		args := append(append([]string{"perfetto", "-q"}, c.args...), in)
		code := run(args, &env{stdin: bytes.NewReader(nil), stdout: f, stderr: &errb})
		f.Close()
		if got, _ := os.ReadFile(name); code != c.code || string(got) != c.want {
			t.Errorf("%s: exit %d (%s), %d bytes; want exit %d, %d bytes", c.name, code, errb.String(),
				len(got), c.code, len(c.want))
		}
	}
}
