package pftrace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil/sampled"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/pftrace"
	"github.com/atrace2/atrace2/samples"
)

// FuzzRead reads any bytes: nothing panics (Sniff neither), an error is
// one line, and a profile read without error passes Check, its timeline
// and window included, and plays a well-formed stream (playChecked). The
// seeds are small generated traces of every kind, plain, gzip-compressed
// and with compressed packets.
func FuzzRead(f *testing.F) {
	for _, sp := range []tracegen.StackProfile{
		{Seed: 1, Samples: 12, StacksPerThread: 2, ClearEvery: 5, UnknownStacks: 1, Skipped: 1},
		{Seed: 2, Samples: 12, StacksPerThread: 2, Kind: tracegen.StreamingSamples},
		{Seed: 3, Samples: 12, StacksPerThread: 2, Kind: tracegen.StackSampleSamples, SplitInterned: true},
		{Seed: 4, Samples: 8, StacksPerThread: 1, CompressEvery: 4},
		{Seed: 5, Samples: 8, StacksPerThread: 1, Gzip: true, Obfuscate: true},
	} {
		data, _ := sp.Perfetto()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pftrace.Sniff(data[:min(len(data), 4096)]) // a guess: it must not panic
		sel := samples.Select{Timeline: true, Windowed: len(data)%2 == 0, From: 1000, To: samples.NoEnd}
		p, err := pftrace.Read(bytes.NewReader(data), pftrace.Options{Select: sel})
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
