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
