// Package testutil holds what the tests of several packages share: the
// -update flag and golden-file comparison, and the repository root.
package testutil

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/tracegen"
)

// Update is the -update flag: rewrite golden files instead of comparing.
// Every test binary that imports this package has it.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// RepoRoot returns the module's root folder.
func RepoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the testutil source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Golden compares got with the file at rel (relative to the repository
// root, e.g. testdata/golden/cli/info.txt), or writes got there with
// -update.
func Golden(t testing.TB, rel string, got []byte) {
	t.Helper()
	path := filepath.Join(RepoRoot(t), rel)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", rel, clip(got))
	}
}

// clip keeps a failure message readable.
func clip(b []byte) []byte {
	if len(b) > 4000 {
		return append(b[:4000:4000], "\n…"...)
	}
	return b
}

// SampleTrace is the committed sample trace, testdata/sample.trace.
func SampleTrace(t testing.TB) string {
	return filepath.Join(RepoRoot(t), "testdata", "sample.trace")
}

// PolicyTrace writes the trace that exercises every repair of the stack
// policy (testdata/golden/speedscope/policy-trace.txt, in tracegen's text
// form) as a binary file in a temporary folder, and returns its path.
func PolicyTrace(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "policy.trace")
	src := filepath.Join(RepoRoot(t), "testdata", "golden", "speedscope", "policy-trace.txt")
	if err := tracegen.ConvertTextFile(src, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// CorpusTraces returns the method traces of ../shared/corpus that the
// reader accepts (every one but the two that must fail), or nil after
// logging why when the corpus is not there.
func CorpusTraces(t testing.TB) []string {
	dir := filepath.Join(RepoRoot(t), "..", "shared", "corpus")
	names, _ := filepath.Glob(filepath.Join(dir, "*.trace*"))
	if len(names) == 0 {
		t.Logf("corpus not available at %s: checking generated traces only", dir)
		return nil
	}
	var paths []string
	for _, n := range names {
		if !strings.Contains(n, "special_char") && !strings.HasSuffix(n, "header.trace") {
			paths = append(paths, Plain(t, n))
		}
	}
	return paths
}

// Plain returns path, or for a gzip file a decompressed copy in a
// temporary folder under the same base name: the parser reads plain
// files only (decompression is internal/input's, which the CLI tests
// cover).
func Plain(t testing.TB, path string) string {
	if !strings.HasSuffix(path, ".gz") {
		return path
	}
	f, err := os.Open(path)
	if err != nil {
		return path // the caller reports it
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, zr); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Main runs a package's tests with at least two Ps, so that convert.Run
// takes its pipelined path (decoding and exporting on goroutines of their
// own) even on a one-CPU machine; tests that want one goroutine ask for
// a serial run (convert's export_test.go).
func Main(m *testing.M) {
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	os.Exit(m.Run())
}
