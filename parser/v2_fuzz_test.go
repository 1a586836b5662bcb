package parser_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/atrace2/atrace2/convert"
	"github.com/atrace2/atrace2/internal/tracegen"
	"github.com/atrace2/atrace2/parser"
)

// FuzzV2 reads any input, seeded with generated ART V2 files of every
// layout and container, and runs the converter over it: no input may panic;
// once the header is read, the reader must return exactly the records the
// scan counted, without an error; whatever converts must be balanced.
func FuzzV2(f *testing.F) {
	tr := tracegen.Small(3, "dual", "art")
	tr.Records = append(tr.Records, longRun(12, "dual").Records...)
	wall := tracegen.Small(3, "wall", "art")
	for _, c := range v2Cases() {
		f.Add(tr.V2(c.opt))
		c.opt.NoSummary = true
		f.Add(wall.V2(c.opt))
	}
	f.Add(tr.V2(tracegen.V2Options{Layout: tracegen.V2d, Streaming: true, SplitRecords: 3}))
	f.Add(tr.V2(tracegen.V2Options{Layout: tracegen.V2c, FlushRecords: 5, SplitRecords: 2, NoSummary: true}))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parser.NewFile("fuzz", bytes.NewReader(data), int64(len(data)), parser.Options{})
		if err != nil {
			return
		}
		defer pf.Close()
		r := pf.NewReader()
		var rec parser.Record
		n := int64(0)
		for {
			err := r.ReadRecord(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("ReadRecord after a good header: %v", err)
			}
			n++
		}
		h := pf.Header
		if h.Layout != 0 && n != h.Records {
			t.Fatalf("read %d records, the scan counted %d", n, h.Records)
		}
		// Times past 2^63 ns (292 years, no real trace) saturate in convert.
		convert.Run(pf, convert.Options{}, convert.Output{Exporter: &balanceChecker{}})
	})
}
