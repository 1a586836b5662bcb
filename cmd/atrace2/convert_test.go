package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// convert writes, in one run, the same bytes as the four commands: on a
// trace without orphan exits, read once; on the same with an orphan exit in
// its last record, where convert must take back what its outputs got from
// the first read (batches of events) and read again; and on the sample.
func TestConvertMatchesSingleCommands(t *testing.T) {
	dir := t.TempDir()
	clean, late := writeLateOrphan(t, dir)
	for _, in := range []string{clean, late, sample} {
		out := func(name string) string { return filepath.Join(dir, filepath.Base(in)+"."+name) }
		code, _, errOut := runCLI(t, nil, "convert", "-q", "--pprof", out("all.pb.gz"), "--perfetto", out("all.pftrace"),
			"--speedscope", out("all.json"), "--folded", out("all.folded"), in)
		if code != 0 {
			t.Fatalf("convert: exit %d: %s", code, errOut)
		}
		for _, c := range []struct{ cmd, file string }{
			{"pprof", "all.pb.gz"}, {"perfetto", "all.pftrace"}, {"speedscope", "all.json"}, {"folded", "all.folded"},
		} {
			if code, _, errOut := runCLI(t, nil, c.cmd, "-q", "-o", out("one-"+c.file), in); code != 0 {
				t.Fatalf("%s: exit %d: %s", c.cmd, code, errOut)
			}
			all, _ := os.ReadFile(out(c.file))
			one, _ := os.ReadFile(out("one-" + c.file))
			if len(all) == 0 || !bytes.Equal(all, one) {
				t.Errorf("%s: convert --%s wrote %d bytes that differ from atrace2 %s's %d",
					filepath.Base(in), c.cmd, len(all), c.cmd, len(one))
			}
		}
	}
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trace")
	os.WriteFile(bad, []byte("*version\n3\n*end\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"convert", sample}, exitUsage},
		{[]string{"convert", "--pprof", "-", "--folded", "-", sample}, exitUsage},
		{[]string{"convert", "--pprof", filepath.Join(dir, "x.pb.gz"), "--folded", filepath.Join(dir, "x.folded"), bad}, exitError},
	} {
		if code, _, errOut := runCLI(t, nil, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, errOut)
		}
	}
	// The failed conversion left nothing behind, not even temporary files.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left after a failed convert: %v", entries)
	}
}

// writeLateOrphan writes two generated traces of about 1 MB into dir: one
// without orphan exits, and the same with an orphan exit in its last
// record (a thread whose only record is an exit), which a single read
// meets only after it has sent batches of events.
func writeLateOrphan(t *testing.T, dir string) (clean, late string) {
	tr := tracegen.Large(tracegen.LargeOptions{Bytes: 1 << 20, Threads: 5, Methods: 200, Seed: 4})
	clean = filepath.Join(dir, "clean.trace")
	if err := os.WriteFile(clean, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	last := tr.Records[len(tr.Records)-1]
	tr.Records = append(tr.Records, tracegen.Record{Thread: 9999, Method: tr.Records[0].Method,
		Action: tracegen.Exit, CPU: 1, Wall: last.Wall})
	late = filepath.Join(dir, "late-orphan.trace")
	if err := os.WriteFile(late, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return clean, late
}
