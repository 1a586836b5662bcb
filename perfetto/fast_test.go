package perfetto_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
	"github.com/atrace2/atrace2/perfetto"
)

// TestFastPathBytes: the fast encoders write exactly what the general ones
// write, on every one of byteCases.
func TestFastPathBytes(t *testing.T) {
	if perfetto.ReferenceOnly {
		t.Skip("the atrace2_reference build tag turns the fast path off")
	}
	for name, open := range byteCases(t) {
		t.Run(name, func(t *testing.T) {
			var out [2][]byte
			for i, opt := range []perfetto.Options{perfetto.Reference(perfetto.Options{}), {}} {
				f := open(t)
				out[i] = export(t, f, opt).out
				f.Close()
			}
			if !bytes.Equal(out[0], out[1]) {
				t.Fatalf("fast path: %d bytes, general: %d bytes, not the same", len(out[1]), len(out[0]))
			}
		})
	}
}

// byteCases are the traces whose outputs tests compare byte for byte: the
// policy cases, deep recursion (folded frames), both timelines of the
// sample trace, a large trace with 200 threads (sequence ids past one
// byte), the same with an orphan exit in its last record, and the corpus.
func byteCases(t *testing.T) map[string]func(t *testing.T) *parser.File {
	files := map[string]func(t *testing.T) *parser.File{}
	for _, c := range policyCases {
		files["policy/"+c.name] = func(t *testing.T) *parser.File { return openText(t, c.name+".trace", c.src) }
	}
	files["deep"] = func(t *testing.T) *parser.File { return openText(t, "deep.trace", deepRecursion()) }
	dir := t.TempDir()
	large := filepath.Join(dir, "large.trace")
	lt := tracegen.Large(tracegen.LargeOptions{Bytes: 3 << 20, Threads: 200, Methods: 400, Seed: 9})
	os.WriteFile(large, lt.Regular(), 0o644)
	// A thread whose only record is an exit: an orphan at the very end.
	last := lt.Records[len(lt.Records)-1]
	lt.Records = append(lt.Records, tracegen.Record{Thread: 9999, Method: lt.Records[0].Method,
		Action: tracegen.Exit, CPU: 1, Wall: last.Wall})
	lateOrphan := filepath.Join(dir, "late-orphan.trace")
	os.WriteFile(lateOrphan, lt.Regular(), 0o644)
	paths := map[string]string{"sample": testutil.SampleTrace(t), "large": large, "late-orphan": lateOrphan}
	for _, n := range testutil.CorpusTraces(t) {
		paths["corpus/"+filepath.Base(n)] = n
	}
	for name, path := range paths {
		for _, clock := range []parser.Clock{parser.ClockUnknown, parser.ClockThreadCPU} {
			files[name+"/"+clock.String()] = func(t *testing.T) *parser.File {
				f, err := parser.Open(path, parser.Options{Clock: clock})
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
	}
	return files
}
