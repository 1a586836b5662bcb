package stacks_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/stacks"
)

// aggregate builds the call trees of one trace file, in one read (declared
// as aggregating) or two (declared as needing the orphan frames first).
func aggregate(t *testing.T, path string, oneRead bool) *stacks.TreeBuilder {
	t.Helper()
	f, err := parser.Open(path, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := stacks.New()
	if _, err := convert.Run(f, convert.Options{}, convert.Output{Exporter: a, Enclose: oneRead}); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestOnePassEqualsTwoPasses: the tree built in one read, re-rooting at
// each orphan exit, equals node for node the tree built from two passes,
// where orphan frames open at the thread's start — on every stack-policy
// case, the sample trace and the corpus.
func TestOnePassEqualsTwoPasses(t *testing.T) {
	var paths []string
	cases, _ := filepath.Glob("../testdata/convert/*.txtar")
	dir := t.TempDir()
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tracegen.ParseText(string(ar.Files[0].Data))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(c)+".trace")
		os.WriteFile(p, tr.Regular(), 0o644)
		paths = append(paths, p)
	}
	paths = append(paths, "../testdata/sample.trace")
	corpus, _ := filepath.Glob("../../shared/corpus/*.trace*")
	if len(corpus) == 0 {
		t.Log("../shared/corpus is absent: checking generated traces only")
	}
	for _, p := range corpus {
		if f, err := parser.Open(p, parser.Options{}); err == nil {
			f.Close() // removes the decompressed copy of a .gz
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		two := aggregate(t, p, false)
		one := aggregate(t, p, true)
		if !reflect.DeepEqual(one.Nodes(), two.Nodes()) {
			t.Errorf("%s: one pass gives %d nodes, two passes %d, and they differ",
				filepath.Base(p), len(one.Nodes()), len(two.Nodes()))
		}
	}
}
