package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stream"
)

// corpusDir holds real traces from public projects (../shared/corpus, see
// its MANIFEST.tsv). They are never copied into the repository.
func corpusDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not available at %s: %v", dir, err)
	}
	return dir
}

// TestCorpus converts every real trace. The expected numbers come from
// docs/formats.md §17, which counted them independently (records, listed and
// active threads, methods, orphan exits, open frames, unknown ids).
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, c := range []struct {
		file                     string
		records                  int64
		listed, threads, methods int
		sampled                  bool
		repairs                  string
	}{
		{"Flank-mirror-goog-studio-main__char_2_bytes.trace", 70341, 70, 17, 2507, false, "139 orphan exits, 144 frames open at the end"},
		{"Flank-mirror-goog-studio-main__streaming.trace", 44339, 25, 19, 2228, true, "119 frames open at the end"},
		{"Grigory-Rylov-android-methods-profiler__legacy.trace", 16472, 14, 6, 287, true, "30 frames open at the end"},
		{"JetBrains-adt-tools-base__basic-api10.trace", 10, 8, 1, 7, false, "2 orphan exits, 2 frames open at the end"},
		{"JetBrains-adt-tools-base__basic.trace", 9, 11, 1, 7, false, "3 orphan exits, 2 frames open at the end"},
		{"JetBrains-adt-tools-base__exception.trace", 23, 11, 1, 14, false, "3 orphan exits, 2 frames open at the end"},
		{"JetBrains-adt-tools-base__mismatched.trace", 9, 11, 1, 8, false, "5 orphan exits, 2 frames open at the end"},
		{"firefox-devtools-profiler__art-trace-regular.trace.gz", 13295, 66, 40, 2067, true, "259 frames open at the end, 18 unknown method ids"},
		{"firefox-devtools-profiler__art-trace-streaming.trace.gz", 39377, 61, 52, 3963, true, "393 frames open at the end, 9 unknown method ids"},
		{"zhkl0228-TraceReader__test1.trace", 247266, 15, 7, 3370, false, "19 orphan exits, 19 frames open at the end, 2 unknown method ids"},
		{"zhkl0228-TraceReader__test2.trace", 15773, 74, 56, 1794, true, "231 frames open at the end, 5 unknown method ids"},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := parser.Open(testutil.Plain(t, filepath.Join(dir, c.file)), parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec := &recorder{}
			tr, err := convert.Run(f, convert.Options{}, output(rec))
			if err != nil {
				t.Fatal(err)
			}
			h := f.Header
			if h.Records != c.records || len(h.Threads) != c.listed || len(tr.Threads) != c.threads || len(h.Methods) != c.methods {
				t.Errorf("records %d threads %d/%d methods %d", h.Records, len(h.Threads), len(tr.Threads), len(h.Methods))
			}
			if tr.Sampling.Likely != c.sampled || tr.Stats.Summary() != c.repairs {
				t.Errorf("sampled %v, repairs %q", tr.Sampling.Likely, tr.Stats.Summary())
			}
			var events int64
			for _, th := range tr.Threads {
				events += th.Events
			}
			if events != int64(len(rec.lines)) {
				t.Errorf("first pass counted %d events, second pass sent %d", events, len(rec.lines))
			}
		})
	}
}

func TestCorpusRejects(t *testing.T) {
	dir := corpusDir(t)
	for file, want := range map[string]string{
		"Flank-mirror-goog-studio-main__basic-special_char.trace": "impossible record size 1186",
		"JetBrains-adt-tools-base__header.trace":                  "SLOW data header is cut short",
	} {
		_, err := parser.Open(filepath.Join(dir, file), parser.Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", file, err, want)
		}
	}
}

// treeRecorder renders each frame as an indented line "name signature".
type treeRecorder struct {
	t     *stream.Trace
	b     *stream.Batch
	lines []string
}

func (r *treeRecorder) Begin(t *stream.Trace) error { r.t = t; return nil }
func (r *treeRecorder) Finish(*stream.Trace) error  { return nil }
func (r *treeRecorder) event(ev *stream.Event) error {
	if ev.Kind == stream.Begin {
		fr := r.b.Frames[ev.Frame]
		r.lines = append(r.lines, fmt.Sprintf("%s%s %s", strings.Repeat("  ", int(ev.Depth)), fr.Name, fr.Signature))
	}
	return nil
}

// TestPerflibOracle compares call trees with the ones perflib's own test
// expects for its traces (VmTraceParserTest.java, docs/formats.md §14.2). perflib
// re-parents earlier top-level calls under a synthesized call for each exit
// without enter, which gives the same nesting as our orphan frames.
func TestPerflibOracle(t *testing.T) {
	dir := corpusDir(t)
	const start = `android.os.Debug.startMethodTracing (Ljava/lang/String;)V
  android.os.Debug.startMethodTracing (Ljava/lang/String;II)V
    dalvik.system.VMDebug.startMethodTracing (Ljava/lang/String;II)V
`
	const stop = `android.os.Debug.stopMethodTracing ()V
  dalvik.system.VMDebug.stopMethodTracing ()V
`
	for file, want := range map[string]string{
		"JetBrains-adt-tools-base__basic.trace": start + `com.test.android.traceview.Basic.foo ()V
  com.test.android.traceview.Basic.bar ()I
` + stop,
		"JetBrains-adt-tools-base__mismatched.trace": `com.test.android.traceview.MisMatched.foo ()V
  com.test.android.traceview.MisMatched.bar ()V
    android.os.Debug.startMethodTracing (Ljava/lang/String;)V
      android.os.Debug.startMethodTracing (Ljava/lang/String;II)V
        dalvik.system.VMDebug.startMethodTracing (Ljava/lang/String;II)V
    com.test.android.traceview.MisMatched.baz ()I
` + stop,
		"JetBrains-adt-tools-base__exception.trace": start + `com.test.android.traceview.Exceptions.foo ()V
  com.test.android.traceview.Exceptions.bar ()V
    com.test.android.traceview.Exceptions.baz ()V
      java.lang.RuntimeException.<init> ()V
        java.lang.Exception.<init> ()V
          java.lang.Throwable.<init> ()V
            java.util.Collections.emptyList ()Ljava/util/List;
            java.lang.Throwable.fillInStackTrace ()Ljava/lang/Throwable;
              java.lang.Throwable.nativeFillInStackTrace ()Ljava/lang/Object;
` + stop,
	} {
		f, err := parser.Open(filepath.Join(dir, file), parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &treeRecorder{}
		_, err = convert.Run(f, convert.Options{}, output(rec))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rec.lines, "\n") + "\n"; got != want {
			t.Errorf("%s: tree\n%s\nwant (perflib)\n%s", file, got, want)
		}
	}
}

func (x *treeRecorder) Events(batch *stream.Batch) error {
	x.b = batch
	evs := batch.Events
	for i := range evs {
		if err := x.event(&evs[i]); err != nil {
			return err
		}
	}
	return nil
}
