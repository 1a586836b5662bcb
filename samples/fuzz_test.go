package samples_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/atrace2/atrace2/samples"
)

// FuzzRead reads any input: no input may panic, errors are one line, and a
// profile read without error passes Check. The seeds are the case inputs,
// the corpus file when present, and a generated file of every variant.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, file := range files {
		if ar, err := txtar.ParseFile(file); err == nil {
			for _, s := range ar.Files {
				if s.Name == "input" {
					f.Add(s.Data)
				}
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", deque)); err == nil {
		f.Add(b)
	}
	for _, v := range variants {
		data, _, _, _, _, _ := v.write(rand.New(rand.NewPCG(1, 2)))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := samples.Read(bytes.NewReader(data))
		if err != nil {
			var fe *samples.FormatError
			if errors.As(err, &fe) && (fe.Line < 1 || fe.Msg == "") {
				t.Fatalf("FormatError without line or message: %#v", fe)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans several lines: %q", err)
			}
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("Read gave an invalid profile: %v", err)
		}
	})
}

// FuzzRoundTrip writes the random profile of a seed in one variant and
// checks that Read gives it back.
func FuzzRoundTrip(f *testing.F) {
	for i := range variants {
		f.Add(uint64(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, v uint8) {
		roundTrip(t, variants[int(v)%len(variants)], rand.New(rand.NewPCG(seed, 1)))
	})
}
