package speedscope

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// repoRoot is the module root.
func repoRoot(t testing.TB) string { return testutil.RepoRoot(t) }

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
func (r *recorder) event(ev *stream.Event) error { r.evs = append(r.evs, *ev); return nil }
func (r *recorder) Finish(*stream.Trace) error   { return nil }

// export converts a trace file to speedscope JSON, recording the stream.
func export(t testing.TB, path string, clock parser.Clock, opt Options) ([]byte, *recorder) {
	t.Helper()
	return exportFocused(t, path, clock, convert.Options{}, opt)
}

// exportFocused is export with the converter's options (a focus).
func exportFocused(t testing.TB, path string, clock parser.Clock, copt convert.Options, opt Options) ([]byte, *recorder) {
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
	if opt.Value == stream.ValueAuto {
		opt.Value = clockValue(clock) // the file is read whole: the clock is the view's
	}
	if _, err := convert.Run(f, copt, convert.Aggregate(New(&buf, opt)), convert.Output{Exporter: rec}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rec
}

// clockValue is the value that shows clock c alone, as --clock c does.
func clockValue(c parser.Clock) stream.Value {
	switch c {
	case parser.ClockWall:
		return stream.ValueWall
	case parser.ClockThreadCPU:
		return stream.ValueCPU
	}
	return stream.ValueAuto
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
	_, err := convert.Run(f, convert.Options{}, convert.Aggregate(e))
	return err
}

// policyTrace and sampleTrace are the shared test traces.
func policyTrace(t testing.TB) string { return testutil.PolicyTrace(t) }
func sampleTrace(t testing.TB) string { return testutil.SampleTrace(t) }

func (x *recorder) Events(batch *stream.Batch) error {
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
