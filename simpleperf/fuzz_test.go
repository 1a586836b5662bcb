package simpleperf_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/samples"
	"github.com/atrace2/atrace2/simpleperf"
)

// FuzzRead reads any bytes: nothing panics, an error is one line, and a
// profile read without error passes Check and plays a well-formed stream
// (playChecked). The seeds are small generated files of every shape and
// the start of a real one.
func FuzzRead(f *testing.F) {
	for _, sp := range []tracegen.SimpleperfProfile{
		{Seed: 1, Samples: 10, StacksPerThread: 2, OffCPU: true, Lost: 2},
		{Seed: 2, Samples: 10, StacksPerThread: 2, UnknownFiles: 2},
		{Seed: 3, Samples: 6, StacksPerThread: 1, Gzip: true},
	} {
		data, _ := sp.Simpleperf()
		f.Add(data)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "firefox", "simpleperf-cpu-clock.trace.gz")); err == nil {
		f.Add(b[:4096])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := simpleperf.Options{AllEvents: len(data)%2 == 0, Select: samples.Select{Timeline: true}}
		p, err := simpleperf.Read(bytes.NewReader(data), opt)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q spans lines", err)
			}
			return
		}
		if err := p.Check(); err != nil {
			t.Fatal(err)
		}
		sampled.PlayChecked(t, p)
	})
}
