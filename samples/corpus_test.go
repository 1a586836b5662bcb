package samples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/atrace2/atrace2/samples"
)

// corpusFile reads a file of the shared corpus (docs/formats.md §17), skipping the
// test when the corpus is not there.
func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", name))
	if os.IsNotExist(err) {
		t.Skipf("corpus file %s absent (expected in ../shared/corpus beside the repository)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const deque = "pjstadig-deque-clojure__java.hprof.txt"

// TestCorpusDeque reads the real JVM hprof file of pjstadig/deque-clojure.
// The numbers were counted with grep and awk on the file: 174 lines start
// with "TRACE " and 3 with "THREAD START", but one of each is in the
// header text, so the file has 173 TRACE records, 2 threads, and 173 rows
// adding up to the section total of 267 samples; 1376 frame lines hold
// 368 distinct frames; 171 traces have 8 frames (depth=8), one 7, one 1.
func TestCorpusDeque(t *testing.T) {
	data := corpusFile(t, deque)
	if n := len(regexp.MustCompile(`(?m)^TRACE `).FindAll(data, -1)); n != 174 {
		t.Fatalf("%d lines start with TRACE, want 174: not the expected file", n)
	}
	p, err := samples.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	depths := map[int]int{}
	for _, s := range p.Samples {
		depths[len(s.Stack)]++
		if s.Thread != -1 {
			t.Errorf("trace %d has thread %d; the file's traces name none", s.Trace, s.Thread)
		}
	}
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("format", p.Format, samples.JVMHprofSamples)
	check("threads", len(p.Threads), 2)
	check("thread 1", p.Threads[1], samples.Thread{ID: 200004, Name: "DestroyJavaVM", Group: "main"})
	check("samples", len(p.Samples), 173)
	check("total", p.Total, int64(267))
	check("sample count", p.SampleCount(), int64(267))
	check("frames", len(p.Frames), 368)
	check("max depth", p.MaxDepth, 8)
	check("depth 8", depths[8], 171)
	check("depth 7", depths[7], 1)
	check("depth 1", depths[1], 1)
	check("created", p.Created, "Sun Jan 13 05:57:25 2013")
	check("notes", len(p.Notes), 0)
	check("unlisted", len(p.Unlisted), 0)
	check("cut", p.CutStack(0), true)

	// The first row: "1  5.24%  5.24%  14 300312 clojure.lang.Util.hash".
	first := p.Samples[0]
	check("first trace", first.Trace, int64(300312))
	check("first count", first.Count, int64(14))
	check("first leaf", p.Frames[first.Stack[7]], samples.Frame{
		Name: "clojure.lang.Util.hash", Class: "clojure.lang.Util", Method: "hash",
		File: "Util.java", Line: 116, HasLine: true,
	})
	check("first root", p.Frames[first.Stack[0]], samples.Frame{
		Name: "name.stadig.deque.PersistentDeque.cons", Class: "name.stadig.deque.PersistentDeque", Method: "cons",
		File: "deque.clj",
	})
	// The last row: "173  0.37% 100.00%  1 300372 clojure.lang.LazilyPersistentVector.createOwning".
	last := p.Samples[172]
	check("last trace", last.Trace, int64(300372))
	check("last leaf", p.Frames[last.Stack[len(last.Stack)-1]].Name, "clojure.lang.LazilyPersistentVector.createOwning")
}
