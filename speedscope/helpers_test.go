package speedscope

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/convert/stream"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

// policyTrace writes the stack-policy trace as a binary file.
func policyTrace(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "policy.trace")
	src := filepath.Join(repoRoot(t), "testdata", "golden", "speedscope", "policy-trace.txt")
	if err := tracegen.ConvertTextFile(src, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// sampleTrace is testdata/sample.trace, or gensample's output when that
// file has not been generated yet (built once per test binary).
func sampleTrace(t testing.TB) string {
	path := filepath.Join(repoRoot(t), "testdata", "sample.trace")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	sampleOnce.Do(func() {
		dir, err := os.MkdirTemp("", "atrace2-sample-")
		if err != nil {
			sampleErr = err
			return
		}
		samplePath = filepath.Join(dir, "sample.trace")
		cmd := exec.Command("go", "run", "./internal/tracegen/cmd/gensample", "-o", samplePath)
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			sampleErr = fmt.Errorf("gensample: %v\n%s", err, out)
		}
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return samplePath
}

var (
	sampleOnce sync.Once
	samplePath string
	sampleErr  error
)

// TestMain removes the generated sample.
func TestMain(m *testing.M) {
	code := m.Run()
	if samplePath != "" {
		os.RemoveAll(filepath.Dir(samplePath))
	}
	os.Exit(code)
}

// corpusTraces lists the real traces, skipping when the corpus is absent.
func corpusTraces(t *testing.T) []string {
	dir := filepath.Join(repoRoot(t), "..", "shared", "corpus")
	names, _ := filepath.Glob(filepath.Join(dir, "*.trace*"))
	if len(names) == 0 {
		t.Skipf("no corpus traces in %s", dir)
	}
	return names
}

// recorder keeps a copy of every event, the independent side of the
// comparisons.
type recorder struct {
	t   *stream.Trace
	evs []stream.Event
}

func (r *recorder) Begin(t *stream.Trace) error  { r.t = t; return nil }
func (r *recorder) Event(ev *stream.Event) error { r.evs = append(r.evs, *ev); return nil }
func (r *recorder) Finish() error                { return nil }

// export converts a trace file to speedscope JSON, recording the stream.
func export(t testing.TB, path string, clock parser.Clock, opt Options) ([]byte, *recorder) {
	t.Helper()
	f, err := parser.Open(path, parser.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	rec := &recorder{}
	if opt.Exporter == "" {
		opt.Exporter = "atrace2@test"
	}
	if _, err := convert.Run(f, convert.Options{}, New(&buf, opt), rec); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rec
}

// tracegenTrace writes a tracegen trace to a temporary file.
func tracegenTrace(t testing.TB, tr *tracegen.Trace) string {
	path := filepath.Join(t.TempDir(), "gen.trace")
	if err := os.WriteFile(path, tr.Regular(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runExporter converts an open trace into one exporter.
func runExporter(f *parser.File, e stream.Exporter) error {
	_, err := convert.Run(f, convert.Options{}, e)
	return err
}
