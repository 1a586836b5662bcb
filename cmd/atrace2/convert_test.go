package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// convert writes, in one run, the same bytes as the four commands.
func TestConvertMatchesSingleCommands(t *testing.T) {
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	code, _, errOut := runCLI(t, nil, "convert", "-q", "--pprof", out("all.pb.gz"), "--perfetto", out("all.pftrace"),
		"--speedscope", out("all.json"), "--folded", out("all.folded"), sample)
	if code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	for _, c := range []struct{ cmd, file string }{
		{"pprof", "all.pb.gz"}, {"perfetto", "all.pftrace"}, {"speedscope", "all.json"}, {"folded", "all.folded"},
	} {
		if code, _, errOut := runCLI(t, nil, c.cmd, "-q", "-o", out("one-"+c.file), sample); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.cmd, code, errOut)
		}
		all, _ := os.ReadFile(out(c.file))
		one, _ := os.ReadFile(out("one-" + c.file))
		if len(all) == 0 || !bytes.Equal(all, one) {
			t.Errorf("convert --%s wrote %d bytes that differ from atrace2 %s's %d", c.cmd, len(all), c.cmd, len(one))
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
