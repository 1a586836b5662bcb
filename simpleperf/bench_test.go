package simpleperf_test

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/simpleperf"
)

// BenchmarkRead reads a generated file of 100 000 cpu-clock samples (a
// record is a sample), plain and gzip-compressed.
func BenchmarkRead(b *testing.B) {
	for _, c := range []struct {
		name string
		sp   tracegen.SimpleperfProfile
	}{
		{"plain", tracegen.SimpleperfProfile{Seed: 41, Samples: 100_000}},
		{"gzip", tracegen.SimpleperfProfile{Seed: 41, Samples: 100_000, Gzip: true}},
	} {
		data, _ := c.sp.Simpleperf()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			report := testutil.PerRecord(b, c.sp.Samples)
			for b.Loop() {
				if _, err := simpleperf.Read(bytes.NewReader(data), simpleperf.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			report()
		})
	}
}
