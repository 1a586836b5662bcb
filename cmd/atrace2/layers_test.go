package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoReaderInCLI: the commands reach every input family through the
// load stage (internal/driver) and its one model, so no command file
// imports a reader, nor does the call tree: a command cannot branch on
// the family of its input, and a new family plugs in as a reader.
func TestNoReaderInCLI(t *testing.T) {
	readers := []string{"parser", "samples", "pftrace", "simpleperf", "mapping", "internal/profbuild"}
	for _, dir := range []string{".", "../../stacks", "../../stream"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		n := 0
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			n++
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, r := range readers {
					if path == "github.com/atrace2/atrace2/"+r || strings.HasPrefix(path, "github.com/atrace2/atrace2/"+r+"/") {
						t.Errorf("%s imports %s", file, path)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no Go files", dir)
		}
	}
}
