package tracegen

import (
	"bytes"
	"testing"
)

// WriteLarge streams the same records Large holds in memory.
func TestWriteLargeMatchesLarge(t *testing.T) {
	o := LargeOptions{Bytes: 200_000, Threads: 5, Methods: 50, MaxDepth: 12, Seed: 7}
	tr := Large(o)
	if len(tr.Records) != 200_000/dualRecordSize {
		t.Fatalf("%d records", len(tr.Records))
	}
	var b bytes.Buffer
	if err := WriteLarge(&b, o); err != nil {
		t.Fatal(err)
	}
	bare := *tr
	bare.BareKey = true
	if want := bare.Regular(); !bytes.Equal(b.Bytes(), want) {
		t.Errorf("WriteLarge wrote %d bytes that differ from Large's %d", b.Len(), len(want))
	}
	depth := map[uint32]int{}
	for _, r := range tr.Records {
		if r.Action == Enter {
			depth[r.Thread]++
		} else {
			depth[r.Thread]--
		}
		if depth[r.Thread] < 0 || depth[r.Thread] > 12 {
			t.Fatalf("thread %d at depth %d", r.Thread, depth[r.Thread])
		}
	}
}

// Interleaved changes thread on most records; the default shape on few.
func TestLargeInterleaved(t *testing.T) {
	for _, c := range []struct {
		interleaved bool
		lo, hi      float64 // bounds of the share of records whose thread differs from the previous one's
	}{{false, 0, 0.02}, {true, 0.9, 0.97}} {
		tr := Large(LargeOptions{Bytes: 2_000_000, Seed: 3, Interleaved: c.interleaved})
		switches := 0
		for i := 1; i < len(tr.Records); i++ {
			if tr.Records[i].Thread != tr.Records[i-1].Thread {
				switches++
			}
		}
		share := float64(switches) / float64(len(tr.Records))
		if share < c.lo || share > c.hi {
			t.Errorf("Interleaved %v: %.3f of the records change thread, want %.2f to %.2f", c.interleaved, share, c.lo, c.hi)
		}
	}
}

// Records is the number of records Large makes.
func TestLargeRecords(t *testing.T) {
	for _, il := range []bool{false, true} {
		o := LargeOptions{Bytes: 300_000, Seed: 5, Interleaved: il}
		if got, want := len(Large(o).Records), o.Records(); got != want {
			t.Errorf("Interleaved %v: Large made %d records, Records says %d", il, got, want)
		}
	}
}
