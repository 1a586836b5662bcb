package parser_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// TestOpenNamedPipe: a path that names a pipe (bash's <(...)) is copied
// like stdin, not taken for an empty file; so is a reader given as Input.
func TestOpenNamedPipe(t *testing.T) {
	tr := sampleTrace(3, "dual", "art")
	for name, data := range map[string][]byte{"plain": tr.Regular(), "gzip": tracegen.Gzip(tr.Regular())} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
		go func() { w.Write(data); w.Close() }()
		for how, opt := range map[string]parser.Options{"by name": {}, "as Input": {Input: bytes.NewReader(data)}} {
			f, err := parser.Open(path, opt)
			if os.IsNotExist(err) {
				t.Skipf("no /proc/self/fd here: %v", err)
			}
			if err != nil {
				t.Fatalf("%s %s: %v", name, how, err)
			}
			_, got, err := drain(f)
			f.Close()
			if err != nil || !equalEvents(got, expected(tr, parser.ClockDual)) {
				t.Errorf("%s %s: err %v events %v", name, how, err, got)
			}
		}
		r.Close()
	}
}

// TestSpoolLeavesNoFile: the copy of a pipe or of a gzip input has no name
// even while it is open, so a killed run leaves nothing in TMPDIR.
func TestSpoolLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	data := tracegen.Gzip(sampleTrace(3, "dual", "art").Regular())
	f, err := parser.Open("-", parser.Options{Stdin: bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the open spool is visible in TMPDIR: %v", entries)
	}
	if _, _, err := drain(f); err != nil {
		t.Error(err)
	}
}
