package samples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/samples"
)

// lineNumbers finds line numbers in notes.
var lineNumbers = regexp.MustCompile(`(at line|\(line) \d+`)

// TestCases reads the input of every testdata/cases/*.txtar file and
// compares the profile's dump with the want section, written by hand from
// the writers' sources. The input is also read with CRLF line ends,
// gzip-compressed, and after a byte order mark and blank lines, which must
// change nothing.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	if len(files) == 0 {
		t.Fatal("no testdata/cases/*.txtar")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, want := section(t, ar, "input"), section(t, ar, "want")
			got := readDump(t, input)
			if *testutil.Update { // -update rewrites the want sections of testdata/cases/*.txtar
				setSection(ar, "want", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			crlf := bytes.ReplaceAll(input, []byte("\n"), []byte("\r\n"))
			if again := readDump(t, crlf); again != got {
				t.Errorf("with CRLF line ends:\n%s", again)
			}
			if again := readDump(t, gzipped(t, input)); again != got {
				t.Errorf("gzip-compressed:\n%s", again)
			}
			prefix := "\ufeff"
			if !lineNumbers.MatchString(got) { // blank lines would shift them
				prefix += "\n\n"
			}
			if again := readDump(t, append([]byte(prefix), input...)); again != got {
				t.Errorf("after %q:\n%s", prefix, again)
			}
		})
	}
}

func readDump(t *testing.T, input []byte) string {
	t.Helper()
	p, err := samples.Read(bytes.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return sampled.DumpProfile(p)
}

func section(t *testing.T, ar *txtar.Archive, name string) []byte {
	t.Helper()
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	t.Fatalf("no -- %s -- section", name)
	return nil
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
		}
	}
}
