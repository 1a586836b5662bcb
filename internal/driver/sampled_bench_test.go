package driver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/input"
	"github.com/atrace2/atrace2/internal/testutil"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/stream"
)

// BenchmarkSampled loads files of 100,000 stack samples through the load
// stage, as the commands do: identified from their bytes, read for the
// process with the most samples, Java copies merged, into the call tree
// (tree: top, pprof, folded), and with the timeline played to an
// exporter that counts its events (timeline: what perfetto and
// speedscope get, without their own costs).
// ns/record is per sample of the file.
func BenchmarkSampled(b *testing.B) {
	pf, _ := tracegen.StackProfile{Seed: 31, Samples: 100_000, Sequences: 2, ClearEvery: 20_000}.Perfetto()
	spf, _ := tracegen.SimpleperfProfile{Seed: 31, Samples: 100_000, Hz: 100}.Simpleperf()
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{{"perfetto", pf}, {"simpleperf", spf}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			b.Fatal(err)
		}
		f := Flags{Quiet: true, Clock: "auto", TimeUnit: "auto", MaxDepth: 10000, MappingMismatch: "error"}
		opt, err := NewOptions(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, timeline := range []bool{false, true} {
			name := c.name + "/tree"
			if timeline {
				name = c.name + "/timeline"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(c.data)))
				b.ReportAllocs()
				report := testutil.PerRecord(b, 100_000)
				for b.Loop() {
					d := New(opt, input.NewOpener(nil), nil)
					in, err := d.Load(input.Arg{Path: path})
					if err != nil {
						b.Fatal(err)
					}
					if !timeline {
						if _, err := in.Tree(); err != nil {
							b.Fatal(err)
						}
						continue
					}
					var n counter
					if _, err := in.Run(true, convert.Timeline(&n, nil)); err != nil || n == 0 {
						b.Fatal(err, n)
					}
				}
				report()
			})
		}
	}
}

// counter is an exporter that counts the events it gets.
type counter int

func (c *counter) Begin(*stream.Trace) error    { return nil }
func (c *counter) Finish(*stream.Trace) error   { return nil }
func (c *counter) Events(b *stream.Batch) error { *c += counter(len(b.Events)); return nil }
