package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFiles: the default name, the converted file beside the trace (the
// default name's when the trace goes to standard output), and the refusal
// of a file that exists, unless forced.
func TestFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	base := DefaultName("com.example.app", time.Date(2026, 8, 30, 14, 25, 1, 0, time.Local))
	if base != "com.example.app-20260830-142501.trace" {
		t.Fatalf("default name %q", base)
	}
	for _, f := range []string{"taken.trace", "y.pb.gz"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		output, ext      string
		force            bool
		trace, converted string
		err              string
	}{
		{"", "", false, base, "", ""},
		{"", ".pb.gz", false, base, "com.example.app-20260830-142501.pb.gz", ""},
		{filepath.Join("d", "x.trace"), ".perfetto-trace", false, filepath.Join("d", "x.trace"), filepath.Join("d", "x.perfetto-trace"), ""},
		{"x.bin", ".speedscope.json", false, "x.bin", "x.bin.speedscope.json", ""},
		{"-", ".pb.gz", false, "-", "com.example.app-20260830-142501.pb.gz", ""},
		{"taken.trace", "", false, "", "", "taken.trace exists: give another -o FILE, or --force to replace it"},
		{"taken.trace", "", true, "taken.trace", "", ""},
		{"y.trace", ".pb.gz", false, "", "", "y.pb.gz exists: give another -o FILE, or --force to replace it"},
		{"y.trace", ".pb.gz", true, "y.trace", "y.pb.gz", ""},
	} {
		trace, converted, err := Files(c.output, base, c.ext, c.force)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if trace != c.trace || converted != c.converted || got != c.err {
			t.Errorf("Files(%q, %q, %v) = %q, %q, %q; want %q, %q, %q", c.output, c.ext, c.force, trace, converted, got, c.trace, c.converted, c.err)
		}
	}
}
