package perfetto_test

import (
	"bytes"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/perfetto"
)

// TestOneReadBytes: with a writer it can rewind, the exporter takes a
// trace without orphan exits in one read, and one with orphan exits in two
// after taking back what it wrote; the file is the same, byte for byte, as
// the one two passes write. Only the traces with orphan exits rewind.
func TestOneReadBytes(t *testing.T) {
	if perfetto.ReferenceOnly {
		t.Skip("the atrace2_reference build tag reads every trace twice")
	}
	for name, open := range byteCases(t) {
		t.Run(name, func(t *testing.T) {
			f := open(t)
			defer f.Close()
			var two bytes.Buffer
			tr, err := convert.Run(f, convert.Options{}, convert.Timeline(perfetto.New(&two, perfetto.Options{}), nil))
			if err != nil {
				t.Fatal(err)
			}
			var one bytes.Buffer
			rewinds := 0
			exp := perfetto.New(&one, perfetto.Options{})
			rewind := func() error { rewinds++; one.Reset(); return nil }
			if _, err := convert.Run(f, convert.Options{}, convert.Timeline(exp, rewind)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(one.Bytes(), two.Bytes()) {
				t.Errorf("one read: %d bytes, two passes: %d bytes, not the same", one.Len(), two.Len())
			}
			if want := min(tr.Stats.OrphanExits, 1); int64(rewinds) != want {
				t.Errorf("%d orphan exits, %d rewinds", tr.Stats.OrphanExits, rewinds)
			}
		})
	}
}
